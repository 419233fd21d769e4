"""Hand-written Klink simulator with uniformly random decisions (speed baseline).

This is a plain, straightforward Python implementation of the card game Klink,
following the rules digest ``/work/shared/rules/klink.md`` including all of its
[decision] lines, and making the same decisions as ``games/klink.yaml``.  It exists
only as a speed reference for the gamespec rules interpreter: "how fast would a
competent hand-written simulator be?".  It is not used by the framework itself.

Decision model (mirrors an interpreter that lists the legal actions and picks one
uniformly): at every decision point the list of legal choices is built and one is
picked with ``rng.randrange(len(choices))`` from a ``random.Random(seed)``.  Every
decision point counts as one decision, including forced ones (a single choice).

* Look, once per holder of the drawn pair: which of the 2 face-down cards to look
  at (2 choices).  Looking changes nothing in random play.  (The interpreter merges
  the two when the holder already knows both from a Peek and they are equal; the
  decision is counted all the same, so the distribution of games is unchanged.)
* Keep or pass, right after each look: "keep" plus one "pass to q" per player q
  who has not had this pair yet (the drawer counts as having had it).  A player
  who can pass to nobody gets the single choice "keep".
* Ability, after a keep that made a straight: every legal use of a face-up
  ability, flattened into one list.  Identical-looking cards are one choice: two
  face-up copies of an ability give one, and face-up number cards of the same value
  give one.  With M = the keeper's distinct face-up values:
  Swap: M x (each other player with face-up cards) x (their distinct values);
  Drop: M; Hide: M; Gift: M x (each other player); Peek: 1 if the number deck is
  not empty; Shield: 1 if the keeper has a face-down card.  With no legal use
  there is no decision (no ability is used).
* Peek order, after a Peek: which of the top 2 number cards goes on top (1 choice
  when only one card is left or both have the same value).

Round flow: the turn's player draws 2; the pair goes round the pass chain until
kept; the keeper plays the next turn.  Before each turn the round ends if someone
holds 10 or more cards or the deck holds fewer than 2.  The first round is started
by seat 0, later ones by the round's top scorer (ties: first clockwise from the
previous starter).  The game ends after a round in which a total reaches 77; the
lowest total wins, ties shared.

Encodings (small ints, no objects):
* a number card is its value (-5..20); a collection is a list of face-up values
  plus a count of face-down cards (face-down cards all count 0, so their values
  are never needed);
* an ability card is its kind 0..5 (SWAP, DROP, HIDE, GIFT, PEEK, SHIELD);
* decks are lists with the top card last.

Usage:  python bench/baselines/klink_baseline.py --games 3000 --players 4 --seed 0
"""

import argparse
import random
import time

# [decision] 63 number cards: -5..-1 once each, 0 twice, 1..16 three times, 17..20 twice.
NUMBERS = list(range(-5, 0)) + [0] * 2
for _v in range(1, 17):
    NUMBERS += [_v] * 3
for _v in range(17, 21):
    NUMBERS += [_v] * 2
assert len(NUMBERS) == 63

# [decision] 12 ability cards: six abilities, two copies each.
SWAP, DROP, HIDE, GIFT, PEEK, SHIELD = range(6)
ABILITIES = [k for k in range(6) for _ in range(2)]

KEEP = -1             # the "keep" choice; a pass is the seat it goes to
ROUND_CARDS = 10      # a round ends when someone holds this many cards
GAME_END = 77         # the game ends when a total reaches this


def reset(faceup):
    """[decision] Turn equal face-up values down in pairs until none repeats.

    Returns (the face-up values left, how many cards went face down).
    """
    odd = set()
    down = 0
    for v in faceup:
        if v in odd:
            odd.remove(v)
            down += 2
        else:
            odd.add(v)
    return list(odd), down


def run_length(values, v):
    """Length of the run of consecutive values through v (0 if v is absent)."""
    if v not in values:
        return 0
    lo = v
    while lo - 1 in values:
        lo -= 1
    hi = v
    while hi + 1 in values:
        hi += 1
    return hi - lo + 1


