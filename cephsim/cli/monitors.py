"""``cephsim mon-threshold``: where the monitor verdict changes as the monitor RTT grows.

Registered on the main typer app by :func:`register` (in :mod:`cephsim.cli`).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Annotated, Optional

import typer

from cephsim.cli.common import fail, plot_suffix
from cephsim.errors import CephsimError
from cephsim.formats.output import check_outputs

#: RTTs scanned at most (each is a monitor simulation per seed)
MAX_POINTS = 1000


def _seeds(values: list[str] | None) -> list[int]:
    out: list[int] = []
    for v in values or ["1,2,3"]:
        text = str(v).strip()
        # "1,2", "1, 2" and "1 2" are lists; an empty item ("1,,2", "1,", "") is a slip
        parts = re.split(r"\s*,\s*|\s+", text) if text else [""]
        for part in parts:
            if not part:
                raise CephsimError.single(f"--seeds {str(v)!r}: empty item in the list; give "
                                          "whole numbers >= 0, e.g. --seeds 1,2,3")
            try:
                seed = int(part)
            except ValueError:
                raise CephsimError.single(f"--seeds: {part!r} is not an integer") from None
            if seed < 0:
                raise CephsimError.single(f"--seeds: {seed} is negative; seeds are whole numbers >= 0")
            out.append(seed)
    if not out:
        raise CephsimError.single("--seeds: give at least one seed")
    return out


def _dur(opt: str, v: str) -> int:
    from cephsim.units import parse_duration_ns  # on use (cli/__init__): pydantic

    try:
        try:  # a bare number: the same "ambiguous" message as in a scenario file
            num: object = float(v)
        except ValueError:
            num = v
        if isinstance(num, float) and not math.isfinite(num):
            num = v
        ns = parse_duration_ns(num)
    except (ValueError, TypeError) as e:
        raise CephsimError.single(f"{opt}: {e}") from None
    if ns <= 0:
        raise CephsimError.single(f"{opt}: must be positive")
    return ns


def threshold_text(name: str, ths, seeds, base_ns: int, lo_ns: int, hi_ns: int,
                   points: int) -> str:  # noqa: ANN001
    from cephsim.monitors.thresholds import grid_spacing  # on use (cli/__init__)

    lines = [f"mon-threshold: {name} (seeds {', '.join(map(str, seeds))}; majority verdict per RTT; "
             f"every monitor-path delay scaled, scenario's largest monitor RTT {base_ns / 1e6:g} ms)",
             f"  scanned {points} RTTs from {lo_ns / 1e6:g} to {hi_ns / 1e6:g} ms "
             f"({grid_spacing(lo_ns, hi_ns, points):.0%} apart), then bisected each change"]
    if not ths:
        lines.append("  the verdict does not change over the RTT range searched")
    for t in ths:
        lines.append(f"  {t.from_state} -> {t.to_state}: between {t.below_rtt_ns / 1e6:.0f} and "
                     f"{t.above_rtt_ns / 1e6:.0f} ms RTT; timer responsible: {t.timer or 'none'}")
        if t.detail:
            side = "just below" if t.improves else "just above"
            lines.append(f"      first timer tripped {side}: {t.detail}")
    if any(t.improves for t in ths):
        lines.append("  note: the verdict is not monotone in RTT here: a longer RTT does better in "
                     "places, where the RTT's phase against the fixed timers lets Paxos updates "
                     "land in time; read the verdict near these RTTs as fragile")
    return "\n".join(lines) + "\n"


def register(app: typer.Typer) -> None:
    @app.command("mon-threshold")
    def mon_threshold(
        scenario: Annotated[Path, typer.Argument(help="Scenario YAML file "
                "with a monitors section.", show_default=False)],
        seeds: Annotated[Optional[list[str]], typer.Option("--seeds", help=
                "Seeds, comma-separated or repeated (default 1,2,3); the majority "
                "verdict counts.")] = None,
        set_: Annotated[Optional[list[str]], typer.Option("--set", help=
                "Override a field: dotted.path=value. Repeatable.")] = None,
        lo: Annotated[str, typer.Option("--lo", metavar="DURATION", help=
                "Smallest monitor RTT searched.")] = "1ms",
        hi: Annotated[str, typer.Option("--hi", metavar="DURATION", help=
                "Largest monitor RTT searched.")] = "12800ms",
        tol: Annotated[str, typer.Option("--tol", metavar="DURATION", help=
                "Bisection stops when the bracket is this narrow.")] = "100ms",
        points: Annotated[int, typer.Option("--points", help="RTTs scanned (log-spaced) before "
                "bisecting each change; windows narrower than the spacing can be missed.")] = 33,
        plot: Annotated[Optional[Path], typer.Option("--plot", metavar="FILE", help=
                "Also draw the verdict, quorum availability, command success and elections "
                "against the RTT, every RTT simulated (.png, .svg or .pdf).")] = None,
    ) -> None:
        """Search the monitor RTT at which the verdict changes (healthy -> unstable -> broken)."""
        try:
            # on use (cli/__init__)
            from cephsim.api import load_resolved
            from cephsim.monitors import search_thresholds

            plot_suffix(plot)
            check_outputs({"--plot": plot}, [scenario])
            sd = _seeds(seeds)
            lo_ns, hi_ns, tol_ns = _dur("--lo", lo), _dur("--hi", hi), _dur("--tol", tol)
            if lo_ns >= hi_ns:
                raise CephsimError.single("--lo must be smaller than --hi")
            if not 2 <= points <= MAX_POINTS:
                raise CephsimError.single(f"--points: scan between 2 and {MAX_POINTS} RTTs (got {points})")
            sc, r = load_resolved(scenario, set_)
            if r.monitors is None:
                raise CephsimError.single("the scenario has no monitors "
                        "section", file=str(scenario),
                                          path="monitors")
            setup = r.monitors
            found = search_thresholds(setup.spec, setup.net_at_rtt, seeds=sd, lo=lo_ns,
                                      hi=hi_ns, tol_ns=tol_ns, points=points)
            if plot is not None:
                from cephsim.tools.plots import (
                    plot_mon_threshold,  # on use (cli/__init__): matplotlib
                )

                plot_mon_threshold(found, plot, sc.name, setup.max_mon_rtt_ns())
            typer.echo(threshold_text(sc.name, found.thresholds, sd, setup.max_mon_rtt_ns(),
                                      lo_ns, hi_ns, points), nl=False)
        except CephsimError as e:
            fail(e)
