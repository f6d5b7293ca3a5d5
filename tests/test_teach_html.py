"""The teaching page (``cephsim explain --html``): one self-contained file rendered from the
explanation's data, checked in a real headless Chromium (Debian's ``chromium`` and
``chromium-driver``, driven by selenium; skipped, saying so, where no browser is installed)."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cephsim.cli import app
from cephsim.formats.report.teach_html import embed_json, render_page
from cephsim.tools.explain import explain, explanation_data

ROOT = Path(__file__).resolve().parents[1]
WIDO = str(ROOT / "scenarios" / "wido-2019-nautilus.yaml")
SMALL = ["run.ios=600", "run.ramp_ios=100"]
runner = CliRunner()


@pytest.fixture(scope="module")
def traced():
    """wido-2019 with every ablation explained: the library's data and the page."""
    ex = explain(WIDO, SMALL, which="median", jobs=2, trace_ablations=True)
    data = explanation_data(ex)
    d = Path(tempfile.mkdtemp(prefix="cephsim-teach-"))
    page = d / "wido.html"
    page.write_text(render_page(data), encoding="utf-8")
    yield ex, data, page
    shutil.rmtree(d, ignore_errors=True)


def _embedded(text: str) -> dict:
    m = re.search(r'<script type="application/json" id="cephsim-data">(.*?)</script>', text, re.S)
    assert m is not None
    return json.loads(m.group(1))


# ------------------------------------------------------------------ without a browser


def test_the_page_carries_the_librarys_data_and_needs_no_network(traced) -> None:
    ex, data, page = traced
    text = page.read_text("utf-8")
    assert _embedded(text) == json.loads(json.dumps(data))
    assert len(text.encode()) < 2_000_000
    # nothing is fetched: no external script, style, image or font
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", text, re.I)
    assert "@import" not in text and "url(http" not in text
    # the steps are the model's, add up to the op's latency, and name the Ceph code
    assert sum(s["dur_ns"] for s in data["steps"]) == ex.latency_ns == data["latency_ns"]
    assert [s["what"] for s in data["steps"]] == [s.what for s in ex.steps]
    from cephsim.model.steps import STEPS

    assert [s["follows"] for s in data["steps"]] == [STEPS[s.step].follows for s in ex.steps]
    # every span is on a row of the timeline, the critical ones point at their step
    rows = sum(len(g["rows"]) for g in data["rows"])
    assert all(0 <= sp["row"] < rows for sp in data["spans"])
    on = sorted(sp["step"] for sp in data["spans"] if sp["step"] >= 0)
    assert on == [i for i, s in enumerate(ex.steps) if s.resource != "(wait)"]


def test_traced_ablations_are_the_same_runs_as_untraced_ones(traced) -> None:
    """The page's what-if runs are the ones ``explain`` reports: tracing each ablation's op
    changes none of its numbers; each has its own op, whose steps add up."""
    from cephsim.api import load_resolved
    from cephsim.tools.explain import run_ablations

    ex, data, _ = traced
    sc, r = load_resolved(WIDO, SMALL)
    plain = run_ablations(WIDO, SMALL, sc, r, ex.seed, jobs=2)
    assert [(p["variant"], p["mean_us"], p["p99_us"]) for p in plain] == [
        (a["variant"], a["mean_us"], a["p99_us"]) for a in ex.ablation]
    titles = [a["variant"] for a in data["ablations"]]
    for want in ("C-states not pinned (all states)", "ondemand governor",
                 "25G NICs and switch (connectx5-25g)", "debug logging at defaults",
                 "pool size 2", "erasure-coded pool (k=2, m=1)"):
        assert want in titles, titles
    for a in data["ablations"]:
        op = a["op"]
        assert sum(s["dur_ns"] for s in op["steps"]) == op["latency_ns"]
        assert op["mean_us"] == a["mean_us"]
    ec = next(a["op"] for a in data["ablations"] if a["variant"].startswith("erasure"))
    assert ec["erasure"] and [x["id"] for x in ec["lanes"]] == ["client", "primary", "shard 1",
                                                                 "shard 2"]
    assert any(s["follows"] == "ECUtil::encode" for s in ec["steps"])


def test_explain_html_cli_writes_one_file(tmp_path) -> None:
    out = tmp_path / "page.html"
    r = runner.invoke(app, ["explain", WIDO, "--set", "run.ios=300", "--set", "run.ramp_ios=50",
                            "--no-ablations", "-q", "--html", str(out)])
    assert r.exit_code == 0, r.output
    assert "steps add up exactly: True" in r.stdout
    data = _embedded(out.read_text("utf-8"))
    assert data["ablations"] == [] and data["scenario"] == "wido-2019-nautilus"
    assert [f.name for f in tmp_path.iterdir()] == ["page.html"]  # nothing else left behind
    r = runner.invoke(app, ["explain", WIDO, "-q", "--html", str(tmp_path / "page.png")])
    assert r.exit_code == 2 and "--html" in r.stderr and ".html" in r.stderr


