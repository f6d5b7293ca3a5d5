"""``cephsim bench``: simulation speed, next to a bare-SimPy loop measured in the same run.

The scenario is the quickstart's (3 OSD hosts, size 3, 4 KiB random writes at queue
depth 1; a copy lives in the package).  Reported: simulated writes, model steps and
SimPy events per wall second, beside a bare SimPy loop (one process doing ``yield
env.timeout(1)``) timed right before, so the ratio means something on a noisy
machine; and per write, the generator resumptions and, of them, the forced yields (a
process that waited because another continuation was due first: the kernel's fast
path runs everything else inline).

The same at high load, iodepth 64 x 8 jobs (512 I/Os in flight), where other
continuations are always pending and each step costs a SimPy event.

What the idle governor costs: the qd1 scenario with every idle state allowed (the
shipped copy stops at C1), under menu (the default) and under 'ideal', alternately,
each twice; the ratio of their fastest runs is menu's wall cost per write, and
1 - ideal / menu the governor's share of a write's wall time.

A million-write quickstart: the quickstart as a user runs it (records kept), ``ios``
writes timed and scaled to 1,000,000 (setup once, as this process sees it with its
catalogs already read; the per-write wall time a million times), with the process's
peak resident memory (a run's memory does not grow with its length: records are
binned as fio's are).
"""

from __future__ import annotations

import time
from importlib import resources
from typing import Any

import simpy

import cephsim.model.writepath as wp
from cephsim.model.runner import run_scenario
from cephsim.scenario.load import load_scenario


def bare_simpy_events_per_s(n: int = 300_000) -> float:
    env = simpy.Environment()

    def ticker(env: simpy.Environment):  # noqa: ANN202 - SimPy process
        for _ in range(n):
            yield env.timeout(1)

    env.process(ticker(env))
    t0 = time.perf_counter()
    env.run()
    return n / (time.perf_counter() - t0)


def run_bench(ios: int = 20000, iodepth: int = 1, clients: int = 1,
              high_load: bool = True) -> dict[str, Any]:
    """The qd1 figures, plus (``high_load``) the same scenario at iodepth 64 x 8 jobs."""
    res = _run_one(ios, iodepth, clients)
    if high_load:
        res["high_load"] = _run_one(ios, 64, 8)
        res["idle_governor"] = idle_governor_cost(ios)
        res["million"] = million_writes(ios)
    return res


MILLION = 1_000_000


