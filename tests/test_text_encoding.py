"""Text in and out: a scenario name is printable text (a located error otherwise), output
degrades to replacement characters under any terminal encoding instead of a traceback, and
file names made from names stay apart."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import BASE, ROOT, assert_short_error

from cephsim.formats.report.fio_bench import folder_name

QS = ROOT / "scenarios" / "quickstart.yaml"


def _named(tmp_path: Path, name_yaml: str, file: str = "s.yaml") -> Path:
    p = tmp_path / file
    p.write_text(BASE.replace("name: small", f"name: {name_yaml}"))
    return p


@pytest.mark.parametrize(("name_yaml", "words"), [
    ('"\\ud800"', ["s.yaml:1:", "name"]),                          # a lone surrogate
    ('"a\\e[31mred"', ["s.yaml:1:", "name", "'\\x1b'", "not printable"]),  # an ANSI escape
    ('"two\\nlines"', ["s.yaml:1:", "name", "'\\n'"]),
])
def test_a_name_that_is_not_printable_text_is_a_located_error(tmp_path, run_cli, name_yaml,
                                                                 words):
    """Every command that loads the scenario refuses it before any work; sweep writes no
    fio tree."""
    p = _named(tmp_path, name_yaml)
    out = tmp_path / "fio"
    for args in (["run", p], ["validate", p], ["explain", p, "--no-ablations"],
                 ["compare", p, QS, "--seeds", "1"], ["whatif", p, "--set", "pool.size=2"],
                 ["sweep", p, "--set", "pool.size=2,3", "--fio-dir", out]):
        assert_short_error(run_cli(*args, "-q") if args[0] in ("run", "compare", "sweep")
                           else run_cli(*args), *words)
    assert not out.exists()


def test_a_name_set_on_the_command_line_is_checked_too(tmp_path, run_cli):
    r = run_cli("validate", QS, "--set", 'name="\x07bell"')
    assert_short_error(r, "--set", "name", "'\\x07'")


def test_folder_names_from_names_stay_apart():
    assert folder_name("quickstart") == "quickstart"
    assert folder_name("quickstart,pool.size=2") == "quickstart,pool.size=2"
    assert folder_name("Zürich") == "Zürich" and folder_name("東京") != folder_name("大阪")
    # replaced characters: the name's hash keeps names that differ only there apart
    assert folder_name("a/b") != folder_name("a b") and folder_name("a/b").startswith("a_b-")
    assert not folder_name(".hidden").startswith(".")
    assert "/" not in folder_name("../../etc")


def test_non_ascii_names_get_their_own_fio_folders(tmp_path, run_cli):
    """Two scenarios named in another script no longer both land in '__'."""
    out = tmp_path / "fio"
    for i, name in enumerate(("東京", "大阪")):
        p = _named(tmp_path, name, f"s{i}.yaml")
        r = run_cli("sweep", p, "--set", "run.ios=100", "-q", "--fio-dir", out)
        assert r.exit_code == 0, r.output
    assert sorted(d.name for d in out.iterdir()) == sorted(["東京", "大阪"])


#: in one interpreter whose stdout and stderr are ascii-encoded: each command through
#: cephsim's own entry point, its exit status recorded (the report is written in ASCII)
_DRIVER = """
import json, sys
from cephsim.cli import main
codes = []
for argv in json.loads(sys.argv[1]):
    sys.argv = ["cephsim", *argv]
    try:
        main()
        codes.append(0)
    except SystemExit as e:
        codes.append(e.code if isinstance(e.code, int) else 1)
    sys.stdout.flush()
open(sys.argv[0] if False else REPORT, "w").write(json.dumps(codes))
"""


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_every_command_under_a_narrow_terminal_encoding(tmp_path, encoding):
    """PYTHONIOENCODING=ascii or latin-1 and a scenario name outside them: every command
    exits 0 or 2 (an error of the input's) with no traceback; what cannot be shown is a
    replacement character.  Tiny runs; the slow commands get a bad input, whose message
    carries a name outside the encoding too."""
    sc = _named(tmp_path, '"Zürich ± 東京 — µs"')
    sc.write_text(sc.read_text().replace("ios: 300", "ios: 100"))
    fio = ROOT / "tests" / "fixtures" / "fio" / "randwrite4k_libaio_normal.txt"
    missing = str(tmp_path / "nicht-da-ä.yaml")
    commands = [
        ["--help"], ["run", sc, "-q"], ["run", sc, "-q", "-f", "json"], ["validate", sc],
        ["schema"], ["catalog"], ["catalog", "cpus", "xeon-8488c"], ["inspect", fio],
        ["init", "--from", ROOT / "tests" / "fixtures" / "init" / "cluster-b", "--yes"],
        ["explain", sc, "--no-ablations"], ["whatif", sc, "--set", "pool.size=2"],
        ["compare", sc, sc, "--seeds", "1", "-q"],
        ["sweep", sc, "--set", "pool.size=2", "-q", "--fio-dir", tmp_path / "fio"],
        ["compare-fio", tmp_path / "fio" / folder_name("Zürich ± 東京 — µs") / "4k" /
         "randwrite-1-1.json", fio],
        ["calibrate", missing], ["accuracy", missing], ["mon-threshold", missing],
        ["bench", "--ios", "10"]]
    report = tmp_path / "codes.json"
    env = {**os.environ, "PYTHONIOENCODING": encoding, "PYTHONPATH": str(ROOT),
           "COLUMNS": "100"}
    r = subprocess.run([sys.executable, "-c", _DRIVER.replace("REPORT", repr(str(report))),
                        json.dumps([[str(a) for a in c] for c in commands])],
                       capture_output=True, env=env, cwd=tmp_path, timeout=600)
    err = r.stderr.decode(encoding, "replace")  # click writes UTF-8 where it finds ascii
    assert r.returncode == 0 and "Traceback" not in err, err[-3000:]
    codes = json.loads(report.read_text())
    assert all(c in (0, 2) for c in codes), list(zip((c[0] for c in commands), codes))
    expect_ok = commands.index(["calibrate", missing])
    assert codes[:expect_ok] == [0] * expect_ok, list(zip((c[0] for c in commands), codes))
    assert codes[-1] == 2  # bench's --ios is at least 1000: a usage error
    out = r.stdout.decode(encoding, "replace")
    assert "Z?rich" in out or "Zürich" in out  # latin-1 shows the ü; ascii replaces it
