"""Asking for what the collected files do not say.  Each question shows the guess the
scenario holds without an answer; Enter takes it.  An answer is checked before it is taken:
a catalog id, or a model name the catalog knows (a near miss is offered as the new default),
or the figures of an inline entry, each within its range.  Reading and printing are the
caller's (``ask`` returns one line, raising EOFError at the end of input), so the flow runs
the same at a terminal, from a pipe and in tests."""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable
from typing import Any

from cephsim.catalog.load import load_catalog
from cephsim.errors import CephsimError
from cephsim.tools.init.build import (
    RELEASES,
    SPEED_CLASSES,
    Built,
    Question,
    build,
    match_cpu,
    match_disk,
    match_nic,
)
from cephsim.tools.init.collect import Collected

Ask = Callable[[str], str]
Say = Callable[[str], None]
#: answers refused before the question gives up
MAX_TRIES = 5


class _Offer(Exception):
    """An answer that is not a catalog id but close to one: offered as the new default."""

    def __init__(self, best: str, message: str) -> None:
        super().__init__(message)
        self.best = best


def ask_missing(questions: list[Question], ask: Ask, say: Say = lambda s: None) -> dict[str, Any]:
    """Ask each question; the answers by question key (a question answered with its default
    is left out: the guess stands).  At the end of input the remaining guesses stand."""
    return _ask_all(questions, ask, say)[0]


def interview(got: Collected, ask: Ask, say: Say = lambda s: None,
              built: Built | None = None) -> Built:
    """The scenario built with the answers to what the files do not say (``built``: the one
    built without answers, if the caller has it).  An answer can raise a question of its
    own (another pool picked may be erasure-coded, with a profile to ask for): those are
    asked in turn, each key once."""
    answers: dict[str, Any] = {}
    asked: set[str] = set()
    built = build(got) if built is None else built
    while True:
        new = [q for q in built.questions if q.key not in asked]
        if not new:
            return built
        asked.update(q.key for q in new)
        more, ended = _ask_all(new, ask, say)
        answers.update(more)
        built = build(got, answers)
        if ended:
            return built


def _ask_all(questions: list[Question], ask: Ask, say: Say) -> tuple[dict[str, Any], bool]:
    answers: dict[str, Any] = {}
    for q in questions:
        try:
            value = _one(q, ask, say)
        except EOFError:
            say("end of input: the remaining guesses stand")
            return answers, True
        if value is not None:
            answers[q.key] = value
    return answers, False


def _one(q: Question, ask: Ask, say: Say) -> Any:
    default = q.default
    for _ in range(MAX_TRIES):
        text = ask(f"{q.prompt} [{default}]: ").strip()
        if not text:
            if default == q.default:
                return None
            text = default  # a near miss offered earlier
        try:
            return _PARSE[q.key](text, q, ask, say)
        except _Offer as o:
            say(str(o))
            default = o.best
        except ValueError as e:
            say(str(e))
    raise CephsimError.single(f"no valid answer in {MAX_TRIES} tries to: {q.prompt}")


def _catalog(kind: str, text: str, rule: Callable[[str], str | None], say: Say) -> str:
    """A catalog id from what the user typed: the id, a model name a matching rule knows,
    or a near miss offered."""
    entries = load_catalog().of(kind)
    if text in entries or text.lower() in entries:
        return text if text in entries else text.lower()
    hit = rule(text)
    if hit:
        say(f"'{text}' -> {hit} ({entries[hit].name})")
        return hit
    names = {e.name.lower(): i for i, e in entries.items()}
    close = difflib.get_close_matches(text.lower(), [*entries, *names], n=3, cutoff=0.5)
    ids = list(dict.fromkeys(names.get(c, c) for c in close))
    if ids:
        shown = ", ".join(f"{i} ({entries[i].name})" for i in ids)
        raise _Offer(ids[0], f"'{text}' is not in the catalog; closest: {shown}. Enter takes "
                             f"{ids[0]}")
    raise ValueError(f"'{text}' is not in the catalog (list them with `cephsim catalog {kind}`)")


def _number(ask: Ask, say: Say, prompt: str, default: float, lo: float, hi: float,
            whole: bool) -> float:
    shown = f"{default:.0f}" if whole or default == int(default) else f"{default:g}"
    for _ in range(MAX_TRIES):
        text = ask(f"  {prompt} [{shown}]: ").strip()
        if not text:
            return default
        try:
            v = float(text)
        except ValueError:
            v = math.nan
        if not math.isfinite(v):  # 'nan', 'inf', '1e400' parse, but are no figure
            say(f"'{text}' is not a number")
            continue
        if whole and v != int(v):
            say(f"{text}: a whole number")
        elif not lo <= v <= hi:
            say(f"{text}: between {lo:g} and {hi:g}")
        else:
            return v
    raise CephsimError.single(f"no valid answer in {MAX_TRIES} tries to: {prompt}")


