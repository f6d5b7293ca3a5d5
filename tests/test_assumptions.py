"""What decides the answer: each setting given (by the scenario or a --set) or assumed, read
from the parsed scenario's fields; the header of run, explain and compare; the JSON object."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import BASE, ROOT, TEST_SCENARIOS

from cephsim.api import load_resolved
from cephsim.formats.readers.fio_text import read_fio_text
from cephsim.formats.report.assumptions import (
    assumptions,
    compare_text,
    header_text,
    leaves,
)
from cephsim.model.software import software_table

QS = ROOT / "scenarios" / "quickstart.yaml"
OSDS = "    osds: {count: 1, disk: pm9a3}\n"
#: BASE whose OSD hosts are tuned: governor and deepest idle state given
TUNED = BASE.replace(OSDS, OSDS + "    tuning: {governor: performance, max_cstate: C1}\n")


def _scenario(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def _load(path: Path, sets: list[str] | None = None) -> dict:
    sc, r = load_resolved(path, sets or [])
    return assumptions(sc, r, sets or [])


def _block(text: str, group: str) -> tuple[str, str]:
    """A group's given and assumed settings in the header, whitespace folded."""
    body = []
    for ln in text.split(f"\n  {group} (", 1)[1].splitlines()[1:]:
        if not ln.startswith("    "):
            break
        body.append(ln)
    given, _, assumed = " ".join(" ".join(body).split()).partition("assumed:")
    return given[given.find("given:"):] if "given:" in given else "", assumed  # past the runs line


def _setting(a: dict, field: str) -> dict:
    found = [s for g in a["host_groups"] for s in g["settings"] if s["field"] == field]
    found += [s for s in a["network"]["settings"] if s["field"] == field]
    assert len(found) == 1, field
    return found[0]


# ------------------------------------------------------------------ given or assumed


def test_a_governor_given_and_one_left_out(tmp_path):
    """The same AMD hosts: tuned, the governor and C-state limit are given; untuned, the
    kernel's defaults are assumed: schedutil (acpi-cpufreq's default) and every idle state
    of the platform's table, down to C2."""
    tuned = _load(_scenario(tmp_path, TUNED, "tuned.yaml"))
    gov = _setting(tuned, "hosts.osd.tuning.governor")
    assert (gov["value"], gov["given"], gov["by"]) == ("performance", True, "scenario")
    cst = _setting(tuned, "hosts.osd.tuning.max_cstate")
    assert (cst["value"], cst["given"]) == ("C1", True)

    plain = _load(_scenario(tmp_path, BASE, "plain.yaml"))
    gov = _setting(plain, "hosts.osd.tuning.governor")
    assert (gov["value"], gov["written"], gov["given"], gov["by"]) == ("schedutil", "auto",
                                                                        False, None)
    assert "acpi-cpufreq" in gov["note"]
    cst = _setting(plain, "hosts.osd.tuning.max_cstate")
    assert (cst["value"], cst["written"], cst["given"]) == ("C2", None, False)
    drv = _setting(plain, "hosts.osd.tuning.cpufreq_driver")
    assert (drv["value"], drv["written"], drv["given"]) == ("acpi-cpufreq", "auto", False)
    osd = plain["host_groups"][0]
    assert [s["name"] for s in osd["idle_states"]] == ["POLL", "C1", "C2"]
    assert [s["exit_latency_ns"] for s in osd["idle_states"]] == [0, 1000, 400_000]

    # and in the header's words: under "given" in one, "assumed" with the default in the other
    given, assumed = _block(header_text(tuned), "osd")
    assert given.startswith("given: cpu epyc-7313p, nic connectx5-25g, osds.disk pm9a3")
    assert "tuning.max_cstate C1" in given and "tuning.governor performance" in given
    assert "tuning.governor" not in assumed and "tuning.boost on" in assumed
    t = header_text(plain)
    given, assumed = _block(t, "osd")
    assert "tuning" not in given
    assert "tuning.governor schedutil (auto: acpi-cpufreq's default)" in assumed
    assert "tuning.max_cstate C2 (every idle state of the table)" in assumed
    # each state's declared exit latency, then the wake-up the model charges (catalog figures)
    assert "osd (3 hosts): acpi-cpufreq / schedutil; idle states (exit latency/charged) POLL 0/0, " \
           "C1 1us/80ns, C2 400us/5.5us" in " ".join(t.split())


