"""The words both the scenario's schema and the model speak.

Distributions (``dists``), a release's software costs as written (``software``), Ceph's
debug levels (``debuglog``), what packet loss costs a TCP connection (``loss``) and the
monitor cluster's inputs (``monitors``).  Nothing here imports the project above
``units``, ``errors`` and ``yamlfile``, so the schema, the catalog and the model can all
build on it.
"""
