"""Per-op records, kept flat and summarised after the run.

The recorder is attached from outside the model: the workload hands it every
completed op.  It always keeps what the statistics need (direction, submit,
slat end, completion); with ``records`` on it also keeps the critical-path
accumulator and the op-tracker event times.  Statistics never depend on the
optional part.
"""

from __future__ import annotations

import numpy as np

from cephsim.model.writepath import Op

CATEGORIES = ("network", "cpu", "wake", "disk", "queue")


class Recorder:
    def __init__(self, keep_records: bool = True) -> None:
        self.keep = keep_records
        self._core: list[tuple[int, int, int, int]] = []  # is_write, submit, slat_end, complete
        self._acc: list[list[int]] = []
        self._ev: list[list[int]] = []
        self._seq: list[int] = []
        self.traces: dict[int, dict[str, object]] = {}  #: op seq -> traced op (see trace.py)

    def add(self, op: Op, t: int) -> None:
        self._core.append((op.is_write, op.submit, op.slat_end, t))
        if self.keep:
            self._acc.append(list(op.acc))
            self._ev.append(list(op.ev))
            self._seq.append(op.seq)
        if type(op.acc) is not list:
            self.traces[op.seq] = {
                "submit": op.submit,
                "slat_end": op.slat_end,
                "complete": t,
                "is_write": op.is_write,
                "acc": list(op.acc),
                "ev": list(op.ev),
                "spans": list(op.acc.spans),  # type: ignore[attr-defined]
                "job": op.job.name,
                "pg": op.pg,
            }

    def count(self) -> int:
        return len(self._core)

    def last_complete(self) -> int:
        return max((c[3] for c in self._core), default=0)

    def arrays(self) -> dict[str, np.ndarray]:
        core = np.array(self._core, dtype=np.int64).reshape(-1, 4)
        out = {"is_write": core[:, 0].astype(bool), "submit": core[:, 1], "slat_end": core[:, 2],
               "complete": core[:, 3]}
        if self.keep and self._acc:
            out["acc"] = np.array(self._acc, dtype=np.int64)
            out["ev"] = np.array(self._ev, dtype=np.int64)
            out["seq"] = np.array(self._seq, dtype=np.int64)
        return out
