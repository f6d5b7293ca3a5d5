"""``cephsim init``: real command outputs (tests/fixtures/init, sources in its SOURCE.md)
become a scenario that validates and runs; bad collections are located errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT, assert_short_error

from cephsim.tools.init.build import match_cpu, match_disk, match_nic

FIXTURES = ROOT / "tests" / "fixtures" / "init"


def test_parts_match_the_catalog_by_what_they_report():
    assert match_cpu("AMD EPYC 7313P 16-Core Processor")[0] == "epyc-7313p"
    assert match_cpu("Intel(R) Xeon(R) Gold 6242 CPU @ 2.80GHz")[0] == "xeon-6242"
    assert match_cpu("Intel(R) Xeon(R) CPU E5-2683 v4 @ 2.10GHz")[0] == "xeon-e5-2683v4"
    assert match_cpu("Intel(R) Xeon(R) Platinum 8480+")[0] == "xeon-8480plus"
    assert match_cpu("Ampere(R) Altra(R) Processor Q80-30")[0] is None
    assert match_disk("SAMSUNG MZQL23T8HCLS-00A07") == "pm9a3"
    assert match_disk("INTEL SSDSC2KB480G8") == "s4510-480g"
    assert match_disk("no such drive") is None
    assert match_nic("mlx5_core", 25000) == "connectx5-25g"
    assert match_nic("virtio_net", None) == "virtio-net-vhost-25g"


@pytest.mark.parametrize(("model", "id_"), [
    # the model strings guests of current cloud instance families report (lscpu 'Model name')
    ("Intel(R) Xeon(R) Platinum 8488C", "xeon-8488c"),                # AWS M7i, C7i, R7i
    ("AMD EPYC 7R13 Processor", "epyc-7r13"),                         # AWS M6a, C6a, R6a
    ("AMD EPYC 7R13 48-Core Processor", "epyc-7r13"),
    ("AMD EPYC 9R14", "epyc-9r14"),                                   # AWS M7a, C7a, R7a
    ("Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz", "xeon-8259cl"),  # AWS M5, R5
    ("Intel(R) Xeon(R) Platinum 8175M CPU @ 2.50GHz", "xeon-8175m"),    # AWS M5, T3
    ("Intel(R) Xeon(R) Platinum 8124M CPU @ 3.00GHz", "xeon-8124m"),    # AWS C5
    ("Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz", "xeon-8481c"),    # Google C3
    ("AMD EPYC 7B12", "epyc-7b12"), ("AMD EPYC 7B13", "epyc-7b13"),      # Google N2D
    ("AMD EPYC 9B14", "epyc-9b14"),                                   # Google C3D
    ("Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz", "xeon-8370c"),    # Azure Dv5, Ev5
    ("AMD EPYC 9V74 80-Core Processor", "epyc-9v74"),                 # Azure Dasv6
])
def test_cloud_guests_match_their_host_cpu(model, id_):
    assert match_cpu(model) == (id_, "model number")


@pytest.mark.parametrize(("model", "id_"), [
    ("Intel(R) Xeon(R) Platinum 8488C", "xeon-8488c"),
    ("AMD EPYC 7R13 Processor", "epyc-7r13"),
])
def test_an_instance_gets_its_catalog_cpu_and_the_vm_section(tmp_path, run_cli, model, id_):
    """cluster-a's lscpu (a KVM guest) with the model name an AWS M7i or M6a guest reports:
    the scenario names the catalog CPU and keeps the vm section."""
    import re
    import shutil

    d = tmp_path / "c"
    shutil.copytree(FIXTURES / "cluster-a", d)
    lscpu = d / "lscpu.txt"
    lscpu.write_text(re.sub(r"^Model name:.*$", f"Model name:                      {model}",
                            lscpu.read_text(), flags=re.M))
    sc, text = _scenario(run_cli, d, tmp_path)
    assert sc.hosts[0].cpu == id_ and sc.hosts[0].vm is not None
    assert f"CPU '{model}' -> catalog {id_} (model number)" in text


def _write(d: Path, name: str, text: str) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_text(text)
    return d


def test_an_empty_directory(tmp_path, run_cli):
    (tmp_path / "empty").mkdir()
    r = run_cli("init", "--from", tmp_path / "empty", "--yes")
    assert_short_error(r, "no files in it")


def test_truncated_osd_metadata_is_located(tmp_path, run_cli):
    d = _write(tmp_path / "c", "meta.json", '[{"id": 0, "hostname": "a",\n "cpu": "AMD EPYC')
    r = run_cli("init", "--from", d, "--yes")
    assert_short_error(r, "meta.json:2:", "not valid JSON")


OTHER_FILES = [
    ("df.json", '{"stats": {"total_bytes": 1}, "pools": []}\n'),   # ceph df -f json
    ("free.txt", "              total        used\nMem:  1 2\n"),  # free, its header cut
    ("notes.md", "# what I ran\nceph osd metadata -f json > meta.json\n"),
]


@pytest.mark.parametrize("name,text", OTHER_FILES)
def test_a_file_of_another_command_is_skipped_with_a_note(tmp_path, run_cli, name, text):
    """File names do not matter (README): what is no output init reads is left out, with a
    note, and the rest of the directory still makes the scenario."""
    import shutil

    d = tmp_path / "c"
    shutil.copytree(FIXTURES / "cluster-a", d)
    (d / name).write_text(text)
    r = run_cli("init", "--from", d, "--yes")
    assert r.exit_code == 0, r.stderr
    assert f"cephsim init: {d / name}: skipped, " in r.stderr
    assert "not the output of a command init reads" in r.stderr
    assert "name: my-cluster" in r.stdout


def test_a_binary_file_is_skipped_too(tmp_path, run_cli):
    import shutil

    d = tmp_path / "c"
    shutil.copytree(FIXTURES / "cluster-a", d)
    (d / "collected.tar.gz").write_bytes(b"\x1f\x8b\x08\x00\xff\xfe")
    r = run_cli("init", "--from", d, "--yes")
    assert r.exit_code == 0, r.stderr
    assert "collected.tar.gz: skipped, not UTF-8 text (byte 1)" in r.stderr


def test_only_other_files_is_refused_naming_them(tmp_path, run_cli):
    d = tmp_path / "c"
    for name, text in OTHER_FILES:
        _write(d, name, text)
    r = run_cli("init", "--from", d, "--yes")
    assert_short_error(r, "needs one of them", "skipped as no output it reads: df.json, "
                       "free.txt, notes.md")


def test_no_osd_hosts_among_the_files(tmp_path, run_cli):
    d = _write(tmp_path / "c", "ping.txt", "rtt min/avg/max/mdev = 0.1/0.2/0.3/0.01 ms\n")
    r = run_cli("init", "--from", d, "--yes")
    assert_short_error(r, "needs one of them")


def test_osd_metadata_without_hostnames(tmp_path, run_cli):
    d = _write(tmp_path / "c", "m.json", '[{"id": 0, "osd_objectstore": "bluestore"}]')
    r = run_cli("init", "--from", d, "--yes")
    assert_short_error(r, "m.json", "no hostname")


def test_every_matching_rule_names_a_catalog_entry():
    from cephsim.catalog.load import load_catalog
    from cephsim.tools.init.build import _rules

    c, r = load_catalog(), _rules()
    assert all(x["id"] in c.disks for x in r["disks"])
    assert all(x["id"] in c.nics for x in r["nics"])


@pytest.mark.parametrize("cluster", ["cluster-a", "cluster-b"])
def test_real_outputs_become_a_scenario_that_validates_and_runs(tmp_path, run_cli, cluster):
    """cluster-a: a real Octopus cluster's osd metadata, tree, pools, versions, lscpu (a KVM
    guest), ethtool (virtio), with cpupower, config dump and nvme list from other
    postings; cluster-b: one Luminous OSD's metadata alone (an unlisted Sandy Bridge CPU,
    an HDD with no model).  Both: neither CPU is in the catalog."""
    out = tmp_path / "s.yaml"
    r = run_cli("init", "--from", FIXTURES / cluster, "-o", out, "--yes")
    assert r.exit_code == 0, r.stderr
    text = out.read_text()
    assert "ASSUMED" in text and "not in the catalog" in text
    assert run_cli("validate", out).exit_code == 0
    r = run_cli("run", out, "--set", "run.ios=300")
    assert r.exit_code == 0, r.stderr
    assert "I/Os measured" in r.stdout


def test_what_cluster_a_says_is_what_the_scenario_says(tmp_path, run_cli):
    from cephsim.scenario.load import load_scenario

    out = tmp_path / "s.yaml"
    run_cli("init", "--from", FIXTURES / "cluster-a", "-o", out, "--yes")
    sc = load_scenario(out)
    osd = sc.hosts[0]
    assert osd.count == 3 and osd.osds.count == 1                   # ceph osd tree
    assert sc.ceph.release == "octopus" and sc.ceph.version == "15.2.14"  # ceph versions
    assert sc.pool.size == 3                                         # pool ls detail
    assert osd.vm is not None and osd.nic == "virtio-net-vhost-25g"  # lscpu, ethtool -i
    assert osd.cpu.microarch == "skylake"                            # 'Skylake, IBRS'
    assert osd.tuning.governor == "performance"                      # cpupower
    assert "cephsim init: ASSUMED" in run_cli("init", "--from", FIXTURES / "cluster-a",
                                              "--yes").stderr


def test_a_ping_between_hosts_is_read_by_the_ping_reader(tmp_path, run_cli):
    """The ping file goes through the same reader as `cephsim inspect` (units included)."""
    import shutil

    d = tmp_path / "c"
    shutil.copytree(FIXTURES / "cluster-a", d)
    (d / "ping.txt").write_text("rtt min/avg/max/mdev = 0.112/0.131/0.150/0.010 ms\n")
    r = run_cli("init", "--from", d, "--yes")
    assert r.exit_code == 0, r.stderr
    assert "ping between hosts: avg 131 us" in r.stderr


# ---------------------------------------------------------------- erasure-code profiles

PROFILES = FIXTURES / "ec-profiles"


def _ec_cluster(tmp_path: Path, pool: dict, *profiles: str, rename: dict | None = None) -> Path:
    """cluster-a with its first RBD pool ('glance') made erasure-coded as ``pool`` says, and
    the named profile fixtures beside it (under another name where ``rename`` says)."""
    import json
    import shutil

    d = tmp_path / "c"
    shutil.copytree(FIXTURES / "cluster-a", d)
    pools = json.loads((d / "ceph-pool-ls-detail.json").read_text())
    glance = next(p for p in pools if p["pool_name"] == "glance")
    glance.update(type=3, flags_names="hashpspool,ec_overwrites", **pool)
    (d / "ceph-pool-ls-detail.json").write_text(json.dumps(pools, indent=4))
    for name in profiles:
        shutil.copy(PROFILES / name, d / (rename or {}).get(name, name))
    return d


def _scenario(run_cli, d: Path, tmp_path: Path):
    from cephsim.scenario.load import load_scenario

    out = tmp_path / "s.yaml"
    r = run_cli("init", "--from", d, "-o", out, "--yes")
    assert r.exit_code == 0, r.stderr
    return load_scenario(out), out.read_text()


@pytest.mark.parametrize("name,k,m,plugin,domain,technique", [
    ("ecPool1_ecprofile.json", 2, 1, "jerasure", "osd", "reed_sol_van"),  # -f json, Jewel keys
    ("default.json", 2, 1, "jerasure", None, "reed_sol_van"),  # -f json-pretty, no domain
    ("k4m2.txt", 4, 2, "jerasure", "host", "reed_sol_van"),  # plain form
    ("none_profile.txt", 4, 2, "jerasure", "osd", "reed_sol_van"),  # Squid's keys
    ("cephfs.txt", 5, 2, "jerasure", "host", "reed_sol_van"),
])
def test_every_form_of_a_profile_is_read(name, k, m, plugin, domain, technique):
    from cephsim.tools.init.collect import Collected, _read_file

    got = Collected()
    assert _read_file(PROFILES / name, got) == "ec_profile"
    (p,) = got.ec_profiles
    assert (p.k, p.m, p.plugin, p.fields.get("technique")) == (k, m, plugin, technique)
    assert (p.fields.get("crush-failure-domain") or p.fields.get("ruleset-failure-domain")) \
        == domain
    assert p.chunks() == k + m


def test_an_ec_pool_gets_its_profile_by_name(tmp_path, run_cli):
    """Rook's profile (k=2 m=1, ruleset-failure-domain=osd) in a file named after the pool's
    profile; the default profile beside it has as many chunks but is not the pool's."""
    d = _ec_cluster(tmp_path, {"size": 3, "erasure_code_profile": "ecPool1_ecprofile",
                               "stripe_width": 8192}, "ecPool1_ecprofile.json", "default.json")
    sc, text = _scenario(run_cli, d, tmp_path)
    p = sc.pool
    assert (p.type, p.k, p.m, p.size, p.failure_domain) == ("erasure", 2, 1, 3, "osd")
    assert (p.plugin, p.technique, p.stripe_unit) == ("jerasure", "reed_sol_van", 4096)
    assert "profile ecPool1_ecprofile from ecPool1_ecprofile.json names it" in text
    assert "erasure-coded (profile" not in text  # no guess of k and m
    r = run_cli("run", tmp_path / "s.yaml", "--set", "run.ios=300")
    assert r.exit_code == 0, r.stderr