def _cpu(text: str, q: Question, ask: Ask, say: Say) -> Any:
    if text.lower() == "same" and q.key == "client_cpu":
        return None
    if text.lower() != "inline":
        return _catalog("cpus", text, lambda t: match_cpu(t)[0], say)
    c = q.context
    cores = _number(ask, say, "cores per socket", c.get("cores", 16), 1, 512, True)
    tpc = _number(ask, say, "threads per core (SMT: 2, off: 1)", c.get("threads_per_core", 2),
                  1, 2, True)
    top = _number(ask, say, "highest clock, GHz", c.get("max_mhz", 3000) / 1000, 0.4, 7, False)
    low = _number(ask, say, "lowest clock, GHz", min(top, c.get("min_mhz", 1500) / 1000), 0.1,
                  top, False)
    return {"cores": int(cores), "threads_per_core": int(tpc), "max_mhz": top * 1000,
            "min_mhz": low * 1000}


def _sockets(text: str, q: Question, ask: Ask, say: Say) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 8:
        raise ValueError(f"'{text}': a number of sockets, 1 to 8")
    return int(text)


def _hosts(text: str, q: Question, ask: Ask, say: Say) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 1000:
        raise ValueError(f"'{text}': a number of OSD hosts, 1 to 1000")
    return int(text)


def _disk(text: str, q: Question, ask: Ask, say: Say) -> str:
    return _catalog("disks", text, match_disk, say)


def _nic(text: str, q: Question, ask: Ask, say: Say) -> str:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(?:g|gb/s|gbit/s|gbe)?", text.lower())
    if not m:
        return _catalog("nics", text, lambda t: None, say)
    gbps = float(m.group(1))
    known = match_nic(q.context.get("driver"), int(gbps * 1000))
    if known:
        say(f"{q.context.get('driver')} at {gbps:g} Gb/s -> {known}")
        return known
    if gbps * 1e9 in SPEED_CLASSES:
        return f"generic-{SPEED_CLASSES[gbps * 1e9]}"
    raise ValueError(f"{gbps:g} Gb/s: the generic NICs are "
                     f"{', '.join(f'{s / 1e9:g}' for s in SPEED_CLASSES)} Gb/s; give the nearest, "
                     "or a catalog id")


def _pool(text: str, q: Question, ask: Ask, say: Say) -> dict[str, Any]:
    choices = q.context.get("choices")
    if choices:
        if text in choices:
            return {"name": text}
        close = difflib.get_close_matches(text, choices, n=1, cutoff=0.5)
        if close:
            raise _Offer(close[0], f"no pool '{text}'; closest: {close[0]}. Enter takes it")
        raise ValueError(f"no pool '{text}' (pools: {', '.join(choices)})")
    osds = q.context.get("osds", 48)
    m = re.fullmatch(r"(\d+)\s*\+\s*(\d+)", text)
    if m:
        k, m_ = int(m.group(1)), int(m.group(2))
        if not 1 <= k <= 32 or not 1 <= m_ <= 16:
            raise ValueError(f"{text}: k from 1 to 32, m from 1 to 16")
        return {"type": "erasure", "k": k, "m": m_}
    if text.isdigit() and 1 <= int(text) <= min(48, osds):
        return {"size": int(text)}
    raise ValueError(f"'{text}': replicas, 1 to {min(48, osds)} (the files show {osds} OSDs), or "
                     "k+m such as 4+2")


def _ec(text: str, q: Question, ask: Ask, say: Say) -> list[int]:
    m = re.fullmatch(r"(\d+)\s*\+\s*(\d+)", text)
    size = q.context["size"]
    if not m or int(m.group(1)) < 1 or int(m.group(2)) < 1:
        raise ValueError(f"'{text}': k+m such as {size - 2}+2")
    if int(m.group(1)) + int(m.group(2)) != size:
        raise ValueError(f"{text}: the pool's size is {size}, and k+m must be that")
    return [int(m.group(1)), int(m.group(2))]


def _release(text: str, q: Question, ask: Ask, say: Say) -> str:
    low = text.lower()
    if low in RELEASES.values():
        return low
    m = re.fullmatch(r"v?(\d+)\.(\d+)\.(\d+)", low)
    if m and m.group(1) in RELEASES:
        return m.group(0).lstrip("v")
    close = difflib.get_close_matches(low, list(RELEASES.values()), n=1, cutoff=0.6)
    if close:
        raise _Offer(close[0], f"no release '{text}'; closest: {close[0]}. Enter takes it")
    raise ValueError(f"'{text}': a release ({', '.join(RELEASES.values())}) or a version such "
                     "as 18.2.4")


_PARSE: dict[str, Callable[[str, Question, Ask, Say], Any]] = {
    "cpu": _cpu, "client_cpu": _cpu, "sockets": _sockets, "client_sockets": _sockets,
    "disk": _disk, "nic": _nic, "client_nic": _nic, "pool": _pool, "ec": _ec,
    "release": _release, "hosts": _hosts}
