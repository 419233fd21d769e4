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
    x = state
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        while True:
            x ^= x >> 12
            x ^= (x << 25) & MASK
            x ^= x >> 27
            r = (x * 0x2545F4914F6CDD1D) & MASK
            # reject the biased tail above MASK - (MASK + 1) % n; that bound is at least MASK - n + 1,
            # so the exact one is needed only for the rare r above MASK - n
            if r <= MASK - n or r <= MASK - (MASK + 1) % n:
                break
        j = r % n
        items[i], items[j] = items[j], items[i]
    return x