def test_an_unnamed_profile_is_taken_only_when_it_alone_fits(tmp_path, run_cli):
    rename = {"ecPool1_ecprofile.json": "profile.json"}
    d = _ec_cluster(tmp_path, {"size": 3, "erasure_code_profile": "ecPool1_ecprofile",
                               "stripe_width": 8192}, "ecPool1_ecprofile.json", rename=rename)
    sc, text = _scenario(run_cli, d, tmp_path)
    assert (sc.pool.k, sc.pool.m, sc.pool.failure_domain) == (2, 1, "osd")
    assert "the only profile of 3 chunks" in text
    # two unnamed profiles of 3 chunks that differ: neither is taken; k from the stripe width
    (d / "default.json").write_text((PROFILES / "default.json").read_text())
    sc, text = _scenario(run_cli, d, tmp_path)
    assert (sc.pool.k, sc.pool.m, sc.pool.failure_domain) == (2, 1, "host")
    assert "all have 3 chunks" in text and "k from its stripe width 8192" in text


def test_a_profile_for_more_hosts_than_the_files_show(tmp_path, run_cli):
    """k4m2 (failure domain host) needs 6 hosts; cluster-a's tree shows 3: the files show
    part of the cluster, so the scenario has 6 hosts like them."""
    d = _ec_cluster(tmp_path, {"size": 6, "erasure_code_profile": "k4m2", "stripe_width": 16384},
                    "k4m2.txt")
    sc, text = _scenario(run_cli, d, tmp_path)
    assert (sc.pool.k, sc.pool.m, sc.pool.failure_domain) == (4, 2, "host")
    assert sc.hosts[0].count == 6 and "need 6: modelled 6 hosts" in text


