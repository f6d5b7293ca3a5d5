"""Turn what was collected into a scenario: match each part to the catalog, fall back to an
inline entry or a class default, and write down every guess.  Each guess about a key fact
(CPU, drive, NIC, pool, release) also becomes a :class:`Question`, so that ``init`` can ask
for it and build again with the answers (:mod:`cephsim.tools.init.ask`)."""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from ruamel.yaml import YAML

from cephsim.catalog.load import load_catalog
from cephsim.scenario.schema import EC_TECHNIQUES
from cephsim.tools.init.collect import COMMANDS, DEFAULT_MODES, Collected, ECProfile
from cephsim.units import format_size

RELEASES = {"12": "luminous", "13": "mimic", "14": "nautilus", "15": "octopus", "16": "pacific",
            "17": "quincy", "18": "reef", "19": "squid", "20": "tentacle"}
#: the generic catalog entries' classes (generic-25g, generic-cut-through-25g), by rate
SPEED_CLASSES = {1e9: "1g", 10e9: "10g", 25e9: "25g", 40e9: "40g", 100e9: "100g"}
#: cpufreq drivers the model knows, by the name the kernel reports
DRIVERS = {"intel_pstate": "intel_pstate", "amd-pstate-epp": "amd-pstate-epp",
           "acpi-cpufreq": "acpi-cpufreq"}
#: what a profile sets that the model has no counterpart for, with the value Ceph defaults to
#: (w and packetsize: jerasure's word and packet sizes; the crush-*-failure-domain pair:
#: Squid's multi-step rules)
PROFILE_UNMODELLED = {"w": "8", "packetsize": "2048", "jerasure-per-chunk-alignment": "false",
                      "crush-num-failure-domains": "0", "crush-osds-per-failure-domain": "0"}
#: the profile keys that need no word (read, or of no consequence to latency)
PROFILE_READ = {"k", "m", "l", "c", "d", "plugin", "technique", "stripe_unit", "name",
                "crush-failure-domain", "ruleset-failure-domain", "crush-root", "ruleset-root",
                "crush-device-class", "directory", *PROFILE_UNMODELLED}


@dataclass
class Question:
    """A key fact the files did not give: asked with the guess as its default."""

    key: str  #: cpu, sockets, client_cpu, disk, nic, pool, ec, release, hosts
    prompt: str
    default: str  #: shown, and taken on Enter (the guess the scenario holds without an answer)
    context: dict[str, Any] = field(default_factory=dict)  #: what the answer is checked against


@dataclass
class Built:
    text: str  #: the scenario file
    notes: list[str] = field(default_factory=list)  #: what was read and matched
    guesses: list[str] = field(default_factory=list)  #: what was assumed
    questions: list[Question] = field(default_factory=list)  #: what could be asked


@lru_cache(maxsize=1)
def _rules() -> dict[str, Any]:
    text = resources.files("cephsim.tools.init").joinpath("models.yaml").read_text("utf-8")
    return YAML(typ="safe").load(text)


def _num(s: str | None) -> float | None:
    m = re.search(r"[\d.]+", s or "")
    return float(m.group(0)) if m else None


#: QEMU's names for the CPU models it offers a guest (target/i386/cpu.c, model_id):
#: 'Intel Xeon E312xx (Sandy Bridge)', 'Intel Core Processor (Haswell)', 'Intel Xeon
#: Processor (Cascadelake)', 'AMD EPYC-Rome Processor', 'QEMU Virtual CPU version 2.5+',
#: 'Common KVM processor'; a guest given one sees no host CPU's own name
QEMU_MODEL = re.compile(r"\bqemu\b|\bkvm\b|\d+xx\b|\bprocessor \(|^amd epyc(?:-\w+)? processor\b",
                        re.I)


def _model_numbers(s: str) -> list[tuple[str, str]]:
    """Catalog ids a model string may name, each with how it was read, best first."""
    s = s.lower().replace("(r)", " ").replace("(tm)", " ").replace("®", " ")
    s = re.sub(r"\s+", " ", s)
    out: list[tuple[str, str]] = []
    m = re.search(r"epyc (?:processor )?(\d\w{2,4})\b", s)
    if m:
        num = m.group(1)
        out.append((f"epyc-{num}", "model number"))
        # a P part is the single-socket sale of the same die, clocks and cores as its
        # sibling: the catalog carries one of the two
        other = num[:-1] if num.endswith("p") else f"{num}p"
        out.append((f"epyc-{other}", f"model number; the catalog has the {other.upper()}, the "
                    f"{num.upper()}'s {'non-P' if num.endswith('p') else 'P'} sibling (a P part "
                    "is the single-socket sale of the same cores and clocks)"))
    m = re.search(r"xeon (?:cpu )?(e\d)-(\d{4})(\w?)(?: ?v(\d))?\b", s)
    if m:
        out.append((f"xeon-{m.group(1)}-{m.group(2)}{m.group(3)}"
                    + (f"v{m.group(4)}" if m.group(4) else ""), "model number"))
    m = re.search(r"xeon (?:cpu )?e-(\d{4}\w?)\b", s)
    if m:
        out.append((f"xeon-e-{m.group(1)}", "model number"))
    m = re.search(r"(?:platinum|gold|silver|bronze) (\d{4}\w*\+?)", s)
    if m:
        out.append((f"xeon-{m.group(1).replace('+', 'plus')}", "model number"))
    m = re.search(r"xeon (?:cpu )?(\d{4}[a-z])\b", s)  # Xeon 6: 'Intel(R) Xeon(R) 6960P'
    if m:
        out.append((f"xeon-{m.group(1)}", "model number"))
    m = re.search(r"atom (?:cpu )?(c\d{4})\b", s)
    if m:
        out.append((f"atom-{m.group(1)}", "model number"))
    m = re.search(r"ryzen (\d) (pro )?(\d{4}\w*)", s)
    if m:
        out.append((f"ryzen{m.group(1)}-{'pro-' if m.group(2) else ''}{m.group(3)}",
                    "model number"))
    return out


