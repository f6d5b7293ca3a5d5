"""Turn what was collected into a scenario: match each part to the catalog, fall back to an
inline entry or a class default, and write down every guess."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from ruamel.yaml import YAML

from cephsim.catalog.load import load_catalog
from cephsim.tools.init.collect import COMMANDS, Collected

RELEASES = {"12": "luminous", "13": "mimic", "14": "nautilus", "15": "octopus", "16": "pacific",
            "17": "quincy", "18": "reef", "19": "squid", "20": "tentacle"}
#: the generic catalog entries' classes (generic-25g, generic-cut-through-25g), by rate
SPEED_CLASSES = {1e9: "1g", 10e9: "10g", 25e9: "25g", 40e9: "40g", 100e9: "100g"}
#: cpufreq drivers the model knows, by the name the kernel reports
DRIVERS = {"intel_pstate": "intel_pstate", "amd-pstate-epp": "amd-pstate-epp",
           "acpi-cpufreq": "acpi-cpufreq"}


@dataclass
class Built:
    text: str  #: the scenario file
    notes: list[str] = field(default_factory=list)  #: what was read and matched
    guesses: list[str] = field(default_factory=list)  #: what was assumed


@lru_cache(maxsize=1)
def _rules() -> dict[str, Any]:
    text = resources.files("cephsim.tools.init").joinpath("models.yaml").read_text("utf-8")
    return YAML(typ="safe").load(text)


def _num(s: str | None) -> float | None:
    m = re.search(r"[\d.]+", s or "")
    return float(m.group(0)) if m else None


def match_cpu(model: str) -> tuple[str | None, str]:
    """The catalog id of the CPU ``model`` (as lscpu or osd metadata name it), and how."""
    cpus = load_catalog().cpus
    s = model.lower()
    m = re.search(r"epyc\s+(\w+)", s)
    if m and f"epyc-{m.group(1)}" in cpus:
        return f"epyc-{m.group(1)}", "model number"
    m = re.search(r"xeon\(r\)?\s*(?:cpu\s*)?(e\d)-(\d{4}\w?)\s*v(\d)", s)
    if m and f"xeon-{m.group(1)}-{m.group(2)}v{m.group(3)}" in cpus:
        return f"xeon-{m.group(1)}-{m.group(2)}v{m.group(3)}", "model number"
    m = re.search(r"(?:platinum|gold|silver|bronze)\s+(\d{4}[\w+]*)", s)
    if m:
        num = m.group(1).replace("+", "plus")
        if f"xeon-{num}" in cpus:
            return f"xeon-{num}", "model number"
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


def build(got: Collected) -> Built:
    out = Built(text="")
    g, n = out.guesses, out.notes
    n += [f"{COMMANDS[k]}: {p}" for k, p in sorted(got.files.items())]
    cat = load_catalog()

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

    # ---- CPU
    cpu_name = got.cpu.get("Model name") or str(meta.get("cpu", "")).strip()
    cpu_id, how = match_cpu(cpu_name) if cpu_name else (None, "")
    sockets = int(_num(got.cpu.get("Socket(s)")) or 1)
    cpu_yaml: Any
    if cpu_id:
        n.append(f"CPU '{cpu_name}' -> catalog {cpu_id} ({how})")
        cpu_yaml = cpu_id
    else:
        cpu_yaml = _inline_cpu(cpu_name, got, g)
    if "Socket(s)" not in got.cpu:
        g.append("one socket per host (no lscpu output)")

    # ---- tuning
    tuning: dict[str, Any] = {}
    drv = got.freq.get("driver")
    if drv in DRIVERS:
        tuning["cpufreq_driver"] = DRIVERS[drv]
    elif drv:
        g.append(f"cpufreq driver {drv} is not modelled: the CPU's default driver is used")
    gov = got.freq.get("governor")
    if gov in ("performance", "powersave", "ondemand", "schedutil", "conservative"):
        tuning["governor"] = gov
    else:
        g.append("governor: the kernel's default for the driver (no cpupower frequency-info)")
    if got.freq.get("boost") == "no":
        tuning["boost"] = False
    if got.idle:
        enabled = [s for s, on in got.idle if on]
        table = (cat.cstates[cat.cpus[cpu_id].cstates] if cpu_id else None)
        names = [s.name for s in table.states] if table else []
        deepest = next((s for s in reversed(enabled) if s in names), None)
        if deepest and deepest != names[-1]:
            tuning["max_cstate"] = deepest
        elif not deepest:
            g.append(f"idle states {' '.join(enabled)}: none of them named in the platform's "
                     f"table ({' '.join(names) or 'inline CPU'}); all states allowed")
    else:
        g.append("idle states: all the platform's (no cpupower idle-info)")

    # ---- NIC
    speed = int(got.nic["speed_mbps"]) if got.nic.get("speed_mbps") else None
    nic = match_nic(got.nic.get("driver"), speed)
    if nic is None:
        nic = f"generic-{SPEED_CLASSES.get((speed or 0) * 1e6, '25g')}"
        g.append(f"NIC: {nic} (driver {got.nic.get('driver', 'unknown')}, "
                 f"{speed or 'unknown'} Mb/s: no catalog entry)")
    else:
        n.append(f"NIC driver {got.nic.get('driver')} at "
                 f"{f'{speed} Mb/s' if speed else 'an unreported speed'} -> catalog {nic}")
    mtu = int(got.nic.get("mtu", 0)) or 1500
    if "mtu" not in got.nic:
        g.append("MTU 1500 (no ip -j link)")

    # ---- disks
    disk_model = (str(meta.get("bluestore_bdev_model") or meta.get("device_ids", "")).strip()
                  or (got.nvme_models[0] if got.nvme_models else ""))
    rotational = str(meta.get("bluestore_bdev_rotational", meta.get("rotational", "0"))) == "1"
    nvme = "nvme" in str(meta.get("bluestore_bdev_dev_node", meta.get("devices", ""))).lower() \
        or bool(got.nvme_models)
    disk = match_disk(disk_model) if disk_model else None
    if disk:
        n.append(f"drive '{disk_model}' -> catalog {disk}")
    else:
        disk = ("generic-hdd-7200" if rotational else "generic-enterprise-nvme-plp" if nvme
                else "generic-enterprise-sata-plp")
        g.append(f"drive '{disk_model or 'unknown'}': not in the catalog, the class default "
                 f"{disk} (its figures are estimates: measure it, then give it inline)")
    db = str(meta.get("bluefs_dedicated_db", "0")) == "1"
    if db:
        g.append("the OSDs have a dedicated DB device: not written (give osds.db_disk)")

    # ---- Ceph
    version = got.version or str(meta.get("ceph_version", ""))
    m = re.search(r"(\d+)\.(\d+)\.(\d+)", version)
    ceph: dict[str, Any] = {}
    if m and m.group(1) in RELEASES:
        ceph = {"release": RELEASES[m.group(1)], "version": m.group(0)}
    else:
        ceph = {"release": "reef"}
        g.append("release reef (no version in the files)")
    target = got.config.get("osd_memory_target")
    if target and target.isdigit():
        ceph["osd_memory_target"] = f"{int(target) // 1024**2}MiB"
    debug = {k.removeprefix("debug_"): v for k, v in got.config.items()
             if k in ("debug_osd", "debug_ms", "debug_bluestore", "debug_bluefs", "debug_bdev",
                      "debug_optracker")}
    if debug:
        ceph["debug"] = debug

    # ---- pool
    pool: dict[str, Any] = {"size": 3, "pg_num": 128}
    rbd = [p for p in got.pools if "rbd" in (p.get("application_metadata") or {})]
    pick = (rbd or got.pools or [None])[0]
    if pick:
        n.append(f"pool '{pick.get('pool_name')}'")
        if pick.get("type") == 3:
            g.append(f"pool {pick.get('pool_name')} is erasure-coded (profile "
                     f"{pick.get('erasure_code_profile')}): k and m from its size, m=2")
            size = int(pick.get("size", 4))
            pool = {"type": "erasure", "k": max(1, size - 2), "m": min(2, size - 1),
                    "pg_num": int(pick.get("pg_num", 128))}
        else:
            pool = {"size": int(pick.get("size", 3)), "pg_num": int(pick.get("pg_num", 128))}
    else:
        g.append("pool: size 3, 128 PGs (no ceph osd pool ls detail)")
    domains, n_osds = len(hosts), len(hosts) * per_host
    if pool.get("type") != "erasure" and pool["size"] > n_osds:
        g.append(f"pool size {n_osds}: the {pool['size']} copies do not fit on {n_osds} OSD(s)")
        pool["size"] = n_osds
    if pool.get("size", (pool.get("k") or 0) + (pool.get("m") or 0)) > domains:
        pool["failure_domain"] = "osd"
        g.append(f"failure domain osd: {domains} host(s) cannot hold the pool's copies apart")

    # ---- the file
    host_group: dict[str, Any] = {"name": "osd", "count": len(hosts), "cpu": cpu_yaml}
    if sockets > 1:
        host_group["sockets"] = sockets
    if tuning:
        host_group["tuning"] = tuning
    host_group["nic"] = nic
    hyper = got.cpu.get("Hypervisor vendor")
    if hyper:
        host_group["vm"] = {}
        g.append(f"the hosts are {hyper} virtual machines (lscpu): the vm defaults "
                 "(host halt polling 200 us, no guest haltpoll, host at full clock)")
    host_group["osds"] = {"count": per_host, "disk": disk}
    client = {k: v for k, v in host_group.items() if k != "osds"}
    client.update(name="client", count=1)
    g.append("one fio client host with the OSD hosts' hardware and tuning, librbd, "
             "4 KiB random writes at queue depth 1")
    scenario = {
        "name": "my-cluster", "description": f"{len(hosts)} OSD hosts from cephsim init",
        "hosts": [host_group, client],
        "network": {"mtu": mtu, "topology": {"kind": "switch",
                                             "switch": f"generic-cut-through-{_gbit(nic)}"}},
        "pool": pool, "ceph": ceph,
        "workload": {"rw": "randwrite", "bs": "4KiB", "iodepth": 1, "numjobs": 1, "engine": "rbd"},
        "run": {"seed": 1, "ios": 20000, "ramp_ios": 500}}
    g.append(f"one cut-through switch of the NICs' speed ({scenario['network']['topology']['switch']})")
    if got.rtt_ms:
        n.append(f"ping between hosts: avg {got.rtt_ms[1] * 1e3:.0f} us (compare with "
                 "`cephsim explain`'s network steps)")
    out.text = _render(scenario, out)
    return out


def _gbit(nic: str) -> str:
    """The generic switch class nearest the NIC's rate (there is no 1G switch class)."""
    speed = load_catalog().nics[nic].speed_bps
    best = min(SPEED_CLASSES, key=lambda s: abs(s - speed))
    return SPEED_CLASSES[best] if best > 1e9 else "10g"


