"""docs/api.md is a doctest: its example must run as written, from the repository root."""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys

from conftest import ROOT


def test_the_api_page_runs_as_written():
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        res = doctest.testfile(str(ROOT / "docs" / "api.md"), module_relative=False,
                               optionflags=doctest.ELLIPSIS)
    finally:
        os.chdir(cwd)
    assert res.failed == 0 and res.attempted >= 10, res


def _examples() -> list[str]:
    """The page's example lines (what doctest runs)."""
    return [ln.strip()[4:] for ln in (ROOT / "docs" / "api.md").read_text("utf-8").splitlines()
            if ln.strip().startswith((">>> ", "... "))]


def test_the_page_teaches_exactly_the_public_names():
    import cephsim

    public = set(cephsim.__all__) - {"__version__"}
    page = (ROOT / "docs" / "api.md").read_text("utf-8")
    used = set(re.findall(r"\bcephsim\.(\w+)", "\n".join(_examples())))
    assert used <= public, f"the examples use names outside cephsim.__all__: {used - public}"
    assert not [ln for ln in _examples() if re.search(r"(from|import) cephsim\.", ln)]
    missing = {n for n in public if f"`{n}`" not in page and f"cephsim.{n}" not in page}
    assert not missing, f"public names the page does not mention: {missing}"
    for n in public:
        assert getattr(cephsim, n) is not None and n in dir(cephsim)


def test_importing_the_package_does_not_load_the_model():
    # workers and `cephsim --help` import cephsim; the model comes on first use of a public name
    code = ("import sys, cephsim; before = 'cephsim.model.runner' in sys.modules; "
            "cephsim.run; print(before, 'cephsim.model.runner' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout.split()
    assert out == ["False", "True"]


def test_load_takes_data_and_leaves_it_unchanged():
    import cephsim
    from cephsim.yamlfile import read_scenario_data

    data = read_scenario_data(ROOT / "scenarios" / "quickstart.yaml")
    before = repr(data)
    sc = cephsim.load(dict(data), sets=["pool.size=2"])
    assert sc.pool.size == 2 and sc.origin.path is None and sc.origin.sets == ("pool.size=2",)
    assert repr(data) == before
    from_file = cephsim.load(ROOT / "scenarios" / "quickstart.yaml", sets=["pool.size=2"])
    assert sc.model_dump() == from_file.model_dump()


def test_every_public_name_has_a_home():
    import cephsim

    assert set(cephsim.__all__) == {"__version__", *cephsim._PUBLIC}
