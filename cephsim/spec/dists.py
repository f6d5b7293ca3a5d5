"""Service-time distributions: a declarative spec (pydantic) and a fast sampler.

A distribution is written in YAML as a mapping with a ``dist`` key::

    {dist: constant, value: 15us}
    {dist: lognormal, median: 15us, p99: 40us}      # or sigma: 0.4
    {dist: normal, mean: 10ms, stddev: 2ms}         # never clipped: see below
    {dist: uniform, low: 5us, high: 9us}
    {dist: exponential, mean: 200us}
    {dist: mixture, parts: [{weight: 0.99, of: {...}}, {weight: 0.01, of: {...}}]}

or as a plain duration string (``"15us"``), which means a constant.

Samples are integer nanoseconds, and every distribution here is a service time,
so none may go below zero.  Nothing is truncated silently: negative values,
shifts or bounds are rejected, and a ``normal`` is accepted only when its mean
is at least 6 standard deviations above zero (a negative draw then has odds
below 1e-9).  ``sigma`` is capped at 5 (a p99 over 100 000 x the median): past
that a lognormal's mean is dominated by draws beyond any real device.

How each one draws is the model's (:mod:`cephsim.model.dists`): a batch of 4096 at a
time from its own :class:`numpy.random.Generator`, handed out one by one.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal, Union

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from cephsim.units import DURATION_JSON, parse_duration_ns

_Z99 = 2.3263478740408408  # standard normal quantile at 0.99
MAX_SIGMA = 5.0  #: largest lognormal shape accepted (see the module docstring)
#: Longest typical service time accepted (a constant, a median, a mean, a uniform's top):
#: the kernel's SCSI command timeout (/sys/block/*/device/timeout, 30 s).  A device or a
#: stall that slow has failed, which is not what these distributions describe.
MAX_TIME_NS = 30 * 10**9


def _dur(v: Any) -> int:
    return parse_duration_ns(v)


#: a duration field (parsed by the field's validator); published to editors as a unit string
Dur = Annotated[int, WithJsonSchema(DURATION_JSON)]


class _Base(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    def _typical_ns(self) -> float:
        """The value checked against MAX_TIME_NS (0: nothing of its own to check)."""
        return 0.0

    @model_validator(mode="after")
    def _not_a_failure(self) -> _Base:
        if self._typical_ns() > MAX_TIME_NS:
            raise ValueError(f"{self._typical_ns() / 1e9:g} s is past 30 s, the kernel's SCSI "
                             "command timeout: a device or stall that slow has failed, which "
                             "is not modelled")
        return self


class Constant(_Base):
    """Always the same value."""

    dist: Literal["constant"] = "constant"
    value: Dur = Field(ge=0, description="The value, e.g. '15us'.")

    _v = field_validator("value", mode="before")(lambda cls, v: _dur(v))

    def _typical_ns(self) -> float:
        return float(self.value)

    @property
    def mean_ns(self) -> float:
        return float(self.value)

    @property
    def min_ns(self) -> float:
        return float(self.value)


class LogNormal(_Base):
    """Log-normal: the usual shape of a device or software service time (long right tail)."""

    dist: Literal["lognormal"] = "lognormal"
    median: Dur = Field(description="Median, e.g. '15us'.")
    sigma: float | None = Field(None, ge=0, le=MAX_SIGMA, description=
            "Shape (std. dev. of ln X). Give sigma or p99.")
    p99: Dur | None = Field(None, description="99th percentile; sets sigma = ln(p99/median)/2.326.")
    shift: Dur = Field(0, ge=0, description="Constant added to every sample (a hard minimum), e.g. "
            "'5us'.")

    _m = field_validator("median", "shift", mode="before")(lambda cls, v: _dur(v))

    def _typical_ns(self) -> float:
        return float(self.median + self.shift)

    @field_validator("p99", mode="before")
    @classmethod
    def _p(cls, v: Any) -> int | None:
        return None if v is None else _dur(v)

    @model_validator(mode="after")
    def _shape(self) -> LogNormal:
        if (self.sigma is None) == (self.p99 is None):
            raise ValueError("give exactly one of sigma or p99")
        if self.median <= 0:
            raise ValueError("median must be positive")
        if self.p99 is not None and self.p99 < self.median:
            raise ValueError("p99 must not be below the median")
        if self.shape > MAX_SIGMA:
            raise ValueError(f"p99 is more than {math.exp(MAX_SIGMA * _Z99):.0f} x the median "
                             f"(sigma {self.shape:.1f} > {MAX_SIGMA:g})")
        return self

    @property
    def shape(self) -> float:
        if self.sigma is not None:
            return self.sigma
        assert self.p99 is not None
        return math.log(self.p99 / self.median) / _Z99

    @property
    def mean_ns(self) -> float:
        return self.shift + self.median * math.exp(self.shape**2 / 2)

    @property
    def min_ns(self) -> float:
        return float(self.shift)


class Normal(_Base):
    """Normal with mean and standard deviation (as netem's ``distribution normal``)."""

    dist: Literal["normal"] = "normal"
    mean: Dur
    stddev: Dur = Field(ge=0)

    _m = field_validator("mean", "stddev", mode="before")(lambda cls, v: _dur(v))

    def _typical_ns(self) -> float:
        return float(self.mean)

    @model_validator(mode="after")
    def _nonnegative(self) -> Normal:
        if self.mean < 6 * self.stddev:
            raise ValueError("a service time cannot go negative: a normal needs mean >= 6 x "
                             "stddev (use lognormal for a wide spread)")
        return self

    @property
    def mean_ns(self) -> float:
        return float(self.mean)

    @property
    def min_ns(self) -> float:
        return float("-inf") if self.stddev > 0 else float(self.mean)


class Uniform(_Base):
    """Uniform on [low, high) (netem's default jitter shape)."""

    dist: Literal["uniform"] = "uniform"
    low: Dur = Field(ge=0)
    high: Dur

    _m = field_validator("low", "high", mode="before")(lambda cls, v: _dur(v))

    def _typical_ns(self) -> float:
        return float(self.high)

    @model_validator(mode="after")
    def _order(self) -> Uniform:
        if self.high < self.low:
            raise ValueError("high must not be below low")
        return self

    @property
    def mean_ns(self) -> float:
        return (self.low + self.high) / 2

    @property
    def min_ns(self) -> float:
        return float(self.low)


class Exponential(_Base):
    """Exponential with the given mean (memoryless waits, Poisson gaps)."""

    dist: Literal["exponential"] = "exponential"
    mean: Dur = Field(ge=0)

    _m = field_validator("mean", mode="before")(lambda cls, v: _dur(v))

    def _typical_ns(self) -> float:
        return float(self.mean)

    @property
    def mean_ns(self) -> float:
        return float(self.mean)

    @property
    def min_ns(self) -> float:
        return 0.0


class MixturePart(_Base):
    weight: float = Field(gt=0, allow_inf_nan=False)
    of: DistSpec


class Mixture(_Base):
    """With probability weight_i draw from part i (e.g. a rare slow path)."""

    dist: Literal["mixture"] = "mixture"
    parts: list[MixturePart] = Field(min_length=1)

    @property
    def mean_ns(self) -> float:
        w = sum(p.weight for p in self.parts)
        return sum(p.weight * p.of.mean_ns for p in self.parts) / w

    @property
    def min_ns(self) -> float:
        return min(p.of.min_ns for p in self.parts)


def _coerce(v: Any) -> Any:
    if isinstance(v, str):
        return {"dist": "constant", "value": v}
    if isinstance(v, (int, float)) and not isinstance(v, bool) and v == 0:
        return {"dist": "constant", "value": 0}
    return v


_Union = Annotated[
    Union[Constant, LogNormal, Normal, Uniform, Exponential, Mixture],
    Field(discriminator="dist"),
]


class _ConstantShorthandJson:
    """Publishes what :func:`_coerce` accepts: besides the distribution objects, a bare
    duration string (a constant, ``tx_latency: 2us``) or a bare 0."""

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Any) -> dict[str, Any]:
        return {"anyOf": [*DURATION_JSON["anyOf"], handler(core_schema)]}


DistSpec = Annotated[_Union, BeforeValidator(_coerce), _ConstantShorthandJson()]
MixturePart.model_rebuild()
Mixture.model_rebuild()