def _inline_cpu(name: str, got: Collected, g: list[str]) -> dict[str, Any]:
    vendor_id = got.cpu.get("Vendor ID", "")
    vendor = ("intel" if "Intel" in vendor_id or "intel" in name.lower() else
              "amd" if "AMD" in vendor_id or "amd" in name.lower() else
              "arm" if "ARM" in vendor_id or "ampere" in name.lower() or "neoverse" in name.lower()
              else "other")
    cores = int(_num(got.cpu.get("Core(s) per socket")) or 16)
    tpc = int(_num(got.cpu.get("Thread(s) per core")) or 2)
    max_mhz = _num(got.cpu.get("CPU max MHz")) or _num(got.cpu.get("CPU MHz")) or 3000.0
    min_mhz = _num(got.cpu.get("CPU min MHz")) or min(1500.0, max_mhz)
    # the generation, where the name gives it (QEMU's CPU models do: 'Skylake, IBRS')
    low = name.lower().replace(" ", "")
    arch = next((a for a in ("sandybridge", "ivybridge", "haswell", "broadwell", "skylake",
                             "cascadelake", "icelake", "sapphirerapids") if a in low), "unknown")
    table = {"sandybridge": "intel-hsw", "ivybridge": "intel-hsw", "haswell": "intel-hsw",
             "broadwell": "intel-bdw", "skylake": "intel-skx",
             "cascadelake": "intel-skx"}.get(arch) or \
        {"intel": "intel-icx", "amd": "amd-acpi-c2-400"}.get(vendor, "amd-c1-only")
    g.append(f"CPU '{name or 'unknown'}': not in the catalog; written inline from lscpu "
             f"({cores} cores, {tpc} threads per core, {min_mhz:.0f}-{max_mhz:.0f} MHz), with "
             f"per_clock_speed 0.9 and the {table} idle states as class guesses"
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
