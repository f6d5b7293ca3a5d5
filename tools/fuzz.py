"""Feed cephsim random mutations of its own inputs and count how each command answers.

    python tools/fuzz.py --scenarios 2000 --files 2000 [--seed 1] [--report docs/robustness.md]

Scenario mutations (of every shipped scenario): a key deleted, renamed or duplicated, a
value replaced by another type, an extreme number, a unit of the wrong kind, a list where
a mapping is wanted, bytes that are not text, deep nesting, an alias.  Each goes through
`validate` and, one in ten that validates, a 200-I/O `run`.  Measurement-file mutations
(of every reader fixture in tests/fixtures): numbers of any length, NaN and infinities,
units changed, lines cut, truncation, splices of two files, bytes that are not text; each
through `inspect` and, for fio output, `compare-fio`.

Outcomes counted per command: exit 0, exit 2 with a located message (a file or --set, and
for a file error a line), exit 2 without a location, any other exit status, a Python
exception (a traceback), and cases slower than --slow seconds.  The cases that are not
clean are printed (and written to the report) so they can be turned into tests.

A sample of the scenario mutations (--processes of them, spread over the run) is also run
as separate processes, `python -m cephsim validate` and, where that accepts it, the
200-I/O `run`, each with its own peak memory (the child's ru_maxrss) and wall time: an
accepted input over --max-memory or --slow is a case that is not clean (an input the
memory estimate let through but the machine could not hold, or a validate that hangs).
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from typer.testing import CliRunner

from cephsim.cli import app

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = sorted(p for p in (ROOT / "scenarios").glob("*.yaml"))
FIXTURES = sorted(p for p in (ROOT / "tests" / "fixtures").rglob("*")
                  if p.is_file() and p.suffix in (".txt", ".json", ".out"))
LOCATED = re.compile(r"(\S+\.(yaml|yml|json|txt|out)(:\d+(:\d+)?)?:|--set \S+|--\w[\w-]*)")
WITH_LINE = re.compile(r"\S+:\d+(:\d+)?:")
#: verdicts about a file as a whole, which no one line carries
WHOLE_FILE = re.compile(r"bytes|is empty|only whitespace|unrecognised measurement file|"
                        r"not a fio result|carries no measurement|no such|"
                        r"is not in the file: its default applies")

VALUES = ["null", "~", "true", "-1", "0", "1e309", "-1e309", ".nan", ".inf", "9" * 5000,
          "'x'", "[]", "{}", "[1, 2]", "{a: 1}", "10GHz", "5ms", "3KiB", "1e-30", "2**64",
          "\"\\u0000\"", "-0", "1_000", "0x10", "12:30", "yes", "''", "&a x", "*nope"]


def mutate_yaml(text: str, rng: random.Random) -> bytes:
    lines = text.split("\n")
    idx = [i for i, ln in enumerate(lines) if re.match(r"\s*[\w-]+\s*:", ln)
           and not ln.lstrip().startswith("#")]
    i = rng.choice(idx) if idx else 0
    op = rng.randrange(9)
    ln = lines[i]
    if op == 0:  # delete the key
        del lines[i]
    elif op == 1:  # rename it
        lines[i] = re.sub(r"([\w-]+)(\s*:)", lambda m: m.group(1) + "x" + m.group(2), ln, count=1)
    elif op == 2:  # duplicate it
        lines.insert(i, ln)
    elif op == 3 or op == 4:  # another value
        v = rng.choice(VALUES)
        lines[i] = re.sub(r":\s*(\S.*)?$", lambda m: ": " + v, ln, count=1)
    elif op == 5:  # a non-text key
        key = rng.choice(["null", "1", "true", "[a]"])
        lines.insert(i, re.match(r"\s*", ln).group(0) + key + ": x")
    elif op == 6:  # deep nesting
        deep = "[" * rng.randrange(10, 300) + "]" * 5
        lines[i] = re.sub(r":\s*(\S.*)?$", lambda m: ": " + deep, ln, count=1)
    elif op == 7:  # an alias to nowhere, or a self-growing one
        lines.insert(0, "a0: &a0 [x, x, x, x, x, x, x, x]")
        for k in range(1, rng.randrange(2, 12)):
            lines.insert(k, f"a{k}: &a{k} [" + ", ".join([f"*a{k - 1}"] * 8) + "]")
    else:  # bytes that are not text
        pos = rng.randrange(len(text) + 1)
        return (text[:pos].encode() + rng.choice([b"\x00", b"\xff\xfe", b"\xe9"])
                + text[pos:].encode())
    return "\n".join(lines).encode()


def mutate_measurement(text: str, other: str, rng: random.Random) -> bytes:
    op = rng.randrange(8)
    nums = list(re.finditer(r"\d+(\.\d+)?", text))
    if op <= 2 and nums:  # numbers of any length, NaN, infinities, negatives
        m = rng.choice(nums)
        new = rng.choice(["9" * rng.randrange(1, 6000), "nan", "inf", "-" + m.group(),
                          "1e999", "0", m.group() + "e308"])
        return (text[:m.start()] + new + text[m.end():]).encode()
    if op == 3:  # a unit changed
        return re.sub(r"\b(usec|msec|nsec|us|ms|ns|KiB|MiB|IOPS)\b",
                      lambda m: rng.choice(["s", "ks", "xyz", "KB", "GiB", ""]), text, count=3).encode()
    if op == 4:  # a line cut
        lines = text.split("\n")
        if lines:
            i = rng.randrange(len(lines))
            lines[i] = lines[i][:rng.randrange(len(lines[i]) + 1)]
        return "\n".join(lines).encode()
    if op == 5:  # truncated
        return text[:rng.randrange(len(text) + 1)].encode()
    if op == 6:  # two files spliced
        return (text[:rng.randrange(len(text) + 1)] + other[rng.randrange(len(other) + 1):]).encode()
    pos = rng.randrange(len(text) + 1)
    return text[:pos].encode() + rng.choice([b"\x00", b"\xff", b"\xc3\x28"]) + text[pos:].encode()


class Tally:
    def __init__(self, slow: float) -> None:
        self.slow = slow
        self.counts: Counter[tuple[str, str]] = Counter()
        self.bad: list[str] = []

    def invoke(self, runner: CliRunner, args: list[str], what: str) -> int:
        t0 = time.monotonic()
        r = runner.invoke(app, args)
        dt = time.monotonic() - t0
        cmd = args[0]
        out = (r.stdout or "") + (getattr(r, "stderr", "") or "")
        if r.exception is not None and not isinstance(r.exception, SystemExit):
            kind = "traceback"
            detail = f"{type(r.exception).__name__}: {r.exception}"
        elif r.exit_code == 0:
            kind, detail = "exit 0", ""
        elif r.exit_code == 2:
            located = LOCATED.search(out)
            file_err = re.search(r"\.(yaml|yml|json|txt|out)\b", out) and not re.search(r"--set ", out)
            if not located:
                kind, detail = "exit 2 without a location", out.strip()[:200]
            elif file_err and not WITH_LINE.search(out) and not WHOLE_FILE.search(out):
                kind, detail = "exit 2 naming the file but no line", out.strip()[:200]
            else:
                kind, detail = "exit 2, located", ""
        else:
            kind, detail = f"exit {r.exit_code}", out.strip()[:200]
        if dt > self.slow:
            self.counts[(cmd, f"slower than {self.slow:g} s")] += 1
            self.bad.append(f"{cmd} slow ({dt:.1f} s): {what}")
        self.counts[(cmd, kind)] += 1
        if kind not in ("exit 0", "exit 2, located"):
            self.bad.append(f"{cmd} {kind}: {what}: {detail}")
        return r.exit_code


#: the child: cephsim's command line, which writes its own peak memory on the way out.
#: /proc/self/status's VmHWM is the peak of the process's own memory; getrusage's and
#: wait4's ru_maxrss would also count the parent's, which Linux carries across the exec
CHILD = """
import atexit, sys
report, sys.argv = sys.argv[1], ["cephsim", *sys.argv[2:]]
def peak():
    try:
        with open("/proc/self/status") as f:
            kib = next(line.split()[1] for line in f if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        import resource
        kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with open(report, "w") as f:
        f.write(str(kib))
atexit.register(peak)
from cephsim.cli import main
main()
"""


def in_process(args: list[str], log: Path) -> tuple[int, float, int]:
    """Run cephsim ARGS as a child process: its exit status, wall seconds and peak resident
    memory in bytes."""
    report = log.with_suffix(".peak")
    report.unlink(missing_ok=True)
    t0 = time.monotonic()
    with log.open("wb") as out:
        code = subprocess.run([sys.executable, "-c", CHILD, str(report), *args], stdout=out,
                              stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL).returncode
    wall = time.monotonic() - t0
    peak = int(report.read_text()) * 1024 if report.exists() else 0
    return code, wall, peak


class Processes:
    """What the sampled cases cost as processes of their own."""

    def __init__(self, max_memory: float, slow: float) -> None:
        self.max_memory, self.slow = max_memory, slow
        self.rows: list[tuple[str, int, float, int]] = []  # command, exit, wall s, bytes
        self.bad: list[str] = []

    def run(self, args: list[str], what: str, log: Path) -> int:
        code, wall, peak = in_process(args, log)
        self.rows.append((args[0], code, wall, peak))
        if code not in (0, 2):
            self.bad.append(f"{args[0]} as a process, exit {code}: {what}: "
                            f"{log.read_text(errors='replace').strip()[-200:]}")
        elif code == 0 and (peak > self.max_memory or wall > self.slow):
            self.bad.append(f"{args[0]} as a process, accepted but {peak / 2**20:,.0f} MiB and "
                            f"{wall:.1f} s: {what}")
        return code

    def lines(self) -> list[str]:
        if not self.rows:
            return []
        out = ["", f"Sampled cases run as processes ({len(self.rows)}): peak memory and wall "
               "time per command (accepted and refused inputs together).", "",
               "| command | cases | exit 0 | median MiB | largest MiB | median s | longest s |",
               "|---|---|---|---|---|---|---|"]
        for cmd in sorted({r[0] for r in self.rows}):
            rs = [r for r in self.rows if r[0] == cmd]
            mib = [r[3] / 2**20 for r in rs]
            sec = [r[2] for r in rs]
            out.append(f"| {cmd} | {len(rs)} | {sum(1 for r in rs if r[1] == 0)} | "
                       f"{statistics.median(mib):.0f} | {max(mib):.0f} | "
                       f"{statistics.median(sec):.1f} | {max(sec):.1f} |")
        return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenarios", type=int, default=500)
    ap.add_argument("--files", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--slow", type=float, default=60.0)
    ap.add_argument("--report", type=Path, default=None)
    ap.add_argument("--processes", type=int, default=50,
                    help="scenario mutations also run as separate processes (default 50)")
    ap.add_argument("--max-memory", type=float, default=2.0,
                    help="GiB an accepted input's process may hold (default 2)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    runner = CliRunner()
    tally = Tally(args.slow)
    procs = Processes(args.max_memory * 2**30, args.slow)
    every = max(1, args.scenarios // args.processes) if args.processes > 0 else 0
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        for n in range(args.scenarios):
            src = rng.choice(SCENARIOS)
            p = d / f"s{n}.yaml"
            p.write_bytes(mutate_yaml(src.read_text(), rng))
            what = f"{src.name} mutation {n} (seed {args.seed})"
            code = tally.invoke(runner, ["validate", str(p)], what)
            run_args = ["run", str(p), "--set", "run.ios=200", "--set", "run.ramp_ios=0", "-q",
                        "-o", str(d / "out.txt")]
            if code == 0 and n % 10 == 0:
                tally.invoke(runner, run_args, what)
            if every and n % every == 0 and len(procs.rows) < 2 * args.processes:
                log = d / "child.log"
                if procs.run(["validate", str(p)], what, log) == 0:
                    procs.run(run_args, what, log)
        for n in range(args.files):
            src, other = rng.choice(FIXTURES), rng.choice(FIXTURES)
            p = d / f"m{n}{src.suffix}"
            p.write_bytes(mutate_measurement(src.read_text(), other.read_text(), rng))
            what = f"{src.relative_to(ROOT)} mutation {n} (seed {args.seed})"
            tally.invoke(runner, ["inspect", str(p)], what)
            if "fio" in src.parts:
                tally.invoke(runner, ["compare-fio", str(p), str(p)], what)
    wall = time.monotonic() - t0
    lines = [f"# Robustness: {args.scenarios} scenario and {args.files} measurement-file mutations",
             "", f"`python tools/fuzz.py --scenarios {args.scenarios} --files {args.files} "
             f"--seed {args.seed} --processes {args.processes}` ({wall:.0f} s).", "",
             "| command | outcome | cases |", "|---|---|---|"]
    for (cmd, kind), c in sorted(tally.counts.items()):
        lines.append(f"| {cmd} | {kind} | {c} |")
    lines += procs.lines()
    bad = tally.bad + procs.bad
    lines += ["", f"Cases that are not clean ({len(bad)}):", ""]
    lines += [f"- {b}" for b in bad[:200]] or ["- none"]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.report:
        args.report.write_text(text)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