def test_what_a_profile_sets_that_the_scenario_cannot_say(tmp_path, run_cli):
    """cephfs.txt (a real k=5 m=2 profile on its own CRUSH root and device class); its
    pool's stripe width 8192 is from before Luminous: not 5 whole stripe units."""
    d = _ec_cluster(tmp_path, {"size": 7, "erasure_code_profile": "cephfs", "stripe_width": 8192},
                    "cephfs.txt")
    sc, text = _scenario(run_cli, d, tmp_path)
    assert (sc.pool.k, sc.pool.m, sc.pool.stripe_unit) == (5, 2, 4096)
    assert "crush-root hdd: the scenario has one root" in text
    assert "crush-device-class hdd" in text
    assert "stripe width 8192 B is not k=5 whole stripe units" in text
    assert "w=8" not in text  # Ceph's default: nothing to say


@pytest.mark.parametrize("extra,k,m,expect", [
    ("plugin=lrc\nk=4\nm=2\nl=3\n", 4, 2, "plugin lrc is not modelled"),  # 4+2+2 chunks
    ("plugin=isa\nk=2\nm=1\ntechnique=cauchy\ncrush-failure-domain=rack\n", 2, 1,
     "crush-failure-domain rack"),
    ("plugin=jerasure\nk=2\nm=1\nstripe_unit=64K\nw=16\n", 2, 1, "w=16 is not modelled"),
])
def test_profile_settings_the_model_lacks_are_guesses(tmp_path, run_cli, extra, k, m, expect):
    from cephsim.tools.init.collect import ECProfile

    prof = ECProfile(tmp_path / "p.txt", dict(x.split("=", 1) for x in extra.split()), {})
    size = prof.chunks()
    d = _ec_cluster(tmp_path, {"size": size, "erasure_code_profile": "p", "stripe_width": 0})
    (d / "p.txt").write_text(extra)
    sc, text = _scenario(run_cli, d, tmp_path)
    assert (sc.pool.k, sc.pool.m) == (k, m) and expect in text
    if "isa" in extra:
        assert (sc.pool.plugin, sc.pool.technique, sc.pool.failure_domain) == \
            ("isa", "cauchy", "host")
    if "64K" in extra:
        assert sc.pool.stripe_unit == 65536


def test_an_ec_pool_without_its_profile_says_which_command_to_run(tmp_path, run_cli):
    d = _ec_cluster(tmp_path, {"size": 3, "erasure_code_profile": "ec21", "stripe_width": 8192})
    sc, text = _scenario(run_cli, d, tmp_path)
    assert (sc.pool.k, sc.pool.m) == (2, 1)
    assert "ceph osd erasure-code-profile get ec21 -f json' in a file named ec21.json" in text


# ---------------------------------------------------------------- bad profiles

@pytest.mark.parametrize("name,text,words", [
    ("p.json", '{\n  "k": "4",\n  "m": "2",\n  "plugin": "jeras', ("p.json:4:", "not valid JSON")),
    ("p.json", '{\n  "k": "four",\n  "m": "2"\n}\n', ("p.json:2: k:", "'four'")),
    ("p.json", '{"k": "4", "plugin": "jerasure"}', ("p.json", "no m", "truncated")),
    ("p.json", '{\n  "k": "4",\n  "m": true\n}\n', ("p.json:3: m:", "as text")),
    ("p.txt", "k=4\nm: 2\nplugin=jerasure\n", ("p.txt:2:", "not a key=value line")),
    ("p.txt", "crush-root=default\nk=4\n", ("p.txt", "no m")),
    ("p.txt", "k=4\nm=0\n", ("p.txt:2: m:", "number of chunks")),
    ("p.txt", "k=4\nm=2\nstripe_unit=big\n", ("p.txt:3: stripe_unit:", "not a size")),
])
def test_a_bad_profile_is_located(tmp_path, run_cli, name, text, words):
    import shutil

    d = tmp_path / "c"
    shutil.copytree(FIXTURES / "cluster-a", d)
    (d / name).write_text(text)
    assert_short_error(run_cli("init", "--from", d, "--yes"), *words)


