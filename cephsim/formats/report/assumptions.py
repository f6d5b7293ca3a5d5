"""What decides a simulation's answer, and which of it the scenario gave and which it left to a
default: the header of ``run``, ``explain`` and ``compare``, and their JSON ``assumptions``.

Whether a field was given is read from pydantic's ``model_fields_set`` on the parsed scenario,
walked field by field (a ``--set`` counts as given, and is named); what a default came to (the
kernel's cpufreq driver and governor, the CPU's idle-state table, the release's costs) is read
from the resolved model, so the header names what was simulated.  The text is rendered from
the JSON form alone, so a result file carries its own header (``compare-fio`` shows it).
"""

from __future__ import annotations

import io
import re
import textwrap
from typing import Any, Iterator, Sequence

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from cephsim.catalog.host_memory import gib, memory_per_osd
from cephsim.errors import CephsimError
from cephsim.model.resolve import (
    PSTATE_POWERSAVE,
    CPUConfig,
    Resolved,
    kernel_governor,
    memory_decides,
)
from cephsim.model.software import software_table
from cephsim.scenario.load import CATALOG_REFS, parse_override
from cephsim.scenario.problems import _model_in, _unit_of
from cephsim.scenario.schema import CPUTuning, Scenario
from cephsim.units import format_span

#: a host group's fields that pick hardware from the catalog (the idle-state table too)
HARDWARE = frozenset(CATALOG_REFS) | {"cstates"}
#: a software router's tuning when the scenario gives none (resolve's default)
ROUTER_TUNING = CPUTuning(governor="ondemand")
#: how the built-in costs' basis (catalog/data/software.yaml) says whether a release's
#: scale was fitted on clusters of that release, or borrowed from its neighbours
_FITTED_ON = re.compile(r"this release's clusters ([^;]+)")
_PRIOR = "no cluster of this release"


# ------------------------------------------------------------------ given or assumed


def _walks_into(v: Any) -> bool:
    """A section of the scenario (walked field by field), not a catalog entry given inline
    (one piece of hardware, given as a whole)."""
    return isinstance(v, BaseModel) and not type(v).__module__.startswith("cephsim.catalog")


def _item_key(items: Sequence[Any], i: int) -> str:
    """A list item as --set names it: by its name where the list's names are unique."""
    name = getattr(items[i], "name", None)
    names = [getattr(x, "name", None) for x in items]
    return name if isinstance(name, str) and names.count(name) == 1 else str(i)


def leaves(m: BaseModel, prefix: str = "", given: bool = True) -> Iterator[tuple[str, Any, bool]]:
    """Every field of the scenario below ``m``: (dotted path as --set takes it, value, given).

    A field is given when the file (or a --set) wrote it, and every section above it was
    written too; a section left out is its defaults, field by field."""
    for name, info in type(m).model_fields.items():
        path = f"{prefix}{info.alias or name}"
        g = given and name in m.model_fields_set
        v = getattr(m, name)
        if _walks_into(v):
            yield from leaves(v, path + ".", g)
        elif isinstance(v, list) and v and all(_walks_into(x) for x in v):
            for i, x in enumerate(v):
                yield from leaves(x, f"{path}.{_item_key(v, i)}.", g)
        else:
            yield path, v, g


def _set_paths(sc: Scenario, overrides: Sequence[str]) -> list[tuple[str, str]]:
    """Each --set as (the dotted path it wrote, named as :func:`leaves` names it; its text)."""
    out = []
    for text in overrides:
        try:
            keys, _ = parse_override(text)
        except CephsimError:  # the loader refused it already
            continue
        node: Any = sc
        parts: list[str] = []
        for k in keys:
            if isinstance(node, list):
                idx = (int(k) if k.isdigit() else
                       next((i for i, x in enumerate(node) if getattr(x, "name", None) == k), -1))
                if 0 <= idx < len(node):
                    parts.append(_item_key(node, idx))
                    node = node[idx]
                    continue
            elif _walks_into(node):
                fields = type(node).model_fields
                name = k if k in fields else next(
                    (n for n, f in fields.items() if f.alias == k), None)
                if name is not None:
                    parts.append(fields[name].alias or name)
                    node = getattr(node, name)
                    continue
            parts.append(k)  # inside a value (a dict, an inline catalog entry): as written
            node = None
        out.append((".".join(parts), text))
    return out