def test_intel_defaults_name_the_driver_and_whether_the_processor_picks_the_clock(tmp_path):
    """An Intel CPU left to the kernel runs intel_pstate's powersave: with HWP (Ice Lake) the
    processor picks the clock, without it (Broadwell) the driver does."""
    for cpu, meaning in (("xeon-8380", "HWP"), ("xeon-e5-2695v4", "no HWP")):
        a = _load(_scenario(tmp_path, BASE.replace("epyc-7313p", cpu)))
        drv = _setting(a, "hosts.osd.tuning.cpufreq_driver")
        assert (drv["value"], drv["given"]) == ("intel_pstate", False)
        assert "an Intel CPU" in drv["note"]
        gov = _setting(a, "hosts.osd.tuning.governor")
        assert gov["value"] == "powersave" and meaning in gov["note"], gov


def test_the_json_governor_is_the_kernels_and_says_who_picks_the_clock(tmp_path, run_cli):
    """power.*.governor and the header's host group hold what cpupower frequency-info
    prints (powersave), not the model's name for the P-state driver's choice (hwp or
    intel_pstate), which clock_picked_by gives; a result file written before that key
    still reads as it did."""
    from cephsim.formats.report.assumptions import _runs

    for cpu, by in (("xeon-8380", "hwp"), ("xeon-e5-2695v4", "intel_pstate"),
                    ("epyc-7313p", None)):
        p = _scenario(tmp_path, BASE.replace("epyc-7313p", cpu).replace("ios: 300", "ios: 100"))
        doc = run_cli("run", p, "-f", "json", "-q").json()["cephsim"]
        power = doc["power"]["osd"]
        want = "schedutil" if by is None else "powersave"
        assert (power["governor"], power["clock_picked_by"]) == (want, by), power
        group = doc["assumptions"]["host_groups"][0]
        assert (group["governor"], group["clock_picked_by"]) == (want, by), group
    old = {"cpufreq_driver": "intel_pstate", "governor": "hwp", "idle_states": []}
    assert "intel_pstate / powersave (HWP/CPPC: the processor picks the clock);" in \
        " ".join(_runs("x", old, None, 200))


def test_set_counts_as_given_and_is_named(tmp_path):
    """A --set is given, named by its text, whether it names the group or its index; a --set
    of a whole section replaces it, so a field the file wrote there is no longer given."""
    p = _scenario(tmp_path, BASE.replace(OSDS, OSDS + "    tuning: {max_cstate: C1}\n"))
    for field in ("hosts.osd.tuning.governor", "hosts.0.tuning.governor"):
        a = _load(p, [f"{field}=performance", "run.ios=100"])
        gov = _setting(a, "hosts.osd.tuning.governor")
        assert (gov["value"], gov["given"], gov["by"]) == ("performance", True,
                                                           f"--set {field}=performance")
        cst = _setting(a, "hosts.osd.tuning.max_cstate")
        assert (cst["given"], cst["by"]) == (True, "scenario")
        assert {"field": "run.ios", "value": 100, "by": "--set run.ios=100"} in a["given"]
        assert "tuning.governor performance (by --set)" in header_text(a)
    a = _load(p, ["hosts.osd.tuning={governor: performance}"])
    assert _setting(a, "hosts.osd.tuning.governor")["by"] == (
        "--set hosts.osd.tuning={governor: performance}")
    cst = _setting(a, "hosts.osd.tuning.max_cstate")
    assert (cst["value"], cst["given"]) == ("C2", False)
    # a figure of a catalog disk changed by --set: the disk is given by that --set
    disk = _setting(_load(p, ["hosts.osd.osds.disk.write_4k=15us"]), "hosts.osd.osds.disk")
    assert disk["given"] and disk["by"] == "--set hosts.osd.osds.disk.write_4k=15us"
    assert disk["note"] == "inline" and "changed by --set" in disk["value"]


