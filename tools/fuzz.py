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
"""

from __future__ import annotations

import argparse
import random
import re
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenarios", type=int, default=500)
    ap.add_argument("--files", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--slow", type=float, default=60.0)
    ap.add_argument("--report", type=Path, default=None)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    runner = CliRunner()
    tally = Tally(args.slow)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        for n in range(args.scenarios):
            src = rng.choice(SCENARIOS)
            p = d / f"s{n}.yaml"
            p.write_bytes(mutate_yaml(src.read_text(), rng))
            what = f"{src.name} mutation {n} (seed {args.seed})"
            code = tally.invoke(runner, ["validate", str(p)], what)
            if code == 0 and n % 10 == 0:
                tally.invoke(runner, ["run", str(p), "--set", "run.ios=200", "--set",
                                      "run.ramp_ios=0", "-q", "-o", str(d / "out.txt")], what)
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
             f"--seed {args.seed}` ({wall:.0f} s).", "",
             "| command | outcome | cases |", "|---|---|---|"]
    for (cmd, kind), c in sorted(tally.counts.items()):
        lines.append(f"| {cmd} | {kind} | {c} |")
    lines += ["", f"Cases that are not clean ({len(tally.bad)}):", ""]
    lines += [f"- {b}" for b in tally.bad[:200]] or ["- none"]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.report:
        args.report.write_text(text)
    return 1 if tally.bad else 0


if __name__ == "__main__":
    sys.exit(main())