class _Given:
    """Which fields the scenario gave, and by what: the file or a --set."""

    def __init__(self, sc: Scenario, overrides: Sequence[str]) -> None:
        self.fields = {p: g for p, _, g in leaves(sc)}
        self.sets = _set_paths(sc, overrides)

    def by(self, path: str) -> str | None:
        """'scenario' or '--set ...' for a given field (or section), None for a default."""
        under = [p for p, g in self.fields.items() if g and (p == path or
                                                             p.startswith(path + "."))]
        if not under:
            return None
        for s, text in reversed(self.sets):  # a later --set of the same field wins
            if s == path or s.startswith(path + ".") or path.startswith(s + "."):
                return f"--set {text}"
        return "scenario"


_SAME = object()


def _item(given: _Given, path: str, value: Any, written: Any = _SAME, note: str | None = None,
          shown: str | None = None) -> dict[str, Any]:
    """One setting: the field; the value in force; what the scenario holds (``written``,
    given or by default; it differs where the value in force was decided from it: ``auto``,
    null); whether (and how) it was given; a note on what decided the value; ``shown``: the
    value in the report's words (units, on/off)."""
    by = given.by(path)
    return {"field": path, "value": to_jsonable_python(value),
            "written": to_jsonable_python(value if written is _SAME else written),
            "given": by is not None, "by": by, "note": note,
            "shown": shown if shown is not None else _show(value)}


def _show(v: Any, unit: Any = None) -> str:
    if isinstance(v, bool):
        return "on" if v else "off"
    if v is None or v == {} or v == []:
        return "none"
    if unit is not None and isinstance(v, int):
        return unit(v)
    if isinstance(v, dict):
        return ", ".join(f"{k} {x}" for k, x in v.items())
    return str(v)


# ------------------------------------------------------------------ the pieces


def _hardware(given: _Given, path: str, v: Any) -> dict[str, Any]:
    """A catalog id as written, or an inline entry by its name."""
    if isinstance(v, str):
        return _item(given, path, v)
    return _item(given, path, v.name, note="inline", shown=f'"{v.name}"')


def _power_items(given: _Given, prefix: str, tuning: CPUTuning, cpu: CPUConfig,
                 section: str = "tuning", assumed_tuning: bool = False,
                 guest: bool = False) -> list[dict[str, Any]]:
    """Every field of a CPU's tuning, with the value resolve put in force where the field
    leaves it to the kernel (``auto``) or to the platform (``null``); ``guest``: a KVM
    guest's vCPUs, which have no cpufreq of their own."""
    out = []
    intel = cpu.model.vendor == "intel"
    for name in type(tuning).model_fields:
        path = f"{prefix}{section}.{name}"
        written = getattr(tuning, name)
        value, note = written, None
        if name == "cpufreq_driver":
            value = cpu.cpufreq_driver
            if written == "auto":
                note = ("auto: a guest has none, the host's" if guest else
                        f"auto: the kernel's for {'an Intel' if intel else 'a non-Intel'} CPU")
        elif name == "governor":
            value, by = kernel_governor(cpu.governor)
            meaning = PSTATE_POWERSAVE.get(by or "")
            if written == "auto":
                note = ("auto: the host's clock, assumed full speed" if guest
                        else f"auto: {cpu.cpufreq_driver}'s default")
                note += f"; {meaning}" if meaning else ""
            elif meaning:
                note = meaning
        elif name == "max_cstate":
            value = cpu.cstates[-1].name
            if written is None:
                note = "every idle state of the table"
        item = _item(given, path, value, written, note)
        if assumed_tuning and name == "governor":
            item["note"] = "the routers' tuning is not given: ondemand assumed"
        out.append(item)
    return out


