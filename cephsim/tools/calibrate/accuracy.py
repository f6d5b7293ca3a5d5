"""``cephsim accuracy``: which case files, the run, and the README's generated summary."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from cephsim.errors import CephsimError
from cephsim.formats.readers.common import read_text
from cephsim.tools.calibrate.cases import Case
from cephsim.tools.calibrate.corpus import Validation, cross_validate, load_ratios
from cephsim.tools.provenance import closing, replace_block as replace

DEFAULT_CASES = Path("calibration/cases")
#: release-against-release evidence, used with the default corpus
RATIOS = Path("calibration/release-ratios.yaml")


def case_files(given: list[Path] | None) -> list[Path]:
    """Case files from the arguments: files as given, folders expanded to their *.yaml."""
    items = list(given) if given else [DEFAULT_CASES]
    out: list[Path] = []
    for p in items:
        if p.is_dir():
            out += sorted(p.glob("*.yaml"))
        elif p.exists():
            out.append(p)
        elif not given:
            raise CephsimError.single(f"{p}: no such folder; run from a clone of the repository "
                                      "or give the case files")
        else:
            raise CephsimError.single(f"{p}: no such file or folder")
    if not out:
        raise CephsimError.single(f"{', '.join(map(str, items))}: no case file (*.yaml)")
    return out


def run_accuracy(cases: list[Case], paths: list[Path], seeds: int, ios: int, jobs: int | None,
                 progress: Callable[[str], None] | None,
                 ratios_path: Path | None = None, executor: str = "local",
                 scheduler: Any = None) -> tuple[Validation, str]:
    """Leave-one-cluster-out over the qd1 corpus of ``cases`` (read from ``paths``).
    ``ratios_path``: the release-ratio file (default: calibration/release-ratios.yaml with
    the default corpus, none with cases given by hand).  The simulations run on ``jobs``
    local processes or a Dask cluster (``executor``, ``scheduler``): the same numbers
    either way, so the command line written with the report does not name them."""
    corpus = [c for c in cases if c.corpus == "qd1" and not c.skip_reason]
    if progress:
        for c in cases:
            if c.skip_reason:
                progress(f"skipped: {c.skip_reason}")
        left = sorted(c.name for c in cases if c.corpus != "qd1")
        if left:
            progress(f"not in the corpus (corpus: load): {', '.join(left)}")
    shown = [str(p) for p in paths]
    default = sorted(str(p) for p in DEFAULT_CASES.glob("*.yaml")) if DEFAULT_CASES.is_dir() else []
    where = "" if sorted(shown) == default else " " + " ".join(shown)
    if ratios_path is None and not where and RATIOS.exists():
        ratios_path = RATIOS
    ratios = load_ratios(ratios_path) if ratios_path is not None else []
    named = ("" if ratios_path is None or (not where and ratios_path == RATIOS)
             else f" --ratios {ratios_path}")
    command = f"cephsim accuracy{where}{named} --seeds {seeds} --ios {ios}"
    v = cross_validate(corpus, list(range(1, seeds + 1)), ios, jobs, progress, ratios,
                       executor=executor, scheduler=scheduler)
    return v, command


def replace_block(path: Path, lines: list[str]) -> str:
    """The text of ``path`` with the generated accuracy block replaced by ``lines``."""
    text = read_text(path)
    try:
        return replace(text, "accuracy", "\n".join(lines), "cephsim accuracy --readme")
    except KeyError:
        raise CephsimError.single(
            "no accuracy block: put the two lines '<!-- generated: accuracy (model "
            "000000000000) -->' and '" + closing("accuracy") + "' where the summary goes",
            file=str(path)) from None