def makes_straight(faceup, kept):
    """A kept value still face up lies in a run of 3 consecutive face-up values."""
    values = set(faceup)
    return any(run_length(values, k) >= 3 for k in kept)


def score_round(faceup, facedown):
    """Round points per player: face-up values, -10 for the most cards, +10 for the fewest."""
    players = len(faceup)
    n = [len(faceup[p]) + facedown[p] for p in range(players)]
    most = max(n)
    fewest = min([c for c in n if c >= 1], default=0)
    same = all(c == most for c in n)
    pts = []
    for p in range(players):
        s = sum(faceup[p])
        # [decision] all equal: no +-10; "fewest" over players with >= 1 card, and no +10
        # when the fewest equals the most.
        if not same:
            if n[p] == most:
                s -= 10
            elif n[p] >= 1 and n[p] == fewest and fewest < most:
                s += 10
        pts.append(s)
    return pts


def play_game(seed, players=4):
    """Play one random game; return (scores, number of decisions)."""
    if not 3 <= players <= 5:
        raise ValueError("Klink is for 3-5 players")
    rng = random.Random(seed)
    randrange = rng.randrange
    shuffle = rng.shuffle

    totals = [0] * players
    starter = 0                     # [decision] the first seat starts the first round
    decisions = 0

    while True:
        # --- round setup ------------------------------------------------------
        deck = NUMBERS[:]
        shuffle(deck)
        ab_deck = ABILITIES[:]
        shuffle(ab_deck)
        ab_up = [ab_deck.pop(), ab_deck.pop(), ab_deck.pop()]
        ab_discard = []
        faceup = [[] for _ in range(players)]
        facedown = [0] * players
        player = starter

        while True:
            # --- end of round? (checked before every turn) --------------------
            if len(deck) < 2:       # [decision]
                break
            if any(len(faceup[p]) + facedown[p] >= ROUND_CARDS for p in range(players)):
                break

            # --- draw, then the pass chain ------------------------------------
            a = deck.pop()
            b = deck.pop()
            had = [False] * players
            had[player] = True
            holder = player
            while True:
                decisions += 1      # look at one of the two cards
                randrange(2)
                choices = [KEEP] + [q for q in range(players) if not had[q]]
                decisions += 1
                choice = choices[randrange(len(choices))]
                if choice == KEEP:
                    break
                had[choice] = True
                holder = choice

            # --- keep: reset, then straight ---------------------------------------
            mine = faceup[holder]
            mine.append(a)
            mine.append(b)
            mine, down = reset(mine)
            faceup[holder] = mine
            facedown[holder] += down

            if makes_straight(mine, (a, b)):
                # [decision] one ability per keep; only uses that can take effect.
                kinds = set(ab_up)
                values = sorted(set(mine))
                choices = []
                if SWAP in kinds:
                    for m in values:
                        for to in range(players):
                            if to != holder and faceup[to]:
                                for t in sorted(set(faceup[to])):
                                    choices.append((SWAP, m, to, t))
                if DROP in kinds:
                    for m in values:
                        choices.append((DROP, m, 0, 0))
                if HIDE in kinds:
                    for m in values:
                        choices.append((HIDE, m, 0, 0))
                if GIFT in kinds:
                    for m in values:
                        for to in range(players):
                            if to != holder:
                                choices.append((GIFT, m, to, 0))
                if PEEK in kinds and deck:
                    choices.append((PEEK, 0, 0, 0))
                if SHIELD in kinds and facedown[holder] > 0:
                    choices.append((SHIELD, 0, 0, 0))

                if choices:
                    decisions += 1
                    kind, m, to, t = choices[randrange(len(choices))]
                    if kind == SWAP:
                        # [decision] cards moved by Swap or Gift trigger no reset or straight.
                        mine.remove(m)
                        faceup[to].append(m)
                        faceup[to].remove(t)
                        mine.append(t)
                    elif kind == DROP:
                        mine.remove(m)
                    elif kind == HIDE:
                        mine.remove(m)
                        facedown[holder] += 1
                    elif kind == GIFT:
                        mine.remove(m)
                        faceup[to].append(m)
                    elif kind == SHIELD:
                        facedown[holder] -= 1
                    # [decision] discard the used card before drawing its replacement.
                    ab_up.remove(kind)
                    ab_discard.append(kind)
                    if not ab_deck:
                        ab_deck = ab_discard
                        ab_discard = []
                        shuffle(ab_deck)
                    ab_up.append(ab_deck.pop())
                    if kind == PEEK:
                        # Which of the top 2 goes on top (1 choice if 1 card or equal values).
                        if len(deck) >= 2 and deck[-1] != deck[-2]:
                            choices = [0, 1]
                        else:
                            choices = [0]
                        decisions += 1
                        if choices[randrange(len(choices))] == 1:
                            deck[-1], deck[-2] = deck[-2], deck[-1]

            player = holder         # the keeper plays the next turn

        # --- round scoring ----------------------------------------------------------
        pts = score_round(faceup, facedown)
        for p in range(players):
            totals[p] += pts[p]
        # [decision] next starter: most points this round, ties clockwise from the starter.
        best = max(pts)
        for i in range(players):
            q = (starter + i) % players
            if pts[q] == best:
                starter = q
                break
        if max(totals) >= GAME_END:
            return totals, decisions