def _idle_states(cpu: CPUConfig) -> list[dict[str, Any]]:
    return [{"name": s.name, "exit_latency_ns": s.exit_latency_ns,
             "wake_penalty_ns": s.wake_penalty_ns} for s in cpu.cstates]


def _group(sc: Scenario, r: Resolved, given: _Given, gi: int) -> dict[str, Any]:
    g = sc.hosts[gi]
    prefix = f"hosts.{_item_key(sc.hosts, gi)}."
    cpu = next(h.cpu for h in r.hosts if h.group == g.name)
    has_osds = g.osds is not None and g.osds.count > 0
    settings = []
    for path, value, _ in leaves(g, prefix):
        rel = path[len(prefix):]
        if rel.split(".")[-1] not in HARDWARE or (rel.startswith("osds.") and not has_osds):
            continue
        if rel == "cstates":
            table = value or cpu.model.cstates
            settings.append(_item(given, path, table, value,
                                  None if value else "the CPU's"))
        elif value is None:  # db_disk: RocksDB and its WAL on the data disk
            settings.append(_item(given, path, None, note="on the data disk"
                                  if rel == "osds.db_disk" else None, shown="none"))
        else:
            settings.append(_hardware(given, path, value))
    if has_osds and memory_decides(r):  # the page cache it leaves serves metadata misses
        host = next(h for h in r.hosts if h.group == g.name)
        assert host.memory is not None and host.disk is not None
        settings.append(_item(given, prefix + "memory", host.memory, g.memory,
                              shown=gib(host.memory),
                              note=None if g.memory is not None else
                              f"{gib(memory_per_osd()[host.disk.media].median)} per "
                              "OSD, the published hosts' median"))
    settings += _power_items(given, prefix, g.tuning, cpu, guest=g.vm is not None)
    if g.vm is not None:  # every field of it decides what a vCPU's wake-up costs
        vm = type(g.vm)
        settings += [_item(given, path, value,
                           shown=_show(value, _unit_of(vm, (path.rsplit(".", 1)[1],))))
                     for path, value, _ in leaves(g.vm, prefix + "vm.")]
    return {"group": g.name, "hosts": g.count, **power_of(cpu), "idle_states": _idle_states(cpu),
            "settings": settings}


def _network(sc: Scenario, r: Resolved, given: _Given) -> dict[str, Any]:
    topo = sc.network.topology
    settings = []
    for path, value, _ in leaves(topo, "network.topology."):
        name = path.split(".")[-1]
        if name not in HARDWARE or value is None or (name == "switch" and topo.kind == "mesh"):
            continue
        settings.append(_hardware(given, path, value))
    out: dict[str, Any] = {"kind": topo.kind, "settings": settings}
    cpu = r.network.spine_cpu
    if cpu is not None:  # software routers as spines: their CPU's power settings decide too
        tuning = topo.spine_tuning or ROUTER_TUNING
        out["routers"] = {**power_of(cpu), "idle_states": _idle_states(cpu),
                          "settings": _power_items(given, "network.topology.", tuning, cpu,
                                                   "spine_tuning", topo.spine_tuning is None)}
    return out


