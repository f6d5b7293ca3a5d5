"""Read what an operator collected: recognise each file by its content and pull out the
facts a scenario needs.  Every parser takes the text of one command's output."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cephsim.errors import CephsimError
from cephsim.formats.readers.ping import read_ping

#: the commands whose outputs are read, as the report names them
COMMANDS = {
    "osd_metadata": "ceph osd metadata -f json",
    "osd_tree": "ceph osd tree -f json",
    "pool_detail": "ceph osd pool ls detail -f json",
    "config_dump": "ceph config dump -f json",
    "versions": "ceph versions",
    "lscpu": "lscpu",
    "cpuinfo": "cat /proc/cpuinfo",
    "freq_info": "cpupower frequency-info",
    "idle_info": "cpupower idle-info",
    "ethtool": "ethtool IFACE",
    "ethtool_i": "ethtool -i IFACE",
    "ip_link": "ip -j link",
    "nvme_list": "nvme list -o json",
    "ping": "ping",
}
#: largest file read (a whole cluster's osd metadata is a few MB)
MAX_BYTES = 32 * 1024**2


@dataclass
class Collected:
    """What the files say, each fact with the file it came from."""

    files: dict[str, Path] = field(default_factory=dict)  #: kind -> file
    osds: list[dict[str, Any]] = field(default_factory=list)  #: ceph osd metadata entries
    tree_hosts: dict[str, list[int]] = field(default_factory=dict)  #: host -> its OSD ids
    device_class: dict[int, str] = field(default_factory=dict)
    pools: list[dict[str, Any]] = field(default_factory=list)
    config: dict[str, str] = field(default_factory=dict)  #: osd/global options set
    version: str | None = None  #: the OSDs' 'ceph version ...' string
    cpu: dict[str, str] = field(default_factory=dict)  #: lscpu fields
    freq: dict[str, str] = field(default_factory=dict)  #: driver, governor, boost
    idle: list[tuple[str, bool]] = field(default_factory=list)  #: (state, enabled)
    nic: dict[str, str] = field(default_factory=dict)  #: speed_mbps, driver, mtu
    nvme_models: list[str] = field(default_factory=list)
    rtt_ms: tuple[float, float, float] | None = None  #: ping min/avg/max

    def source(self, kind: str) -> str:
        return str(self.files[kind]) if kind in self.files else "?"


def _json_kind(data: Any) -> str | None:
    if isinstance(data, list) and data and all(isinstance(x, dict) for x in data):
        keys = set(data[0])
        if {"osd_objectstore", "ceph_version"} & keys or {"hostname", "id", "arch"} <= keys:
            return "osd_metadata"
        if "pool_name" in keys:
            return "pool_detail"
        if {"section", "name", "value"} <= keys:
            return "config_dump"
        if "ifname" in keys:
            return "ip_link"
    if isinstance(data, dict):
        if "hostname" in data and ({"osd_objectstore", "ceph_version"} & set(data)):
            return "osd_metadata"  # one OSD's: ceph osd metadata N
        if isinstance(data.get("nodes"), list) and "stray" in data:
            return "osd_tree"
        if isinstance(data.get("Devices"), list):
            return "nvme_list"
        if isinstance(data.get("lscpu"), list):
            return "lscpu"
        if isinstance(data.get("overall"), dict) or isinstance(data.get("osd"), dict):
            return "versions"
    return None


def _text_kind(text: str) -> str | None:
    if re.search(r"^Model name:", text, re.M) and re.search(r"^CPU\(s\):", text, re.M):
        return "lscpu"
    if re.search(r"^model name\s*:", text, re.M):
        return "cpuinfo"
    if "Available idle states" in text or "Number of idle states" in text:
        return "idle_info"  # (it says 'analyzing CPU' and 'driver:' too)
    if "analyzing CPU" in text and re.search(r"driver:", text):
        return "freq_info"
    if re.search(r"^Settings for \S+:", text, re.M):
        return "ethtool"
    if re.search(r"^driver: ", text, re.M) and re.search(r"^bus-info:", text, re.M):
        return "ethtool_i"
    if re.search(r"rtt min/avg/max", text):
        return "ping"
    return None


def read_dir(path: Path) -> Collected:
    """Every regular file of ``path`` (not recursive), recognised by content."""
    if not path.is_dir():
        raise CephsimError.single(f"{path}: not a directory (give the directory holding the "
                                  "collected command outputs)", path="--from")
    files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
    files = [p for p in files if p.name.upper() not in ("SOURCE.MD", "README.MD")]
    if not files:
        raise CephsimError.single(f"{path}: no files in it (expected outputs of "
                                  f"{', '.join(sorted(set(COMMANDS.values())))})", path="--from")
    got = Collected()
    for p in files:
        _read_file(p, got)
    if "osd_metadata" not in got.files and "osd_tree" not in got.files:
        raise CephsimError.single(
            f"{path}: neither 'ceph osd metadata -f json' nor 'ceph osd tree -f json' is among "
            "the files: cephsim init needs one of them to know the OSD hosts", path="--from")
    return got


def _read_file(p: Path, got: Collected) -> None:
    if p.stat().st_size > MAX_BYTES:
        raise CephsimError.single(f"larger than {MAX_BYTES // 1024**2} MiB: not a command output "
                                  "cephsim init reads", file=str(p))
    raw = p.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CephsimError.single(f"not UTF-8 text (byte {e.start})", file=str(p)) from None
    stripped = text.lstrip()
    if stripped.startswith(("[", "{")):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise CephsimError.single(f"not valid JSON ({e.msg}): a truncated or edited output?",
                                      file=str(p), line=e.lineno, column=e.colno) from None
        kind = _json_kind(data)
        if kind is None:
            raise CephsimError.single(
                "JSON that is not the output of a command cephsim init reads ("
                + ", ".join(c for c in COMMANDS.values() if "json" in c or c == "ceph versions")
                + ")", file=str(p))
        _JSON[kind](data, got, p)
    else:
        kind = _text_kind(text)
        if kind is None:
            raise CephsimError.single(
                "not the output of a command cephsim init reads (" + ", ".join(COMMANDS.values())
                + "); remove it from the directory", file=str(p))
        _TEXT[kind](text, got, p)
    if kind in got.files and kind not in ("osd_metadata",):
        raise CephsimError.single(f"a second output of '{COMMANDS[kind]}' (the first is "
                                  f"{got.files[kind]}): give one per command", file=str(p))
    got.files.setdefault(kind, p)


# ---------------------------------------------------------------- JSON outputs

def _osd_metadata(data: list[dict[str, Any]] | dict[str, Any], got: Collected, p: Path) -> None:
    for i, o in enumerate([data] if isinstance(data, dict) else data):
        if "hostname" not in o:
            raise CephsimError.single(f"entry {i} has no hostname: not 'ceph osd metadata' "
                                      "output?", file=str(p))
        got.osds.append({str(k): v for k, v in o.items()})


def _osd_tree(data: dict[str, Any], got: Collected, p: Path) -> None:
    nodes = {n.get("id"): n for n in data["nodes"] if isinstance(n, dict)}
    for n in nodes.values():
        if n.get("type") == "host":
            got.tree_hosts[str(n.get("name"))] = sorted(
                c for c in n.get("children", []) if isinstance(c, int) and c >= 0)
        elif n.get("type") == "osd" and isinstance(n.get("id"), int):
            if n.get("device_class"):
                got.device_class[n["id"]] = str(n["device_class"])


def _pool_detail(data: list[dict[str, Any]], got: Collected, p: Path) -> None:
    got.pools = data


def _config_dump(data: list[dict[str, Any]], got: Collected, p: Path) -> None:
    for e in data:
        if str(e.get("section", "")) in ("global", "osd") or str(e.get("section", "")).startswith(
                "osd."):
            got.config.setdefault(str(e.get("name")), str(e.get("value")))


def _versions(data: dict[str, Any], got: Collected, p: Path) -> None:
    osd = data.get("osd") or data.get("overall") or {}
    if isinstance(osd, dict) and osd:
        got.version = max(osd, key=lambda k: osd[k] if isinstance(osd[k], int) else 0)


def _nvme_list(data: dict[str, Any], got: Collected, p: Path) -> None:
    # nvme-cli 1.x lists ModelNumber per device; 2.x nests it in Subsystems/Controllers
    def walk(x: Any) -> None:
        if isinstance(x, dict):
            if x.get("ModelNumber"):
                got.nvme_models.append(str(x["ModelNumber"]).strip())
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(data["Devices"])


def _ip_link(data: list[dict[str, Any]], got: Collected, p: Path) -> None:
    # the largest MTU among the interfaces that are up and not loopback
    mtus = [int(x["mtu"]) for x in data if x.get("ifname") != "lo" and "UP" in x.get("flags", [])
            and isinstance(x.get("mtu"), int)]
    if mtus:
        got.nic["mtu"] = str(max(mtus))


def _lscpu_json(data: dict[str, Any], got: Collected, p: Path) -> None:
    for e in data["lscpu"]:
        if isinstance(e, dict) and "field" in e:
            got.cpu[str(e["field"]).rstrip(":")] = str(e.get("data", ""))


_JSON = {"osd_metadata": _osd_metadata, "osd_tree": _osd_tree, "pool_detail": _pool_detail,
         "config_dump": _config_dump, "versions": _versions, "nvme_list": _nvme_list,
         "ip_link": _ip_link, "lscpu": _lscpu_json}


# ---------------------------------------------------------------- text outputs

def _colon_fields(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in text.splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            out.setdefault(k.strip(), v.strip())
    return out


def _lscpu(text: str, got: Collected, p: Path) -> None:
    got.cpu.update(_colon_fields(text))


def _cpuinfo(text: str, got: Collected, p: Path) -> None:
    f = _colon_fields(text)
    got.cpu.setdefault("Model name", f.get("model name", ""))
    got.cpu.setdefault("Vendor ID", f.get("vendor_id", ""))


def _freq_info(text: str, got: Collected, p: Path) -> None:
    m = re.search(r"^\s*driver:\s*(\S+)", text, re.M)
    if m:
        got.freq["driver"] = m.group(1)
    m = re.search(r'The governor "([\w-]+)"', text)
    if m:
        got.freq["governor"] = m.group(1)
    m = re.search(r"Active:\s*(yes|no)", text)
    if m:
        got.freq["boost"] = m.group(1)


def _idle_info(text: str, got: Collected, p: Path) -> None:
    m = re.search(r"Available idle states:\s*(.*)", text)
    names = m.group(1).split() if m else []
    for n in names:
        block = re.search(rf"^{re.escape(n)}( \(DISABLED\))?\s*:", text, re.M)
        got.idle.append((n, not (block and block.group(1))))


def _ethtool(text: str, got: Collected, p: Path) -> None:
    m = re.search(r"Speed:\s*(\d+)Mb/s", text)
    if m:
        got.nic["speed_mbps"] = m.group(1)


def _ethtool_i(text: str, got: Collected, p: Path) -> None:
    m = re.search(r"^driver:\s*(\S+)", text, re.M)
    if m:
        got.nic["driver"] = m.group(1)


def _ping(text: str, got: Collected, p: Path) -> None:
    # the ping reader `cephsim inspect` uses: its units, bounds and located errors
    for run in read_ping(p, text).ping:
        if run.rtt_min_ns is not None and run.rtt_avg_ns is not None and run.rtt_max_ns is not None:
            got.rtt_ms = (run.rtt_min_ns / 1e6, run.rtt_avg_ns / 1e6, run.rtt_max_ns / 1e6)
            return


_TEXT = {"lscpu": _lscpu, "cpuinfo": _cpuinfo, "freq_info": _freq_info, "idle_info": _idle_info,
         "ethtool": _ethtool, "ethtool_i": _ethtool_i, "ping": _ping}