def test_every_field_is_reported_once(tmp_path):
    """Each field of the scenario is in exactly one place: a setting that decides the answer,
    the other fields given, or the other fields left at their defaults (a section left out,
    such as the spine routers' tuning, by its fields)."""
    for path in (QS, ROOT / "scenarios" / "tuned-routers-balanced.yaml",
                 ROOT / "scenarios" / "stretch-two-sites.yaml", TEST_SCENARIOS / "constant.yaml"):
        sc, r = load_resolved(path)
        a = assumptions(sc, r)
        c = a["costs"]
        items = [c["release"]["field"], c["profile"]["field"], c["stage_overrides"]["field"],
                 c["build"]["field"]]
        items += [s["field"] for g in a["host_groups"] for s in g["settings"]]
        items += [s["field"] for s in a["network"]["settings"]]
        items += [s["field"] for s in (a["network"].get("routers") or {}).get("settings", [])]
        items += [f["field"] for f in a["given"] + a["defaults"]]
        for p, _, _ in leaves(sc):
            covering = [f for f in items if f == p or f.startswith(p + ".")]
            assert len(covering) >= 1, (path.name, p)
            assert len([f for f in items if f == p]) <= 1, (path.name, p)
        assert len(items) == len(set(items)), path.name


def test_default_fields_hold_their_defaults_and_given_ones_their_values(tmp_path):
    a = _load(_scenario(tmp_path, BASE))
    defaults = {f["field"]: f["value"] for f in a["defaults"]}
    given = {f["field"]: f["value"] for f in a["given"]}
    assert defaults["network.mtu"] == 1500 and defaults["ceph.osd_memory_target"] == 4 * 1024**3
    assert defaults["workload.iodepth"] == 1 and "workload.iodepth" not in given
    assert given["workload.bs"] == 4096 and given["pool.size"] == 3 and given["run.ios"] == 300
    rel = a["costs"]["release"]
    assert (rel["value"], rel["given"]) == ("reef", False)  # the schema's default release


def test_an_erasure_pools_profile_defaults_are_assumed(tmp_path):
    """k, m and technique default to Ceph's default profile and size follows them: assumed,
    not given, unless the file writes them."""
    text = BASE.replace("count: 3", "count: 4").replace("pool: {size: 3}", "pool: {type: erasure}")
    a = _load(_scenario(tmp_path, text))
    defaults = {f["field"]: f["value"] for f in a["defaults"]}
    assert {k: defaults[f"pool.{k}"] for k in ("k", "m", "size", "technique")} == {
        "k": 2, "m": 2, "size": 4, "technique": "reed_sol_van"}
    a = _load(_scenario(tmp_path, text.replace("type: erasure", "type: erasure, k: 3, m: 1")))
    given = {f["field"]: f["value"] for f in a["given"]}
    defaults = {f["field"]: f["value"] for f in a["defaults"]}
    assert (given["pool.k"], given["pool.m"], defaults["pool.size"]) == (3, 1, 4)


# ------------------------------------------------------------------ the costs


def test_every_built_in_release_says_whether_it_was_fitted_on_its_own_clusters():
    """The header reads this from the release's basis: a rewording there must not leave a
    release unexplained."""
    from cephsim.formats.report.assumptions import _FITTED_ON, _PRIOR

    kinds = set()
    for rel, c in software_table().releases.items():
        fitted = _FITTED_ON.search(c.basis)
        assert bool(fitted) != (_PRIOR in c.basis), rel
        kinds.add(bool(fitted))
    assert kinds == {True, False}