def _costs(sc: Scenario, r: Resolved, given: _Given) -> dict[str, Any]:
    c, rel = r.ceph.costs, r.ceph.release
    built_in = software_table().releases[rel]
    profile = sc.ceph.profile
    # release_costs drops the fitted uncertainty exactly when a profile gives its own scale
    scale_from = "profile" if profile is not None and c.scale_sd is None else "built-in"
    fitted_on: list[str] | None = None
    if scale_from == "built-in":
        m = _FITTED_ON.search(built_in.basis)
        fitted_on = [x.strip() for x in m.group(1).split(",")] if m else None
        fitted = True if m else False if _PRIOR in built_in.basis else None
    else:
        fitted = None if c.profile_release is None else c.profile_release == rel
    return {"release": _item(given, "ceph.release", rel),
            "profile": _item(given, "ceph.profile", profile, note=None if profile else
                             "the release's built-in costs"),
            "profile_release": c.profile_release,
            "stage_overrides": _item(given, "ceph.software", dict(sc.ceph.software)),
            "build": _item(given, "ceph.build", sc.ceph.build,
                           note=r.ceph.build.why if r.ceph.build else None),
            "rocksdb_factor": r.ceph.build.factor if r.ceph.build else 1.0,
            "scale": c.scale, "scale_sd": c.scale_sd, "scale_from": scale_from,
            "fitted_for_release": fitted, "fitted_on": fitted_on, "basis": c.basis}


def assumptions(sc: Scenario, r: Resolved, overrides: Sequence[str] = ()) -> dict[str, Any]:
    """What decides the answer (the software costs; each host group's hardware and power
    settings, its idle states; the network's hardware), each setting given or assumed; then
    every other field, as the scenario gave it (``given``) or left it at its default
    (``defaults``).  ``sc``: the scenario as loaded (before a command changes its run
    section); ``overrides``: the --set texts."""
    given = _Given(sc, overrides)
    out = {"costs": _costs(sc, r, given),
           "host_groups": [_group(sc, r, given, i) for i in range(len(sc.hosts))],
           "network": _network(sc, r, given)}
    shown = {s["field"] for s in _settings(out)}

    def other(p: str) -> bool:
        return not any(p == f or p.startswith(f + ".") or f.startswith(p + ".") for f in shown)

    rest = [(p, to_jsonable_python(v), g) for p, v, g in leaves(sc) if other(p)]
    out["given"] = [{"field": p, "value": v, "by": given.by(p)} for p, v, g in rest if g]
    out["defaults"] = [{"field": p, "value": v} for p, v, g in rest if not g]
    return out


def _settings(a: dict[str, Any]) -> Iterator[dict[str, Any]]:
    c = a["costs"]
    yield from (c["release"], c["profile"], c["stage_overrides"], c["build"])
    for g in a["host_groups"]:
        yield from g["settings"]
    yield from a["network"]["settings"]
    yield from (a["network"].get("routers") or {}).get("settings", [])


# ------------------------------------------------------------------ text

LEGEND = "given: by the scenario or a --set; assumed: left to a default"


def _ns(ns: int) -> str:
    return format_span(ns) if ns else "0"


def power_of(cpu: CPUConfig) -> dict[str, Any]:
    """The cpufreq driver, the governor as the kernel names it, and who picks the clock
    under it where the model tells (``clock_picked_by``: hwp or intel_pstate under a
    P-state driver's powersave; None: the governor itself)."""
    governor, by = kernel_governor(cpu.governor)
    return {"cpufreq_driver": cpu.cpufreq_driver, "governor": governor, "clock_picked_by": by}


def _governor(p: dict[str, Any]) -> str:
    name, by = p["governor"], p.get("clock_picked_by")
    if by is None:  # a result file written before clock_picked_by: the modelled name
        name, by = kernel_governor(name)
    meaning = PSTATE_POWERSAVE.get(by or "")
    return f"{name} ({meaning})" if meaning else name


def _state(s: dict[str, Any]) -> str:
    """'C2 400us/5.5us': the exit latency the kernel declares (what its governor weighs), then
    the wake-up the model charges (the catalog's measured or derived figure), where known."""
    charged = s.get("wake_penalty_ns")  # a result file written before it lists only the first
    return s["name"] + " " + _ns(s["exit_latency_ns"]) + (
        "" if charged is None else "/" + _ns(charged))


IDLE_HEAD = "idle states (exit latency/charged)"