@pytest.mark.parametrize("text,words", [
    # ceph osd erasure-code-profile ls -f json (as Rook's test mocks it)
    ('["default","ecPool1_ecprofile"]', ("erasure-code-profile ls", "get NAME -f json")),
    # ceph osd pool get ecPool1 erasure_code_profile -f json (the same test's form)
    ('{"pool":"ecPool1","pool_id":1,"erasure_code_profile":"ecPool1_ecprofile"}',
     ("ceph osd pool get ecPool1", "erasure-code-profile get ecPool1_ecprofile -f json")),
    # its plain form, and 'ceph osd pool get POOL all' (which holds the same line)
    ("size: 6\nmin_size: 5\nerasure_code_profile: k4m2\n",
     ("o.txt:3:", "erasure-code-profile get k4m2 -f json")),
    ('{"epoch": 49, "pools": [], "erasure_code_profiles": {"default": {"k": "2"}}}',
     ("'ceph osd dump' output", "ceph osd pool ls detail")),
])
def test_a_profile_from_another_command(tmp_path, run_cli, text, words):
    import shutil

    d = tmp_path / "c"
    shutil.copytree(FIXTURES / "cluster-a", d)
    (d / "o.txt").write_text(text)
    assert_short_error(run_cli("init", "--from", d, "--yes"), "o.txt", *words)


# ---------------------------------------------------------------- the client host

def test_a_client_directory_gives_the_client_its_own_hardware(tmp_path, run_cli):
    """client/ holds a Kubernetes node's lscpu and ethtool (a 2-socket Haswell KVM guest,
    virtio): the client group takes them, the OSD hosts keep cluster-a's Skylake guests."""
    import shutil

    d = tmp_path / "c"
    shutil.copytree(FIXTURES / "cluster-a", d)
    shutil.copytree(FIXTURES / "client-k8s", d / "client")
    sc, text = _scenario(run_cli, d, tmp_path)
    osd, client = sc.hosts
    assert osd.cpu.microarch == "skylake" and client.cpu.microarch == "haswell"
    assert client.cpu.name == "Intel Core Processor (Haswell, no TSX, IBRS)"
    assert (client.sockets, client.cpu.cores, client.cpu.threads_per_core) == (2, 1, 1)
    assert client.vm is not None and client.nic == "virtio-net-vhost-25g"
    # no cpupower there: the OSD hosts' governor, not their driver or idle-state names
    assert client.tuning.governor == "performance" == osd.tuning.governor
    assert "client host: the OSD hosts' governor (no cpupower in client/)" in text
    assert "hardware and tuning" not in text
    r = run_cli("run", tmp_path / "s.yaml", "--set", "run.ios=300")
    assert r.exit_code == 0, r.stderr


def test_without_a_client_directory_the_client_copies_the_osd_hosts(tmp_path, run_cli):
    sc, text = _scenario(run_cli, FIXTURES / "cluster-a", tmp_path)
    assert sc.hosts[1].cpu == sc.hosts[0].cpu and sc.hosts[1].nic == sc.hosts[0].nic
    assert "client host: the OSD hosts' hardware and tuning (no client/ directory" in text


def test_a_cluster_output_in_the_client_directory(tmp_path, run_cli):
    import shutil

    d = tmp_path / "c"
    shutil.copytree(FIXTURES / "cluster-a", d)
    (d / "client").mkdir()
    shutil.copy(FIXTURES / "cluster-a" / "ceph-versions.json", d / "client")
    assert_short_error(run_cli("init", "--from", d, "--yes"), "client/ceph-versions.json",
                       "describes the cluster, not the client host")


# ---------------------------------------------------------------- questions

def _script(*lines: str):
    """An ask callable answering ``lines`` in turn, then end of input; it keeps the prompts."""
    seen: list[str] = []
    feed = iter(lines)

    def ask(prompt: str) -> str:
        seen.append(prompt)
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None
    ask.prompts = seen  # type: ignore[attr-defined]
    return ask


_INLINE = {"cores": 16, "threads_per_core": 2, "max_mhz": 3000, "min_mhz": 1500}


def _q(key: str, default: str = "x", **context):
    from cephsim.tools.init.build import Question

    return Question(key, f"the {key}", default, context)


def test_enter_takes_every_default_and_end_of_input_keeps_the_guesses():
    from cephsim.tools.init.ask import ask_missing
    from cephsim.tools.init.build import build
    from cephsim.tools.init.collect import read_dir

    qs = build(read_dir(FIXTURES / "cluster-b")).questions
    assert [q.key for q in qs] == ["cpu", "sockets", "nic", "disk", "pool", "hosts",
                                   "client_cpu"]
    ask = _script(*[""] * len(qs))
    assert ask_missing(qs, ask) == {}
    # every prompt shows its default
    assert all(p.endswith(f"[{q.default}]: ") for p, q in zip(ask.prompts, qs))
    said: list[str] = []
    assert ask_missing(qs, _script("xeon-6242"), said.append) == {"cpu": "xeon-6242"}
    assert "end of input" in said[-1]


@pytest.mark.parametrize("key,lines,context,answer,said_n", [
    ("cpu", ["xeon-6242"], {}, "xeon-6242", 0),                          # an id
    ("cpu", ["AMD EPYC 7313P 16-Core Processor"], {}, "epyc-7313p", 1),  # what lscpu says
    ("cpu", ["xeon 6242", ""], {}, "xeon-6242", 1),                      # a near miss, offered
    ("cpu", ["no such cpu at all", "epyc-7313p"], {}, "epyc-7313p", 1),
    ("cpu", ["inline", "8", "", "3.5", ""], _INLINE,
     {"cores": 8, "threads_per_core": 2, "max_mhz": 3500, "min_mhz": 1500}, 0),
    # cores 0 and 8.5, 3 threads, 9 GHz and a lowest clock above the highest: refused
    ("cpu", ["inline", "0", "8.5", "8", "3", "1", "9", "2.0", "2.5", ""], _INLINE,
     {"cores": 8, "threads_per_core": 1, "max_mhz": 2000, "min_mhz": 1500}, 5),
    ("client_cpu", ["same"], {}, None, 0),
    ("disk", ["SAMSUNG MZQL23T8HCLS-00A07"], {}, "pm9a3", 1),             # nvme list's model
    ("disk", ["generic-hdd-7200"], {}, "generic-hdd-7200", 0),
    ("nic", ["10"], {"driver": "ixgbe"}, "intel-82599-10g", 1),          # driver and speed
    ("nic", ["10"], {"driver": None}, "generic-10g", 0),
    ("nic", ["50", "100Gb/s"], {"driver": None}, "generic-100g", 1),
    ("nic", ["connectx5-25g"], {}, "connectx5-25g", 0),
    ("pool", ["0", "4", "3"], {"osds": 3}, {"size": 3}, 2),
    ("pool", ["4+2"], {"osds": 3}, {"type": "erasure", "k": 4, "m": 2}, 0),
    ("pool", ["nov", ""], {"choices": ["glance", "nova"]}, {"name": "nova"}, 1),
    ("ec", ["2+1", "4+2"], {"size": 6}, [4, 2], 1),
    ("release", ["19.2.1"], {}, "19.2.1", 0),
    ("release", ["quinci", ""], {}, "quincy", 1),
    ("sockets", ["two", "2"], {}, 2, 1),
    ("hosts", ["0", "three", "3"], {}, 3, 2),
])
def test_each_answer_is_checked(key, lines, context, answer, said_n):
    from cephsim.tools.init.ask import ask_missing

    said: list[str] = []
    got = ask_missing([_q(key, "keep", **context)], _script(*lines), said.append)
    assert got.get(key) == answer, said
    assert len(said) == said_n, said  # each refusal, offer or match is said once


