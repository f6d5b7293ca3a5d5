"""``cephsim init``: a scenario for an existing cluster from the outputs of the commands an
operator can run (ceph osd metadata/tree/pool ls detail/config dump/versions, lscpu,
cpupower, ethtool, ip, nvme list, ping).  ``collect`` reads the files, ``build`` matches
the parts to the catalog and writes the scenario with every guess in its header."""