def idle_text(states: list[dict[str, Any]]) -> str:
    return ", ".join(_state(s) for s in states)


def _runs(head: str, p: dict[str, Any], clock: float | None, width: int) -> list[str]:
    """'osd (3 hosts): acpi-cpufreq / performance; idle states ...; work ran at ...'."""
    states = [_state(s) + "," for s in p["idle_states"]]
    if states:
        states[0] = IDLE_HEAD + " " + states[0]
        states[-1] = states[-1][:-1] + (";" if clock else "")
    else:  # no idle state at all (a hand-edited result file): say so
        states = ["no idle states" + (";" if clock else "")]
    return _wrap(f"{head}: {p['cpufreq_driver']} / {_governor(p)};",
                 states + ([f"work ran at {clock:.2f} GHz"] if clock else []), width, "    ", "")


def _setting_text(s: dict[str, Any], prefix: str) -> str:
    """'tuning.governor schedutil (auto: ...)': the field as the group names it, the value in
    force, and what decided it (a --set, an ``auto``, a platform default)."""
    why = [w for w in ("by --set" if (s["by"] or "").startswith("--set") else None,
                       s.get("note")) if w]
    return (f"{s['field'].removeprefix(prefix)} {s['shown']}"
            + (f" ({'; '.join(why)})" if why else ""))


def _wrap(head: str, items: list[str], width: int, indent: str, sep: str = ",") -> list[str]:
    """``head`` then the items, ``sep``-separated, wrapped between items where they fit."""
    lines, cur = [], head
    for i, it in enumerate(items):
        piece = it + (sep if i < len(items) - 1 else "")
        if cur.strip() and len(cur) + 1 + len(piece) > width:
            lines.append(cur)
            cur = indent + piece
        else:
            cur = f"{cur} {piece}" if cur else piece
    lines.append(cur)
    # an item longer than a line on its own is wrapped between its words
    return [w for ln in lines for w in (textwrap.wrap(ln, width, subsequent_indent=indent + "  ",
                                                      break_on_hyphens=False)
                                        if len(ln) > width else [ln])]


def _given_assumed(settings: list[dict[str, Any]], prefix: str, width: int,
                   indent: str, head: str = "") -> list[str]:
    """The settings given, then those assumed: on one line where they fit, else wrapped
    between items, each list on lines of its own; ``head`` (e.g. '  network:') first."""
    parts = [(label, [_setting_text(s, prefix) for s in settings if s["given"] is want])
             for label, want in (("given:", True), ("assumed:", False))]
    parts = [(label, items) for label, items in parts if items]
    one = f"{head or indent}{'; '.join(label + ' ' + ', '.join(items) for label, items in parts)}"
    if len(one) <= width or not parts:
        return [one] if parts else ([head.rstrip()] if head else [])
    out = [head.rstrip()] if head else []
    for label, items in parts:
        out += _wrap(indent + label, items, width, indent + "  ")
    return out


def costs_text(c: dict[str, Any]) -> str:
    """The calibrated part of the answer: where its scale comes from and how sure it is."""
    rel = c["release"]["value"]
    sd = f" +/- {100 * c['scale_sd']:.0f} %" if c["scale_sd"] is not None else ""
    scale = f"scale {c['scale']:.3g}{sd}"
    if c["scale_from"] == "profile":
        fit = c["profile_release"]
        whose = (f"fitted for {fit}" if fit == rel else
                 f"fitted for {fit}, not for {rel}" if fit else "its release not stated")
        return f"profile {c['profile']['value']} ({whose}): {scale}"
    if c["fitted_for_release"]:
        how = f"fitted on this release's clusters ({', '.join(c['fitted_on'] or [])})"
    elif c["fitted_for_release"] is False:
        how = "no cluster of this release: borrowed from its neighbours (the fit's prior)"
    else:
        how = c["basis"]
    extra = f", other costs from profile {c['profile']['value']}" if c["profile"]["value"] else ""
    return f"{rel} built-in, {scale}, {how}{extra}, accuracy on unseen clusters: docs/validation.md"


