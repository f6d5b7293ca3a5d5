"""Batched random draws handed out one at a time (the simulator's hot path).

Kept apart from the specs (:mod:`cephsim.spec.dists`, pydantic models) so that it can be
compiled with mypyc; each spec's batches come from :func:`cephsim.model.dists.batch_fn`.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from cephsim.model.dists import batch_fn
from cephsim.spec.dists import Constant


class Sampler:
    """Draws integer-ns samples of one distribution from one RNG stream, in batches."""

    __slots__ = ("_buf", "_draw", "constant")

    BATCH = 4096

    def __init__(self, spec: Any, rng: np.random.Generator | None) -> None:
        """``rng`` may be None for a :class:`~cephsim.spec.dists.Constant` (it draws nothing)."""
        self.constant: int | None = spec.value if isinstance(spec, Constant) else None
        self._draw: Callable[[int], list[int]] = batch_fn(spec, rng)
        # Samples are handed out from the end of the list (list.pop is the cheapest
        # way to do it), so each batch is stored reversed to keep the draw order.
        self._buf: list[int] = []

    def draw(self) -> int:
        """The next sample.  (A method rather than ``__call__``: compiled, it is a
        native call, where ``sampler()`` would go through Python's call protocol.)"""
        buf = self._buf
        if not buf:  # batch used up (a constant "draws" [value] * BATCH)
            buf.extend(reversed(self._draw(self.BATCH)))
        return buf.pop()


def fixed(value_ns: int) -> Sampler:
    """A sampler that always gives ``value_ns`` (draws nothing from any stream)."""
    return Sampler(Constant.model_validate({"value": f"{value_ns}ns"}), None)


class Jitter:
    """Multiplicative CPU-work variability with mean 1 (lognormal), batched."""

    __slots__ = ("_buf", "rng", "sigma")

    BATCH = 8192

    def __init__(self, sigma: float, rng: np.random.Generator) -> None:
        self.sigma = sigma
        self.rng = rng
        self._buf: list[float] = []  #: factors are handed out from the end of each batch

    def draw(self) -> float:
        """The next factor (a method, for the reason given at :meth:`Sampler.draw`)."""
        buf = self._buf
        if not buf:  # batch used up
            s = self.sigma
            if s == 0.0:  # no variability: no draws from the stream
                buf.extend([1.0] * self.BATCH)
            else:
                buf.extend(np.exp(self.rng.normal(-s * s / 2, s, self.BATCH)).tolist())
        return buf.pop()


class Coin:
    """Batched Bernoulli draws: True with probability ``p``.  Draws nothing (and needs no
    stream) when the outcome is certain, so ``p`` of 0 or 1 leaves every stream alone."""

    __slots__ = ("_buf", "p", "rng")

    BATCH = 1024

    def __init__(self, p: float, rng: np.random.Generator | None) -> None:
        self.p = p
        self.rng = rng
        self._buf: list[float] = []  #: uniforms are handed out from the end of each batch

    def draw(self) -> bool:
        """The next outcome (a method, for the reason given at :meth:`Sampler.draw`)."""
        p = self.p
        if p <= 0.0:
            return False
        if p >= 1.0:
            return True
        buf = self._buf
        if not buf:  # batch used up
            assert self.rng is not None
            buf.extend(self.rng.random(self.BATCH).tolist())
        return buf.pop() < p
