"""A digest of every shipped scenario's fio-style `jobs` section, to compare two builds or
two versions of the model for bit-identical results.

    python tools/jobs_digest.py [--ios 2000] [scenario.yaml ...] > digests.txt

Each line: the scenario's file name, the I/Os simulated and the SHA-256 of its `jobs`
section in `cephsim run -f json` (seed 1 unless the scenario says otherwise).  The same
model gives the same lines whatever runs it: CI runs it with the compiled and the pure-Python
build and compares; before and after a restructuring that must not change results, run it
on both commits.  ``--ios`` shortens each run (its warm-up with it) so the whole set takes
a minute or two; ``--ios 0`` runs every scenario as written.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def digest(path: Path, ios: int) -> tuple[int, str]:
    from cephsim.api import load_resolved
    from cephsim.formats.report.render import render_run
    from cephsim.model.runner import run_scenario

    overrides = [] if ios == 0 else [f"run.ios={ios}", f"run.ramp_ios={max(1, ios // 10)}",
                                      "run.runtime=null"]
    sc, r = load_resolved(path, overrides)
    res = run_scenario(sc, scenario_path=path, resolved=r)
    jobs = json.loads(render_run(res, "json"))["jobs"]
    blob = json.dumps(jobs, sort_keys=True, separators=(",", ":")).encode()
    return sc.run.ios or 0, hashlib.sha256(blob).hexdigest()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenarios", nargs="*", type=Path,
                    help="scenario files (default: every scenarios/*.yaml)")
    ap.add_argument("--ios", type=int, default=2000,
                    help="I/Os per scenario (0: as the scenario says; default 2000)")
    args = ap.parse_args(argv)
    paths = args.scenarios or sorted((ROOT / "scenarios").glob("*.yaml"))
    for p in paths:
        ios, h = digest(p, args.ios)
        print(f"{p.name} {ios} {h}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