def match_cpu(model: str) -> tuple[str | None, str]:
    """The catalog id of the CPU ``model`` (as lscpu or osd metadata name it), and how:
    by model number (an EPYC's P or non-P sibling when the catalog has only that one),
    else by the closest catalog name.  A QEMU CPU model name matches nothing."""
    cpus = load_catalog().cpus
    if QEMU_MODEL.search(model.strip()):
        return None, ""
    for cid, how in _model_numbers(model):
        if cid in cpus:
            return cid, how
    s = model.lower()
    names = {cid: c.name.lower() for cid, c in cpus.items()}
    best = difflib.get_close_matches(s, list(names.values()), n=1, cutoff=0.8)
    if best:
        return next(k for k, v in names.items() if v == best[0]), "closest name"
    return None, ""


def match_disk(model: str) -> str | None:
    for r in _rules()["disks"]:
        if re.search(r["match"], model, re.I):
            return str(r["id"])
    return None


def match_nic(driver: str | None, speed_mbps: int | None) -> str | None:
    for r in _rules()["nics"]:
        if r["driver"] == driver and (r["speed"] == speed_mbps or r["speed"] == 0):
            return str(r["id"])
    return None


def build(got: Collected, answers: dict[str, Any] | None = None) -> Built:
    """The scenario for what ``got`` says; ``answers`` (by :class:`Question` key) replace
    the guesses they answer."""
    ans = answers or {}
    out = Built(text="")
    g, n = out.guesses, out.notes
    n += [f"{COMMANDS[k]}: {p}" for k, p in sorted(got.files.items()) if k != "ec_profile"]
    n += [f"{COMMANDS['ec_profile']}: {p.file}" for p in got.ec_profiles]
    if got.client is not None:
        n += [f"client host: {COMMANDS[k]}: {p}" for k, p in sorted(got.client.files.items())]
    n += got.notes + (got.client.notes if got.client is not None else [])

    # ---- hosts and OSDs
    hosts = got.tree_hosts or {}
    if not hosts:
        for o in got.osds:
            hosts.setdefault(str(o["hostname"]), []).append(int(o.get("id", len(hosts))))
    hosts = {h: ids for h, ids in hosts.items() if ids}
    counts = sorted({len(ids) for ids in hosts.values()})
    per_host = max(counts) if counts else 1
    if len(counts) > 1:
        g.append(f"OSD hosts carry {', '.join(map(str, counts))} OSDs: modelled as {len(hosts)} "
                 f"hosts of {per_host} (the largest)")
    meta = got.osds[0] if got.osds else {}
    n_hosts = max(1, len(hosts))

    # ---- the OSD hosts' hardware
    cpu_name = got.cpu.get("Model name") or str(meta.get("cpu", "")).strip()
    cpu_yaml, cpu_id = _cpu(cpu_name, got, out, ans.get("cpu"), "cpu", "")
    sockets = _sockets(got, out, ans.get("sockets"), "sockets", "")
    tuning = _tuning(got, cpu_id, g, "")
    nic, speed = _nic(got, out, ans.get("nic"), "")
    mtu = int(got.nic.get("mtu", 0)) or 1500
    if "mtu" not in got.nic:
        g.append("MTU 1500 (no ip -j link)")

    # ---- disks
    disk = _disk(meta, got, out, ans.get("disk"))
    db = str(meta.get("bluefs_dedicated_db", "0")) == "1"
    if db:
        g.append("the OSDs have a dedicated DB device: not written (give osds.db_disk)")

    # ---- Ceph
    ceph = _ceph(got, meta, out, ans.get("release"))

    # ---- pool
    partial = _partial(got)
    hosts_answer = ans.get("hosts") if partial else None
    if isinstance(hosts_answer, int):
        n_hosts = hosts_answer
        n.append(f"{n_hosts} OSD hosts (answered)")
    n_osds = n_hosts * per_host
    # the pool's size is checked against the OSDs only where the files show them all
    pool = _pool(got, out, ans, max(n_osds, 48) if partial else n_osds)
    if pool.get("type") == "erasure":
        n_hosts = _fit_chunks(pool, n_hosts, per_host, len(hosts), g)
    else:
        need = (pool["size"] if pool.get("failure_domain", "host") == "host"
                else math.ceil(pool["size"] / per_host))
        if partial and hosts_answer is None and need > n_hosts:
            g.append(f"the pool's {pool['size']} copies on distinct "
                     f"{'hosts' if need == pool['size'] else 'OSDs'} need {need} hosts: modelled "
                     f"{need} hosts like the {len(hosts) or 'no'} the files show")
            n_hosts = need
            n_osds = n_hosts * per_host
        if pool["size"] > n_osds:
            g.append(f"pool size {n_osds}: the {pool['size']} copies do not fit on {n_osds} "
                     "OSD(s)")
            pool["size"] = n_osds
        if pool["size"] > n_hosts:
            pool["failure_domain"] = "osd"
            g.append(f"failure domain osd: {n_hosts} host(s) cannot hold the pool's copies apart")

    if partial and hosts_answer is None:
        g.append(f"the files show only part of the cluster ({partial}), and no 'ceph osd tree "
                 f"-f json': {n_hosts} OSD host(s) of {per_host} OSD(s) modelled; give the "
                 "tree (every host and OSD) or answer how many hosts")
        out.questions.append(Question(
            "hosts", f"OSD hosts in the cluster (the files show {len(hosts)}: {partial})",
            str(n_hosts)))

    # ---- the file
    host_group: dict[str, Any] = {"name": "osd", "count": n_hosts, "cpu": cpu_yaml}
    if sockets > 1:
        host_group["sockets"] = sockets
    if tuning:
        host_group["tuning"] = tuning
    host_group["nic"] = nic
    guest = _guest(got, cpu_name, got.source("lscpu") if got.cpu.get("Model name")
                   else got.source("osd_metadata"))
    if guest:
        host_group["vm"] = {}
        g.append(f"the hosts are virtual machines ({guest}): the vm defaults (host halt "
                 "polling 200 us, no guest haltpoll, host at full clock)")
    host_group["osds"] = {"count": per_host, "disk": disk}
    memory = _memory(got, out)
    if memory:  # what the OSDs leave of it is the page cache of buffered BlueFS reads
        host_group["memory"] = format_size(memory)
    else:
        g.append("the OSD hosts' memory: not given (cat /proc/meminfo), so no page cache under "
                 "BlueFS")
    client = _client(got, host_group, cpu_id, out, ans)
    g.append("one fio client host, librbd, 4 KiB random writes at queue depth 1")
    scenario = {
        "name": "my-cluster", "description": f"{n_hosts} OSD hosts from cephsim init",
        "hosts": [host_group, client],
        "network": {"mtu": mtu, "topology": {"kind": "switch",
                                             "switch": f"generic-cut-through-{_gbit(nic)}"}},
        "pool": pool, "ceph": ceph,
        "workload": {"rw": "randwrite", "bs": "4KiB", "iodepth": 1, "numjobs": 1, "engine": "rbd"},
        "run": {"seed": 1, "ios": 20000, "ramp_ios": 500}}
    g.append("one cut-through switch of the NICs' speed "
             f"({scenario['network']['topology']['switch']})")
    if got.rtt_ms:
        n.append(f"ping between hosts: avg {got.rtt_ms[1] * 1e3:.0f} us (compare with "
                 "`cephsim explain`'s network steps)")
    out.text = _render(scenario, out)
    return out


