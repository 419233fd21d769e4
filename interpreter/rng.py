"""A seeded RNG stored as one 64-bit integer in the state, and an unbiased shuffle.

A shuffle hashes the state into a byte stream (SHAKE128, a standard extendable-output function) and
runs Fisher-Yates on it: the first 8 bytes are the next state, then one little-endian 32-bit draw per
position. Python's `random.shuffle` may change between versions; SHAKE128 never does, so logs stay
replayable on every platform. The generator is named in every log (`ALGORITHM`); the earlier one
(xorshift64*, `XORSHIFT`) stays, so that logs written by earlier versions still check against their seed.

`FAST` (splitmix64, asked for as "fast") is for simulations only: shuffles and random seats drawn from
splitmix64 streams (Fisher-Yates with Lemire's unbiased bounded draw), a few instructions a draw where
SHAKE128 costs a Keccak permutation. It is guessable: someone who sees a few shuffles can work the
state out. Games against people keep the default (docs/native.md, "Fast generator").
"""
from __future__ import annotations

import struct
from hashlib import shake_128 as _shake
from operator import mod as _mod

from gamespec.errors import UsageError

MASK = (1 << 64) - 1
SEED_MAX = MASK    # seeds are whole numbers 0 .. 2**64 - 1 (64 bits) (every log and saved state holds one)
ALGORITHM = "shake128"        # the generator of this version, named in log headers
XORSHIFT = "xorshift64*"      # the generator of logs whose header names none
FAST = "splitmix64"           # the fast, guessable generator of simulations (asked for as "fast")
ALIASES = {"fast": FAST, "default": ALGORITHM}     # the names the API and the CLI take besides the real ones
GOLDEN = 0x9E3779B97F4A7C15   # splitmix64's increment
LANE = 0xD1B54A32D192ED03     # spaces the streams of one seed (stream())


def check_seed(seed, what="the seed"):
    """The one seed range, enforced at every door (API, CLI, simulate); UsageError otherwise."""
    if type(seed) is not int or not 0 <= seed <= SEED_MAX:
        shown = str(seed) if type(seed) is not int or seed.bit_length() < 100 else f"a {seed.bit_length()}-bit number"
        raise UsageError(f"{what} is a whole number from 0 to 2**64 - 1, not {shown[:60]}")
    return seed