def test_a_question_gives_up_after_five_refusals():
    from cephsim.errors import CephsimError
    from cephsim.tools.init.ask import ask_missing

    with pytest.raises(CephsimError, match="no valid answer in 5 tries"):
        ask_missing([_q("sockets", "1")], _script(*["many"] * 6))


def test_answers_replace_the_guesses_they_answer():
    from cephsim.tools.init.build import build
    from cephsim.tools.init.collect import read_dir

    got = read_dir(FIXTURES / "cluster-b")
    b = build(got, {"cpu": "xeon-6242", "sockets": 2, "nic": "generic-10g", "disk": "pm983",
                    "pool": {"size": 1}, "hosts": 5, "client_cpu": "epyc-7313p"})
    assert b.questions == []  # nothing left to ask
    assert not any(x.startswith(("CPU", "one socket", "NIC:", "drive", "pool:", "the files show"))
                   for x in b.guesses), b.guesses
    assert "5 OSD hosts (answered)" in b.text and "count: 5" in b.text
    assert "cpu: xeon-6242" in b.text and "disk: pm983" in b.text
    assert "cpu: epyc-7313p" in b.text and "sockets: 2" in b.text


def test_init_asks_through_the_cli(tmp_path, run_cli):
    """--ask with answers piped in: each prompt and answer on stderr, the scenario as answered."""
    from cephsim.scenario.load import load_scenario

    out = tmp_path / "s.yaml"
    r = run_cli("init", "--from", FIXTURES / "cluster-b", "--ask", "-o", out,
                input="xeon 6242\n\n2\n10\nsamsung pm983\n0\n2\nmany\n4\n\n")
    assert r.exit_code == 0, r.stderr
    assert "Enter takes xeon-6242" in r.stderr and "'samsung pm983' -> pm983" in r.stderr
    # one OSD's metadata: the pool is not bound to the one OSD shown, the hosts are asked
    assert "'0': replicas, 1 to 48" in r.stderr and "'many': a number of OSD hosts" in r.stderr
    assert "OSD hosts in the cluster (the files show 1: ceph-osd-metadata.json is one OSD's" \
        in r.stderr
    sc = load_scenario(out)
    osd, client = sc.hosts
    assert (osd.cpu, osd.sockets, osd.nic, osd.osds.disk, sc.pool.size, osd.count) == \
        ("xeon-6242", 2, "generic-10g", "pm983", 2, 4)
    assert client.cpu == "xeon-6242"  # 'same' (the default) as the OSD hosts
    assert run_cli("validate", out).exit_code == 0


def test_init_asks_nothing_without_a_terminal_or_ask(tmp_path, run_cli):
    a = run_cli("init", "--from", FIXTURES / "cluster-b", input="xeon-6242\n")
    b = run_cli("init", "--from", FIXTURES / "cluster-b", "--yes")
    assert a.exit_code == 0 and a.stdout == b.stdout and "[" not in a.stderr.split("ASSUMED")[0]
    assert_short_error(run_cli("init", "--from", FIXTURES / "cluster-b", "--yes", "--ask"),
                       "give one")


def test_an_answer_that_raises_a_question_of_its_own(tmp_path):
    """Picking nova, an erasure-coded pool whose profile is not among the files, then asks
    for its k+m (glance, the first RBD pool, stays replicated)."""
    import json
    import shutil

    from cephsim.tools.init.ask import interview
    from cephsim.tools.init.collect import read_dir

    d = tmp_path / "c"
    shutil.copytree(FIXTURES / "cluster-a", d)
    pools = json.loads((d / "ceph-pool-ls-detail.json").read_text())
    nova = next(p for p in pools if p["pool_name"] == "nova")
    nova.update(type=3, size=6, erasure_code_profile="k4m2", stripe_width=0,
                flags_names="hashpspool,ec_overwrites")
    (d / "ceph-pool-ls-detail.json").write_text(json.dumps(pools))
    # CPU, drive: Enter; the pool: nova; client CPU: Enter; then nova's k+m
    ask = _script("", "", "nova", "", "5+1")
    built = interview(read_dir(d), ask)
    assert ask.prompts[-1].startswith("Pool nova's profile k4m2: k+m [4+2]")
    assert "pool nova: k=5 m=1 (answered)" in built.text
    assert "k: 5" in built.text and "m: 1" in built.text