#: how far two figures of the hosts' RAM may differ and still be one: the kernel's own
#: reservations move MemTotal by a few MB between hosts of the same build
MEMORY_TOLERANCE = 0.01


def _memory(got: Collected, out: Built) -> int | None:
    """The OSD hosts' RAM: their OSDs' mem_total_kb (ceph osd metadata: every host), else
    one host's /proc/meminfo or free -b; the smallest where the hosts differ."""
    if not got.host_memory:
        return got.memory
    sizes = sorted(set(got.host_memory.values()))
    low, high = sizes[0], sizes[-1]
    src = f"mem_total_kb in {got.source('osd_metadata')}"
    if high > low * (1 + MEMORY_TOLERANCE):
        out.guesses.append(f"the OSD hosts' RAM differs ({format_size(low)} to "
                           f"{format_size(high)}, {src}): modelled the smallest on every host")
    else:
        out.notes.append(f"the OSD hosts' RAM: {format_size(low)} ({src})")
    if got.memory and abs(got.memory - low) > low * MEMORY_TOLERANCE:
        out.guesses.append(f"{got.source('meminfo')} says {format_size(got.memory)} of RAM, the "
                           f"OSDs' metadata {format_size(low)}: modelled the metadata's (it is "
                           "every OSD host's)")
    return low


def _partial(got: Collected) -> str | None:
    """What shows that the files describe only some of the cluster's OSDs (None: nothing
    does): one OSD's own metadata, or OSD ids beyond the number of OSDs given, with no
    osd tree to list them all."""
    if got.tree_hosts:
        return None
    if got.single_osd:
        return ", ".join(f"{p.name} is one OSD's 'ceph osd metadata N'" for p in got.single_osd)
    ids = [o["id"] for o in got.osds if isinstance(o.get("id"), int)]
    if ids and max(ids) >= len(ids):
        return f"metadata of {len(ids)} OSD(s) with ids up to {max(ids)}"
    return None


def _guest(got: Collected, name: str, name_from: str) -> str | None:
    """Why the host is a virtual machine, from what the files say, or None."""
    hyper = got.cpu.get("Hypervisor vendor")
    if hyper:
        return f"lscpu: Hypervisor vendor {hyper}"
    if re.search(r"(?<![\w-])hypervisor(?![\w-])", got.cpu.get("Flags", "")):
        return f"the CPU flags in {got.source('lscpu' if 'lscpu' in got.files else 'cpuinfo')} " \
               "have 'hypervisor'"
    if name and QEMU_MODEL.search(name):
        return f"'{name}' ({name_from}) is a QEMU/KVM CPU model's name"
    return None


# ---------------------------------------------------------------- host hardware

#: the lscpu fields each figure of an inline CPU comes from, and the figure's class guess
FIGURE_FIELDS = (("cores", ("Core(s) per socket",), 16),
                 ("threads per core", ("Thread(s) per core",), 2),
                 ("highest clock", ("CPU max MHz", "CPU MHz"), 3000.0),
                 ("lowest clock", ("CPU min MHz",), 1500.0))


