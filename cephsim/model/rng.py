"""Random streams: one seed, one independent stream per named component.

``Streams(seed).get("osd5.disk.write")`` returns a numpy Generator seeded with
``SeedSequence([seed, *words(name)])``.  The name is hashed with BLAKE2b (not
Python's ``hash``, which changes per process), so the same scenario and seed
give the same samples in every process, and adding a component does not shift
any other component's samples (common random numbers across what-ifs).
"""

from __future__ import annotations

import hashlib

import numpy as np


def name_words(name: str) -> list[int]:
    digest = hashlib.blake2b(name.encode("utf-8"), digest_size=16).digest()
    return [int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4)]


class Streams:
    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.names: list[str] = []

    def get(self, name: str) -> np.random.Generator:
        self.names.append(name)
        return np.random.default_rng(np.random.SeedSequence([self.seed, *name_words(name)]))


def stable_hash(*parts: object) -> int:
    """A 64-bit hash that is the same in every process (for placement)."""
    h = hashlib.blake2b("/".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(h, "little")