def seed_state(seed: int) -> int:
    """splitmix64 of the seed: a well-mixed non-zero 64-bit state."""
    z = (int(seed) + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    z ^= z >> 31
    return z or 0x2545F4914F6CDD1D


def shuffle(state: int, items: list) -> int:
    """Fisher-Yates in place on the SHAKE128 stream of `state`; returns the new RNG state."""
    n = len(items)
    if n < 2:
        return state
    plan = _PLANS.get(n) or _plan(n)
    buf = _shake(state.to_bytes(8, "little")).digest(plan[0])
    draws = plan[1].unpack_from(buf, 8)
    if max(draws) < plan[4]:
        # no draw is in any position's rejected tail (every tail lies at or above 2**32 - n + 1),
        # so each index is the draw modulo the number of positions left: the common case, in C
        for i, j in zip(plan[2], map(_mod, draws, plan[3])):
            items[i], items[j] = items[j], items[i]
    else:
        _fisher_yates(items, _stream(state))
    return int.from_bytes(buf[:8], "little") or 1


_PLANS: dict = {}


def _plan(n):
    if n > 1 << 32:
        raise ValueError("shuffle: more than 2**32 items")
    plan = (8 + 4 * (n - 1), struct.Struct(f"<{n - 1}I"), range(n - 1, 0, -1), range(n, 1, -1),
            (1 << 32) - n + 1)
    if len(_PLANS) < 512:     # deck sizes are few; an unbounded number of sizes is not cached
        _PLANS[n] = plan
    return plan


def _stream(state):
    """The 32-bit draws of `state`'s stream (after its first 8 bytes), as long as they are asked for."""
    key = state.to_bytes(8, "little")
    k, size = 8, 1024
    while True:
        buf = _shake(key).digest(size)   # a longer digest starts with the shorter one
        for (r,) in struct.iter_unpack("<I", buf[k:]):
            yield r
        k, size = size, size * 2


def _fisher_yates(items, draws):
    """Fisher-Yates with exact rejection: a draw in the top 2**32 % m values is skipped, so every
    index below m is equally likely. The general form of `shuffle`'s fast path (the same
    permutation when nothing is rejected)."""
    for i in range(len(items) - 1, 0, -1):
        m = i + 1
        limit = (1 << 32) - (1 << 32) % m
        r = next(draws)
        while r >= limit:
            r = next(draws)
        j = r % m
        items[i], items[j] = items[j], items[i]


def shuffle_xorshift(state: int, items: list) -> int:
    """The earlier generator (xorshift64* and Fisher-Yates, one 64-bit draw per position), used to check
    logs that name no generator."""
    if len(items) > 1 << 32:
        raise ValueError("shuffle: more than 2**32 items")
    return _xorshift_fy(state, items)


def _xorshift_fy(x, items, M=MASK, C=0x2545F4914F6CDD1D, HIGH=MASK - (1 << 32), LOW39=(1 << 39) - 1):
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


def _mix(z, M=MASK):
    """splitmix64's output function."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)


def shuffle_fast(state: int, items: list) -> int:
    """Fisher-Yates on the splitmix64 stream of `state` (the FAST generator): position i (from the top
    down) swaps with below(i + 1), Lemire's multiply-and-reject on one 64-bit draw; returns the new state
    (the stream's counter: `state` plus GOLDEN per draw). runtime.c's rng_shuffle_fast mirrors it."""
    n = len(items)
    if n > 1 << 32:
        raise ValueError("shuffle: more than 2**32 items")
    x = state
    for i in range(n - 1, 0, -1):
        m = i + 1
        x = (x + GOLDEN) & MASK
        p = _mix(x) * m
        if p & MASK < m:             # rare: the exact rejection of the biased low tail
            t = ((1 << 64) - m) % m
            while p & MASK < t:
                x = (x + GOLDEN) & MASK
                p = _mix(x) * m
        j = p >> 64
        items[i], items[j] = items[j], items[i]
    return x


def stream(seed: int, lane: int) -> int:
    """The state of a game's random-decision stream under FAST (not its shuffles'): lane 0 picks every
    decision of a playout (Game.playouts), lane p + 1 is seat p's RandomBot. Two splitmix64 mixes of the
    seed and the lane: cheap (no per-game seeding table), distinct per lane, unrelated to the shuffles."""
    return seed_state(seed_state(seed) ^ ((lane + 1) * LANE & MASK))


class FastRandom:
    """The random decisions of a FAST game: a splitmix64 stream, `randrange(n)` as Lemire's unbiased
    bounded draw (the shuffles' draw). runtime.c's fast_below mirrors it; `state` is the counter."""
    __slots__ = ("state",)

    def __init__(self, state: int):
        self.state = state & MASK

    def randrange(self, n: int) -> int:
        if type(n) is not int or not 0 < n <= MASK:
            raise ValueError(f"randrange: a whole number from 1 to 2**64 - 1, not {str(n)[:40]}")
        x = (self.state + GOLDEN) & MASK
        p = _mix(x) * n
        if p & MASK < n:
            t = ((1 << 64) - n) % n
            while p & MASK < t:
                x = (x + GOLDEN) & MASK
                p = _mix(x) * n
        self.state = x
        return p >> 64


SHUFFLES = {ALGORITHM: shuffle, XORSHIFT: shuffle_xorshift, FAST: shuffle_fast}


def check_generator(name) -> str:
    """`name` if it names a generator by its name in logs and saved states; ValueError otherwise."""
    if not isinstance(name, str) or name not in SHUFFLES:
        raise ValueError(f"unknown generator {str(name)[:40]!r} (known: {', '.join(sorted(SHUFFLES))})")
    return name


def resolve_generator(name) -> str:
    """The generator the API and the command line are asked for: None or "default" is ALGORITHM, "fast"
    is FAST, else a name as in logs; ValueError otherwise. (Logs and saved states hold the real name
    only: check_generator.)"""
    if name is None:
        return ALGORITHM
    if isinstance(name, str) and name in ALIASES:
        return ALIASES[name]
    if not isinstance(name, str) or name not in SHUFFLES:
        known = ", ".join(sorted(set(SHUFFLES) | set(ALIASES)))
        raise ValueError(f"unknown generator {str(name)[:40]!r} (known: {known})")
    return name