def _cpu_figures(got: Collected) -> dict[str, float]:
    """What lscpu says of the cores and clocks, or class guesses where it says nothing."""
    max_mhz = _num(got.cpu.get("CPU max MHz")) or _num(got.cpu.get("CPU MHz")) or 3000.0
    return {"cores": int(_num(got.cpu.get("Core(s) per socket")) or 16),
            "threads_per_core": int(_num(got.cpu.get("Thread(s) per core")) or 2),
            "max_mhz": max_mhz,
            "min_mhz": _num(got.cpu.get("CPU min MHz")) or min(1500.0, max_mhz)}


def _figures_origin(got: Collected) -> str:
    """Where :func:`_cpu_figures` took each figure: lscpu's file (naming the field where it
    is not the obvious one), or the class guess where lscpu is not among the files or
    gives no figure (a guest's lscpu has no clock range, some give a 0 MHz minimum)."""
    if "lscpu" not in got.files:
        return "class defaults: no lscpu among the files"
    read, guessed = [], []
    for what, fields, _ in FIGURE_FIELDS:
        hit = next((f for f in fields if _num(got.cpu.get(f))), None)
        if hit is None:
            guessed.append(what)
        else:
            read.append(what if hit == fields[0] else f"{what} (its '{hit}')")
    src = got.source("lscpu")
    if not guessed:
        return f"from {src}"
    if not read:
        return f"class defaults: {src} gives none of them"
    return f"{', '.join(read)} from {src}; {', '.join(guessed)} a class default (lscpu gives none)"


def _cpu(name: str, got: Collected, out: Built, answer: Any, key: str,
         who: str) -> tuple[Any, str | None]:
    """The CPU as the scenario gives it (catalog id or inline entry) and its catalog id."""
    if isinstance(answer, str):
        out.notes.append(f"{who}CPU '{name or 'unknown'}' -> catalog {answer} (answered)")
        return answer, answer
    cpu_id, how = match_cpu(name) if name else (None, "")
    if cpu_id and answer is None:
        out.notes.append(f"{who}CPU '{name}' -> catalog {cpu_id} ({how})")
        return cpu_id, cpu_id
    figures = _cpu_figures(got)
    if isinstance(answer, dict):
        figures.update(answer)
    inline = _inline_cpu(name, got.cpu.get("Vendor ID", ""), figures, out.guesses, who,
                         "the answers" if isinstance(answer, dict) else _figures_origin(got))
    if answer is None:
        out.questions.append(Question(
            key, f"{who or 'OSD hosts: '}CPU '{name or 'unknown'}' is not in the catalog: a "
            "catalog id or model name, or 'inline' for its figures",
            f"inline, {_figures_text(figures)}", {"name": name, **figures}))
    return inline, None


def _figures_text(f: dict[str, float]) -> str:
    return (f"{f['cores']:.0f} cores, {f['threads_per_core']:.0f} threads per core, "
            f"{f['min_mhz']:.0f}-{f['max_mhz']:.0f} MHz")


def _sockets(got: Collected, out: Built, answer: Any, key: str, who: str) -> int:
    if "Socket(s)" in got.cpu:
        return int(_num(got.cpu.get("Socket(s)")) or 1)
    if isinstance(answer, int):
        out.notes.append(f"{who}{answer} socket(s) per host (answered)")
        return answer
    out.guesses.append(f"{who}one socket per host (no lscpu output)")
    out.questions.append(Question(key, f"{who or 'OSD hosts: '}CPU sockets per host", "1"))
    return 1


def _tuning(got: Collected, cpu_id: str | None, g: list[str], who: str) -> dict[str, Any]:
    tuning: dict[str, Any] = {}
    drv = got.freq.get("driver")
    if drv in DRIVERS:
        tuning["cpufreq_driver"] = DRIVERS[drv]
    elif drv:
        g.append(f"{who}cpufreq driver {drv} is not modelled: the CPU's default driver is used")
    gov = got.freq.get("governor")
    if gov in ("performance", "powersave", "ondemand", "schedutil", "conservative"):
        tuning["governor"] = gov
    else:
        g.append(f"{who}governor: the kernel's default for the driver (no cpupower "
                 "frequency-info)")
    if got.freq.get("boost") == "no":
        tuning["boost"] = False
    if got.idle:
        cat = load_catalog()
        enabled = [s for s, on in got.idle if on]
        table = (cat.cstates[cat.cpus[cpu_id].cstates] if cpu_id else None)
        names = [s.name for s in table.states] if table else []
        deepest = next((s for s in reversed(enabled) if s in names), None)
        if deepest and deepest != names[-1]:
            tuning["max_cstate"] = deepest
        elif not deepest:
            g.append(f"{who}idle states {' '.join(enabled)}: none of them named in the "
                     f"platform's table ({' '.join(names) or 'inline CPU'}); all states allowed")
    else:
        g.append(f"{who}idle states: all the platform's (no cpupower idle-info)")
    return tuning


