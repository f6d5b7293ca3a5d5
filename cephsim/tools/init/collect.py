"""Read what an operator collected: recognise each file by its content and pull out the
facts a scenario needs.  Every parser takes the text of one command's output."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from cephsim.errors import CephsimError
from cephsim.formats.readers.common import json_offset, line_col
from cephsim.formats.readers.ping import read_ping
from cephsim.scenario.schema import MIN_HOST_MEMORY

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
    "ec_profile": "ceph osd erasure-code-profile get NAME -f json",
    "meminfo": "cat /proc/meminfo (or free -b)",
}
#: the outputs that describe one host, not the cluster: the ones client/ may hold
HOST_KINDS = ("lscpu", "cpuinfo", "freq_info", "idle_info", "ethtool", "ethtool_i", "ip_link",
              "meminfo")
#: kinds that may come in several files (one per OSD, one per profile)
REPEATABLE = ("osd_metadata", "ec_profile")
#: the keys that tell an erasure-code profile (Luminous renamed ruleset-* to crush-*)
PROFILE_KEYS = ("k", "m", "plugin", "technique", "crush-failure-domain", "ruleset-failure-domain",
                "crush-root", "ruleset-root", "crush-device-class", "stripe_unit")
#: the deepest a field of lscpu's terminal layout is indented (its sections nest two deep,
#: two spaces a level); a line indented further continues the value above it
LSCPU_MAX_INDENT = 8
#: largest file read (a whole cluster's osd metadata is a few MB)
MAX_BYTES = 32 * 1024**2
#: the connection modes Ceph's AuthRegistry::_parse_mode_list knows (it ignores other words)
CON_MODES = ("crc", "secure")
#: what a mode option is when the config dump does not set it (Ceph's default for all three)
DEFAULT_MODES = "crc secure"
#: the section ranks of `ceph config dump`: a daemon takes its own section (osd.3) over its
#: type's (osd) over global, whatever the order the dump lists them in
SECTION_RANK = {"global": 0, "osd": 1, "client": 1}


@dataclass
class ECProfile:
    """One ``ceph osd erasure-code-profile get NAME`` output (JSON or its plain key=value
    form).  Neither form names the profile: the file name may (matched against the pool's
    ``erasure_code_profile``), and so may a ``name`` key where a tool wrote one."""

    file: Path
    fields: dict[str, str]  #: every key, values as text
    lines: dict[str, int]  #: key -> its line in the file
    name: str | None = None

    @property
    def k(self) -> int:
        return int(self.fields["k"])

    @property
    def m(self) -> int:
        return int(self.fields["m"])

    @property
    def plugin(self) -> str:
        return self.fields.get("plugin") or "jerasure"

    def chunks(self) -> int:
        """Shards per stripe: k + m, and for lrc one local parity per l of them."""
        n = self.k + self.m
        if self.plugin == "lrc" and self.fields.get("l", "").isdigit() and int(self.fields["l"]):
            n += n // int(self.fields["l"])
        return n


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
    memory: int | None = None  #: the host's RAM in bytes (MemTotal)
    ec_profiles: list[ECProfile] = field(default_factory=list)
    client: Collected | None = None  #: the client host's own outputs (client/), if given
    #: files that showed one OSD's metadata alone ('ceph osd metadata N')
    single_osd: list[Path] = field(default_factory=list)
    #: each OSD host's RAM in bytes, from its OSDs' mem_total_kb in ceph osd metadata
    host_memory: dict[str, int] = field(default_factory=dict)
    #: the msgr2 mode options the config dump sets (ms_cluster_mode, ms_service_mode for the
    #: OSDs, ms_client_mode for the clients), each as the modes Ceph takes from it, in order
    con_modes: dict[str, list[str]] = field(default_factory=dict)
    #: what was read but left out (files that are no command's output init reads)
    notes: list[str] = field(default_factory=list)

    def source(self, kind: str) -> str:
        return str(self.files[kind]) if kind in self.files else "?"


def _json_kind(data: Any) -> str | None:
    if isinstance(data, list) and data and all(isinstance(x, str) for x in data):
        return "profile_ls"
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
        if "erasure_code_profiles" in data and "pools" in data:
            return "osd_dump"
        if "erasure_code_profile" in data and "pool" in data:
            return "pool_get"
        keys = set(data)
        if ({"k", "m"} & keys or "plugin" in keys) and \
                not any(isinstance(v, (dict, list)) for v in data.values()):
            return "ec_profile"
    return None


def _text_kind(text: str) -> str | None:
    if re.search(r"^MemTotal:\s*\d+", text, re.M) or (
            re.search(r"^\s+total\s+used\s+free", text, re.M) and re.search(r"^Mem:", text, re.M)):
        return "meminfo"
    # lscpu's fields start the line when piped, or sit indented under their section
    # (Model name under Vendor ID) at a terminal (util-linux 2.37 on)
    if re.search(r"^\s*Model name:", text, re.M) and re.search(r"^\s*CPU\(s\):", text, re.M):
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
    if re.search(r"^erasure_code_profile:\s*\S", text, re.M):
        return "pool_get"  # ceph osd pool get POOL erasure_code_profile (or all)
    keys = "|".join(map(re.escape, PROFILE_KEYS))
    if re.search(rf"^\s*({keys})=", text, re.M):
        return "ec_profile"  # the plain form of ceph osd erasure-code-profile get
    return None


def read_dir(path: Path) -> Collected:
    """Every regular file of ``path`` (not recursive), recognised by content."""
    if not path.is_dir():
        raise CephsimError.single(f"{path}: not a directory (give the directory holding the "
                                  "collected command outputs)", path="--from")
    files = [p for p in _listing(path) if p.name.upper() not in ("SOURCE.MD", "README.MD")]
    if not files:
        raise CephsimError.single(f"{path}: no files in it (expected outputs of "
                                  f"{', '.join(sorted(set(COMMANDS.values())))})", path="--from")
    got = Collected()
    for p in files:
        _read_file(p, got)
    if "osd_metadata" not in got.files and "osd_tree" not in got.files:
        # the skipped files are named here too: the notes that say so are never printed
        skipped = [p.name for p in files if p not in got.files.values()
                   and all(p != e.file for e in got.ec_profiles)]
        raise CephsimError.single(
            f"{path}: neither 'ceph osd metadata -f json' nor 'ceph osd tree -f json' is among "
            "the files: cephsim init needs one of them to know the OSD hosts"
            + (f" (skipped as no output it reads: {', '.join(skipped)})" if skipped else ""),
            path="--from")
    if (path / "client").is_dir():
        got.client = _read_client(path / "client")
    return got


def _listing(path: Path) -> list[Path]:
    """The regular files of a directory, hidden ones left out, in name order."""
    try:
        return sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
    except OSError as e:
        raise CephsimError.single(f"{path}: cannot list the directory: {e.strerror or e}",
                                  path="--from") from None


def _read_client(path: Path) -> Collected | None:
    """The client host's own outputs: only what describes one host (its CPU, power
    settings and NIC); the cluster's outputs belong in the main directory."""
    files = _listing(path)
    if not files:
        return None
    got = Collected()
    for p in files:
        kind = _read_file(p, got)
        if kind is not None and kind not in HOST_KINDS:
            raise CephsimError.single(
                f"'{COMMANDS[kind]}' describes the cluster, not the client host: put it in the "
                f"main directory (client/ holds the client's own "
                f"{', '.join(dict.fromkeys(COMMANDS[k] for k in HOST_KINDS))})", file=str(p))
    return got