def header_lines(a: dict[str, Any], clocks: dict[str, float | None] | None = None,
                 width: int = 100, command: str = "cephsim run -f json") -> list[str]:
    """The header as lines of at most ``width`` columns (where the words allow): the costs,
    each host group's power settings and idle states (with ``clocks``, the mean clock its
    work ran at), the network's hardware; every setting under given or assumed."""
    c = a["costs"]
    lines = [f"what decides the answer ({LEGEND}):"]
    lines += _wrap("  Ceph's CPU costs:", costs_text(c).split(", "), width, "    ")
    # per-stage overrides are named only when given (none is the rule, not an assumption)
    lines += _given_assumed([c["release"], c["profile"]] + [c["stage_overrides"]] * bool(
        c["stage_overrides"]["given"]) + [c["build"]], "", width, "    ")
    # groups alike in all of this (storage hosts split by site, say) are shown once
    alike: dict[str, list[dict[str, Any]]] = {}
    for g in a["host_groups"]:
        clock = (clocks or {}).get(g["group"])
        text = "\n".join(_runs("", g, round(clock, 2) if clock else None, width)
                         + _given_assumed(g["settings"], f"hosts.{g['group']}.", width, "    "))
        alike.setdefault(text, []).append(g)
    for groups in alike.values():
        g, n = groups[0], sum(x["hosts"] for x in groups)
        names = ", ".join(x["group"] for x in groups)
        lines += _runs(f"  {names} ({n} host{'s' * (n != 1)})", g, (clocks or {}).get(g["group"]),
                       width)
        lines += _given_assumed(g["settings"], f"hosts.{g['group']}.", width, "    ")
    net = a["network"]
    lines += _given_assumed(net["settings"], "network.", width, "    ",
                            f"  network ({net['kind']}): ") if net["settings"] else [
        f"  network ({net['kind']}): no switch, the hosts cabled to each other"]
    routers = net.get("routers")
    if routers:
        lines += _runs("  spine routers", routers, None, width)
        lines += _given_assumed(routers["settings"], "network.topology.", width, "    ")
    # per-stage overrides not given are not shown above: they count among the defaults
    n = len(a["defaults"]) + (not c["stage_overrides"]["given"])
    if n:
        lines.append(f"  and {n} more field{'s' * (n != 1)} at {'their' if n > 1 else 'its'} "
                     f"default{'s' * (n != 1)} (listed by `{command}`)")
    return lines


def header_text(a: dict[str, Any], prefix: str = "", width: int = 100, **kw: Any) -> str:
    return "".join(f"{prefix}{ln}\n" for ln in header_lines(a, width=width - len(prefix), **kw))


# ------------------------------------------------------------------ side by side


def _cell(s: dict[str, Any]) -> str:
    status = ("given by --set" if (s["by"] or "").startswith("--set") else "given" if s["given"]
              else "assumed")
    note = s.get("note")
    return f"{s['shown']} ({status}{'; ' + note if note else ''})"


def _unit_for(path: str) -> Any:
    """units.format_span or format_size for a Duration or Size field of the scenario."""
    loc: list[Any] = []
    cur: Any = Scenario
    for part in path.split("."):
        fields = getattr(cur, "model_fields", None) or {}
        name = next((n for n, f in fields.items() if (f.alias or n) == part), None)
        if name is None:  # a list item's name or index
            loc.append(0)
            continue
        loc.append(name)
        cur = _model_in(fields[name].annotation)
    return _unit_of(Scenario, tuple(loc))


#: fields that name or describe a scenario and decide nothing
NAMING = ("name", "description", "sweep")