def _nic(got: Collected, out: Built, answer: Any, who: str) -> tuple[str, int | None]:
    """The NIC's catalog id and the link speed ethtool reported (Mb/s)."""
    speed = int(got.nic["speed_mbps"]) if got.nic.get("speed_mbps") else None
    driver = got.nic.get("driver")
    if isinstance(answer, str):
        out.notes.append(f"{who}NIC -> catalog {answer} (answered)")
        return answer, speed
    nic = match_nic(driver, speed)
    if nic is None:
        nic = f"generic-{SPEED_CLASSES.get((speed or 0) * 1e6, '25g')}"
        out.guesses.append(f"{who}NIC: {nic} (driver {driver or 'unknown'}, "
                           f"{speed or 'unknown'} Mb/s: no catalog entry)")
        out.questions.append(Question(
            "client_nic" if who else "nic",
            f"{who or 'OSD hosts: '}NIC (driver {driver or 'unknown'}, "
            f"{speed or 'unknown'} Mb/s): its link speed in Gb/s, or a catalog id", nic,
            {"driver": driver}))
    else:
        out.notes.append(f"{who}NIC driver {driver} at "
                         f"{f'{speed} Mb/s' if speed else 'an unreported speed'} -> catalog {nic}")
    return nic, speed


def _disk(meta: dict[str, Any], got: Collected, out: Built, answer: Any) -> str:
    disk_model = (str(meta.get("bluestore_bdev_model") or meta.get("device_ids", "")).strip()
                  or (got.nvme_models[0] if got.nvme_models else ""))
    if isinstance(answer, str):
        out.notes.append(f"drive '{disk_model or 'unknown'}' -> catalog {answer} (answered)")
        return answer
    rotational = str(meta.get("bluestore_bdev_rotational", meta.get("rotational", "0"))) == "1"
    nvme = "nvme" in str(meta.get("bluestore_bdev_dev_node", meta.get("devices", ""))).lower() \
        or bool(got.nvme_models)
    disk = match_disk(disk_model) if disk_model else None
    if disk:
        out.notes.append(f"drive '{disk_model}' -> catalog {disk}")
        return disk
    disk = ("generic-hdd-7200" if rotational else "generic-enterprise-nvme-plp" if nvme
            else "generic-enterprise-sata-plp")
    out.guesses.append(f"drive '{disk_model or 'unknown'}': not in the catalog, the class "
                       f"default {disk} (its figures are estimates: measure it, then give it "
                       "inline)")
    out.questions.append(Question(
        "disk", f"OSD drive '{disk_model or 'unknown'}' is not in the catalog: a catalog id or "
        "model name (generic-enterprise-nvme-plp, generic-enterprise-sata-plp, "
        "generic-consumer-nvme, generic-consumer-sata, generic-hdd-7200 are class defaults)",
        disk, {"model": disk_model}))
    return disk


def _ceph(got: Collected, meta: dict[str, Any], out: Built, answer: Any) -> dict[str, Any]:
    version = answer if isinstance(answer, str) else (got.version
                                                      or str(meta.get("ceph_version", "")))
    m = re.search(r"(\d+)\.(\d+)\.(\d+)", version)
    ceph: dict[str, Any] = {}
    if m and m.group(1) in RELEASES:
        ceph = {"release": RELEASES[m.group(1)], "version": m.group(0)}
    elif version in RELEASES.values():
        ceph = {"release": version}
    else:
        ceph = {"release": "reef"}
        out.guesses.append("release reef (no version in the files)")
        out.questions.append(Question("release", "Ceph release (a name such as squid, or a "
                                      "version such as 19.2.1)", "reef"))
    if isinstance(answer, str):
        out.notes.append(f"Ceph {answer} (answered)")
    target = got.config.get("osd_memory_target")
    if target and target.isdigit():
        ceph["osd_memory_target"] = f"{int(target) // 1024**2}MiB"
    buffered = got.config.get("bluefs_buffered_io", "").lower()
    if buffered in ("true", "false"):
        ceph["bluefs_buffered_io"] = buffered == "true"
    _ms_mode(got, ceph, out)
    debug = {k.removeprefix("debug_"): v for k, v in got.config.items()
             if k in ("debug_osd", "debug_ms", "debug_bluestore", "debug_bluefs", "debug_bdev",
                      "debug_optracker")}
    if debug:
        ceph["debug"] = debug
    return ceph


def _ms_mode(got: Collected, ceph: dict[str, Any], out: Built) -> None:
    """ceph.ms_mode from the msgr2 mode options the config dump sets.  A connection takes the
    connecting side's first mode that the accepting side allows (AuthRegistry::pick_mode):
    between OSDs both sides list ms_cluster_mode, so its first mode; a client lists
    ms_client_mode, the OSD allows ms_service_mode.  The scenario has one mode for both."""
    modes = got.con_modes
    if not modes or ceph.get("release") in ("luminous", "mimic"):  # msgr2 from Nautilus
        return
    src = got.source("config_dump")
    cluster = modes.get("ms_cluster_mode", DEFAULT_MODES.split())[0]
    service = modes.get("ms_service_mode", DEFAULT_MODES.split())
    client = next((m for m in modes.get("ms_client_mode", DEFAULT_MODES.split())
                   if m in service), None)
    set_ = ", ".join(f"{k} {' '.join(v)}" for k, v in sorted(modes.items()))
    ceph["ms_mode"] = cluster
    if client == cluster:
        out.notes.append(f"msgr2 mode {cluster} ({set_}: {src})")
        return
    out.guesses.append(
        f"msgr2 mode {cluster}, the OSDs' own ({set_}: {src}); the client's connections "
        + (f"settle on {client}" if client else "find no mode the OSDs allow")
        + ": the scenario has one mode for both")


