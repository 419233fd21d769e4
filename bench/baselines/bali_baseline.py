"""Hand-written Bali simulator with uniformly random decisions (speed baseline).

This is a plain, straightforward Python implementation of the card game Bali (base
game: no Oracle, no Demon), following the rules digest ``/work/shared/rules/bali.md``
including all of its [decision] lines.  It exists only as a speed reference for the
gamespec rules interpreter: "how fast would a competent hand-written simulator be?".
It is not used by the framework itself.

Decision model (mirrors ``games/bali.yaml`` with its options off, where every apply()
after a legal_actions() is one decision): at every decision point the list of legal
choices is built and one is picked with ``rng.randrange(len(choices))`` from a
``random.Random(seed)``.  A decision point with no legal choice (or only "nothing") is
skipped and not counted; one with a single real choice is still counted.

* Buy: "buy nothing" plus one choice per kind whose supply pile is non-empty and whose
  price (5 minus own farmers of that kind, never below 0) the player can pay.  Offered
  only if at least one kind is affordable.
* Play (always a decision): "stonemason" if one is held, "priest" if one is held,
  "shrine" if one is held and the player has 7 stones, and (kind, n) for every kind of
  farmer held and n = 1..3 with n <= held and n - 1 stones affordable.  If nothing is
  possible: discard one card of the hand, identical cards offered once (in practice a
  hand of three shrines: one choice, still counted).
* After a shrine: each other player, clockwise from the active player's left, chooses
  a kind of their stock to sacrifice (identical cards offered once; an empty stock
  skips); then the active player chooses the face-down kind the same way; then a kind
  of the supply with a non-empty pile.
* Draw, once per card until the hand holds 3: one choice per non-empty market row
  (always 4).  When a row empties and the draw pile holds fewer than 4 cards, the game
  ends at once (no scoring this turn).
* Scoring a shrine: for each player clockwise from the active player who has
  n = shrines + sole-majority bonus > 0 units, choose 0..n of them as VP (n + 1
  choices), the rest as stones.

Player 0 starts; play goes 0, 1, ..., P-1, 0, ...

Encodings (small ints, no objects):
* play card type: 0 stonemason, 1 priest, 2 shrine, 3 + k farmer of kind k;
* offering kind k: 0 rice, 1 peanut, 2 banana, 3 pepper;
* hands and tableaus are per-player count lists indexed by card type, stocks,
  the supply and the altar count lists indexed by kind (the altar's order and faces
  matter for nothing in the base game);
* a market row is a list of card types, the bottom card (the one that can be taken) last.

Usage:  python bench/baselines/bali_baseline.py --games 3000 --players 4 --seed 0
"""

import argparse
import random
import time

STONEMASON, PRIEST, SHRINE = 0, 1, 2
FARMER = 3                      # farmer of kind k is FARMER + k
NTYPES = 7
NKINDS = 4
RICE, PEANUT, BANANA, PEPPER = range(NKINDS)

# 12 stonemasons, 9 priests, 9 shrines, 5 farmers of each kind: 50 play cards.
DECK = [STONEMASON] * 12 + [PRIEST] * 9 + [SHRINE] * 9
for _k in range(NKINDS):
    DECK += [FARMER + _k] * 5
assert len(DECK) == 50

# [decision] the start farmers rotate by seat.
START_FARMERS = [(RICE, PEANUT, BANANA), (PEANUT, BANANA, PEPPER),
                 (BANANA, PEPPER, RICE), (PEPPER, RICE, PEANUT)]

SUPPLY_PER_KIND = 25
SHRINE_COST = 7

NOTHING = None  # the "buy nothing" choice


def sole_majority(counts, q):
    """Strictly more than every other player, and at least 2."""
    v = counts[q]
    if v < 2:
        return False
    for p in range(len(counts)):
        if p != q and counts[p] >= v:
            return False
    return True


def altar_values(altar):
    """Kinds ranked densely by count on the altar: 3 VP a card for the most, down to 0.

    [decision] a kind with no card on the altar is ranked like any other count.
    """
    distinct = sorted(set(altar), reverse=True)
    return [3 - distinct.index(altar[k]) for k in range(NKINDS)]


def final_scores(altar, stocks, tableaus, stones, points):
    values = altar_values(altar)
    scores = []
    for q in range(len(stocks)):
        s = sum(stocks[q][k] * values[k] for k in range(NKINDS))
        s += 4 * tableaus[q][SHRINE] + stones[q] // 5 + points[q]
        scores.append(s)
    return scores


