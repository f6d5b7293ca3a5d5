"""`cephsim bench`: what it reports (never how fast: speed is read from its output, not tested)."""

from __future__ import annotations

import json

import pytest

from cephsim.tools.bench import bench_text, idle_governor_cost


def test_the_idle_governor_pair_reports_both_costs_and_their_ratio() -> None:
    g = idle_governor_cost(1000, repeats=1)
    assert g["menu_wall_us_per_io"] > 0 and g["ideal_wall_us_per_io"] > 0
    assert g["ratio_menu_to_ideal"] == round(g["menu_wall_us_per_io"] / g["ideal_wall_us_per_io"], 3)
    assert g["menu_share"] == round(1 - g["ideal_wall_us_per_io"] / g["menu_wall_us_per_io"], 3)


def test_bench_prints_the_idle_governor_section(run_cli) -> None:
    r = run_cli("bench", "--ios", "1000", "-f", "json")
    assert r.exit_code == 0, r.output
    res = json.loads(r.stdout)
    assert set(res["idle_governor"]) == {"menu_wall_us_per_io", "ideal_wall_us_per_io",
                                         "ratio_menu_to_ideal", "menu_share"}
    text = bench_text(res)
    assert "idle governor (qd1, every idle state allowed)" in text
    assert f"{res['idle_governor']['ratio_menu_to_ideal']:.2f}" in text.split("menu / ideal")[1]
    # resumptions and forced yields per write, at qd1 and at high load: forced ones are
    # resumptions, and a replicated write resumes more than once
    for r in (res, res["high_load"]):
        assert 1 < r["forced_yields_per_io"] <= r["resumptions_per_io"] <= r["model_steps_per_io"]
    assert text.count("resumptions / forced yields") == 2
    assert f"{res['resumptions_per_io']} / {res['forced_yields_per_io']}  per write" in text
    # the million-write quickstart: scaled from the run it timed, setup counted once
    m = res["million"]
    assert m["ios"] == 1000 + 500  # the quickstart's warm-up (ramp_ios) is simulated too
    per_write = (m["wall_s"] - m["setup_s"]) / m["ios"]
    assert m["scaled_wall_s"] == pytest.approx(m["setup_s"] + per_write * 1_000_000, rel=0.02)
    assert m["peak_rss_mib"] > 10
    assert f"{m['scaled_wall_s']:.1f} s" in text.split("a million-write quickstart")[1]