def _client(got: Collected, osd_group: dict[str, Any], osd_cpu_id: str | None, out: Built,
            ans: dict[str, Any]) -> dict[str, Any]:
    """The client host group: its own outputs (client/) where given, the OSD hosts'
    hardware for what they do not say (each such copy a guess)."""
    g, answer = out.guesses, ans.get("client_cpu")
    own = got.client
    client: dict[str, Any] = {"name": "client", "count": 1}
    who = "client host: "
    if own is not None and own.cpu:
        name = own.cpu.get("Model name", "")
        client["cpu"], cpu_id = _cpu(name, own, out, answer, "client_cpu", who)
        sockets = _sockets(own, out, ans.get("client_sockets"), "client_sockets", who)
        if sockets > 1:
            client["sockets"] = sockets
    else:
        cpu_id = osd_cpu_id
        if answer is not None:
            client["cpu"], cpu_id = _cpu("", got, out, answer, "client_cpu", who)
        else:
            client["cpu"] = osd_group["cpu"]
            if "sockets" in osd_group:
                client["sockets"] = osd_group["sockets"]
            if own is not None:
                g.append(f"{who}the OSD hosts' CPU (no lscpu in client/)")
            out.questions.append(Question(
                "client_cpu", f"{who}CPU: a catalog id or model name, 'inline' for its figures, "
                "or 'same' as the OSD hosts", "same", {"name": "", **_cpu_figures(got)}))
    if own is None:
        g.append(f"{who}the OSD hosts' {'tuning and NIC' if answer else 'hardware and tuning'} "
                 "(no client/ directory with the client's own lscpu, cpupower and ethtool "
                 "outputs)")
    if own is not None and (own.freq or own.idle):
        tuning = _tuning(own, cpu_id, g, who)
    else:
        tuning = dict(osd_group.get("tuning", {}))
        if client["cpu"] != osd_group["cpu"]:
            # the driver and idle-state names belong to the OSD hosts' CPU
            tuning = {k: v for k, v in tuning.items() if k in ("governor", "boost")}
        what = "tuning" if client["cpu"] == osd_group["cpu"] else "governor"
        if own is not None:
            g.append(f"{who}the OSD hosts' {what} (no cpupower in client/)")
    if tuning:
        client["tuning"] = tuning
    if own is not None and (own.nic.get("driver") or own.nic.get("speed_mbps")):
        client["nic"], _ = _nic(own, out, ans.get("client_nic"), who)
    else:
        client["nic"] = osd_group["nic"]
        if own is not None:
            g.append(f"{who}the OSD hosts' NIC (no ethtool in client/)")
    if own is not None and "mtu" in own.nic and own.nic["mtu"] != got.nic.get("mtu", "1500"):
        g.append(f"{who}MTU {own.nic['mtu']} (ip -j link): the network's one MTU is the OSD "
                 "hosts'")
    if own is not None and own.cpu:
        guest = _guest(own, own.cpu.get("Model name", ""), own.source("lscpu"))
        if guest:
            client["vm"] = {}
            g.append(f"{who}a virtual machine ({guest}): the vm defaults")
    elif "vm" in osd_group:
        client["vm"] = {}
    return client


# ---------------------------------------------------------------- pool

def _pool(got: Collected, out: Built, ans: dict[str, Any], n_osds: int) -> dict[str, Any]:
    g, n = out.guesses, out.notes
    answer = ans.get("pool")
    rbd = [p for p in got.pools if "rbd" in (p.get("application_metadata") or {})]
    candidates = rbd or got.pools
    pick = candidates[0] if candidates else None
    if isinstance(answer, dict) and "name" in answer:
        pick = next(p for p in got.pools if p.get("pool_name") == answer["name"])
        n.append(f"pool '{answer['name']}' (answered)")
    elif len({_pool_shape(p) for p in candidates}) > 1:
        shown = ", ".join(f"{p.get('pool_name')} ({_pool_shape(p)})" for p in candidates)
        g.append(f"{len(candidates)} {'RBD ' if rbd else ''}pools differ ({shown}): modelled "
                 f"{pick.get('pool_name')}")
        out.questions.append(Question(
            "pool", "Which pool does the workload write to?", str(pick.get("pool_name")),
            {"choices": [str(p.get("pool_name")) for p in candidates]}))
    if isinstance(answer, dict) and "name" not in answer:
        n.append("pool " + (f"k={answer['k']} m={answer['m']}" if "k" in answer
                            else f"size {answer['size']}") + " (answered)")
        return {**answer, "pg_num": 128}
    if pick is None:
        g.append("pool: size 3, 128 PGs (no ceph osd pool ls detail)")
        out.questions.append(Question(
            "pool", "Pool: replicas (e.g. 3), or k+m of an erasure-coded pool (e.g. 4+2)", "3",
            {"osds": n_osds}))
        return {"size": 3, "pg_num": 128}
    if not isinstance(answer, dict):
        n.append(f"pool '{pick.get('pool_name')}'")
    pg_num = int(pick.get("pg_num", 128))
    if pick.get("type") != 3:
        if got.ec_profiles:
            n.append(f"erasure-code profiles read, unused: pool {pick.get('pool_name')} is "
                     "replicated")
        return {"size": int(pick.get("size", 3)), "pg_num": pg_num}
    return {"type": "erasure", **_erasure(pick, got.ec_profiles, out, ans.get("ec")),
            "pg_num": pg_num}


def _pool_shape(p: dict[str, Any]) -> str:
    if p.get("type") == 3:
        return f"erasure-coded, size {p.get('size')}, profile {p.get('erasure_code_profile')}"
    return f"replicated, size {p.get('size')}"


