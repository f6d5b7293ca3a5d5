"""Per-hop network latency model from qperf or ping outputs (or listed) one-way latencies.

qperf ``tcp_lat``/``udp_lat`` report ONE-WAY latency (half the round trip) for
one message size; ping reports round trips (echo request and reply, each carrying the
payload), halved here.  Across several sizes the one-way latency is close to a line,
``L(s) = fixed + per_byte * s``, fitted here by ordinary least squares (with the
standard errors of the coefficients when there are more than two sizes).  With one size
(a plain ``ping``: 56 bytes) only the fixed part is pinned, as the latency at that size
less the wire's per-byte time when ``--speed`` is given (an upper bound: a per-byte cost
beyond the wire stays in it); the per-byte part is then not reported.

How the line maps onto the catalog (``cephsim catalog nics|switches``): the
simulator builds one hop as kernel TCP send (a software cost, ``kernel.tcp_tx``)
+ NIC ``tx_latency`` + serialisation at the link speed (computed, per link) +
switch ``latency`` (+ one more serialisation if store-and-forward) + NIC
``rx_latency`` + kernel receive (``kernel.tcp_rx``).  So

    fixed    = kernel stack (both sides) + tx + rx + switch latency
    per_byte = 8 / link speed per link traversed (+ per-byte kernel cost)

and ``tx + rx`` is what is left of ``fixed`` once the kernel stack and switch
are taken out; the split between tx and rx follows the catalog's 10G class
(1.3 : 3.5).  Whatever the wire cannot explain of ``per_byte`` is printed as
"excess per byte": the catalog NIC entries have no per-byte term, so it must be
attributed (store-and-forward switch, ``kernel.per_kib``, NIC moderation of
large frames) by the user.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cephsim.errors import CephsimError
from cephsim.formats.readers.detect import read_any
from cephsim.formats.readers.model import NetLatencyMeasurement
from cephsim.units import parse_duration_ns, parse_size_bytes
from cephsim.yamlfile import located, parse_yaml_text, read_text, unknown_keys

TX_SHARE = 1.3 / (1.3 + 3.5)  #: the catalog's 10G class split (nics.yaml)


@dataclass
class Point:
    size: int  #: message bytes (ping: the payload, ``ping -s``)
    one_way_ns: float
    source: str
    group: str
    file: str | None = None  #: where the point was read (for errors)
    line: int | None = None
    kind: str = "one-way"  #: "one-way" (qperf, figures) or "ping" (round trip / 2)


@dataclass
class LineFit:
    group: str
    points: list[Point]
    fixed_ns: float
    per_byte_ns: float | None  #: None: one message size, the per-byte part is not measured
    fixed_se: float | None
    per_byte_se: float | None
    notes: list[str] = field(default_factory=list)
    derived: dict[str, Any] = field(default_factory=dict)
    wire_taken_out_ns: float = 0.0  #: one size: wire per byte subtracted from the fixed part

    @property
    def sizes(self) -> list[int]:
        return sorted({p.size for p in self.points})

    @property
    def pinned(self) -> list[str]:
        return ["fixed"] if self.per_byte_ns is None else ["fixed", "per_byte"]

    def line_ns(self, size: int) -> float:
        """The fitted one-way latency at ``size`` (one size: fixed + the wire taken out)."""
        per_byte = self.wire_taken_out_ns if self.per_byte_ns is None else self.per_byte_ns
        return self.fixed_ns + per_byte * size

    def to_dict(self) -> dict[str, Any]:
        return {"group": self.group, "measured_as": _MEASURED_AS[self.points[0].kind],
                "sizes_bytes": self.sizes, "pinned": self.pinned,
                "fixed_ns": self.fixed_ns, "fixed_se_ns": self.fixed_se,
                "per_byte_ns": self.per_byte_ns, "per_byte_se_ns": self.per_byte_se,
                "points": [{"size_bytes": p.size, "one_way_ns": p.one_way_ns, "source": p.source}
                           for p in self.points],
                "catalog": self.derived, "notes": self.notes}


_MEASURED_AS = {"one-way": "one-way latency", "ping": "ping round trip / 2"}


def read_points(paths: list[Path]) -> tuple[list[Point], list[str]]:
    """qperf or ping files (via the readers) or a YAML list of figures
    (``calibration/seed002``)."""
    pts: list[Point] = []
    warn: list[str] = []
    for p in paths:
        if p.suffix in (".yaml", ".yml"):
            pts += _yaml_points(p)
            continue
        m = read_any(p)
        if isinstance(m, NetLatencyMeasurement) and m.ping:
            got, w = _ping_points(p, m.ping)
            pts += got
            warn += w
            continue
        if not isinstance(m, NetLatencyMeasurement) or not m.qperf:
            raise CephsimError.single(f"not qperf or ping output (read as {m.format}); the "
                                      "network fit needs qperf tcp_lat/udp_lat results or ping "
                                      "round trips", file=str(p))
        for r in m.qperf:
            if r.one_way_latency_ns is None or not r.test.endswith("_lat"):
                continue
            if r.msg_size_bytes is None:
                warn.append(f"{p}:{r.line}: {r.test} without a message size (qperf run without "
                            "-v/-vv); left out")
                continue
            pts.append(Point(r.msg_size_bytes, float(r.one_way_latency_ns), f"{p}:{r.line}", r.test,
                             str(p), r.line))
    if not pts:
        raise CephsimError.single("no qperf latency with a known message size in "
                                  + ", ".join(map(str, paths)))
    return pts, warn


def _ping_points(p: Path, runs: list[Any]) -> tuple[list[Point], list[str]]:
    """One point per ping run: half its mean round trip at its payload size, grouped by the
    address pinged.  The first reply is left out when there are others: it often pays the
    neighbour (ARP/ND) lookup and cold caches (the loopback fixtures: 0.83 ms, then 0.06).
    A file none of whose runs can be used is refused, at its first run."""
    pts: list[Point] = []
    warn: list[str] = []
    refused: tuple[int, str] | None = None
    for run in runs:
        where = f"{p}:{run.line}"
        if run.payload_bytes is None:
            why = ("a ping summary without its 'PING host (address) N(M) bytes' line: the "
                   "payload size is unknown; give the whole ping output")
        elif run.samples_ns or run.rtt_avg_ns is not None:
            why = ""
        else:
            why = (f"no round trip ({run.transmitted} sent, {run.received} received)"
                   if run.transmitted is not None else "no round trip")
            if run.payload_bytes < 16:  # the send time travels in the payload
                why += ("; ping times replies only with a payload of 16 bytes or more, "
                        f"not -s {run.payload_bytes}")
        if why:
            warn.append(f"{where}: {why}; left out")
            refused = refused or (run.line, why)
            continue
        samples = run.samples_ns
        if len(samples) > 1:
            rtt, how = sum(samples[1:]) / (len(samples) - 1), \
                f"mean of {len(samples) - 1} replies after the first"
        elif samples:
            rtt, how = float(samples[0]), "one reply"
        else:
            rtt, how = float(run.rtt_avg_ns), "the summary's avg (first reply included)"
        host = run.host or "?"
        pts.append(Point(run.payload_bytes, rtt / 2, f"{where}, {how}", f"ping {host}", str(p),
                         run.line, kind="ping"))
    if not pts and refused is not None:
        raise CephsimError.single(f"nothing to fit in this ping output: {refused[1]}",
                                  file=str(p), line=refused[0] or None)
    return pts, warn


_FIGURES_KEYS = ("points", "source", "note")
_POINT_KEYS = ("group", "size", "one_way", "source", "note")


def _yaml_points(p: Path) -> list[Point]:
    """A figures file: ``points: [{group, size, one_way, source}, ...]``; errors located."""
    data = parse_yaml_text(read_text(p), str(p))

    def bad(msg: str, *loc: Any) -> CephsimError:
        return CephsimError([located(msg, str(p), data, *loc)])

    if not isinstance(data, dict):
        raise bad("expected 'points: [{group, size, one_way, source}, ...]'")
    if problems := unknown_keys(data, _FIGURES_KEYS, "a figures file", str(p), data):
        raise CephsimError(problems[:1])
    items = data.get("points")
    if not isinstance(items, list) or not items:
        raise bad("expected 'points: [{group, size, one_way, source}, ...]'",
                  *(("points",) if "points" in data else ()))
    out = []
    for i, it in enumerate(items):
        if not isinstance(it, dict):
            raise bad("a point is {group, size, one_way, source}", "points", i)
        if problems := unknown_keys(it, _POINT_KEYS, "a point", str(p), data, "points", i):
            raise CephsimError(problems[:1])
        missing = [k for k in ("group", "size", "one_way", "source") if k not in it]
        if missing:
            raise bad(f"missing {', '.join(missing)} (a point needs group, size, one_way and "
                      "source)", "points", i)
        for k in ("group", "source"):
            if not isinstance(it[k], str) or not it[k].strip():
                raise bad("expected a non-empty string", "points", i, k)
        try:
            size = parse_size_bytes(it["size"])
        except ValueError as e:  # a UnitError, overflow included
            raise bad(f"message size: {e}", "points", i, "size") from None
        if isinstance(it["size"], bool) or size < 1:
            raise bad(f"a message size is at least 1 byte, got {it['size']!r}", "points", i, "size")
        try:
            one_way = parse_duration_ns(it["one_way"])
        except ValueError as e:
            raise bad(f"one-way latency: {e}", "points", i, "one_way") from None
        if one_way <= 0:
            raise bad(f"a one-way latency is > 0, got {it['one_way']!r}", "points", i, "one_way")
        out.append(Point(size, float(one_way), str(it["source"]), str(it["group"]), str(p),
                         located("", str(p), data, "points", i, "one_way").line))
    return out


def fit_line(group: str, pts: list[Point], wire_per_byte_ns: float | None = None,
             loopback: bool = False) -> LineFit:
    """The least-squares line through the points; with one message size, the fixed part
    alone (the mean latency at that size less ``wire_per_byte_ns`` x size, when known)."""
    sizes = np.array([p.size for p in pts], dtype=float)
    lat = np.array([p.one_way_ns for p in pts], dtype=float)
    if len(set(sizes.tolist())) < 2:
        return _one_size(group, pts, wire_per_byte_ns, loopback)
    a = np.vstack([np.ones_like(sizes), sizes]).T
    coef, *_ = np.linalg.lstsq(a, lat, rcond=None)
    fixed, per_byte = float(coef[0]), float(coef[1])
    if per_byte < 0:
        big = max(pts, key=lambda p: (p.size, p.one_way_ns))
        raise CephsimError.single(
            f"{group}: the one-way latency falls as the message grows ({per_byte:.4g} ns/B); "
            "a larger message cannot cross faster: check the sizes and latencies",
            file=big.file, line=big.line)
    se_f = se_b = None
    n = len(pts)
    if n > 2:
        resid = lat - a @ coef
        s2 = float(resid @ resid) / (n - 2)
        cov = np.linalg.inv(a.T @ a) * s2
        se_f, se_b = math.sqrt(cov[0, 0]), math.sqrt(cov[1, 1])
    return LineFit(group, pts, fixed, per_byte, se_f, se_b)


def _one_size(group: str, pts: list[Point], wire_per_byte_ns: float | None,
              loopback: bool) -> LineFit:
    size = pts[0].size
    lat = np.array([p.one_way_ns for p in pts], dtype=float)
    wire = wire_per_byte_ns or 0.0
    se = float(lat.std(ddof=1) / math.sqrt(lat.size)) if lat.size > 1 else None
    if wire * size >= lat.mean():
        raise CephsimError.single(
            f"{group}: the wire alone would take {wire * size / 1e3:.3f} us for {size} B at "
            f"--speed, more than the {lat.mean() / 1e3:.3f} us measured one way: the link is "
            "faster than --speed says", file=pts[0].file, line=pts[0].line)
    fit = LineFit(group, pts, float(lat.mean()) - wire * size, None, se, None,
                  wire_taken_out_ns=wire)
    how = ("ping runs at two or more payload sizes: ping -s 56, ping -s 8000, ..., in one "
           "file or several" if pts[0].kind == "ping" else
           "two or more message sizes: qperf -v -oo msg_size:1:64K:*8")
    fit.notes.append(f"one message size ({size} B): this pins the fixed part only; the "
                     f"per-byte part is not measured, that needs {how}")
    if loopback:
        fit.notes.append(f"fixed = the latency at {size} B, which still holds that size's "
                         "memory copies (an upper bound)")
    elif wire_per_byte_ns:
        fit.notes.append(f"fixed = latency at {size} B less the wire's {wire:.4f} ns/B; a "
                         "per-byte cost beyond the wire stays in it (1 ns/B more would be "
                         f"{size / 1e3:.3f} us): an upper bound")
    else:
        fit.notes.append(f"fixed = the latency at {size} B, which still holds that size's "
                         "per-byte time (an upper bound; --speed takes the wire's share out: "
                         f"{size * 8 / 10:.1f} ns per link at 10 Gbit/s)")
    return fit


def _wire_per_byte(speed_bps: float, links: int, store_forward: bool) -> float:
    """Serialisation per byte of one message: once cut-through (the egress overlaps the
    ingress); store-and-forward, once per link for a message that fits in one frame
    (qperf's usual sizes; beyond, the per-byte slope is 1 link)."""
    return (links if store_forward else 1) * 8e9 / speed_bps


def derive(fit: LineFit, speed_bps: float | None, kernel_ns: float, switch_ns: float,
           links: int, loopback: bool, store_forward: bool = False) -> None:
    """Catalog-unit figures for a NIC/switch entry from a fitted line."""
    ping = fit.points[0].kind == "ping"
    known = fit.per_byte_ns is not None
    d: dict[str, Any] = {"fixed_us": round(fit.fixed_ns / 1e3, 3),
                         "per_byte_ns": round(fit.per_byte_ns, 4) if known else None,
                         "per_kib_us": round(fit.per_byte_ns * 1024 / 1e3, 3) if known else None}
    if ping and not loopback:
        fit.notes.append("ping: the far end answers the echo in its kernel (no socket, no "
                         "process woken), so the fixed part holds less kernel time than a TCP "
                         "message's; for the NIC figures give --kernel-us the ICMP path's "
                         "cost, not the TCP stack's")
    if loopback:
        fit.notes.append("loopback: no NIC, wire or switch; the fixed part is the kernel "
                         + ("ICMP echo path" if ping else "TCP stack") + " of this machine"
                         + (", the per-byte part its memory copies" if known else ""))
        d["kernel_stack_us_both_sides"] = d["fixed_us"]
        fit.derived = d
        return
    nic = fit.fixed_ns - kernel_ns - switch_ns
    d["assumed"] = {"kernel_stack_both_sides_us": kernel_ns / 1e3, "switch_latency_us": switch_ns / 1e3,
                    "links": links, "link_speed_bps": speed_bps}
    if nic <= 0:
        fit.notes.append(f"the fixed part ({fit.fixed_ns / 1e3:.1f} us) is not more than the assumed "
                         "kernel stack + switch: no NIC latency is left; lower --kernel-us")
    else:
        tx, rx = nic * TX_SHARE, nic * (1 - TX_SHARE)
        d["nic_tx_plus_rx_us"] = round(nic / 1e3, 3)
        d["tx_latency"] = {
            "dist": "lognormal",
            "median": f"{tx / 1e3:.2f}us",
            "p99": f"{2.3 * tx / 1e3:.2f}us",
        }
        d["rx_latency"] = {
            "dist": "lognormal",
            "median": f"{rx / 1e3:.2f}us",
            "p99": f"{2.5 * rx / 1e3:.2f}us",
        }
        fit.notes.append("tx/rx split 1.3:3.5 and p99 ~2.3-2.5x median as in the catalog's 10G "
                         "class (nics.yaml): only their sum is measured")
    if speed_bps:
        serialised = links if store_forward else 1
        wire = _wire_per_byte(speed_bps, links, store_forward)
        d["wire_per_byte_ns"] = round(wire, 4)
        d["assumed"]["forwarding"] = "store-and-forward" if store_forward else "cut-through"
        if fit.per_byte_ns is None:  # one size: the wire was taken out of the fixed part
            fit.derived = d
            return
        excess = fit.per_byte_ns - wire
        d["excess_per_byte_ns"] = round(excess, 4)
        if excess > 0:
            sf = 8e9 / speed_bps
            d["excess_as"] = {
                "store_and_forward_hops": round(excess / sf, 2),
                "kernel_per_kib_us_per_side": round(excess * 1024 / 2 / 1e3, 3),
            }
            fit.notes.append(
                f"{excess:.2f} ns/B more than {serialised} serialisation(s) at link speed: the catalog's "
                "NIC entries have no per-byte term; equivalent to "
                f"{excess / sf:.1f} extra store-and-forward hop(s) at this speed, or "
                f"{excess * 1024 / 2 / 1e3:.2f} us per KiB per side of kernel copies "
                "(kernel.per_kib), or NIC moderation growing with frame size"
            )
    fit.derived = d


def netfit(paths: list[Path], speed_bps: float | None = None, kernel_ns: float = 6000.0,
           switch_ns: float = 500.0, links: int = 2,
           store_forward: bool = False) -> tuple[list[LineFit], list[str]]:
    if isinstance(links, bool) or not isinstance(links, int) or links < 1:
        raise CephsimError.single(f"--links {links}: a message crosses at least 1 link")
    for flag, ns in (("--kernel-us", kernel_ns), ("--switch-us", switch_ns)):
        if not math.isfinite(ns) or ns < 0:
            raise CephsimError.single(f"{flag} {ns / 1e3}: a latency in us, finite and >= 0")
    if speed_bps is not None and (not math.isfinite(speed_bps) or speed_bps <= 0):
        raise CephsimError.single(f"--speed: a link speed is > 0 (got {speed_bps} bit/s)")
    pts, warn = read_points(paths)
    groups: dict[str, list[Point]] = {}
    for p in pts:
        groups.setdefault(p.group, []).append(p)
    fits = []
    for g, gp in groups.items():
        loop = all(_loopback(p) for p in gp)
        wire = _wire_per_byte(speed_bps, links, store_forward) if speed_bps and not loop else None
        f = fit_line(g, gp, wire, loop)

        derive(f, speed_bps, kernel_ns, switch_ns, links, loop, store_forward)
        fits.append(f)
    return fits, warn


def _loopback(p: Point) -> bool:
    if p.kind == "ping":  # the group names the address pinged
        addr = p.group.removeprefix("ping ")
        return addr.startswith("127.") or addr in ("::1", "localhost")
    return "loopback" in p.source or "127.0.0.1" in p.source or "localhost" in p.source


def netfit_text(fits: list[LineFit], warn: list[str]) -> str:
    lines = []
    for f in fits:
        n = f"{len(f.points)} point{'s' * (len(f.points) != 1)}"
        measured = _MEASURED_AS[f.points[0].kind]
        if f.per_byte_ns is None:
            lines.append(
                f"{f.group}: one-way latency = {f.fixed_ns / 1e3:.3f} us"
                + (f" (+/- {f.fixed_se / 1e3:.3f})" if f.fixed_se is not None else "")
                + " + per-byte part not measured"
                + f"  [{n} at one size, {f.sizes[0]} B; {measured}"
                + ("; +/- = 1 s.e. of their mean" if f.fixed_se is not None else "") + "]")
        else:
            lines.append(
                f"{f.group}: one-way latency = {f.fixed_ns / 1e3:.3f} us"
                + (f" (+/- {f.fixed_se / 1e3:.3f})" if f.fixed_se is not None else "")
                + f" + {f.per_byte_ns:.4f} ns/B"
                + (f" (+/- {f.per_byte_se:.4f})" if f.per_byte_se is not None else "")
                + f"  [{n}; {measured}; +/- = 1 s.e. of the least-squares line"
                + ("" if f.fixed_se is not None else "; 2 points: exact line, no error estimate")
                + "]"
            )
        for p in sorted(f.points, key=lambda p: p.size):
            model = f.line_ns(p.size)
            lines.append(
                f"    {p.size:>7} B: measured {p.one_way_ns / 1e3:8.3f} us, "
                f"{'line' if f.per_byte_ns is not None else 'fit '} {model / 1e3:8.3f} us"
                f"   ({p.source})"
            )
        d = f.derived
        if d["per_kib_us"] is not None:
            lines.append(f"  per KiB: {d['per_kib_us']:.3f} us")
        if "tx_latency" in d:
            a = d["assumed"]
            lines.append(
                "  catalog entry (nics.yaml units), assuming kernel stack "
                f"{a['kernel_stack_both_sides_us']:g} us "
                f"(both sides) and switch {a['switch_latency_us']:g} us:"
            )
            lines.append(
                f"    tx_latency: {{dist: lognormal, median: {d['tx_latency']['median']}, p99: "
                f"{d['tx_latency']['p99']}}}"
            )
            lines.append(
                f"    rx_latency: {{dist: lognormal, median: {d['rx_latency']['median']}, p99: "
                f"{d['rx_latency']['p99']}}}"
            )
        if "excess_per_byte_ns" in d:
            lines.append(
                f"  wire: {d['wire_per_byte_ns']:.4f} ns/B ({d['assumed']['forwarding']}, "
                f"{d['assumed']['links']} link(s)); "
                f"excess {d['excess_per_byte_ns']:+.4f} ns/B"
            )
        elif "wire_per_byte_ns" in d:
            lines.append(
                f"  wire: {d['wire_per_byte_ns']:.4f} ns/B ({d['assumed']['forwarding']}, "
                f"{d['assumed']['links']} link(s)), taken out of the fixed part"
            )
        for n in f.notes:
            lines.append(f"  note: {n}")
        lines.append("")
    for w in warn:
        lines.append(f"warning: {w}")
    return "\n".join(lines).rstrip() + "\n"
