"""Hand-written Bacchus simulator with uniformly random decisions (speed baseline).

This is a plain, straightforward Python implementation of the card game Bacchus,
following the rules digest ``/work/shared/rules/bacchus.md`` including all of its
[decision] lines.  It exists only as a speed reference for the gamespec rules
interpreter: "how fast would a competent hand-written simulator be?".  It is not
used by the framework itself.

Decision model (mirrors an interpreter that lists the legal actions and picks one
uniformly): at every decision point the list of legal choices is built and one is
picked with ``rng.randrange(len(choices))`` from a ``random.Random(seed)``.

* Bacchus-move decision, repeated at the start of a turn: every (from, to) move of
  an eligible Bacchus card plus one "done" choice.  The decision is only offered
  while at least one move exists (otherwise there is nothing to decide).
* Main action decision: "draw" if the pile is non-empty; one "send" per distinct
  action-card design in hand x non-empty column; one "kidnap" per distinct satyr
  design in hand if at least one column top shows a satyr; "pass" only when
  nothing else is possible (no action card and an empty pile).
* After a kidnap: keep none, or keep one of the kidnapped cards (identical-looking
  cards, i.e. same colour and symbol, are offered once).

Every decision point counts as one decision, including forced ones (a pass).
Player 0 starts; play goes 0, 1, ..., P-1, 0, ...

Encodings (small ints, no objects):
* maenad card = colour * 3 + symbol, symbol 0 plain, 1 satyr, 2 Bacchus;
* action card = design * 2 + satyr_flag, design indexes DESIGNS;
* a column is a list of maenads, the top card (the one that can be taken) last.

Usage:  python bench/baselines/bacchus_baseline.py --games 2000 --players 4 --seed 1
"""

import argparse
import itertools
import random
import time

NCOLOURS = 5
PLAIN, SATYR, BACCHUS = 0, 1, 2

# [decision] 16 maenads per colour: 3 satyr, 2 Bacchus, 11 plain.
MAENADS = []
for _c in range(NCOLOURS):
    MAENADS += [_c * 3 + SATYR] * 3 + [_c * 3 + BACCHUS] * 2 + [_c * 3 + PLAIN] * 11
assert len(MAENADS) == 80

# [decision] 12 designs: the 6 orders of 1-2-3 and the 6 ordered pairs; 3 copies each,
# one copy of each design shows a satyr.  Bacchanalia are indexed 0..2 internally.
DESIGNS = [p for p in itertools.permutations((0, 1, 2))] + \
          [p for p in itertools.permutations((0, 1, 2), 2)]
ACTIONS = []
for _d in range(len(DESIGNS)):
    ACTIONS += [_d * 2 + 1, _d * 2, _d * 2]
assert len(ACTIONS) == 36 and sum(a & 1 for a in ACTIONS) == 12