def winners(scores, tableaus, stones):
    """Most VP, then most shrines, then most stones; still tied: shared."""
    keys = [(scores[q], tableaus[q][SHRINE], stones[q]) for q in range(len(scores))]
    best = max(keys)
    return [q for q in range(len(scores)) if keys[q] == best]


def play_game(seed, players=4):
    """Play one random game; return (scores, number of decisions)."""
    scores, _, decisions = _play(seed, players)
    return scores, decisions


def _play(seed, players):
    if not 2 <= players <= 4:
        raise ValueError("Bali is for 2-4 players")
    rng = random.Random(seed)
    randrange = rng.randrange
    P = players

    # --- setup -------------------------------------------------------------
    hands = [[0] * NTYPES for _ in range(P)]
    tableaus = [[0] * NTYPES for _ in range(P)]
    stocks = [[1] * NKINDS for _ in range(P)]          # 1 offering of each kind
    supply = [SUPPLY_PER_KIND - P] * NKINDS
    altar = [0] * NKINDS
    stones = [2 + q for q in range(P)]                  # 2, 3, 4, 5
    points = [0] * P                                    # VP tokens
    for q in range(P):
        tableaus[q][STONEMASON] = 1
        for k in START_FARMERS[q]:
            hands[q][FARMER + k] += 1

    deck = DECK[:]
    rng.shuffle(deck)
    rows = []
    for _ in range(4):
        rows.append(deck[-4:])
        del deck[-4:]

    decisions = 0
    cur = 0
    while True:
        hand = hands[cur]
        tableau = tableaus[cur]
        stock = stocks[cur]

        # --- 1. buy an offering (optional) ------------------------------------
        choices = [NOTHING]
        for k in range(NKINDS):
            if supply[k] > 0 and stones[cur] >= max(0, 5 - tableau[FARMER + k]):
                choices.append(k)
        if len(choices) > 1:
            decisions += 1
            k = choices[randrange(len(choices))]
            if k is not NOTHING:
                stones[cur] -= max(0, 5 - tableau[FARMER + k])
                supply[k] -= 1
                stock[k] += 1

        # --- 2. play cards (mandatory) ----------------------------------------
        choices = []
        if hand[STONEMASON]:
            choices.append((STONEMASON, 1))
        if hand[PRIEST]:
            choices.append((PRIEST, 1))
        if hand[SHRINE] and stones[cur] >= SHRINE_COST:
            choices.append((SHRINE, 1))
        for k in range(NKINDS):
            for n in range(1, min(3, hand[FARMER + k]) + 1):
                if stones[cur] >= n - 1:
                    choices.append((FARMER + k, n))
        if choices:
            decisions += 1
            t, n = choices[randrange(len(choices))]
            hand[t] -= n
            tableau[t] += n
            if t == SHRINE:
                stones[cur] -= SHRINE_COST
            elif t >= FARMER:
                stones[cur] -= n - 1
        else:
            # [decision] no play possible: discard a card (identical cards once); it leaves the game.
            t = NOTHING
            choices = [c for c in range(NTYPES) if hand[c]]
            decisions += 1
            hand[choices[randrange(len(choices))]] -= 1

        # --- 3. sacrifice phase, only after a shrine --------------------------
        if t == SHRINE:
            for i in range(1, P):
                q = (cur + i) % P
                choices = [k for k in range(NKINDS) if stocks[q][k]]
                if choices:                             # an empty stock skips
                    decisions += 1
                    k = choices[randrange(len(choices))]
                    stocks[q][k] -= 1
                    altar[k] += 1
            # [decision] an empty stock skips the face-down card, empty supply the supply card.
            choices = [k for k in range(NKINDS) if stock[k]]
            if choices:
                decisions += 1
                k = choices[randrange(len(choices))]
                stock[k] -= 1
                altar[k] += 1
            choices = [k for k in range(NKINDS) if supply[k]]
            if choices:
                decisions += 1
                k = choices[randrange(len(choices))]
                supply[k] -= 1
                altar[k] += 1

        # --- 4. draw up to 3 cards --------------------------------------------
        held = sum(hand)
        revealed = None
        game_over = False
        while held < 3:
            choices = [r for r in range(4) if rows[r]]
            decisions += 1
            row = rows[choices[randrange(len(choices))]]
            hand[row.pop()] += 1
            held += 1
            if not row:
                # [decision] a row must be dealt but the pile holds fewer than 4: game over.
                if len(deck) < 4:
                    game_over = True
                    break
                row.extend(deck[-4:])
                del deck[-4:]
            revealed = row[-1]
        if game_over:
            break

        # --- 5. scoring of the card revealed last -----------------------------
        if revealed == STONEMASON:
            counts = [tableaus[q][STONEMASON] for q in range(P)]
            for q in range(P):
                stones[q] += counts[q] + sole_majority(counts, q)
        elif revealed == PRIEST:
            counts = [tableaus[q][PRIEST] for q in range(P)]
            for q in range(P):
                points[q] += counts[q] + sole_majority(counts, q)
        elif revealed == SHRINE:
            # [decision] the bonus joins the split; players choose clockwise from the active one.
            counts = [tableaus[q][SHRINE] for q in range(P)]
            for i in range(P):
                q = (cur + i) % P
                units = counts[q] + sole_majority(counts, q)
                if units > 0:
                    decisions += 1
                    n = randrange(units + 1)            # choices 0..units VP
                    points[q] += n
                    stones[q] += units - n
        else:
            # [decision] single cards first, clockwise from the active player, then the bonus.
            k = revealed - FARMER
            counts = [tableaus[q][revealed] for q in range(P)]
            for i in range(P):
                q = (cur + i) % P
                if counts[q] > 0 and supply[k] > 0:
                    supply[k] -= 1
                    stocks[q][k] += 1
            for q in range(P):
                if sole_majority(counts, q) and supply[k] > 0:
                    supply[k] -= 1
                    stocks[q][k] += 1

        cur = (cur + 1) % P

    scores = final_scores(altar, stocks, tableaus, stones, points)
    return scores, winners(scores, tableaus, stones), decisions


