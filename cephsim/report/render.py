"""Render a run as text (fio normal output + breakdown) or fio-compatible JSON."""

from __future__ import annotations


from cephsim.report.fio_json import dumps_fio_json
from cephsim.report.fio_text import fio_text
from cephsim.report.summary import breakdown_text, job_stats, result_document, saturation_text
from cephsim.runner import RunResult


def write_path(res: RunResult) -> str:
    """The BlueStore write path the run's writes take, as the header names it."""
    w = res.scenario.workload
    if w.image_state == "fresh":
        return f"{res.resolved.ceph.write_mode} BlueStore writes: allocation into a fresh image"
    return f"{res.resolved.ceph.write_mode} BlueStore writes"


def cost_text(res: RunResult) -> str:
    """The calibrated part of the answer and how sure it is."""
    c = res.resolved.ceph.costs
    rel = res.resolved.ceph.release
    if c.scale_sd is None:
        return f"cephsim: Ceph's CPU cost per op: {rel} scale {c.scale:.3g} (from a profile)\n"
    return (f"cephsim: Ceph's CPU cost per op: {rel} scale {c.scale:.3g} +/- {100 * c.scale_sd:.0f} % "
            f"(fitted over the published clusters; how far unseen clusters come out: "
            f"docs/validation.md)\n")


def power_text(res: RunResult) -> str:
    """One header line per host group: what decides how fast its CPU work runs."""
    out = ""
    shown = {"intel_pstate": "powersave (intel_pstate decides, no HWP)",
             "hwp": "powersave (HWP/CPPC: the processor decides)"}
    for group, p in res.power.items():
        gov = shown.get(p["governor"], p["governor"])
        idle = p["idle_states"]
        clock = "" if p["mean_clock_ghz"] is None else f", work ran at {p['mean_clock_ghz']:.2f} GHz"
        out += (f"cephsim: {group}: {p['cpufreq_driver']} / {gov}, idle states "
                f"{idle[0]}..{idle[-1]}{clock}\n" if len(idle) > 1 else
                f"cephsim: {group}: {p['cpufreq_driver']} / {gov}, idle state "
                f"{idle[0]} only{clock}\n")
    return out


def render_run(res: RunResult, fmt: str) -> str:
    if fmt in ("json", "json+"):
        return dumps_fio_json(result_document(res, plus=fmt == "json+")) + "\n"
    sc = res.scenario
    head = (f"cephsim: {sc.name} (seed {res.seed}, {res.records.count()} I/Os measured, "
            f"{sc.ceph.release}, pool size {sc.pool.size}, "
            f"{write_path(res)})\n")
    text = head + power_text(res) + cost_text(res) + fio_text([job_stats(res)])
    text += "\nWhere the time went (mean per I/O):\n" + breakdown_text(res)
    text += saturation_text(res)
    if res.monitors is not None:
        from cephsim.monitors import text_report

        text += "\nMonitors (simulated separately; the data path does not use them):\n"
        text += "\n".join("  " + ln for ln in text_report(res.monitors).splitlines()) + "\n"
    for w in res.warnings:
        text += f"warning: {w}\n"
    return text
