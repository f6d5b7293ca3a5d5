"""Placement: objects to PGs, PGs to acting sets (a deterministic CRUSH stand-in).

CRUSH's job here is only to pick ``size`` OSDs on distinct hosts (failure domain
``osd``: distinct OSDs) for each PG, deterministically and evenly.  We use rendezvous (highest-random-weight)
hashing: for each PG, hosts are ranked by ``hash(pg, host)`` and the top
``size`` are taken; within a host the OSD with the highest ``hash(pg, osd)``.
The first is the primary.  Like CRUSH, this is stable (the same PG always maps
to the same OSDs) and spreads PGs evenly; unlike CRUSH it ignores weights and
failure-domain trees deeper than hosts.
"""

from __future__ import annotations

from cephsim.model.rng import stable_hash


def acting_sets(pg_num: int, size: int, hosts: dict[str, tuple[int, ...]],
                failure_domain: str = "host") -> list[tuple[int, ...]]:
    """Acting set (primary first) of every PG; ``hosts`` maps host -> its OSD ids."""
    if failure_domain == "osd":
        osds = [o for h in hosts.values() for o in h]
        if size > len(osds):
            raise ValueError("size larger than the number of OSDs")
        return [tuple(sorted(osds, key=lambda o: stable_hash("pg-osd", pg, o), reverse=True)[:size])
                for pg in range(pg_num)]
    names = [h for h, osds in hosts.items() if osds]
    if size > len(names):
        raise ValueError("size larger than the number of OSD hosts")
    table = []
    for pg in range(pg_num):
        ranked = sorted(names, key=lambda h: stable_hash("pg-host", pg, h), reverse=True)[:size]
        table.append(tuple(max(hosts[h], key=lambda o: stable_hash("pg-osd", pg, o)) for h in ranked))
    return table


def object_pg(image: int, objno: int, pg_num: int) -> int:
    return stable_hash("obj", image, objno) % pg_num