def check_scoring_facts():
    """A few scoring facts from the rules digest."""
    # Dense altar values: two kinds tied -> 3, 2, 1 used; three tied -> 3 and 2; two pairs
    # -> 3 and 2; all equal -> all 3; counts 5, 0, 0, 0 -> 3, 2, 2, 2; empty altar -> all 3.
    assert altar_values([4, 2, 2, 1]) == [3, 2, 2, 1]
    assert altar_values([3, 3, 3, 1]) == [3, 3, 3, 2]
    assert altar_values([1, 3, 1, 3]) == [2, 3, 2, 3]
    assert altar_values([2, 2, 2, 2]) == [3, 3, 3, 3]
    assert altar_values([5, 0, 0, 0]) == [3, 2, 2, 2]
    assert altar_values([0, 0, 0, 0]) == [3, 3, 3, 3]
    assert altar_values([4, 3, 2, 1]) == [3, 2, 1, 0]
    # Sole majority: strictly more than every other player, and at least 2.
    assert sole_majority([2, 1, 1, 0], 0)
    assert not sole_majority([1, 0, 0, 0], 0)
    assert not sole_majority([2, 2, 0, 0], 0)
    # Final score: stock at altar values + 4 per shrine + 1 per 5 stones + VP tokens.
    # Altar 5, 0, 0, 0 -> values 3, 2, 2, 2; stock 2 rice + 1 pepper = 8; 2 shrines = 8;
    # 14 stones = 2; 5 VP tokens: 23.
    tab = [0] * NTYPES
    tab[SHRINE] = 2
    assert final_scores([5, 0, 0, 0], [[2, 0, 0, 1]], [tab], [14], [5]) == [23]
    # Ties: most shrines, then most stones, else shared.
    t1, t2 = [0] * NTYPES, [0] * NTYPES
    t1[SHRINE] = 1
    assert winners([20, 20], [t1, t2], [0, 9]) == [0]
    assert winners([20, 20], [t2, t2], [3, 3]) == [0, 1]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    check_scoring_facts()

    total_decisions = 0
    totals = [0] * args.players
    wins = [0.0] * args.players
    t0 = time.perf_counter()
    for g in range(args.games):
        scores, won, decisions = _play(args.seed + g, args.players)
        total_decisions += decisions
        for p in range(args.players):
            totals[p] += scores[p]
        for p in won:
            wins[p] += 1 / len(won)         # a shared win counts 1/k to each of k winners
    elapsed = time.perf_counter() - t0

    print(f"games: {args.games}  players: {args.players}  seed: {args.seed}")
    print(f"time: {elapsed:.3f} s   games/s: {args.games / elapsed:.1f}")
    print(f"decisions/game (mean): {total_decisions / args.games:.2f}"
          f"   decisions/s: {total_decisions / elapsed:.0f}")
    print("mean scores: " + ", ".join(f"P{p}={t / args.games:.2f}" for p, t in enumerate(totals)))
    print("win rates:   " + ", ".join(f"P{p}={w / args.games:.3f}" for p, w in enumerate(wins)))


if __name__ == "__main__":
    main()