@pytest.mark.parametrize(("release", "profile", "words"), [
    ("reef", None, ["reef built-in, scale 2.11 +/- 12 %", "fitted on this release's clusters "
                    "(mako)"]),
    ("squid", None, ["squid built-in, scale 2.11 +/- 24 %", "no cluster of this release"]),
    ("reef", "constant.yaml", ["profile profiles/constant.yaml (fitted for reef): scale 1"]),
    ("quincy", "constant.yaml", ["profile profiles/constant.yaml (fitted for reef, not for quincy): "
                                       "scale 1"]),
    ("reef", "no-jitter.yaml", ["reef built-in, scale 2.11 +/- 12 %",
                                "other costs from profile profiles/no-jitter.yaml"]),
])
def test_the_costs_name_their_source_and_whether_they_fit_this_release(release, profile, words):
    sets = [f"ceph.release={release}"] + ([f"ceph.profile=profiles/{profile}"] if profile else [])
    sc, r = load_resolved(TEST_SCENARIOS / "constant.yaml", sets)
    if profile is None:  # the test scenario's own profile left out
        sc, r = load_resolved(TEST_SCENARIOS / "constant.yaml", sets + ["ceph.profile=null"])
    a = assumptions(sc, r, sets)
    c = a["costs"]
    assert c["fitted_for_release"] is (release == "reef" or (profile == "constant.yaml"
                                                              and release == "reef"))
    text = " ".join(header_text(a).split())
    for w in words:
        assert w in text, text


# ------------------------------------------------------------------ the text


def test_alike_groups_are_shown_once_and_lines_fit():
    """Groups that agree in every setting shown (storage hosts split by site) share one block;
    no line of any shipped scenario's header runs past 100 columns."""
    sc, r = load_resolved(ROOT / "scenarios" / "osiris-osd-netem.yaml")
    t = header_text(assumptions(sc, r), "cephsim: ")
    assert "um-stor, wsu-stor, msu-stor (3 hosts): intel_pstate / performance;" in t
    for path in sorted((ROOT / "scenarios").glob("*.yaml")):
        sc, r = load_resolved(path)
        clocks = {g.name: 3.0 for g in sc.hosts}
        long = [ln for ln in header_text(assumptions(sc, r), "cephsim: ", clocks=clocks)
                .splitlines() if len(ln) > 100]
        assert not long, (path.name, long)


def test_compare_text_marks_what_differs_and_lists_what_is_the_same(tmp_path):
    tuned = _load(_scenario(tmp_path, TUNED, "tuned.yaml"))
    plain = _load(_scenario(tmp_path, BASE, "plain.yaml"))
    t = compare_text([("tuned", tuned), ("plain", plain)])
    rows = {" ".join(ln.split()[1:3]): ln for ln in t.splitlines() if ln.lstrip().startswith("*")}
    assert "performance (given)" in rows["osd: tuning.governor"]
    assert "schedutil (assumed" in rows["osd: tuning.governor"]
    assert "POLL 0/0, C1 1us/80ns, C2" in rows["osd: idle"]  # the cell wraps: 400us/5.5us below
    assert "400us/5.5us" in t.split(rows["osd: idle"], 1)[1].splitlines()[1]
    assert "osd: cpu" not in rows and "client: tuning.governor" not in rows
    same = " ".join(t.split("The same on every side:")[1].split())
    assert "osd: cpu epyc-7313p (given)" in same and "client: tuning.governor schedutil" in same
    # a measured side has none; one left is shown as run shows it; a broken one is named
    assert compare_text([("sim", tuned), ("fio", None)]).startswith("sim:\nwhat decides")
    t = compare_text([("sim", tuned), ("edited", {"costs": {}})])
    assert "edited: its result file's assumptions could not be read" in t


# ------------------------------------------------------------------ the commands


