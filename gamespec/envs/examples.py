"""The learning example of docs/agents.md: a linear softmax policy over the legal ids (numpy only),
trained by REINFORCE with the vector environment against random seats; its win rate against the
random baseline's, with 95% Wilson intervals."""
from __future__ import annotations

import math

from .common import require

np = require("numpy")


def wilson(k, n, z=1.96):
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (c - h, c + h)


def _features(obs):
    x = obs["observation"]
    return np.concatenate([np.sign(x) * np.log1p(np.abs(x)), np.ones((x.shape[0], 1), np.float32)], axis=1)


def _act(W, feats, mask, rng, greedy=False):
    logits = feats @ W
    logits = np.where(mask.astype(bool), logits, -np.inf)
    if greedy:
        return logits.argmax(axis=1), None
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    u = rng.random((p.shape[0], 1))
    a = (p.cumsum(axis=1) < u).sum(axis=1)
    a = np.minimum(a, p.shape[1] - 1)
    bad = ~mask[np.arange(len(a)), a].astype(bool)      # (rounding at the end of a row)
    a[bad] = mask[bad].argmax(axis=1)
    return a, p


def evaluate(env, W, games, rng, greedy=False):
    """Wins of the learner seat over `games` finished games (W None: uniformly random legal ids)."""
    obs, info = env.reset(seed=int(rng.integers(0, 2 ** 40)))
    wins = done = 0
    while done < games:
        mask = obs["action_mask"]
        if W is None:
            a = (rng.random(mask.shape) * mask).argmax(axis=1)
        else:
            a, _ = _act(W, _features(obs), mask, rng, greedy)
        obs, r, term, _, info = env.step(a)
        wins += int((r[term] > 0).sum())
        done += int(term.sum())
    return wins, done


def train_against_random(spec, players=2, num_envs=64, updates=60, steps_per_update=16, lr=0.05,
                         eval_games=600, seed=0, num_threads=1):
    """Train, then evaluate: {"baseline", "baseline_interval", "trained", "trained_interval",
    "curve" (win rate over the games finished during each update), "steps"}."""
    from . import VectorEnv
    env = VectorEnv(spec, players=players, num_envs=num_envs, seed=seed, opponents="random", learner=0,
                    num_threads=num_threads)
    rng = np.random.default_rng(seed)
    b_wins, b_n = evaluate(env, None, eval_games, rng)
    obs, info = env.reset(seed=seed + 1)
    D = _features(obs).shape[1]
    W = np.zeros((D, env.kit.num_ids), np.float32)
    episode = [[] for _ in range(num_envs)]      # per env: (features, mask, action) of this game
    curve, steps = [], 0
    base = 0.0
    for _ in range(updates):
        batch, wins, ends = [], 0, 0
        for _ in range(steps_per_update):
            f = _features(obs)
            mask = obs["action_mask"].copy()
            a, _ = _act(W, f, mask, rng)
            for i in range(num_envs):
                episode[i].append((f[i], mask[i], a[i]))
            obs, r, term, _, info = env.step(a)
            steps += num_envs
            for i in np.flatnonzero(term):
                batch += [(x, m, k, float(r[i])) for x, m, k in episode[i]]
                episode[i] = []
                wins += r[i] > 0
                ends += 1
        if ends:
            curve.append(wins / ends)
        if not batch:
            continue
        X = np.stack([b[0] for b in batch])
        M = np.stack([b[1] for b in batch]).astype(bool)
        A = np.array([b[2] for b in batch])
        R = np.array([b[3] for b in batch], np.float32)
        base = 0.9 * base + 0.1 * float(R.mean())
        logits = np.where(M, X @ W, -np.inf)
        logits -= logits.max(axis=1, keepdims=True)
        P = np.exp(logits)
        P /= P.sum(axis=1, keepdims=True)
        G = -P
        G[np.arange(len(A)), A] += 1.0
        G *= (R - base)[:, None]
        W += lr * (X.T @ G) / len(A)
    t_wins, t_n = evaluate(env, W, eval_games, rng)
    env.close()
    return {"baseline": b_wins / b_n, "baseline_interval": wilson(b_wins, b_n),
            "trained": t_wins / t_n, "trained_interval": wilson(t_wins, t_n), "curve": curve, "steps": steps}


if __name__ == "__main__":      # python -m gamespec.envs.examples SPEC [updates]
    import sys
    if len(sys.argv) < 2:
        sys.exit("usage: python -m gamespec.envs.examples SPEC [UPDATES]   (e.g. a spec of games/)")
    got = train_against_random(sys.argv[1], updates=int(sys.argv[2]) if len(sys.argv) > 2 else 200)
    print({k: (v if k != "curve" else [round(x, 3) for x in v]) for k, v in got.items()})