def check_rules():
    """A few facts from the digest (reset, straight, the +-10 of round scoring)."""
    assert len(NUMBERS) == 63 and sum(NUMBERS) == -15 + 3 * 136 + 2 * 74
    # Reset: three equal values leave one face up; four leave none.
    up, down = reset([5, 7, 5, 5])
    assert sorted(up) == [5, 7] and down == 2
    up, down = reset([3, 3, 3, 3, 9])
    assert up == [9] and down == 4
    # Straight: -1, 0, 1 (the digest's example); a kept value that was reset makes none.
    assert makes_straight([-1, 0, 1, 8], (1, 8))
    assert not makes_straight([-1, 0, 8], (1, 8))
    assert not makes_straight([2, 3, 5, 6], (5, 6))
    # Scoring: most cards -10, fewest (at least 1 card) +10, an empty collection scores 0.
    assert score_round([[10, 2], [4], [3], []], [8, 1, 0, 0]) == [2, 4, 13, 0]
    # Everyone level: nobody adds or subtracts.
    assert score_round([[1, 2], [3, 4], [5]], [0, 0, 1]) == [3, 7, 5]
    # Fewest equals most among the card holders: the most subtract 10, nobody adds 10.
    assert score_round([[1, 2], [3, 4], []], [0, 0, 0]) == [-7, -3, 0]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    check_rules()

    total_decisions = 0
    totals = [0] * args.players
    wins = [0.0] * args.players
    t0 = time.perf_counter()
    for g in range(args.games):
        scores, decisions = play_game(args.seed + g, args.players)
        total_decisions += decisions
        low = min(scores)
        winners = [p for p in range(args.players) if scores[p] == low]
        for p in range(args.players):
            totals[p] += scores[p]
        for p in winners:                       # a shared win counts 1/k to each of k winners
            wins[p] += 1 / len(winners)
    elapsed = time.perf_counter() - t0

    print(f"games: {args.games}  players: {args.players}  seed: {args.seed}")
    print(f"time: {elapsed:.3f} s   games/s: {args.games / elapsed:.1f}")
    print(f"decisions/game (mean): {total_decisions / args.games:.2f}"
          f"   decisions/s: {total_decisions / elapsed:.0f}")
    print("mean scores: " + ", ".join(f"P{p}={t / args.games:.2f}" for p, t in enumerate(totals)))
    print("win rates: " + ", ".join(f"P{p}={w / args.games:.3f}" for p, w in enumerate(wins)))


if __name__ == "__main__":
    main()