def test_run_text_header_and_fio_text_still_read(run_cli, tmp_path):
    """The header sits between run's first line and fio's report, every line marked
    'cephsim:'; fio's text reader reads the report as it did, the same numbers as JSON."""
    p = _scenario(tmp_path, BASE)
    r = run_cli("run", p, "--set", "hosts.client.tuning.governor=performance", "-q")
    assert r.exit_code == 0, r.output
    head = r.stdout.split("small: (groupid=0")[0].splitlines()
    assert all(ln.startswith("cephsim: ") for ln in head) and len(head) > 10
    text = "\n".join(head)
    assert "tuning.governor performance (by --set)" in text
    assert "tuning.governor schedutil (auto: acpi-cpufreq's default)" in text
    assert "work ran at" in text and "more fields at their defaults" in text
    out = tmp_path / "run.txt"
    out.write_text(r.stdout)
    w = read_fio_text(out).jobs[0].directions["write"]
    doc = run_cli("run", p, "--set", "hosts.client.tuning.governor=performance", "-f", "json",
                  "-q").json()
    fw = doc["jobs"][0]["write"]
    assert w.io_bytes == fw["io_bytes"] == 300 * 4096
    assert w.lat.mean_ns == pytest.approx(fw["lat_ns"]["mean"], rel=1e-3)
    gov = [s for g in doc["cephsim"]["assumptions"]["host_groups"] for s in g["settings"]
           if s["field"] == "hosts.client.tuning.governor"]
    assert gov[0]["by"] == "--set hosts.client.tuning.governor=performance"


def test_compare_and_compare_fio_show_what_decides(run_cli, tmp_path):
    tuned = _scenario(tmp_path, TUNED.replace("name: small", "name: tuned"), "tuned.yaml")
    plain = _scenario(tmp_path, BASE.replace("name: small", "name: plain"), "plain.yaml")
    args = ["compare", tuned, plain, "--seeds", "1", "-j", "1", "-q", "--set", "run.ios=200"]
    r = run_cli(*args)
    assert r.exit_code == 0, r.output
    head, results = r.stdout.split("write: compared with A")
    assert "What decides the answer" in head and "IOPS" in results
    gov = next(ln for ln in head.splitlines() if "osd: tuning.governor" in ln)
    assert gov.lstrip().startswith("*") and "performance (given)" in gov and "schedutil" in gov
    doc = run_cli(*args, "-f", "json").json()
    a, b = (s["assumptions"] for s in doc["inputs"])
    assert _setting(a, "hosts.osd.tuning.governor")["given"] is True
    assert _setting(b, "hosts.osd.tuning.governor")["given"] is False
    assert {"field": "run.ios", "value": 200, "by": "--set run.ios=200"} in a["given"]

    sim = tmp_path / "sim.json"
    assert run_cli("run", plain, "-f", "json", "-o", sim, "-q").exit_code == 0
    r = run_cli("compare-fio", sim, ROOT / "tests" / "fixtures" / "fio" /
                "randwrite4k_libaio_normal.txt")
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("simulated plain:\nwhat decides the answer")
    assert "tuning.governor schedutil (auto: acpi-cpufreq's default)" in r.stdout
    sides = json.loads(run_cli("compare-fio", sim, ROOT / "tests" / "fixtures" / "fio" /
                               "randwrite4k_libaio_normal.txt", "-f", "json").stdout)["inputs"]
    assert [s["label"] for s in sides] == ["measured", "simulated"]
    assert sides[0]["assumptions"] is None and sides[1]["assumptions"] is not None


def test_explain_shows_what_decides_before_the_timeline(run_cli, tmp_path):
    p = _scenario(tmp_path, TUNED)
    r = run_cli("explain", p, "--no-ablations", "-q", "--set", "hosts.client.tuning.smt=false")
    assert r.exit_code == 0, r.output
    head = r.stdout.split("Timeline of the op")[0]
    assert "what decides the answer" in head
    assert "tuning.governor performance" in _block(head, "osd")[0]
    assert "tuning.smt off (by --set)" in _block(head, "client")[0]
