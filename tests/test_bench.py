"""`cephsim bench`: what it reports (never how fast: speed is read from its output, not tested)."""

from __future__ import annotations

import json

from cephsim.tools.bench import bench_text, idle_governor_cost


def test_the_idle_governor_pair_reports_both_costs_and_their_ratio() -> None:
    g = idle_governor_cost(1000, repeats=1)
    assert g["menu_wall_us_per_io"] > 0 and g["ideal_wall_us_per_io"] > 0
    assert g["ratio_menu_to_ideal"] == round(g["menu_wall_us_per_io"] / g["ideal_wall_us_per_io"], 3)


def test_bench_prints_the_idle_governor_section(run_cli) -> None:
    r = run_cli("bench", "--ios", "1000", "-f", "json")
    assert r.exit_code == 0, r.output
    res = json.loads(r.stdout)
    assert set(res["idle_governor"]) == {"menu_wall_us_per_io", "ideal_wall_us_per_io",
                                         "ratio_menu_to_ideal"}
    text = bench_text(res)
    assert "idle governor (qd1, every idle state allowed)" in text
    assert f"{res['idle_governor']['ratio_menu_to_ideal']:.2f}" in text.split("menu / ideal")[1]
