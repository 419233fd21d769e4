"""A small seeded PRNG stored as one integer in the state (xorshift64*), and an unbiased shuffle.

Python's `random.shuffle` may change between versions; this one never does, so logs stay replayable.
"""
from __future__ import annotations

MASK = (1 << 64) - 1


def seed_state(seed: int) -> int:
    """splitmix64 of the seed: a well-mixed non-zero 64-bit state."""
    z = (int(seed) + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    z ^= z >> 31
    return z or 0x2545F4914F6CDD1D


def shuffle(state: int, items: list) -> int:
    """Fisher-Yates in place; returns the new RNG state."""
    if len(items) > 1 << 32:
        raise ValueError("shuffle: more than 2**32 items")
    return _shuffle(state, items)


def _shuffle(x, items, M=MASK, C=0x2545F4914F6CDD1D, HIGH=MASK - (1 << 32), LOW39=(1 << 39) - 1):
    # constants as locals; (x & LOW39) << 25 is (x << 25) & M on a smaller number
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        while True:
            x ^= x >> 12
            x ^= (x & LOW39) << 25
            x ^= x >> 27
            r = x * C & M
            # reject the biased tail above M - (M + 1) % n; that bound is at least M - n + 1 (and
            # HIGH is below M - n for n <= 2**32), so the exact one is needed only for r above M - n
            if r <= HIGH or r <= M - n or r <= M - (M + 1) % n:
                break
        j = r % n
        items[i], items[j] = items[j], items[i]
    return x
