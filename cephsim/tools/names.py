"""How the model's components are named on screen: OSDs as Ceph names its daemons.

The model names an OSD's threads and devices after the OSD (``osd6.msgr0``, ``osd6.disk``),
a client's after its host (``<host>.job0.app``), a kernel client's per-connection worker
after both (``<host>.osd6-con.kworker``) and the network by its two hosts (``net A->B``).
Every table, timeline and figure shows an OSD as ``osd.6`` (``ceph osd tree``'s name),
through :func:`component_label` and :func:`osd_name`; host names are the scenario's and are
never rewritten, even when a host is called ``osd0`` (the quickstart's).
"""

from __future__ import annotations

import re

#: an OSD's own thread or device: ``osd6.`` first, but not a client's thread on a host named
#: like an OSD (``osd0.job0.app``, ``osd0.osd6-con.kworker``)
_OSD_PART = re.compile(r"osd(\d+)\.(?!job\d+\.|osd\d+-con\.)")
#: a kernel client's worker for its connection to one OSD
_CONN = re.compile(r"(?P<host>.+)\.osd(?P<id>\d+)-con\.(?P<rest>.+)")
#: the model's name of an OSD
_MODEL_OSD = re.compile(r"osd(\d+)")


def osd_of(resource: str) -> str | None:
    """The model's name of the OSD that owns ``resource`` (``osd6`` for ``osd6.msgr0``), or
    None for a client's thread, the network and waits."""
    i = osd_id(resource)
    return None if i is None else f"osd{i}"


def osd_id(resource: str) -> int | None:
    """The id of the OSD that owns ``resource`` (6 for ``osd6.kv_sync``), or None."""
    m = _OSD_PART.match(resource)
    return int(m.group(1)) if m else None


def osd_name(osd: int | str) -> str:
    """Ceph's name of an OSD, ``osd.6``, from its id or the model's name (``osd6``)."""
    if isinstance(osd, str):
        m = _MODEL_OSD.fullmatch(osd)
        if m is None:
            raise ValueError(f"{osd!r} is not the model's name of an OSD")
        osd = int(m.group(1))
    return f"osd.{osd}"


def component_label(resource: str) -> str:
    """How a thread, device or network direction is shown: ``osd.6.msgr0``,
    ``client0.job0.app``, ``client0.osd.6-con.kworker``, ``node0->node1``.

    Takes the model's resource name (``net A->B`` and a kv_sync thread's ``... batch``
    included) or a timeline row's name (:func:`cephsim.tools.explain.row_name`)."""
    name = resource.removeprefix("net ").removesuffix(" batch")
    if "->" in name:  # hosts, as the scenario names them
        return name
    m = _OSD_PART.match(name)
    if m is not None:
        return f"{osd_name(int(m.group(1)))}.{name[m.end():]}"
    c = _CONN.fullmatch(name)
    if c is not None:
        return f"{c['host']}.{osd_name(int(c['id']))}-con.{c['rest']}"
    return name