def _names_profile(p: ECProfile, name: str) -> bool:
    """Whether the profile is ``name``: its own name key, or the file named after it."""
    if p.name is not None:
        return p.name == name
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])", p.file.stem) is not None


def find_profile(pool: dict[str, Any], profiles: list[ECProfile]) -> tuple[ECProfile | None, str]:
    """The profile of an erasure-coded ``pool`` among those read, and how it was told: by
    name (the file named after it), else the one profile with as many chunks as the pool's
    size.  (The stripe width is no test: pools made before Luminous have widths that are
    not k stripe units.)"""
    name = str(pool.get("erasure_code_profile") or "")
    size = int(pool.get("size", 0))

    def fits(p: ECProfile) -> bool:
        return p.chunks() == size

    named = sorted((p for p in profiles if name and _names_profile(p, name)),
                   key=lambda p: (p.file.stem != name, len(p.file.stem)))
    if named:
        p = named[0]
        if fits(p):
            return p, f"{p.file.name} names it"
        return None, (f"{p.file.name} is named after it but has {p.chunks()} chunks per stripe "
                      f"(k={p.k} m={p.m}), the pool {size}: a profile from another cluster?")
    fitting = [p for p in profiles if p.name is None and fits(p)]
    same = {tuple(sorted(p.fields.items())) for p in fitting}
    if len(same) == 1:
        return fitting[0], (f"{fitting[0].file.name}, the only profile of {size} chunks "
                            f"(name it {name}.json to say so)")
    if fitting:
        return None, (f"{', '.join(p.file.name for p in fitting)} all have {size} chunks: name "
                      f"the right one {name}.json")
    return None, "no profile file names it or has its size"


def _erasure(pick: dict[str, Any], profiles: list[ECProfile], out: Built,
             answer: Any) -> dict[str, Any]:
    g, n = out.guesses, out.notes
    name, pname = pick.get("erasure_code_profile"), pick.get("pool_name")
    size, width = int(pick.get("size", 4)), int(pick.get("stripe_width") or 0)
    flags = str(pick.get("flags_names", "")).split(",")
    pool: dict[str, Any] = {}
    if "ec_overwrites" not in flags:
        g.append(f"pool {pname} has no ec_overwrites flag (RBD cannot write to it): modelled "
                 "with overwrites allowed")
    if "ec_optimizations" in flags:
        pool["ec_optimizations"] = True
    prof, how = find_profile(pick, profiles)
    if isinstance(answer, (list, tuple)):
        k, m = int(answer[0]), int(answer[1])
        n.append(f"pool {pname}: k={k} m={m} (answered)")
    elif prof is None:
        if width and width % 4096 == 0 and 0 < width // 4096 < size:
            k = width // 4096
            basis = f"k from its stripe width {width} over the default 4 KiB stripe unit"
        else:
            k, basis = max(1, size - 2), "m=2"
        m = size - k
        g.append(f"pool {pname} is erasure-coded (profile {name}; {how}): k={k} m={m}, {basis}, "
                 f"jerasure reed_sol_van, failure domain host (give 'ceph osd erasure-code-profile "
                 f"get {name} -f json' in a file named {name}.json)")
        out.questions.append(Question(
            "ec", f"Pool {pname}'s profile {name}: k+m", f"{k}+{m}", {"size": size}))
    else:
        n.append(f"pool {pname}: profile {name} from {how}")
        return {**pool, **_from_profile(prof, width, g)}
    pool.update(k=k, m=m)
    unit = _stripe_unit(width, k, None, f"pool {pname}", g)
    if unit != 4096:
        pool["stripe_unit"] = unit
    return pool


def _stripe_unit(width: int, k: int, given: int | None, src: str, g: list[str]) -> int:
    """The stripe unit: the pool's stripe width over k (what the OSDs use), else the
    profile's, else Ceph's default 4 KiB; the model takes multiples of 4 KiB only."""
    if width and width % k == 0:
        unit = width // k
    elif width:
        g.append(f"{src}: stripe width {width} B is not k={k} whole stripe units (a pool made "
                 "before Luminous?): stripe unit 4 KiB")
        return 4096
    else:
        unit = given or 4096
    if unit % 4096:
        g.append(f"{src}: stripe unit {unit} B is not a multiple of 4 KiB: 4 KiB")
        return 4096
    return unit