# ------------------------------------------------------------ real-world layouts and names
# lscpu's three layouts, written for these tests in the form util-linux prints them (the
# terminal's tree and -J's nested "children" since 2.37, here as 2.38 prints them; flat when
# piped and before 2.37: cluster-a's lscpu.txt).  Bare-metal hosts; at a terminal a long
# value wraps onto lines indented to the value column.
LSCPU_TERMINAL = """\
Architecture:            x86_64
  CPU op-mode(s):        32-bit, 64-bit
  Address sizes:         52 bits physical, 57 bits virtual
  Byte Order:            Little Endian
CPU(s):                  64
  On-line CPU(s) list:   0-63
Vendor ID:               AuthenticAMD
  BIOS Vendor ID:        Advanced Micro Devices, Inc.
  Model name:            AMD EPYC 9354P 32-Core Processor
    BIOS Model name:     AMD EPYC 9354P 32-Core Processor                Unknown CPU @ 3.2GHz
    BIOS CPU family:     107
    CPU family:          25
    Model:               17
    Thread(s) per core:  2
    Core(s) per socket:  32
    Socket(s):           1
    Stepping:            1
    Frequency boost:     enabled
    CPU(s) scaling MHz:  47%
    CPU max MHz:         3799.0720
    CPU min MHz:         1500.0000
    BogoMIPS:            6490.31
    Flags:               fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36
                          clflush mmx fxsr sse sse2 ht syscall nx mmxext fxsr_opt pdpe1gb rdtscp
                          lm constant_tsc rep_good nopl nonstop_tsc cpuid extd_apicid aperfmperf
Virtualization features:
  Virtualization:        AMD-V
Caches (sum of all):
  L1d:                   1 MiB (32 instances)
  L1i:                   1 MiB (32 instances)
  L2:                    32 MiB (32 instances)
  L3:                    256 MiB (8 instances)
NUMA:
  NUMA node(s):          1
  NUMA node0 CPU(s):     0-63
Vulnerabilities:
  Itlb multihit:         Not affected
  Spec store bypass:     Mitigation; Speculative Store Bypass disabled via prctl
"""
LSCPU_J = """\
{
   "lscpu": [
      {
         "field": "Architecture:",
         "data": "x86_64",
         "children": [
            {
               "field": "CPU op-mode(s):",
               "data": "32-bit, 64-bit"
            },{
               "field": "Byte Order:",
               "data": "Little Endian"
            }
         ]
      },{
         "field": "CPU(s):",
         "data": "64",
         "children": [
            {
               "field": "On-line CPU(s) list:",
               "data": "0-63"
            }
         ]
      },{
         "field": "Vendor ID:",
         "data": "AuthenticAMD",
         "children": [
            {
               "field": "Model name:",
               "data": "AMD EPYC 7313 16-Core Processor",
               "children": [
                  {
                     "field": "CPU family:",
                     "data": "25"
                  },{
                     "field": "Thread(s) per core:",
                     "data": "2"
                  },{
                     "field": "Core(s) per socket:",
                     "data": "16"
                  },{
                     "field": "Socket(s):",
                     "data": "2"
                  },{
                     "field": "CPU max MHz:",
                     "data": "3729.4919"
                  },{
                     "field": "CPU min MHz:",
                     "data": "1500.0000"
                  },{
                     "field": "Flags:",
                     "data": "fpu vme de pse tsc msr pae mce cx8 apic sep"
                  }
               ]
            }
         ]
      },{
         "field": "Virtualization features:",
         "data": null,
         "children": [
            {
               "field": "Virtualization:",
               "data": "AMD-V"
            }
         ]
      }
   ]
}
"""


def _with_lscpu(tmp_path: Path, name: str, text: str, base: str = "cluster-a") -> Path:
    import shutil

    d = tmp_path / "c"
    shutil.copytree(FIXTURES / base, d)
    (d / "lscpu.txt").unlink(missing_ok=True)
    (d / name).write_text(text)
    return d


@pytest.mark.parametrize(("name", "text", "model", "cores", "sockets", "max_mhz"), [
    ("lscpu.txt", LSCPU_TERMINAL, "AMD EPYC 9354P 32-Core Processor", "32", "1", "3799.0720"),
    ("lscpu.json", LSCPU_J, "AMD EPYC 7313 16-Core Processor", "16", "2", "3729.4919"),
    ("lscpu.txt", (FIXTURES / "cluster-a" / "lscpu.txt").read_text(),
     "Intel Core Processor (Skylake, IBRS)", "1", "2", None),
])
def test_every_lscpu_layout_is_read(tmp_path, name, text, model, cores, sockets, max_mhz):
    from cephsim.tools.init.collect import read_dir

    got = read_dir(_with_lscpu(tmp_path, name, text))
    assert got.files["lscpu"].name == name
    cpu = got.cpu
    assert (cpu["Model name"], cpu["Core(s) per socket"], cpu["Socket(s)"],
            cpu.get("CPU max MHz")) == (model, cores, sockets, max_mhz)
    assert cpu["Flags"].startswith("fpu vme de pse")
    if text is LSCPU_TERMINAL:  # the wrapped lines belong to Flags, not to a field of their own
        assert cpu["Flags"].endswith("extd_apicid aperfmperf") and " lm " in cpu["Flags"]
        assert cpu["BIOS Model name"].startswith("AMD EPYC 9354P")  # not taken for Model name


@pytest.mark.parametrize(("model", "id_", "sibling"), [
    ("AMD EPYC 9354P 32-Core Processor", "epyc-9354", "the catalog has the 9354, the 9354P's "
     "non-P sibling"),
    ("EPYC 7313", "epyc-7313p", "the catalog has the 7313P, the 7313's P sibling"),
    ("AMD EPYC 7313 16-Core Processor", "epyc-7313p", "7313's P sibling"),
    ("AMD EPYC 9454 48-Core Processor", "epyc-9454p", "9454's P sibling"),
    ("AMD EPYC 9354 32-Core Processor", "epyc-9354", None),                # exact id first
    ("AMD EPYC 7313P 16-Core Processor", "epyc-7313p", None),
    ("AMD EPYC 7763 64-Core Processor", "epyc-7763", None),                # not Azure's 7763v
    ("Intel(R) Xeon(R) CPU E5-2430L 0 @ 2.00GHz", "xeon-e5-2430l", None),  # v1: no 'v'
    ("Intel Xeon E5-2695v4", "xeon-e5-2695v4", None),
    ("Intel(R) Xeon(R) E-2236 CPU @ 3.40GHz", "xeon-e-2236", None),
    ("Intel(R) Xeon(R) CPU E3-1230 v6 @ 3.50GHz", "xeon-e3-1230v6", None),
    ("Intel Xeon Gold 6130", "xeon-6130", None),
    ("Intel\u00ae Xeon\u00ae Gold 5318Y CPU @ 2.10GHz", "xeon-5318y", None),
    ("Intel(R) Xeon(R) 6960P", "xeon-6960p", None),                         # Xeon 6: no sibling
    ("Intel(R) Atom(TM) CPU C3558 @ 2.20GHz", "atom-c3558", None),
    ("AMD Ryzen 7 PRO 8700G w/ Radeon 780M Graphics", "ryzen7-pro-8700g", None),
])
def test_cpu_names_match_by_model_number(model, id_, sibling):
    """The model number as each vendor spells it; an EPYC the catalog has only as its P (or
    non-P) sibling, same cores and clocks, is that entry, and the origin says so."""
    got, how = match_cpu(model)
    assert got == id_, (model, how)
    assert how == "model number" if sibling is None else sibling in how


