"""Calibration: fit the software costs nobody can know a priori to measurements.

- :mod:`cases`: case files (``calibration/cases/*.yaml``): a scenario plus the
  measurements taken on that cluster, the source of every file, and which
  statistics to match.
- :mod:`params`: the free parameters (``scale``, ``kcycles.<stage>``,
  ``tails.*``, ``cpu_jitter_sigma``, ``kernel.*``) and how they change a
  release's :class:`~cephsim.spec.software.ReleaseCosts`.
- :mod:`objective`: simulate cases with common random numbers, compare.
- :mod:`fit`: scipy ``least_squares`` on log-parameters, uncertainty from the
  Jacobian, verification runs, profile files.
- :mod:`crossval`: leave-one-out over cases.
- :mod:`netfit`: per-hop network model (fixed + per-byte) from qperf output.
- :mod:`whatif`: swap hardware in a scenario and explain the difference hop by hop.
"""