def _skip(p: Path, why: str, got: Collected) -> None:
    """Leave out a file that is no output init reads: file names do not matter, so the
    directory may hold anything else the operator keeps there (a README, a script, notes).
    A file recognised as an output but malformed is refused instead (its readers)."""
    got.notes.append(f"{p}: skipped, {why}")


def _read_file(p: Path, got: Collected) -> str | None:
    """Read one file into ``got``; its kind, or None for a file skipped as no output
    init reads."""
    try:
        if p.stat().st_size > MAX_BYTES:
            raise CephsimError.single(f"larger than {MAX_BYTES // 1024**2} MiB: not a command "
                                      "output cephsim init reads", file=str(p))
        raw = p.read_bytes()
    except OSError as e:
        raise CephsimError.single(f"cannot read it: {e.strerror or e}", file=str(p)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        # every output init reads is text: a binary file (an archive, an image) is none
        _skip(p, f"not UTF-8 text (byte {e.start}): not the output of a command init reads",
              got)
        return None
    stripped = text.lstrip()
    if stripped.startswith(("[", "{")):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise CephsimError.single(f"not valid JSON ({e.msg}): a truncated or edited output?",
                                      file=str(p), line=e.lineno, column=e.colno) from None
        kind = _json_kind(data)
        if kind is None:
            _skip(p, "JSON that is not the output of a command init reads (cephsim init "
                  "--help lists them)", got)
            return None
        if kind in _OTHER:
            _OTHER[kind](data, text, p)
        elif kind == "ec_profile":
            _ec_profile_json(data, text, got, p)
        else:
            _JSON[kind](data, text, got, p)
    else:
        kind = _text_kind(text)
        if kind is None:
            _skip(p, "not the output of a command init reads (cephsim init --help lists "
                  "them)", got)
            return None
        if kind in _OTHER:
            _OTHER[kind](None, text, p)
        _TEXT[kind](text, got, p)
    if kind in got.files and kind not in REPEATABLE:
        raise CephsimError.single(f"a second output of '{COMMANDS[kind]}' (the first is "
                                  f"{got.files[kind]}): give one per command", file=str(p))
    got.files.setdefault(kind, p)
    return kind


# ---------------------------------------------------------------- JSON outputs
# A bad value is reported at its own line and column, found in the text json.loads took
# (formats.readers.common.json_offset), on the error path only.


def _at(p: Path, text: str, path: list[str | int], key: str | None = None) -> dict[str, Any]:
    """The location for :meth:`CephsimError.single` of the value at ``path`` (list indexes
    and keys) of the JSON document in ``text``: file, line, column and ``key``; where the
    path ends early, the deepest entry found."""
    start = len(text) - len(text.lstrip())
    line, column = line_col(text, json_offset(text, start, path, at_value=True))
    return {"file": str(p), "line": line, "column": column, "path": key}


def _whole(v: Any) -> bool:
    """A JSON whole number (true and false are not 1 and 0)."""
    return isinstance(v, int) and not isinstance(v, bool)


def _osd_metadata(data: list[dict[str, Any]] | dict[str, Any], text: str, got: Collected,
                  p: Path) -> None:
    if isinstance(data, dict):
        got.single_osd.append(p)
    entries = [data] if isinstance(data, dict) else data
    for i, o in enumerate(entries):
        entry: list[str | int] = [] if isinstance(data, dict) else [i]
        if "hostname" not in o:
            raise CephsimError.single(f"entry {i} has no hostname: not 'ceph osd metadata' "
                                      "output?", **_at(p, text, entry))
        host = o["hostname"]
        if not isinstance(host, str) or not host.strip():
            raise CephsimError.single(f"entry {i}: {host!r} is not a host name",
                                      **_at(p, text, [*entry, "hostname"], "hostname"))
        osd = f"osd.{o['id']}" if _whole(o.get("id")) else f"entry {i}"
        # the builder counts OSDs by id: Ceph writes it as a number (dump_int)
        if "id" in o and not (_whole(o["id"]) and o["id"] >= 0):
            raise CephsimError.single(f"entry {i}: {o['id']!r} is not an OSD id (a whole "
                                      "number, 0 or more)", **_at(p, text, [*entry, "id"], "id"))
        if "mem_total_kb" in o:
            got.host_memory.setdefault(host, _mem_total(
                o["mem_total_kb"], osd, host,
                lambda: _at(p, text, [*entry, "mem_total_kb"], "mem_total_kb")))
        got.osds.append({str(k): v for k, v in o.items()})


def _mem_total(v: Any, osd: str, host: str, where: Callable[[], dict[str, Any]]) -> int:
    """The host's RAM in bytes from an OSD's mem_total_kb: the MemTotal of its host's
    /proc/meminfo, in the kernel's kB (KiB), which Ceph's metadata holds as text.
    ``where()`` locates it, called only for a refusal."""
    kib = int(v) if _whole(v) else int(v) if isinstance(v, str) and v.isdigit() else None
    if kib is None:
        raise CephsimError.single(f"{osd} (host {host}): {v!r} is not a number of kB (Ceph "
                                  "copies MemTotal of /proc/meminfo here, as text)", **where())
    if kib * 1024 < MIN_HOST_MEMORY:
        raise CephsimError.single(f"{osd} (host {host}): {kib} kB is {kib / 1024:g} MiB, less "
                                  f"than the {MIN_HOST_MEMORY // 1024**2} MiB a scenario's host "
                                  "takes (no OSD host runs in that): an edited output?", **where())
    return kib * 1024


def _osd_tree(data: dict[str, Any], text: str, got: Collected, p: Path) -> None:
    for k, n in enumerate(data["nodes"]):
        if not isinstance(n, dict):
            continue
        # a host's OSDs are the ids among its children: both numbers, as Ceph writes them
        bad = "id" if not _whole(n.get("id")) else "children" if n.get("type") == "host" \
            and not isinstance(n.get("children", []), list) else None
        if bad:
            raise CephsimError.single(
                f"node {n.get('name', '?')!r}: {n.get(bad)!r} is not "
                + ("a node id (a whole number)" if bad == "id" else "a list of node ids"),
                **_at(p, text, ["nodes", k, bad], bad))
    nodes = {n["id"]: n for n in data["nodes"] if isinstance(n, dict)}
    for n in nodes.values():
        if n.get("type") == "host":
            got.tree_hosts[str(n.get("name"))] = sorted(
                c for c in n.get("children", []) if _whole(c) and c >= 0)
        elif n.get("type") == "osd" and isinstance(n.get("id"), int):
            if n.get("device_class"):
                got.device_class[n["id"]] = str(n["device_class"])


#: the numbers of a pool in 'ceph osd pool ls detail' the scenario is built from, each with
#: its least and greatest value and what it is (pg_pool_t::dump writes them as JSON numbers;
#: size is a __u8, pg_num and stripe_width __u32)
POOL_NUMBERS = {"size": (1, 255, "a pool size (1 to 255 copies, or chunks of an "
                         "erasure-coded pool)"),
                "pg_num": (1, 2**32 - 1, "a number of PGs (a whole number, 1 or more)"),
                "stripe_width": (0, 2**32 - 1, "a stripe width in bytes (a whole number)")}
#: pg_pool_t's types: TYPE_REPLICATED 1, TYPE_ERASURE 3 (2, TYPE_RAID4, was never used)
POOL_TYPES = {1: "replicated", 3: "erasure"}
#: the other keys read, each with the JSON type Ceph writes it as
POOL_TEXTS = {"erasure_code_profile": str, "flags_names": str, "application_metadata": dict}


def _pool_detail(data: list[dict[str, Any]], text: str, got: Collected, p: Path) -> None:
    """Every pool, each key the builder reads checked here: a bad value is refused at its
    line (not a traceback, nor a pool dropped and the scenario's default size in its place)."""
    for i, pool in enumerate(data):
        name = pool.get("pool_name")
        if not isinstance(name, str) or not name:
            raise CephsimError.single(f"entry {i}: {name!r} is not a pool name",
                                      **_at(p, text, [i, "pool_name"], "pool_name"))
        for key in ("type", "size", "pg_num"):
            if key not in pool:
                raise CephsimError.single(
                    f"pool {name!r} has no {key}: 'ceph osd pool ls detail' prints it for every "
                    "pool (a truncated or edited output?)", **_at(p, text, [i]))
        for key, (low, high, what) in POOL_NUMBERS.items():
            v = pool.get(key, low)
            if not (_whole(v) and low <= v <= high):
                raise CephsimError.single(f"pool {name!r}: {v!r} is not {what}",
                                          **_at(p, text, [i, key], key))
        if not _whole(pool["type"]) or pool["type"] not in POOL_TYPES:
            raise CephsimError.single(
                f"pool {name!r}: {pool['type']!r} is not a pool type (Ceph writes 1 for a "
                "replicated pool, 3 for an erasure-coded one)", **_at(p, text, [i, "type"], "type"))
        for key, kind in POOL_TEXTS.items():
            if key in pool and not isinstance(pool[key], kind):
                raise CephsimError.single(
                    f"pool {name!r}: {pool[key]!r} is not {'a text' if kind is str else 'an object'}"
                    " as Ceph writes it", **_at(p, text, [i, key], key))
    got.pools = data


def _config_dump(data: list[dict[str, Any]], text: str, got: Collected, p: Path) -> None:
    """The options set for the OSDs (global, osd, osd.N) and, for the client's msgr2 mode, for
    the clients (global, client, client.NAME); the most specific section wins, as in Ceph."""
    rank: dict[str, int] = {}
    client_rank = -1
    for i, e in enumerate(data):
        section, name, value = (str(e.get(k, "")) for k in ("section", "name", "value"))
        kind = section.split(".", 1)[0]
        level = SECTION_RANK.get(section, 2 if kind in ("osd", "client") else -1)
        if name in ("ms_cluster_mode", "ms_service_mode", "ms_client_mode") and level >= 0:
            if (name == "ms_client_mode") != (kind == "client") and kind != "global":
                continue  # an OSD's client mode, or a client's cluster mode: not used here
            modes = _con_modes(value, name, p, text,
                               [i, "value"] if "value" in e else [])
            if name == "ms_client_mode" and level > client_rank:
                got.con_modes[name], client_rank = modes, level
            elif name != "ms_client_mode" and level > rank.get(name, -1):
                got.con_modes[name] = modes
        if kind in ("global", "osd") and level > rank.get(name, -1):
            got.config[name], rank[name] = value, level


def _con_modes(value: str, name: str, p: Path, text: str, where: list[str | int]) -> list[str]:
    """The modes a msgr2 mode option lists, in preference order: Ceph splits the value at
    ';', ',', '=', spaces and tabs (get_str_list) and ignores a word that is no mode; a
    connection takes the connecting side's first mode the other side allows ('secure crc'
    settles on secure)."""
    modes = [w for w in re.split(r"[;,= \t]+", value) if w in CON_MODES]
    if not modes:
        raise CephsimError.single(
            f"{value!r} names no connection mode (crc, secure): Ceph would have no mode to "
            "connect with", **_at(p, text, where, name))
    return modes


def _versions(data: dict[str, Any], text: str, got: Collected, p: Path) -> None:
    osd = data.get("osd") or data.get("overall") or {}
    if isinstance(osd, dict) and osd:
        got.version = max(osd, key=lambda k: osd[k] if isinstance(osd[k], int) else 0)


def _nvme_list(data: dict[str, Any], text: str, got: Collected, p: Path) -> None:
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


def _ip_link(data: list[dict[str, Any]], text: str, got: Collected,
             p: Path) -> None:
    # the largest MTU among the interfaces that are up and not loopback
    mtus = [int(x["mtu"]) for x in data if x.get("ifname") != "lo" and "UP" in x.get("flags", [])
            and isinstance(x.get("mtu"), int)]
    if mtus:
        got.nic["mtu"] = str(max(mtus))


def _lscpu_json(data: dict[str, Any], text: str, got: Collected, p: Path) -> None:
    # util-linux before 2.37 writes a flat list; from 2.37 the terminal layout's tree, each
    # section's fields under its "children" (Model name under Vendor ID, and so on)
    def walk(entries: Any) -> None:
        for e in entries if isinstance(entries, list) else []:
            if isinstance(e, dict) and "field" in e:
                got.cpu.setdefault(str(e["field"]).strip().rstrip(":"),
                                   "" if e.get("data") is None else str(e["data"]).strip())
                walk(e.get("children"))

    walk(data["lscpu"])


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
    # flat (piped, or util-linux before 2.37) or the terminal's tree (fields indented at
    # most two levels under their section); at a terminal a long value (Flags) wraps onto
    # lines indented to the value column, which belong to the field before them
    out: dict[str, str] = {}
    last: str | None = None
    for line in text.expandtabs().splitlines():
        indent = len(line) - len(line.lstrip())
        k, colon, v = line.partition(":")
        if colon and k.strip() and indent <= LSCPU_MAX_INDENT:
            last = k.strip() if k.strip() not in out else None  # the first one counts
            if last is not None:
                out[last] = v.strip()
        elif last is not None and line.strip():
            out[last] = f"{out[last]} {line.strip()}".strip()
    for k, v in out.items():
        got.cpu.setdefault(k, v)


def _cpuinfo(text: str, got: Collected, p: Path) -> None:
    f = _colon_fields(text)
    got.cpu.setdefault("Model name", f.get("model name", ""))
    got.cpu.setdefault("Vendor ID", f.get("vendor_id", ""))
    if f.get("flags"):
        got.cpu.setdefault("Flags", f["flags"])


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


#: the smallest plain `free` total read as bytes: free's default unit is KiB, and a KiB
#: figure read as bytes would make a 256 GiB host 256 MiB; no OSD host has under 4 GiB
MIN_FREE_BYTES = 4 * 1024**3


def _meminfo(text: str, got: Collected, p: Path) -> None:
    """The host's RAM: /proc/meminfo's MemTotal (kB, which the kernel means as KiB), or the
    total of `free -b`'s Mem: line."""
    m = re.search(r"^MemTotal:\s*(\d+)\s*kB", text, re.M)
    if m:
        got.memory = int(m.group(1)) * 1024
        return
    m = re.search(r"^Mem:\s+(\S+)", text, re.M)
    total = m.group(1) if m else ""
    line = text.count("\n", 0, m.start()) + 1 if m else None
    if not total.isdigit() or int(total) < MIN_FREE_BYTES:
        raise CephsimError.single(
            f"Mem: total {total!r} is not a number of bytes (free's default unit is KiB, -h "
            "rounds): give `free -b` or `cat /proc/meminfo`", file=str(p), line=line)
    got.memory = int(total)


_TEXT = {"lscpu": _lscpu, "cpuinfo": _cpuinfo, "freq_info": _freq_info, "idle_info": _idle_info,
         "ethtool": _ethtool, "ethtool_i": _ethtool_i, "ping": _ping, "meminfo": _meminfo}


# ---------------------------------------------------------------- erasure-code profiles

def _line_of(key: str, text: str) -> int | None:
    """The line of ``"key":`` in a JSON text (the json module keeps no positions)."""
    m = re.search(rf'"{re.escape(key)}"\s*:', text)
    return text.count("\n", 0, m.start()) + 1 if m else None


def _ec_profile_json(data: dict[str, Any], text: str, got: Collected, p: Path) -> None:
    fields: dict[str, str] = {}
    lines: dict[str, int] = {}
    for key, v in data.items():
        line = _line_of(key, text)
        if line is not None:
            lines[key] = line
        if v is None or isinstance(v, bool):
            raise CephsimError.single(f"{v!r}: 'ceph osd erasure-code-profile get' prints every "
                                      "value as text", file=str(p), line=line, path=key)
        fields[key] = str(v).strip()
    name = data.get("name") if isinstance(data.get("name"), str) else None
    _add_profile(fields, lines, got, p, name)


def _ec_profile_text(text: str, got: Collected, p: Path) -> None:
    fields: dict[str, str] = {}
    lines: dict[str, int] = {}
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        key, eq, value = line.strip().partition("=")
        if not eq or not re.fullmatch(r"[A-Za-z0-9_.-]+", key):
            raise CephsimError.single(
                f"{line.strip()[:60]!r} is not a key=value line of 'ceph osd erasure-code-profile "
                "get' (an edited or mixed-up output?)", file=str(p), line=i)
        fields[key], lines[key] = value.strip(), i
    _add_profile(fields, lines, got, p, None)


def _add_profile(fields: dict[str, str], lines: dict[str, int], got: Collected, p: Path,
                 name: str | None) -> None:
    for key in ("k", "m"):
        if key not in fields:
            raise CephsimError.single(
                f"no {key}: 'ceph osd erasure-code-profile get' always prints k and m (a truncated "
                "output? an lrc profile given only by mapping and layers cannot be modelled: "
                "remove the file and the pool is modelled from its size)", file=str(p))
        v = fields[key]
        if not v.isdigit() or int(v) < 1:
            raise CephsimError.single(f"{v!r} is not a number of chunks (a whole number, 1 or "
                                      "more)", file=str(p), line=lines.get(key), path=key)
    su = fields.get("stripe_unit")
    if su and not re.fullmatch(r"\d+(?:[KMGT]i?B?)?", su, re.I):
        raise CephsimError.single(f"{su!r} is not a size (Ceph takes bytes, or 4K, 64K, 1M)",
                                  file=str(p), line=lines.get("stripe_unit"), path="stripe_unit")
    got.ec_profiles.append(ECProfile(p, fields, lines, name))


def _profile_ls(data: Any, text: str, p: Path) -> None:
    raise CephsimError.single(
        "the list of erasure-code profiles ('ceph osd erasure-code-profile ls'): it names them "
        "but says nothing of their k and m; give each one's 'ceph osd erasure-code-profile get "
        "NAME -f json' instead", file=str(p))


def _pool_get(data: Any, text: str, p: Path) -> None:
    if isinstance(data, dict):
        name, pool, line = data.get("erasure_code_profile"), data.get("pool"), \
            _line_of("erasure_code_profile", text)
    else:
        m = re.search(r"^erasure_code_profile:\s*(\S+)", text, re.M)
        name, pool = (m.group(1) if m else "NAME"), "POOL"
        line = text.count("\n", 0, m.start()) + 1 if m else None
    raise CephsimError.single(
        f"'ceph osd pool get {pool} ...' output: it names the pool's erasure-code profile "
        f"({name}), not its k and m; give 'ceph osd erasure-code-profile get {name} -f json' "
        "instead", file=str(p), line=line)


def _osd_dump(data: Any, text: str, p: Path) -> None:
    raise CephsimError.single(
        "'ceph osd dump' output: cephsim init reads the pools from 'ceph osd pool ls detail -f "
        "json' and each erasure-code profile from 'ceph osd erasure-code-profile get NAME -f "
        "json'", file=str(p))


_OTHER = {"profile_ls": _profile_ls, "pool_get": _pool_get, "osd_dump": _osd_dump}
_TEXT["ec_profile"] = _ec_profile_text