def million_writes(ios: int) -> dict[str, Any]:
    """The shipped quickstart (records kept) for ``ios`` writes, its wall time scaled to a
    million: the setup (load, resolve, build: the wall clock outside the simulation) once
    plus the simulation's wall time per write a million times; and the process's peak
    resident memory so far (``ru_maxrss``, KiB on Linux)."""
    import resource

    t0 = time.perf_counter()
    sc, res = _simulate(ios, 1, 1, ["run.records=true"])
    total = time.perf_counter() - t0
    done = _simulated(sc, res)
    setup = max(0.0, total - res.wall_s)
    return {"ios": done, "wall_s": round(total, 3), "setup_s": round(setup, 3),
            "scaled_wall_s": round(setup + res.wall_s / done * MILLION, 1),
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


#: every idle state of the bench CPU allowed, on every host group
ALL_STATES = [f"hosts.{g}.tuning.max_cstate=null" for g in ("osd", "client")]


def idle_governor_cost(ios: int, repeats: int = 2) -> dict[str, Any]:
    """Wall cost per qd1 write under menu and under ideal (every idle state allowed); the
    fastest of ``repeats`` runs each, taken alternately so a busy spell hits both."""
    wall: dict[str, list[float]] = {"menu": [], "ideal": []}
    for _ in range(repeats):
        for g in wall:
            sets = ALL_STATES + [f"hosts.{h}.tuning.cpuidle_governor={g}" for h in ("osd", "client")]
            wall[g].append(_wall_us_per_io(*_simulate(ios, 1, 1, sets)))
    menu, ideal = min(wall["menu"]), min(wall["ideal"])
    return {"menu_wall_us_per_io": menu, "ideal_wall_us_per_io": ideal,
            "ratio_menu_to_ideal": round(menu / ideal, 3),
            "menu_share": round(1.0 - ideal / menu, 3)}


def _simulate(ios: int, iodepth: int, clients: int, extra: list[str]) -> tuple[Any, Any]:
    """The bench scenario at this load (with ``extra`` settings): (scenario, run result)."""
    path = resources.files("cephsim").joinpath("data/bench.yaml")
    with resources.as_file(path) as p:
        sets = [f"run.ios={ios}", f"workload.iodepth={iodepth}", f"workload.numjobs={clients}",
                "run.records=false", *extra]
        sc = load_scenario(p, sets)
        return sc, run_scenario(sc, scenario_path=p, keep_ops=False)


def _simulated(sc: Any, res: Any) -> int:
    """The I/Os a run simulated: the measured ones and the warm-up's."""
    return res.records.count() + sc.run.ramp_ios


def _wall_us_per_io(sc: Any, res: Any) -> float:
    """Wall time per simulated I/O, warm-up ones included (they were simulated too)."""
    return round(res.wall_s / _simulated(sc, res) * 1e6, 2)


def _run_one(ios: int, iodepth: int, clients: int) -> dict[str, Any]:
    bare = bare_simpy_events_per_s()
    sc, res = _simulate(ios, iodepth, clients, [])
    done = _simulated(sc, res)
    return {
        "scenario": sc.name, "ios": done, "ramp_ios": sc.run.ramp_ios, "iodepth": iodepth,
        "jobs": clients,
        "build": compiled_build(),
        "wall_s": round(res.wall_s, 4),
        "ios_per_s": round(done / res.wall_s, 1),
        "model_steps_per_s": round(res.kernel_steps / res.wall_s, 1),
        "model_steps_per_io": round(res.kernel_steps / done, 2),
        "resumptions_per_io": round(res.kernel_resumes / done, 2),
        "forced_yields_per_io": round(res.kernel_forced / done, 2),
        "simpy_events_per_s": round(res.simpy_events / res.wall_s, 1),
        "bare_simpy_events_per_s": round(bare, 1),
        "ratio_model_steps_to_bare_simpy": round(res.kernel_steps / res.wall_s / bare, 4),
        "cost_per_io_in_bare_simpy_events": round(bare * res.wall_s / done, 2),
        "wall_us_per_io": _wall_us_per_io(sc, res),
        "simulated_iops": round(res.iops, 1),
    }


def compiled_build() -> str:
    """'compiled (mypyc)' when the hot path was built with mypyc, else 'pure Python'."""
    return "compiled (mypyc)" if wp.__file__.endswith((".so", ".pyd")) else "pure Python"


def bench_text(r: dict[str, Any]) -> str:
    text = _bench_text(r)
    h = r.get("high_load")
    if h:
        text += (
            f"  at high load (iodepth {h['iodepth']} x {h['jobs']} jobs, "
            f"{h['simulated_iops']:,.0f} simulated IOPS):\n"
            f"    cost per simulated write           {h['wall_us_per_io']:>9.1f} us wall"
            f"  (qd1: {r['wall_us_per_io']:.1f} us)\n"
            f"    simulated writes per wall second   {h['ios_per_s']:>12,.0f}\n"
            f"    model steps per write              {h['model_steps_per_io']:>12}\n"
            f"    resumptions / forced yields        {h['resumptions_per_io']:>12}"
            f" / {h['forced_yields_per_io']}  per write\n"
            f"    one simulated write costs as much wall time as "
            f"{h['cost_per_io_in_bare_simpy_events']} bare SimPy events\n")
    g = r.get("idle_governor")
    if g:
        text += (
            f"  idle governor (qd1, every idle state allowed):\n"
            f"    cost per simulated write, menu     {g['menu_wall_us_per_io']:>9.1f} us wall\n"
            f"    cost per simulated write, ideal    {g['ideal_wall_us_per_io']:>9.1f} us wall\n"
            f"    menu / ideal                       {g['ratio_menu_to_ideal']:>12.2f}"
            f"  (the governor: {g['menu_share']:.0%} of a write's wall time)\n")
    m = r.get("million")
    if m:
        text += (
            f"  a million-write quickstart (records kept; {m['ios']:,} writes timed, scaled):\n"
            f"    wall time                          {m['scaled_wall_s']:>10.1f} s"
            f"  (setup {m['setup_s']:.1f} s once, catalogs already read)\n"
            f"    peak resident memory               {m['peak_rss_mib']:>10.1f} MiB\n")
    return text


def _bench_text(r: dict[str, Any]) -> str:
    return (
        f"cephsim bench: {r['scenario']}, {r['ios']} simulated 4 KiB writes ({r['ramp_ios']} of "
        f"them warm-up), size 3, "
        f"iodepth {r['iodepth']} x {r['jobs']} job(s); {r['build']} build\n"
        f"  simulated writes per wall second   {r['ios_per_s']:>12,.0f}\n"
        f"  model steps per wall second        {r['model_steps_per_s']:>12,.0f}"
        f"  ({r['model_steps_per_io']} per write)\n"
        f"  resumptions / forced yields        {r['resumptions_per_io']:>12}"
        f" / {r['forced_yields_per_io']}  per write\n"
        f"  SimPy events per wall second       {r['simpy_events_per_s']:>12,.0f}\n"
        f"  bare SimPy events per wall second  {r['bare_simpy_events_per_s']:>12,.0f}"
        f"  (same run, one process yielding timeouts)\n"
        f"  ratio model steps / bare SimPy     {r['ratio_model_steps_to_bare_simpy']:>12.3f}\n"
        f"  one simulated write costs as much wall time as "
        f"{r['cost_per_io_in_bare_simpy_events']} bare SimPy events\n")
