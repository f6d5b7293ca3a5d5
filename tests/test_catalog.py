"""The hardware catalog: every entry loads, every figure has a source, references resolve."""

from __future__ import annotations

import pytest

from cephsim.catalog.load import catalog_rows, load_catalog
from cephsim.errors import CephsimError

CAT = load_catalog()
ENTRY_KINDS = ["cpus", "disks", "nics", "switches"]


def _entries(kinds=ENTRY_KINDS):
    return [(k, i, e) for k in kinds for i, e in CAT.of(k).items()]


def test_every_kind_loads_and_is_nonempty():
    for kind in CAT.kinds():
        assert CAT.of(kind), kind


@pytest.mark.parametrize(("kind", "id_", "entry"), _entries(),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_every_figure_has_a_provenance(kind, id_, entry):
    by_alias = {info.alias or f: f for f, info in type(entry).model_fields.items()}
    missing = [name for name in entry.figure_fields()
               if getattr(entry, by_alias[name]) is not None and name not in entry.sources]
    assert not missing, f"{kind}/{id_}: no source for {missing}"
    for key, prov in entry.sources.items():
        assert prov.source.strip(), f"{kind}/{id_}.{key}: empty source"
        if prov.basis == "estimate":
            assert prov.note, f"{kind}/{id_}.{key}: an estimate must say why (note)"


@pytest.mark.parametrize("id_", sorted(CAT.cstates))
def test_every_cstate_figure_has_a_provenance(id_):
    table = CAT.cstates[id_]
    for s in table.states:
        for f in table.figure_fields():
            prov = table.sources.get(f"{s.name}.{f}")
            assert prov is not None, f"{id_}: no source for {s.name}.{f}"
            if prov.basis == "estimate":
                assert prov.note


@pytest.mark.parametrize("id_", sorted(CAT.cstates))
def test_cstate_tables_are_physically_sensible(id_):
    states = CAT.cstates[id_].states
    assert states[0].name == "POLL"
    poll = states[0]
    assert (poll.exit_latency_ns, poll.target_residency_ns, poll.wake_penalty_ns) == (0, 0, 0)
    names = [s.name for s in states]
    assert len(set(names)) == len(names)
    for shallow, deep in zip(states, states[1:]):
        # deeper states are declared no cheaper to leave, and the governor needs no
        # shorter an idle period to pick them
        assert deep.exit_latency_ns >= shallow.exit_latency_ns, (id_, deep.name)
        assert deep.target_residency_ns >= shallow.target_residency_ns, (id_, deep.name)
        # a deeper state never wakes faster than a shallower one
        assert deep.wake_penalty_ns >= shallow.wake_penalty_ns, (id_, deep.name)
    for s in states[1:]:
        # the kernel's declared exit latency is a worst case: the charged wake cost never exceeds it...
        assert 0 < s.wake_penalty_ns <= s.exit_latency_ns, (id_, s.name)
        # ...and the governor never picks a state whose declared exit exceeds its residency
        assert s.exit_latency_ns <= s.target_residency_ns, (id_, s.name)


def test_cpu_cstates_and_router_cpus_resolve():
    for id_, cpu in CAT.cpus.items():
        assert cpu.cstates in CAT.cstates, f"cpu {id_}: unknown cstates table {cpu.cstates!r}"
        assert cpu.min_clock_hz <= cpu.base_clock_hz <= cpu.boost_clock_hz, id_
    for id_, sw in CAT.switches.items():
        if sw.forwarding == "software":
            assert sw.cpu in CAT.cpus, f"switch {id_}: unknown cpu {sw.cpu!r}"
            assert sw.forwarding_cycles and sw.forwarding_cycles > 0, id_
        if sw.kind == "router":
            assert sw.cpu in CAT.cpus, id_


def test_covers_published_cpu_clocks():
    # SKUs with published core counts and base/boost clocks (vendor spec tables; each
    # entry's sources in cephsim/catalog/data/cpus.yaml name the page)
    expected = {
        "epyc-7543p", "epyc-7313p", "epyc-9124", "epyc-7351p",
        "epyc-7763", "epyc-7713", "epyc-75f3", "epyc-7443", "epyc-7343",
        "xeon-8480plus", "xeon-6430", "xeon-6448y", "xeon-4410y",
        "xeon-8380", "xeon-6354", "xeon-4314", "xeon-6342", "xeon-8375c",
        "xeon-8280", "xeon-6248", "xeon-6230", "xeon-4210", "xeon-8275cl",
        "xeon-e5-2695v4",
    }
    assert expected <= set(CAT.cpus), expected - set(CAT.cpus)


def test_covers_published_setups_without_figures():
    """Hardware of published setups whose results are not used: boniface.me 'Ceph tuning
    adventures', the Proxmox VE Ceph benchmark 2020, https://hugo.ainoniwa.net/p/2025-09-23
    (Proxmox 8.3, Ceph 19.2.1) and technologiehub.at (2.5GbE)."""
    need = {
        # boniface.me 'Ceph tuning adventures' part 2: Dell R430, E5-2683 v4,
        # 2x DC S3700 + Optane P4801X DB/WAL, 2x10GbE LACP
        "cpus": {"xeon-e5-2683v4", "epyc-7302p", "ryzen7-pro-8700g"},
        "disks": {"intel-s3700", "optane-p4801x", "micron-9300-max", "intel-s4500"},
        "nics": {"intel-i226-2.5g", "generic-10g", "generic-100g"},
        "switches": {"generic-2.5g-switch"},
    }
    for kind, ids in need.items():
        assert ids <= set(CAT.of(kind)), (kind, ids - set(CAT.of(kind)))
    assert CAT.cpus["xeon-e5-2683v4"].cstates == "intel-bdw"
    assert CAT.cpus["epyc-7302p"].microarch == "zen2"
    assert CAT.cpus["ryzen7-pro-8700g"].microarch == "zen4"
    for id_ in ("intel-s3700", "optane-p4801x", "micron-9300-max"):
        assert CAT.disks[id_].plp
    assert CAT.nics["intel-i226-2.5g"].speed_bps == 2.5e9


def test_covers_disk_classes_and_measured_drives():
    expected = {
        # class defaults for 4 KiB sync writes (estimates set from the measured drives below)
        "generic-enterprise-nvme-plp", "generic-enterprise-sata-plp", "generic-consumer-sata",
        "generic-consumer-nvme", "generic-hdd-7200",
        # measured drives
        "pm9a3", "intel-750", "pm963", "s4510", "pm1643a", "pm863a", "pm883", "samsung-860pro",
        "samsung-860evo-1t", "wd-blue-1t", "intel-545", "samsung-980", "samsung-970pro", "pm961",
        "dell-7450",
    }
    assert expected <= set(CAT.disks), expected - set(CAT.disks)
    for id_ in ("generic-enterprise-nvme-plp", "generic-enterprise-sata-plp", "pm9a3", "s4510"):
        assert CAT.disks[id_].plp
    for id_ in ("generic-consumer-sata", "generic-consumer-nvme", "samsung-980"):
        assert not CAT.disks[id_].plp


def test_covers_seed_cluster_hardware():
    need = {
        "cpus": {"epyc-7351p", "epyc-9124", "epyc-7543p", "epyc-7742", "atom-c3558"},
        "disks": {"pm983", "pm9a3", "dell-pe8010", "dell-7450", "generic-consumer-sata",
                "generic-hdd-7200"},
        "nics": {"connectx5-25g", "connectx6-100g", "bcm57416-10gbase-t", "intel-i350-1g",
                 "intel-82599-10g", "qlogic-57810-10g", "connectx3pro-10g", "solarflare-8522-10g",
                 "intel-x722-10gbase-t", "generic-10g", "generic-25g", "generic-100g"},
        "switches": {"juniper-qfx5200", "seed002-10g-switch", "seed002-25g-switch",
                "denverton-router-1g",
                     "generic-cut-through-10g", "generic-cut-through-25g",
                             "generic-cut-through-100g",
                     "arista-7050-class", "low-latency-switch-10g"},
        "cstates": {"intel-bdw", "intel-hsw", "intel-skx", "intel-icx", "intel-spr", "intel-skl",
                "intel-dnv",
                    "amd-acpi-c2-400", "amd-acpi-c2-350", "amd-acpi-c2-100", "amd-acpi-c2-30"},
    }
    for kind, ids in need.items():
        assert ids <= set(CAT.of(kind)), (kind, ids - set(CAT.of(kind)))
    assert CAT.switches["denverton-router-1g"].kind == "router"
    assert CAT.switches["denverton-router-1g"].cpu == "atom-c3558"


def test_disk_flush_is_cheap_with_plp_and_dominant_without():
    for id_, d in CAT.disks.items():
        if d.media != "flash":
            continue
        if d.plp:
            assert d.flush.mean_ns < d.write_4k.mean_ns, id_
        else:
            assert d.flush.mean_ns > d.write_4k.mean_ns, id_


def test_unknown_id_suggests():
    with pytest.raises(CephsimError) as e:
        CAT.get("disks", "pm9a4")
    assert "did you mean" in str(e.value) and "pm9a3" in str(e.value)
    with pytest.raises(CephsimError) as e:
        CAT.get("cpu", "epyc-7352p")
    assert "epyc-7351p" in str(e.value)
    with pytest.raises(CephsimError):
        CAT.get("gpus", "x")
    assert CAT.get("disk", "pm983") is CAT.disks["pm983"]


def test_load_is_cached():
    assert load_catalog() is CAT


def test_bad_entry_names_file_and_id(monkeypatch):
    from cephsim.catalog import load as load_mod

    def fake_read(filename):
        return {"good-nic": None, "bad-nic": {"name": "x", "speed": "10Gbit/s", "tx_latency": "1us",
                                               "rx_latency": "fast", "sources": {}}}

    monkeypatch.setattr(load_mod, "_read", fake_read)
    load_mod.reset()  # the raw entries are cached
    try:
        with pytest.raises(CephsimError) as e:
            load_mod._load_kind("nics")
    finally:
        monkeypatch.undo()
        load_mod.reset()
    msg = str(e.value)
    assert "nics.yaml" in msg and "bad-nic" in msg


def test_unknown_source_key_is_rejected():
    from cephsim.catalog.models import SwitchModel

    with pytest.raises(ValueError, match="unknown figure"):
        SwitchModel.model_validate({"name": "x", "kind": "switch", "forwarding": "cut-through",
                                    "speed": "10Gbit/s", "latency": "1us",
                                    "sources": {"latnecy": {"source": "s", "basis": "estimate"}}})


def test_catalog_rows():
    rows = catalog_rows()
    assert {r["kind"] for r in rows} == set(CAT.kinds())
    assert len(rows) == sum(len(CAT.of(k)) for k in CAT.kinds())
    r = next(r for r in catalog_rows("disk") if r["id"] == "pm9a3")
    assert r["name"] and r["figures"] and r["sources"]


def test_per_clock_speed_comes_from_the_single_thread_benchmark():
    """per_clock_speed = (score / boost GHz) / the reference core's; the reference is the
    EPYC 7742's own catalog figure, so it comes out at exactly 1.0."""
    from cephsim.catalog.models import SINGLE_THREAD_REFERENCE

    ref = CAT.get("cpu", "epyc-7742")
    assert ref.single_thread is not None
    assert SINGLE_THREAD_REFERENCE[ref.single_thread.benchmark] == (ref.single_thread.score,
                                                                   ref.boost_clock_hz / 1e9)
    assert ref.per_clock_speed == 1.0
    zen1 = CAT.get("cpu", "epyc-7351p")  # 1735 at 2.9 GHz against 2100 at 3.4 GHz
    assert zen1.per_clock_speed == round((1735 / 2.9) / (2100 / 3.4), 3)
    assert zen1.sources["per_clock_speed"].basis == "derived"
    assert "1735" in zen1.sources["single_thread"].source


def test_a_given_per_clock_speed_wins_over_the_benchmark():
    from cephsim.catalog.models import CPUModel

    d = CAT.get("cpu", "epyc-7742").model_dump(by_alias=True)
    for k in ("base_clock", "boost_clock", "all_core_clock", "min_clock"):
        d[k] = f"{d[k] / 1e6:g}MHz"
    d["per_clock_speed"] = 0.5
    assert CPUModel.model_validate(d).per_clock_speed == 0.5
    d["per_clock_speed"] = None
    assert CPUModel.model_validate(d).per_clock_speed == 1.0


def test_most_cpus_have_a_single_thread_figure():
    """PassMark lists every catalog CPU but these four; their per_clock_speed is an
    estimate (the generation's, or a PassMark-rated sibling's) and says so."""
    cpus = CAT.of("cpu")
    without = {k for k, e in cpus.items() if e.single_thread is None}
    assert without == {"xeon-8480plus", "xeon-8276m", "xeon-8370c", "epyc-7763v"}
    for k in without:
        assert cpus[k].sources["per_clock_speed"].basis == "estimate", k


def test_derived_all_core_clocks_follow_their_rule():
    """Where no all-core figure is published the catalog derives it: AMD's Genoa ratio
    (base + 0.857 x (boost - base), to 10 MHz) and Intel's median (base + 0.5 x (boost -
    base), to 50 MHz).  Every entry citing a rule holds to it."""
    amd = CAT.cpus["epyc-7742"].sources["all_core_clock"]
    intel = CAT.cpus["xeon-8380"].sources["all_core_clock"]
    assert amd.basis == intel.basis == "derived"
    counted = 0
    for id_, e in CAT.cpus.items():
        src = e.sources.get("all_core_clock")
        if src not in (amd, intel):
            continue
        counted += 1
        base, boost = e.base_clock_hz / 1e9, e.boost_clock_hz / 1e9
        k, step = (0.857, 0.01) if src == amd else (0.5, 0.05)
        assert e.all_core_clock_hz / 1e9 == pytest.approx(base + k * (boost - base),
                                                           abs=step / 2 + 1e-9), id_
    assert counted > 40


#: the CPUs under current x86 cloud instance families: id -> (cloud, families it names)
CLOUD_CPUS = {
    "xeon-8488c": ("AWS", ["M7i", "C7i", "R7i"]),
    "xeon-8375c": ("AWS", ["M6i", "C6i", "R6i"]),
    "xeon-8275cl": ("AWS", ["C5"]),
    "xeon-8259cl": ("AWS", ["M5", "R5"]),
    "xeon-8175m": ("AWS", ["M5", "R5", "T3"]),
    "xeon-8124m": ("AWS", ["C5"]),
    "epyc-7r13": ("AWS", ["M6a", "C6a", "R6a"]),
    "epyc-9r14": ("AWS", ["M7a", "C7a", "R7a"]),
    "xeon-8481c": ("Google Cloud", ["C3"]),
    "epyc-7b12": ("Google Cloud", ["N2D"]),
    "epyc-7b13": ("Google Cloud", ["N2D", "T2D", "C2D"]),
    "epyc-9b14": ("Google Cloud", ["C3D"]),
    "xeon-8370c": ("Azure", ["Dv5", "Ev5"]),
    "epyc-7763v": ("Azure", ["Dasv5", "Easv5"]),
    "epyc-9v74": ("Azure", ["Dasv6", "Easv6"]),
}
CLOUD_NETWORK = {"AWS": ("aws-ena", "aws-az-fabric"),
                 "Google Cloud": ("gcp-gvnic", "gcp-zone-fabric"),
                 "Azure": ("azure-accelnet", "azure-az-fabric")}


def test_covers_cloud_instance_cpus():
    """`cephsim catalog cpus` names the cloud and its instance families (the fuzzy CPU
    match of `cephsim init` searches the names too)."""
    assert set(CLOUD_CPUS) <= set(CAT.cpus), set(CLOUD_CPUS) - set(CAT.cpus)
    for id_, (cloud, families) in CLOUD_CPUS.items():
        name = CAT.cpus[id_].name
        assert cloud in name and all(f in name for f in families), (id_, name)
        assert any(f"{id_}" == r["id"] and cloud in r["name"] for r in catalog_rows("cpu"))


def test_cloud_cpus_carry_the_clocks_the_clouds_publish():
    """The figures AWS, Google and Microsoft publish for these families, as datasheet
    figures (the rest are derived, measured in guests, or estimates that say why)."""
    published = [  # (id, field, GHz): AWS M7i, C6a, M7a, M5, C5; Google C3, C3D, N2D (Rome);
        ("xeon-8488c", "all_core_clock", 3.2), ("xeon-8488c", "boost_clock", 3.8),  # Azure
        ("epyc-7r13", "all_core_clock", 3.6), ("epyc-9r14", "boost_clock", 3.7),
        ("xeon-8259cl", "all_core_clock", 3.1),
        ("xeon-8175m", "base_clock", 2.5), ("xeon-8175m", "all_core_clock", 3.1),
        ("xeon-8124m", "all_core_clock", 3.4), ("xeon-8124m", "boost_clock", 3.5),
        ("xeon-8481c", "all_core_clock", 3.0),
        ("epyc-9b14", "all_core_clock", 3.3), ("epyc-9b14", "boost_clock", 3.7),
        ("epyc-7b12", "base_clock", 2.25), ("epyc-7b12", "all_core_clock", 2.7),
        ("epyc-7b12", "boost_clock", 3.3),
        ("xeon-8370c", "all_core_clock", 3.5), ("epyc-7763v", "boost_clock", 3.7),
        ("epyc-9v74", "boost_clock", 3.7),
    ]
    for id_, field, ghz in published:
        e = CAT.cpus[id_]
        assert getattr(e, f"{field}_hz") / 1e9 == pytest.approx(ghz), (id_, field)
        assert e.sources[field].basis == "datasheet", (id_, field)
    # AWS runs its Genoa families without SMT (one vCPU per physical core)
    assert CAT.cpus["epyc-9r14"].threads_per_core == 1
    # the 8488C's single PassMark sample is listed but the generation's figure is used
    x = CAT.cpus["xeon-8488c"]
    assert x.single_thread.score == 3113 and x.per_clock_speed == 1.12
    assert x.sources["per_clock_speed"].basis == "estimate"
    # parts PassMark does not list take their PassMark-rated sibling's per-clock speed
    assert CAT.cpus["epyc-7763v"].per_clock_speed == CAT.cpus["epyc-7763"].per_clock_speed
    assert CAT.cpus["xeon-8370c"].per_clock_speed == CAT.cpus["xeon-8375c"].per_clock_speed


@pytest.mark.parametrize("id_", sorted(CLOUD_CPUS))
def test_cloud_cpu_notes_say_how_to_model_the_vm(id_):
    """Each cloud CPU's notes give the settings of a scenario for its VMs (the cloud's NIC
    and fabric, the vm section, the governor of a guest without cpufreq, the instance's
    share of cores), and every catalog id they name exists."""
    import re

    e = CAT.cpus[id_]
    notes = " ".join(str(e.notes).split())
    nic, switch = CLOUD_NETWORK[CLOUD_CPUS[id_][0]]
    for words in (f"nic: {nic}", f"network.topology.switch: {switch}", "vm: {}",
                  "tuning.governor: performance", "osd_cores"):
        assert words in notes, (id_, words)
    assert nic in CAT.nics and switch in CAT.switches and e.cstates in CAT.cstates
    named = re.findall(r"\b((?:epyc|xeon|amd|intel)-[a-z0-9]+(?:-[a-z0-9]+)*)(?![-*\w])", notes)
    for token in named:
        assert token in CAT.cpus or token in CAT.cstates, (id_, token)


def test_an_entry_shows_a_derived_figure_by_its_value():
    """`cephsim catalog cpus ID` shows per_clock_speed, which the file leaves to the
    single-thread score, as the value the model uses."""
    from cephsim.catalog.load import entry_figures

    rows = {r["field"]: r for r in entry_figures("cpus", "xeon-8375c")}
    assert rows["per_clock_speed"]["value"] == "1.144 (derived)"  # 2474 / 3.5 GHz / (2100 / 3.4)
    assert rows["per_clock_speed"]["basis"] == "derived"
    assert rows["smt_yield"]["value"] == "1.25 (default)"
    assert all("Undefined" not in str(r["value"]) for r in rows.values())
