"""The simulated cluster: the resolved scenario, its components, the write path and the
workload that drives it (docs/model.md, "Layout")."""