@pytest.mark.parametrize("model", [
    "Intel Xeon E312xx (Sandy Bridge, IBRS update)", "Intel Core Processor (Haswell, no TSX)",
    "Intel Xeon Processor (Cascadelake)", "AMD EPYC-Rome Processor", "AMD EPYC Processor",
    "QEMU Virtual CPU version 2.5+", "Common KVM processor"])
def test_qemu_cpu_models_match_no_catalog_entry(model):
    assert match_cpu(model) == (None, "")


def test_a_terminal_lscpu_of_a_p_part_gets_its_sibling(tmp_path, run_cli):
    """util-linux 2.38's terminal layout no longer makes init refuse the directory; the
    9354P is the catalog's 9354, bare metal (no hypervisor), and the note says which."""
    sc, text = _scenario(run_cli, _with_lscpu(tmp_path, "lscpu.txt", LSCPU_TERMINAL), tmp_path)
    osd = sc.hosts[0]
    assert osd.cpu == "epyc-9354" and osd.vm is None and osd.sockets == 1
    assert "CPU 'AMD EPYC 9354P 32-Core Processor' -> catalog epyc-9354 (model number; the " \
           "catalog has the 9354, the 9354P's non-P sibling" in text
    assert "virtual machine" not in text


def test_lscpu_json_is_read_with_its_sockets(tmp_path, run_cli):
    sc, text = _scenario(run_cli, _with_lscpu(tmp_path, "lscpu.json", LSCPU_J), tmp_path)
    assert (sc.hosts[0].cpu, sc.hosts[0].sockets, sc.hosts[0].vm) == ("epyc-7313p", 2, None)


def test_a_guest_is_told_by_its_hypervisor_flag(tmp_path, run_cli):
    """No 'Hypervisor vendor' line, but the CPU flags have 'hypervisor' (lscpu or
    /proc/cpuinfo): a virtual machine, and the header says from what."""
    lscpu = LSCPU_TERMINAL.replace(" aperfmperf", " hypervisor aperfmperf")
    sc, text = _scenario(run_cli, _with_lscpu(tmp_path, "lscpu.txt", lscpu), tmp_path)
    assert sc.hosts[0].vm is not None
    assert "virtual machines (the CPU flags in " in text and "have 'hypervisor')" in text
    cpuinfo = ("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Gold "
               "6130 CPU @ 2.10GHz\nflags\t\t: fpu vme de hypervisor lahf_lm\n\n")
    sc, text = _scenario(run_cli, _with_lscpu(tmp_path / "b", "cpuinfo.txt", cpuinfo), tmp_path)
    assert sc.hosts[0].cpu == "xeon-6130" and sc.hosts[0].vm is not None


def test_the_luminous_osd_says_where_each_figure_came_from(tmp_path, run_cli):
    """cluster-b (one Luminous OSD's metadata, nothing else): the inline CPU's figures are
    class defaults and say so (no lscpu to have read them from); its QEMU model name makes
    the host a guest; the pool keeps its 3 copies on 3 hosts, and the header says the files
    show part of the cluster (a question asks how many hosts)."""
    from cephsim.tools.init.build import build
    from cephsim.tools.init.collect import read_dir

    sc, text = _scenario(run_cli, FIXTURES / "cluster-b", tmp_path)
    osd = sc.hosts[0]
    assert "from lscpu" not in text
    assert "16 cores, 2 threads per core, 1500-3000 MHz (class defaults: no lscpu among the " \
           "files)" in text
    assert osd.vm is not None and "is a QEMU/KVM CPU model's name" in text
    assert sc.pool.size == 3 and osd.count == 3 and osd.osds.count == 1
    assert "pool size 1" not in text
    assert "the files show only part of the cluster (ceph-osd-metadata.json is one OSD's " \
           "'ceph osd metadata N')" in text
    assert "hosts" in [q.key for q in build(read_dir(FIXTURES / "cluster-b")).questions]


def test_lscpu_without_a_clock_range_says_which_figures_it_gave(tmp_path, run_cli):
    """cluster-a's lscpu (a KVM guest) gives cores, threads and the current clock, no
    range: the lowest clock is the class default, and the header says so."""
    _, text = _scenario(run_cli, FIXTURES / "cluster-a", tmp_path)
    assert "(cores, threads per core, highest clock (its 'CPU MHz') from " in text
    assert "lowest clock a class default (lscpu gives none))" in text


def test_an_unreadable_file_is_named(tmp_path, run_cli, monkeypatch):
    """A file init cannot read (permissions: root reads anything, so the read is made to
    fail) is named in a located error, not taken for an output that cannot be written."""
    import shutil

    d = tmp_path / "c"
    shutil.copytree(FIXTURES / "cluster-a", d)
    real = Path.read_bytes

    def read_bytes(self):
        if self.name == "ethtool.txt":
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    r = run_cli("init", "--from", d, "--yes")
    assert_short_error(r, "ethtool.txt", "cannot read it: Permission denied")
    assert "cannot write the output" not in r.output


# ---------------------------------------------------------------- malformed outputs

def _edited(tmp_path: Path, name: str, edit) -> Path:
    """cluster-a with ``name`` (a JSON output) changed by ``edit`` and written back as the
    pretty JSON ceph -f json-pretty writes (indent 4)."""
    import json
    import shutil

    d = tmp_path / "c"
    shutil.copytree(FIXTURES / "cluster-a", d)
    data = json.loads((d / name).read_text())
    edit(data)
    (d / name).write_text(json.dumps(data, indent=4))
    return d


def _glance(**change):
    def edit(pools):
        glance = next(p for p in pools if p["pool_name"] == "glance")
        for k, v in change.items():
            if v is None:
                del glance[k]
            else:
                glance[k] = v
    return edit


@pytest.mark.parametrize("change,words", [
    ({"pg_num": "lots"}, ("ceph-pool-ls-detail.json:85:19: pg_num: pool 'glance': 'lots' is not "
                          "a number of PGs",)),
    ({"size": -3}, ("ceph-pool-ls-detail.json:80:17: size: pool 'glance': -3 is not a pool size",)),
    ({"size": 0}, ("size: pool 'glance': 0 is not a pool size",)),
    ({"size": None}, ("ceph-pool-ls-detail.json:73:5: ", "pool 'glance' has no size")),
    ({"pg_num": True}, ("pg_num: pool 'glance': True is not a number of PGs",)),
    ({"type": 2}, ("type: pool 'glance': 2 is not a pool type", "3 for an erasure-coded")),
    ({"type": "erasure"}, ("type: pool 'glance': 'erasure' is not a pool type",)),
    ({"stripe_width": "4K"}, ("stripe_width: pool 'glance': '4K' is not a stripe width",)),
    ({"erasure_code_profile": 7}, ("erasure_code_profile: pool 'glance': 7 is not a text",)),
    ({"pool_name": ""}, ("pool_name: entry 1: '' is not a pool name",)),
])
def test_a_malformed_pool_is_refused_at_its_field(tmp_path, run_cli, change, words):
    """A pool ls detail with a value no Ceph writes: refused with the file, the line, the pool
    and the field (not a traceback, nor the pool dropped and size 3, 128 PGs assumed)."""
    d = _edited(tmp_path, "ceph-pool-ls-detail.json", _glance(**change))
    assert_short_error(run_cli("init", "--from", d, "--yes"), *words)