def test_run_html_is_the_runs_own_page(tmp_path) -> None:
    """``run --html``: the report is the run's, unchanged; the page's mean is the report's,
    its op the run's median, and it has no what-if runs."""
    out = tmp_path / "run.html"
    args = ["run", WIDO, "--set", "run.ios=400", "--set", "run.ramp_ios=50", "-f", "json", "-q"]
    with_page = runner.invoke(app, [*args, "--html", str(out)])
    plain = runner.invoke(app, args)
    assert with_page.exit_code == 0 and plain.exit_code == 0, with_page.output
    doc, ref = json.loads(with_page.stdout), json.loads(plain.stdout)
    assert doc["jobs"] == ref["jobs"] and doc["cephsim"]["breakdown"] == ref["cephsim"]["breakdown"]
    data = _embedded(out.read_text("utf-8"))
    assert data["ablations"] == [] and "median" in data["rank"]
    assert data["mean_us"] * 1e3 == pytest.approx(doc["jobs"][0]["write"]["lat_ns"]["mean"],
                                                  abs=1e-3)
    assert sum(s["dur_ns"] for s in data["steps"]) == data["latency_ns"]
    assert data["latency"]["n"] == doc["jobs"][0]["write"]["total_ios"]
    r = runner.invoke(app, ["run", WIDO, "-q", "--html", str(tmp_path / "run.txt")])
    assert r.exit_code == 2 and "--html" in r.stderr and not (tmp_path / "run.txt").exists()


def test_a_bad_html_output_is_refused_before_any_run(tmp_path, run_cli) -> None:
    from conftest import assert_short_error

    same = tmp_path / "same.html"
    assert_short_error(run_cli("explain", WIDO, "--html", same, "-o", same),
                       "give each output its own name")
    assert_short_error(run_cli("explain", WIDO, "--html", tmp_path / "no" / "p.html"),
                       "--html", "output directory does not exist")
    assert_short_error(run_cli("run", WIDO, "--html", tmp_path), "--html")
    assert sorted(tmp_path.iterdir()) == []


def test_embedded_json_cannot_end_its_script_element() -> None:
    text = embed_json({"what": "</script><!-- x", "nan": float("nan")})
    assert "</" not in text and "<!--" not in text
    assert json.loads(text) == {"what": "</script><!-- x", "nan": None}


# ------------------------------------------------------------------ in a browser


def _driver(width: int):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    chromedriver = shutil.which("chromedriver")
    if not chromium or not chromedriver:
        pytest.skip("no browser: Debian's chromium and chromium-driver are not installed "
                    "(apt-get install chromium chromium-driver; .ci/run installs them)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    profile = tempfile.mkdtemp(prefix="cephsim-chromium-")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                 f"--user-data-dir={profile}", f"--window-size={width},900"):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(service=Service(chromedriver), options=opts)
    drv.set_page_load_timeout(60)
    _viewport(drv, width, 900)
    return drv, profile


def _viewport(drv, width: int, height: int) -> None:
    """The page's viewport, as a phone or a desktop has it (a headless window is at least
    500 px wide, so a phone's width is emulated, as the browser's device mode does)."""
    drv.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})


@pytest.fixture(scope="module")
def shots_dir():
    """Where the screenshots go: $CEPHSIM_SCREENSHOTS (to look at them) or a temporary one."""
    keep = os.environ.get("CEPHSIM_SCREENSHOTS")
    d = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="cephsim-shots-"))
    d.mkdir(parents=True, exist_ok=True)
    yield d
    if not keep:
        shutil.rmtree(d, ignore_errors=True)