COLOUR = [m // 3 for m in range(NCOLOURS * 3)]
SYMBOL = [m % 3 for m in range(NCOLOURS * 3)]

DONE = None  # the "done" / "keep none" choice


def kidnap_points(n):
    # [decision] n kidnapped maenads score 2 * (n - 1), 0 for none.
    return 2 * (n - 1) if n > 0 else 0


def score(bacchanalia, hands, kidnapped):
    """bacchanalia[b][colour] counts, hands[p] = list of maenads, kidnapped[p] = count."""
    nplayers = len(hands)
    scores = [kidnap_points(kidnapped[p]) for p in range(nplayers)]
    counts = [[0] * NCOLOURS for _ in range(nplayers)]
    for p in range(nplayers):
        for m in hands[p]:
            counts[p][COLOUR[m]] += 1
    for c in range(NCOLOURS):
        value = bacchanalia[0][c] + 2 * bacchanalia[1][c] + 3 * bacchanalia[2][c]
        best = max(counts[p][c] for p in range(nplayers))
        if best >= 1:
            for p in range(nplayers):
                if counts[p][c] == best:  # tied players each score the whole value
                    scores[p] += value
    return scores


def play_game(seed, players=4):
    """Play one random game; return (scores, number of decisions)."""
    if not 3 <= players <= 5:
        raise ValueError("Bacchus is for 3-5 players")
    rng = random.Random(seed)
    randrange = rng.randrange

    # --- setup -------------------------------------------------------------
    deck = MAENADS[:]
    rng.shuffle(deck)
    deck = deck[5:]                                   # 5 removed unseen
    hands = [[deck[p]] for p in range(players)]       # 1 maenad each
    deck = deck[players:]
    columns = [deck[i * 14:(i + 1) * 14] for i in range(5)]  # last dealt = top
    # [decision] the 5 - P leftovers (deck[70:]) are removed unseen.

    pile = ACTIONS[:]
    rng.shuffle(pile)
    action_hands = []
    for p in range(players):
        action_hands.append(pile[-3:])
        del pile[-3:]

    bacchanalia = [[0] * NCOLOURS for _ in range(3)]
    kidnapped = [0] * players
    decisions = 0
    passes_in_a_row = 0
    player = 0

    def game_over():
        # 4 of the 5 columns empty.
        return sum(1 for col in columns if not col) >= 4

    while True:
        ahand = action_hands[player]
        must_pass = not ahand and not pile

        # --- optional Bacchus moves (not for a player who must pass) --------
        if not must_pass:
            # Columns whose top card shows Bacchus at the start of the turn.  Such a
            # card stays movable while it has not moved and nothing was put on it.
            eligible = [i for i in range(5) if columns[i] and SYMBOL[columns[i][-1]] == BACCHUS]
            ended = False
            while eligible:
                choices = [DONE]
                for src in eligible:
                    for dst in range(5):
                        if dst != src and columns[dst]:
                            choices.append((src, dst))
                if len(choices) == 1:
                    break
                decisions += 1
                choice = choices[randrange(len(choices))]
                if choice is DONE:
                    break
                src, dst = choice
                columns[dst].append(columns[src].pop())
                eligible.remove(src)                  # moved: at most once
                if dst in eligible:
                    eligible.remove(dst)              # now covered
                if game_over():
                    ended = True
                    break
            if ended:
                break

        # --- main action ----------------------------------------------------
        choices = []
        if pile:
            choices.append(("draw",))
        if ahand:
            nonempty = [i for i in range(5) if columns[i]]
            designs = set(ahand)                      # dedupe identical cards
            for a in designs:
                for col in nonempty:
                    choices.append(("send", a, col))
            if any(SYMBOL[columns[i][-1]] == SATYR for i in nonempty):
                for a in designs:
                    if a & 1:
                        choices.append(("kidnap", a))
        if not choices:
            choices.append(("pass",))
        decisions += 1
        choice = choices[randrange(len(choices))]
        kind = choice[0]

        if kind == "pass":
            passes_in_a_row += 1
            if passes_in_a_row >= players:
                break
        else:
            passes_in_a_row = 0
            if kind == "draw":
                ahand.append(pile.pop())
            elif kind == "send":
                a, col = choice[1], choice[2]
                ahand.remove(a)                       # discarded for good
                column = columns[col]
                for b in DESIGNS[a >> 1]:
                    if not column:
                        break                         # fewer cards: send what there is
                    m = column.pop()
                    bacchanalia[b][COLOUR[m]] += 1
                if game_over():
                    break
            else:  # kidnap
                ahand.remove(choice[1])
                taken = []
                for column in columns:
                    if column and SYMBOL[column[-1]] == SATYR:
                        taken.append(column.pop())
                keep = [DONE] + sorted(set(taken))    # dedupe identical-looking cards
                decisions += 1
                k = keep[randrange(len(keep))]
                if k is not DONE:
                    hands[player].append(k)
                    kidnapped[player] += len(taken) - 1
                else:
                    kidnapped[player] += len(taken)
                if game_over():
                    break

        player = (player + 1) % players

    return score(bacchanalia, hands, kidnapped), decisions


def check_worked_example():
    """The seed's scoring example (Dario scores 41 by the tie rule, not the seed's 31)."""
    Y, B, G, P, Or = range(5)
    bac = [[0] * 5 for _ in range(3)]
    for colour, (b1, b2, b3) in {Y: (3, 4, 2), B: (3, 1, 2), G: (4, 0, 5),
                                 P: (1, 3, 1), Or: (2, 3, 4)}.items():
        bac[0][colour], bac[1][colour], bac[2][colour] = b1, b2, b3
    m = lambda colour, n: [colour * 3] * n
    hands = [m(Y, 3), m(B, 2), m(P, 2) + m(Or, 2), m(G, 1) + m(Or, 2)]
    assert score(bac, hands, [5, 3, 0, 2]) == [25, 15, 30, 41]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    check_worked_example()

    total_decisions = 0
    totals = [0] * args.players
    t0 = time.perf_counter()
    for g in range(args.games):
        scores, decisions = play_game(args.seed + g, args.players)
        total_decisions += decisions
        for p in range(args.players):
            totals[p] += scores[p]
    elapsed = time.perf_counter() - t0

    print(f"games: {args.games}  players: {args.players}  seed: {args.seed}")
    print(f"time: {elapsed:.3f} s   games/s: {args.games / elapsed:.1f}")
    print(f"decisions/game (mean): {total_decisions / args.games:.2f}"
          f"   decisions/s: {total_decisions / elapsed:.0f}")
    print("mean scores: " + ", ".join(f"P{p}={t / args.games:.2f}" for p, t in enumerate(totals)))


if __name__ == "__main__":
    main()