def rows(a: dict[str, Any]) -> dict[str, tuple[str, Any, bool]]:
    """Each thing that decides the answer, then every other field: label -> (cell text, what
    to compare, whether it is one of the things that decide the answer)."""
    c = a["costs"]
    out: dict[str, tuple[str, Any, bool]] = {"Ceph's CPU costs": (costs_text(c), costs_text(c),
                                                                  True)}
    for s in (c["release"], c["profile"], c["stage_overrides"], c["build"]):
        out[s["field"]] = (_cell(s), s["value"], True)

    def power(label: str, g: dict[str, Any], prefix: str) -> None:
        run = f"{g['cpufreq_driver']} / {_governor(g)}"
        out[f"{label}: runs"] = (run, run, True)
        idle = idle_text(g["idle_states"])
        out[f"{label}: {IDLE_HEAD}"] = (idle, g["idle_states"], True)
        for s in g["settings"]:
            out[f"{label}: {s['field'].removeprefix(prefix)}"] = (_cell(s), s["value"], True)

    for g in a["host_groups"]:
        power(g["group"], g, f"hosts.{g['group']}.")
    net = a["network"]
    out["network"] = (net["kind"], net["kind"], True)
    for s in net["settings"]:
        out[f"network: {s['field'].removeprefix('network.')}"] = (_cell(s), s["value"], True)
    if net.get("routers"):
        power("spine routers", net["routers"], "network.topology.")
    for kind in ("given", "defaults"):
        for f in a[kind]:
            if f["field"].split(".")[0] in NAMING:
                continue
            by = f.get("by") or ""
            status = ("given by --set" if by.startswith("--set") else "given" if kind == "given"
                      else "assumed")
            out[f["field"]] = (f"{_show(f['value'], _unit_for(f['field']))} ({status})",
                               f["value"], False)
    return out


def compare_text(sides: Sequence[tuple[str, dict[str, Any] | None]], width: int = 100) -> str:
    """What decides each side's answer: a table of what is not the same on every side (a '*'
    where the value differs, not only whether it was given), then what is the same.  Sides
    without assumptions (a measured fio file) are left out; one side alone gets the header
    ``run`` prints."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    shown, unread = [], []
    for name, a in sides:
        if a is None:
            continue
        try:
            shown.append((name, a, rows(a)))
        except (KeyError, TypeError, AttributeError, ValueError, IndexError):  # edited by hand
            unread.append(name)
    notes = "".join(f"{n}: its result file's assumptions could not be read\n" for n in unread)
    if len(shown) == 1:
        name, a, _ = shown[0]
        try:
            return f"{name}:\n" + header_text(a, width=width) + notes + "\n"
        except (KeyError, TypeError, AttributeError, ValueError, IndexError):
            return notes + f"{name}: its result file's assumptions could not be read\n"
    if not shown:
        return notes
    labels = list(dict.fromkeys(k for _, _, r in shown for k in r))
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False, title_justify="left",
              title="What decides the answer (* the value differs; assumed: left to a default):")
    t.add_column("", no_wrap=True)
    t.add_column("", no_wrap=True)
    for name, _, _ in shown:
        t.add_column(name, overflow="fold")
    same = []
    for k in labels:
        cells = [r.get(k) for _, _, r in shown]
        texts = [c[0] if c is not None else "-" for c in cells]
        values = [c[1] if c is not None else None for c in cells]
        differs = any(v != values[0] for v in values) or None in cells
        decisive = any(c is not None and c[2] for c in cells)
        if not differs and len(set(texts)) == 1:
            if decisive:
                same.append(f"{k} {texts[0]}")
            continue
        if differs or decisive:  # other fields: only where their values differ
            t.add_row("*" if differs else "", k, *texts)
    buf = io.StringIO()
    con = Console(file=buf, width=width, force_terminal=False, color_system=None)
    if t.row_count:
        con.print(t)
    else:
        buf.write(f"What decides the answer ({LEGEND}): the same on every side\n")
    if same:
        buf.write("\n".join(_wrap("The same on every side:", same, width, "  ", ";")) + "\n")
    return buf.getvalue() + notes + "\n"