def _from_profile(prof: ECProfile, width: int, g: list[str]) -> dict[str, Any]:
    """k, m, plugin, technique, stripe unit and failure domain from a profile, and a guess
    for each thing it sets that the scenario cannot say."""
    f, src = prof.fields, prof.file.name
    pool: dict[str, Any] = {"k": prof.k, "m": prof.m}
    plugin = prof.plugin
    if plugin in EC_TECHNIQUES:
        pool["plugin"] = plugin
        tech = f.get("technique") or "reed_sol_van"
        if tech in EC_TECHNIQUES[plugin]:
            pool["technique"] = tech
        else:
            pool["technique"] = "reed_sol_van"
            g.append(f"{src}: technique {tech} is not one of {plugin}'s the model knows: "
                     "reed_sol_van")
    else:
        extra = {"lrc": "its local parity chunks (l) and their reads", "shec": "its c",
                 "clay": "its sub-chunk repair reads (d)"}.get(plugin, "its own coding")
        pool.update(plugin="jerasure", technique="reed_sol_van")
        g.append(f"{src}: plugin {plugin} is not modelled: written as jerasure reed_sol_van with "
                 f"the same k={prof.k} m={prof.m}, without {extra}")
    domain = f.get("crush-failure-domain") or f.get("ruleset-failure-domain") or "host"
    if domain in ("host", "osd"):
        pool["failure_domain"] = domain
    else:
        pool["failure_domain"] = "host"
        g.append(f"{src}: crush-failure-domain {domain}: the model places chunks on distinct "
                 "hosts or OSDs only: host (the chunks cross the same network)")
    unit = _stripe_unit(width, prof.k, _size(f.get("stripe_unit")), src, g)
    if unit != 4096:
        pool["stripe_unit"] = unit
    root = f.get("crush-root") or f.get("ruleset-root")
    if root and root != "default":
        g.append(f"{src}: crush-root {root}: the scenario has one root, its OSDs all alike")
    cls = f.get("crush-device-class")
    if cls:
        g.append(f"{src}: crush-device-class {cls}: the scenario's OSDs are all of it")
    for key, default in PROFILE_UNMODELLED.items():
        if key in f and f[key] != default:
            g.append(f"{src}: {key}={f[key]} is not modelled (the model runs Ceph's {default})")
    for key in sorted(set(f) - PROFILE_READ):
        g.append(f"{src}: {key}={f[key]} is not modelled")
    return pool


def _size(text: str | None) -> int | None:
    """Bytes of a size as Ceph's profiles take it (4096, 4K, 64KiB)."""
    m = re.fullmatch(r"(\d+)([KMGT]?)i?B?", (text or "").strip(), re.I)
    if not m:
        return None
    return int(m.group(1)) * 1024 ** " KMGT".index(m.group(2).upper() or " ")


def _fit_chunks(pool: dict[str, Any], n_hosts: int, per_host: int, seen: int,
                g: list[str]) -> int:
    """Hosts enough for an erasure-coded pool's chunks: a pool whose chunks cannot be placed
    has no active PGs, so files that show fewer hosts show only part of the cluster."""
    chunks = pool["k"] + pool["m"]
    domain = pool.get("failure_domain", "host")
    need = chunks if domain == "host" else math.ceil(chunks / per_host)
    if need <= n_hosts:
        return n_hosts
    where = "hosts" if domain == "host" else f"OSDs ({per_host} a host)"
    g.append(f"the files show {seen or 'no'} OSD host(s); the pool's k+m = {chunks} chunks on "
             f"distinct {where} need {need}: modelled {need} hosts like them")
    return need


# ---------------------------------------------------------------- writing

def _gbit(nic: str) -> str:
    """The generic switch class nearest the NIC's rate (there is no 1G switch class)."""
    speed = load_catalog().nics[nic].speed_bps
    best = min(SPEED_CLASSES, key=lambda s: abs(s - speed))
    return SPEED_CLASSES[best] if best > 1e9 else "10g"


def _inline_cpu(name: str, vendor_id: str, f: dict[str, float], g: list[str], who: str,
                origin: str) -> dict[str, Any]:
    vendor = ("intel" if "Intel" in vendor_id or "intel" in name.lower() else
              "amd" if "AMD" in vendor_id or "amd" in name.lower() else
              "arm" if "ARM" in vendor_id or "ampere" in name.lower() or "neoverse" in name.lower()
              else "other")
    cores, tpc = int(f["cores"]), int(f["threads_per_core"])
    max_mhz, min_mhz = float(f["max_mhz"]), float(f["min_mhz"])
    # the generation, where the name gives it (QEMU's CPU models do: 'Skylake, IBRS')
    low = name.lower().replace(" ", "")
    arch = next((a for a in ("sandybridge", "ivybridge", "haswell", "broadwell", "skylake",
                             "cascadelake", "icelake", "sapphirerapids") if a in low), "unknown")
    table = {"sandybridge": "intel-hsw", "ivybridge": "intel-hsw", "haswell": "intel-hsw",
             "broadwell": "intel-bdw", "skylake": "intel-skx",
             "cascadelake": "intel-skx"}.get(arch) or \
        {"intel": "intel-icx", "amd": "amd-acpi-c2-400"}.get(vendor, "amd-c1-only")
    g.append(f"{who}CPU '{name or 'unknown'}': not in the catalog; written inline with "
             f"{_figures_text(f)} ({origin}), per_clock_speed 0.9 and the {table} idle "
             "states as class guesses"
             + (f" (generation {arch} from its name)" if arch != "unknown" else ""))
    return {"name": name or "unknown CPU", "vendor": vendor, "microarch": arch,
            "cores": cores, "threads_per_core": min(2, max(1, tpc)),
            "base_clock": f"{max_mhz / 1000:.2f}GHz", "boost_clock": f"{max_mhz / 1000:.2f}GHz",
            "min_clock": f"{min_mhz / 1000:.2f}GHz", "per_clock_speed": 0.9,
            "cstates": table, "sources": {}}


def _render(scenario: dict[str, Any], built: Built) -> str:
    import io

    y = YAML()
    y.representer.ignore_aliases = lambda *a: True  # written out in full, no &id001
    y.default_flow_style = None
    y.width = 100
    buf = io.StringIO()
    y.dump(scenario, buf)
    head = ["# Written by `cephsim init` from what the operator collected:"]
    head += [f"#   {x}" for x in built.notes]
    head += ["# ASSUMED (check each; `cephsim validate` then `cephsim run` this file):"]
    head += [f"#   - {x}" for x in built.guesses]
    return "\n".join(head) + "\n" + buf.getvalue()