def _not_blank(png: bytes) -> None:
    from PIL import Image

    im = Image.open(io.BytesIO(png)).convert("RGB")
    small = im.resize((im.width // 4, im.height // 4))
    px = [small.getpixel((x, y)) for y in range(small.height) for x in range(small.width)]
    ink = sum(1 for p in px if sum(p) < 600) / len(px)  # not white, not near-white
    assert len(set(px)) > 50 and ink > 0.02, (len(set(px)), ink)


def _severe(drv) -> list[dict]:
    return [e for e in drv.get_log("browser") if e["level"] == "SEVERE"]


def _shown_sum(drv) -> int:
    return drv.execute_script(
        "return [...document.querySelectorAll('#seq .step')]"
        ".reduce((a, e) => a + Number(e.getAttribute('data-dur-ns')), 0)")


def test_a_run_page_in_chromium(tmp_path) -> None:
    """A run's page (no what-if runs) draws without errors and says where the what-ifs are."""
    from selenium.webdriver.common.by import By

    out = tmp_path / "run.html"
    r = runner.invoke(app, ["run", WIDO, "--set", "run.ios=300", "--set", "run.ramp_ios=50",
                            "-q", "--html", str(out)])
    assert r.exit_code == 0, r.output
    data = _embedded(out.read_text("utf-8"))
    drv, profile = _driver(1280)
    try:
        drv.get(out.as_uri())
        assert _severe(drv) == []
        assert _shown_sum(drv) == data["latency_ns"]
        assert not drv.find_element(By.CSS_SELECTOR, "fieldset.whatif").is_displayed()
        assert "cephsim explain SCENARIO --html" in drv.find_element(By.ID, "abl-none").text
    finally:
        drv.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.mark.parametrize("width", [1280, 390], ids=["desktop", "phone"])
def test_the_page_in_chromium(traced, shots_dir, width) -> None:
    """No console error; the diagram's steps add up to the latency the page shows; each
    what-if switches the page to its own run's mean and op; Tab reaches every step; the
    page fits the screen's width; screenshots are not blank."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    ex, data, page = traced
    drv, profile = _driver(width)
    try:
        drv.get(page.as_uri())
        assert _severe(drv) == []
        assert drv.execute_script("return performance.getEntriesByType('resource').length") == 0
        total = drv.find_element(By.ID, "op-total")
        assert int(total.get_attribute("data-ns")) == ex.latency_ns == _shown_sum(drv)
        assert total.text == f"{ex.latency_ns / 1e3:.1f} µs"
        assert len(drv.find_elements(By.CSS_SELECTOR, "#seq .step")) == len(ex.steps)
        shown_mean = drv.find_element(By.ID, "run-mean")
        assert float(shown_mean.get_attribute("data-us")) == data["mean_us"]
        # the page fits the screen: nothing to scroll sideways
        assert drv.execute_script("return window.innerWidth") == width
        assert drv.execute_script("return document.documentElement.scrollWidth") <= width
        drv.save_screenshot(str(shots_dir / f"teach-{width}-top.png"))
        _not_blank(drv.get_screenshot_as_png())

        # keyboard: Tab from the top reaches every step of the diagram, in order
        drv.execute_script("document.activeElement.blur(); window.scrollTo(0, 0)")
        keys = ActionChains(drv)
        seen: list[int] = []
        for _ in range(len(ex.steps) + 40):
            keys.send_keys(Keys.TAB).perform()
            n = drv.switch_to.active_element.get_attribute("data-n")
            if n is not None:
                seen.append(int(n))
                if int(n) == len(ex.steps):
                    break
        assert seen == list(range(1, len(ex.steps) + 1))
        # focus shows the step's details: what Ceph does, the code it follows, its share
        last = ex.steps[-1]
        details = drv.find_element(By.ID, "details").text
        assert last.what in details and f"{last.dur / 1e3:.1f} µs" in details
        from cephsim.model.steps import STEPS

        assert STEPS[last.step].follows in details

        # each what-if: the page's mean becomes that run's, the diagram shows its own op
        for i, row in enumerate(ex.ablation, start=1):
            radio = drv.find_element(By.CSS_SELECTOR, f"#choices input[value='{i}']")
            if "op" not in row:
                assert not radio.is_enabled()
                continue
            drv.execute_script("arguments[0].scrollIntoView({block: 'center'})", radio)
            radio.click()
            shown = drv.find_element(By.ID, "run-mean")
            assert float(shown.get_attribute("data-us")) == row["mean_us"], row["variant"]
            assert shown.text == f"{row['mean_us']:.1f} µs"
            lat = row["op"]["latency_ns"]
            assert int(drv.find_element(By.ID, "op-total").get_attribute("data-ns")) == lat
            assert _shown_sum(drv) == lat, row["variant"]
            if row["variant"].startswith("erasure"):
                drv.save_screenshot(str(shots_dir / f"teach-{width}-ec.png"))
        assert _severe(drv) == []
        _viewport(drv, width, min(drv.execute_script(
            "return document.documentElement.scrollHeight"), 7000))
        full = drv.get_screenshot_as_png()
        (shots_dir / f"teach-{width}-full.png").write_bytes(full)
        _not_blank(full)
        assert _severe(drv) == []
    finally:
        drv.quit()
        shutil.rmtree(profile, ignore_errors=True)