def test_the_reader_raises_the_located_error(tmp_path):
    """The same refusal from the library: a CephsimError whose problem names file, line, key."""
    from cephsim.errors import CephsimError
    from cephsim.tools.init.collect import read_dir

    d = _edited(tmp_path, "ceph-pool-ls-detail.json", _glance(size=-3))
    with pytest.raises(CephsimError) as e:
        read_dir(d)
    (problem,) = e.value.problems
    assert (Path(problem.file).name, problem.line, problem.path) == \
        ("ceph-pool-ls-detail.json", 80, "size")
    assert "'glance'" in problem.message


def _osd0(**change):
    def edit(osds):
        osds[0].update(change)
    return edit


@pytest.mark.parametrize("change,words", [
    ({"mem_total_kb": "lots"}, ("ceph-osd-metadata.json:41:25: mem_total_kb:",
                                "osd.0 (host compute4): 'lots' is not a number of kB")),
    ({"mem_total_kb": "16 GB"}, ("mem_total_kb: osd.0 (host compute4): '16 GB'",)),
    ({"mem_total_kb": "1024"}, ("mem_total_kb: osd.0 (host compute4): 1024 kB is 1 MiB",
                                "less than the 256 MiB")),
    ({"id": "zero"}, ("ceph-osd-metadata.json:3:15: id:", "'zero' is not an OSD id")),
    ({"hostname": 4}, ("hostname: entry 0: 4 is not a host name",)),
])
def test_malformed_osd_metadata_is_refused_at_its_field(tmp_path, run_cli, change, words):
    d = _edited(tmp_path, "ceph-osd-metadata.json", _osd0(**change))
    assert_short_error(run_cli("init", "--from", d, "--yes"), *words)


def _config(*entries: tuple[str, str, str]):
    """Add ``(section, name, value)`` entries to a config dump, in its own entries' form
    (ms_*_mode are LEVEL_BASIC, FLAG_STARTUP options: not changeable at runtime)."""
    def edit(dump):
        dump.extend({"section": s, "name": n, "value": v, "level": "basic",
                     "can_update_at_runtime": False, "mask": ""} for s, n, v in entries)
    return edit


def test_ram_and_msgr2_mode_are_read_into_the_scenario(tmp_path, run_cli):
    """cluster-a's osd metadata gives each host's mem_total_kb (16393164 and 16393172 kB: one
    RAM size within the kernel's reservations); a config dump that sets ms_cluster_mode secure
    gives ceph.ms_mode secure, and the scenario written loads."""
    d = _edited(tmp_path, "ceph-config-dump.json",
                _config(("global", "ms_cluster_mode", "secure")))
    sc, text = _scenario(run_cli, d, tmp_path)
    assert sc.hosts[0].memory == 16393164 * 1024
    assert sc.ceph.ms_mode == "secure"
    assert "memory: 16393164KiB" in text and "ms_mode: secure" in text
    assert "the OSD hosts' RAM: 16393164KiB (mem_total_kb in " in text
    # the clients still connect with crc: their ms_client_mode is Ceph's default
    assert "the client's connections settle on crc: the scenario has one mode for both" in text


@pytest.mark.parametrize("entries,mode,said", [
    # a list is a preference order: the first mode the other side allows is taken
    ([("global", "ms_cluster_mode", "secure crc"), ("global", "ms_client_mode", "secure crc")],
     "secure", "msgr2 mode secure ("),
    ([("global", "ms_cluster_mode", "crc,secure")], "crc", "msgr2 mode crc ("),
    # the OSD's own section wins over global; a word Ceph does not know is ignored
    ([("global", "ms_cluster_mode", "crc"), ("osd", "ms_cluster_mode", "fast secure")], "secure",
     "the client's connections settle on crc"),
    # the OSDs allow only secure: the client's 'crc secure' settles on secure
    ([("global", "ms_cluster_mode", "secure"), ("global", "ms_service_mode", "secure")],
     "secure", "msgr2 mode secure ("),
    # a monitor's or an MDS's setting is not the OSDs'
    ([("mon", "ms_cluster_mode", "secure"), ("mds", "ms_cluster_mode", "secure")], None, None),
])
def test_the_msgr2_mode_follows_cephs_choice(tmp_path, run_cli, entries, mode, said):
    d = _edited(tmp_path, "ceph-config-dump.json", _config(*entries))
    sc, text = _scenario(run_cli, d, tmp_path)
    assert sc.ceph.ms_mode == (mode or "crc")
    assert ("ms_mode:" in text) == (mode is not None)
    if said:
        assert said in text


def test_a_mode_list_with_no_mode_is_refused(tmp_path, run_cli):
    d = _edited(tmp_path, "ceph-config-dump.json",
                _config(("global", "ms_cluster_mode", "encrypted")))
    assert_short_error(run_cli("init", "--from", d, "--yes"), "ceph-config-dump.json:",
                       "ms_cluster_mode: 'encrypted' names no connection mode (crc, secure)")


def test_hosts_of_different_ram_are_a_guess(tmp_path, run_cli):
    def edit(osds):
        osds[2]["mem_total_kb"] = str(64 * 1024**2)
    d = _edited(tmp_path, "ceph-osd-metadata.json", edit)
    sc, text = _scenario(run_cli, d, tmp_path)
    assert sc.hosts[0].memory == 16393164 * 1024
    assert "the OSD hosts' RAM differs (16393164KiB to 64GiB, mem_total_kb in " in text


def test_a_malformed_osd_tree_is_refused_at_its_node(tmp_path, run_cli):
    def edit(tree):
        tree["nodes"][0]["id"] = [1]
    d = _edited(tmp_path, "ceph-osd-tree.json", edit)
    assert_short_error(run_cli("init", "--from", d, "--yes"), "ceph-osd-tree.json:4:",
                       "id: node 'default': [1] is not a node id")
