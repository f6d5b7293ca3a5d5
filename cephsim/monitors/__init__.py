"""Discrete-event model of the Ceph monitor cluster under high round-trip times (seed 004).

Entry points: :func:`simulate_monitors`, :func:`find_thresholds` (:func:`search_thresholds`
also keeps every RTT it simulated); inputs :class:`MonitorSpec` and :class:`MonNetwork`;
output :class:`MonitorReport`.
"""

from cephsim.spec.monitors import MonitorSpec

from .links import LinkSpec, MonNetwork
from .model import simulate_monitors
from .report import MonitorReport, text_report
from .thresholds import RttVerdict, Threshold, ThresholdSearch, find_thresholds, search_thresholds

__all__ = ["LinkSpec", "MonNetwork", "MonitorReport", "MonitorSpec", "RttVerdict", "Threshold",
           "ThresholdSearch", "find_thresholds", "search_thresholds", "simulate_monitors",
           "text_report"]
