"""docs/api.md is a doctest: its example must run as written, from the repository root."""

from __future__ import annotations

import doctest
import os

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
