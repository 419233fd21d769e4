"""Bali (games/bali.yaml): each rule of /work/shared/rules/bali.md pinned by a test that fails if it breaks.

Situations are built from real games: start a game, drive it with legal actions, and place cards and
set variables by editing the state's JSON at a pending decision (the decision itself is kept).
Cards are described as strings: 'stonemason', 'priest', 'shrine', 'oracle', 'rice farmer' (a play
card), 'rice' (an offering card); 'rice/down' lies face down.
"""
import random
from collections import Counter

import pytest

import gamespec

GAME = gamespec.load("games/bali.yaml")
KINDS = ["rice", "peanut", "banana", "pepper"]
PLAY_STEP = {"play_stonemason", "play_priest", "play_shrine", "play_farmers", "discard"}


# --------------------------------------------------------------------------- helpers

def start(P=4, seed=0, **options):
    """A new game at player 0's first decision: the play step (2 stones buy nothing)."""
    s = GAME.new_game(players=P, seed=seed, options=options)
    assert s.current_player == 0 and names(s) <= PLAY_STEP
    return s


def names(s):
    return {a.name for a in s.legal_actions()}


def desc(s, c):
    f = s.rs.faces[s.rs.face_of[c]]
    if f["type"] == "offering":
        return f["kind"]
    if f["type"] == "farmer":
        return f"{f['kind']} farmer"
    return f["type"]


def zi(s, label):
    return s.rs.zone_label.index(label)


def cards(s, label):
    """The cards of a zone as descriptions, bottom to top."""
    return [desc(s, c) for c in s.z[zi(s, label)]]


def count(s, label):
    return Counter(cards(s, label))


def var(s, name, p=0):
    return s.v[s.rs.var_base[name] + p]


def act(s, name, **params):
    """Apply the legal action `name` whose parameters match (card parameters: a description)."""
    found = []
    for a in s.legal_actions():
        if a.name != name:
            continue
        ok = True
        for k, want in params.items():
            got = a.bind[k]
            if a._rt.params[[p.name for p in a._rt.params].index(k)].kind == "card":
                got = desc(s, got)
            if got != want:
                ok = False
        if ok:
            found.append(a)
    assert len(found) == 1, (name, params, [x.to_json() for x in s.legal_actions()])
    s.apply(found[0])
    return s


def options_of(s, name, param):
    """The values of one parameter over the legal actions called `name`."""
    out = []
    for a in s.legal_actions():
        if a.name == name:
            v = a.bind[param]
            kinds = {p.name: p.kind for p in a._rt.params}
            out.append(desc(s, v) if kinds[param] == "card" else v)
    return sorted(out, key=str)


def drive(s, until):
    """Play simply (pass when passing is allowed, else the first legal action) until `until(s)`."""
    for _ in range(500):
        if until(s):
            return s
        acts = s.legal_actions()
        skip = [a for a in acts if a.name == "skip"]
        s.apply(skip[0] if skip else acts[0])
    raise AssertionError("never reached")


def at_play_step(s, player):
    return drive(s, lambda x: x.current_player == player and names(x) <= PLAY_STEP
                 and "take" not in names(x))


class Edit:
    """Edit a state's JSON: place cards in zones, set variables; the pending decision is kept."""

    def __init__(self, s):
        self.s = s
        self.rs = s.rs
        self.d = s.to_json()
        self.fixed = set()
        order = ["start_pool", "deck", "removed"] + [f"supply[{k}]" for k in KINDS]
        self.order = [zi(s, z) for z in order] + [i for i in range(self.rs.nzones)
                                                   if self.rs.zone_label[i] not in order]

    def _where(self, c):
        for i, z in enumerate(self.d["zones"]):
            if c in z:
                return i
        raise AssertionError(c)

    def _pick(self, what):
        for i in self.order:
            for c in reversed(self.d["zones"][i]):
                if c not in self.fixed and desc(self.s, c) == what:
                    return c
        raise AssertionError(f"no free card {what!r}")

    def set(self, label, specs):
        """Zone `label` holds exactly these cards (bottom to top); what it held goes to the box."""
        z = zi(self.s, label)
        box = self.d["zones"][zi(self.s, "start_pool")]
        for c in list(self.d["zones"][z]):
            if c not in self.fixed:
                self.d["zones"][z].remove(c)
                box.append(c)
        for spec in specs:
            what, _, face = spec.partition("/")
            c = self._pick(what)
            self.d["zones"][self._where(c)].remove(c)
            self.d["zones"][z].append(c)
            self.fixed.add(c)
            self.d["face"].pop(str(c), None)
            self.d["known"][c] = 0
            if face == "down":
                self.d["face"][str(c)] = 2
        return self

    def var(self, name, p, value):
        self.d["vars"][self.rs.var_base[name] + p] = value
        return self

    def stones(self, *values):
        for p, v in enumerate(values):
            self.var("stones", p, v)
        return self

    def state(self):
        return GAME.arranged_state(self.d)


def finish_game(e):
    """From player 0's play step: play a stonemason, take row 0's last card with an empty deck."""
    e.set("hand[0]", ["stonemason", "stonemason", "stonemason"]).set("row[0]", ["priest"]).set("deck", [])
    s = e.state()
    act(s, "play_stonemason")
    act(s, "take", r=0)
    assert s.is_terminal
    return s


# --------------------------------------------------------------------------- set-up

@pytest.mark.parametrize("P", [2, 3, 4])
def test_setup(P):
    s = GAME.new_game(players=P, seed=3)
    sets = [["rice", "peanut", "banana"], ["peanut", "banana", "pepper"],
            ["banana", "pepper", "rice"], ["pepper", "rice", "peanut"]]
    for p in range(P):
        assert cards(s, f"tableau[{p}]") == ["stonemason"]
        assert count(s, f"hand[{p}]") == Counter(f"{k} farmer" for k in sets[p])   # [decision] rotation
        assert count(s, f"stock[{p}]") == Counter(KINDS)
        assert var(s, "stones", p) == 2 + p
        assert var(s, "points", p) == 0
    for r in range(4):
        assert len(cards(s, f"row[{r}]")) == 4
        assert all(c["type"] != "offering" for c in s.observation(0)["zones"][f"row[{r}]"]["cards"])
    for k in KINDS:
        assert cards(s, f"supply[{k}]") == [k] * (25 - P)
    assert len(cards(s, "deck")) == 50 - 16
    assert cards(s, "altar") == [] and cards(s, "removed") == []
    # 4 start sets: the unused ones stay in the box
    assert len(cards(s, "start_pool")) == 4 * (4 - P)
    assert s.current_player == 0
    # 50 play cards: 9 priests, 9 shrines, 12 stonemasons, 5 farmers of each kind
    play = Counter(cards(s, "deck") + sum((cards(s, f"row[{r}]") for r in range(4)), []))
    assert play == Counter({"priest": 9, "shrine": 9, "stonemason": 12,
                            **{f"{k} farmer": 5 for k in KINDS}})


def test_setup_visibility():
    s = GAME.new_game(players=3, seed=1)
    mine, theirs = s.observation(0)["zones"], s.observation(1)["zones"]
    assert len(mine["hand[0]"]["cards"]) == 3 and theirs["hand[0]"] == {"size": 3, "cards": [], "hidden": 3}
    assert len(mine["stock[0]"]["cards"]) == 4
    # the start stocks were taken from the public supply: the others remember them (perfect recall)
    assert theirs["stock[0]"]["size"] == 4 and theirs["stock[0]"]["hidden"] == 0
    assert sorted(c["kind"] for c in theirs["stock[0]"]["cards"]) == sorted(KINDS)
    assert theirs["tableau[0]"]["cards"] == [{"type": "stonemason"}]
    for r in range(4):   # [decision] every market card is public
        assert None not in theirs[f"row[{r}]"]["cards"]
    assert theirs["deck"]["size"] == 34 and all(c is None for c in theirs["deck"]["cards"])


# --------------------------------------------------------------------------- 1. buying

def at_buy_step(P=4):
    """Player 1's first turn, at the buy step (player 1 was given stones to afford one)."""
    s = Edit(start(P)).stones(2, 30, 4, 5).state()
    return drive(s, lambda x: x.current_player == 1 and "buy" in names(x))


def test_offering_price_is_5_minus_farmers_of_that_kind_never_below_0():
    s = at_buy_step()
    e = Edit(s).set("tableau[1]", ["rice farmer"] * 2 + ["peanut farmer"] * 5 + ["banana farmer"] * 6)
    e.var("stones", 1, 3)
    s = e.state()
    rice_before = count(s, "stock[1]")["rice"]
    # rice costs 3, peanut 0, banana 0 (not -1), pepper 5 (unaffordable)
    assert options_of(s, "buy", "kind") == ["banana", "peanut", "rice"]
    assert "skip" in names(s)                               # buying is optional
    before = len(cards(s, "supply[rice]"))
    act(s, "buy", kind="rice")
    assert var(s, "stones", 1) == 0
    assert count(s, "stock[1]")["rice"] == rice_before + 1
    assert len(cards(s, "supply[rice]")) == before - 1
    assert s.current_player == 1 and names(s) <= PLAY_STEP    # one buy only, then play

    s = e.state()
    act(s, "buy", kind="banana")                              # 6 farmers: free, stones stay
    assert var(s, "stones", 1) == 3


def test_buy_price_exact_boundary_and_empty_pile():
    s = at_buy_step()
    e = Edit(s).set("tableau[1]", ["pepper farmer"]).set("supply[rice]", []).var("stones", 1, 4)
    s = e.state()
    assert options_of(s, "buy", "kind") == ["pepper"]      # 4 stones: only pepper (5 - 1); rice pile empty
    e.var("stones", 1, 3)
    s = e.state()
    assert s.current_player == 1 and "buy" not in names(s)


def test_bought_card_is_private_but_the_kind_is_public():
    s = at_buy_step()
    act(s, "buy", kind="pepper")
    obs = s.observation(0)
    # the buy is public: the others remember the pepper in the stock (and what was there)
    assert obs["zones"]["stock[1]"]["size"] == 5
    assert Counter(c["kind"] for c in obs["zones"]["stock[1]"]["cards"])["pepper"] >= 1
    assert obs["history"][-1] == {"player": 1, "action": "buy", "kind": "pepper"}
    assert Counter(c["kind"] for c in s.observation(1)["zones"]["stock[1]"]["cards"])["pepper"] == 2


# --------------------------------------------------------------------------- 2. playing

def test_play_options_and_costs():
    e = Edit(start()).set("hand[0]", ["stonemason", "priest", "shrine"]).var("stones", 0, 7)
    s = e.state()
    assert names(s) == {"play_stonemason", "play_priest", "play_shrine"}
    act(s, "play_stonemason")
    assert count(s, "tableau[0]")["stonemason"] == 2 and var(s, "stones", 0) == 7
    s = e.state()
    act(s, "play_priest")
    assert "priest" in cards(s, "tableau[0]") and var(s, "stones", 0) == 7
    s = e.state()
    act(s, "play_shrine")
    assert "shrine" in cards(s, "tableau[0]") and var(s, "stones", 0) == 0
    e.var("stones", 0, 6)
    assert names(e.state()) == {"play_stonemason", "play_priest"}     # a shrine costs 7


def test_farmers_one_kind_cost_0_1_2():
    e = Edit(start()).set("hand[0]", ["rice farmer"] * 3)
    for stones, ns in ((2, [1, 2, 3]), (1, [1, 2]), (0, [1])):
        s = e.var("stones", 0, stones).state()
        assert options_of(s, "play_farmers", "n") == ns
    s = e.var("stones", 0, 5).state()
    act(s, "play_farmers", kind="rice", n=3)
    assert var(s, "stones", 0) == 3 and count(s, "tableau[0]")["rice farmer"] == 3
    assert cards(s, "hand[0]") == []
    s = e.var("stones", 0, 5).state()
    act(s, "play_farmers", kind="rice", n=2)
    assert var(s, "stones", 0) == 4 and cards(s, "hand[0]") == ["rice farmer"]
    # no mixing of kinds
    s = Edit(start()).set("hand[0]", ["rice farmer", "peanut farmer", "rice farmer"]).stones(9).state()
    assert sorted((a.bind["kind"], a.bind["n"]) for a in s.legal_actions()) == \
        [("peanut", 1), ("rice", 1), ("rice", 2)]


def test_forced_discard_leaves_the_game():
    e = Edit(start()).set("hand[0]", ["shrine"] * 3).var("stones", 0, 6)
    s = e.state()
    assert names(s) == {"discard"} and len(s.legal_actions()) == 1
    act(s, "discard", card="shrine")
    assert cards(s, "removed") == ["shrine"]                   # [decision] out of the game
    assert cards(s, "hand[0]") == ["shrine", "shrine"] and cards(s, "tableau[0]") == ["stonemason"]
    assert var(s, "stones", 0) == 6 and names(s) == {"take"}   # no sacrifice; draw
    drive(s, lambda x: x.current_player == 1)
    assert cards(s, "removed") == ["shrine"] and len(cards(s, "hand[0]")) == 3
    assert names(e.var("stones", 0, 7).state()) == {"play_shrine"}   # 7 stones: no discard


def test_buying_may_leave_a_shrine_unaffordable():
    s = at_buy_step()
    s = Edit(s).set("hand[1]", ["shrine"] * 3).var("stones", 1, 7).state()
    act(s, "buy", kind="rice")
    assert var(s, "stones", 1) == 2 and names(s) == {"discard"}


# --------------------------------------------------------------------------- 3. sacrifice

def test_sacrifice_phase_order_and_visibility():
    e = Edit(start()).set("hand[0]", ["shrine", "priest", "priest"]).stones(7)
    e.set("stock[0]", ["pepper", "pepper"]).set("stock[1]", ["rice", "peanut"])
    e.set("stock[2]", []).set("stock[3]", ["banana"])
    s = e.state()
    rice_supply = len(cards(s, "supply[rice]"))
    act(s, "play_shrine")
    assert s.current_player == 1 and names(s) == {"sacrifice"}          # compulsory
    assert options_of(s, "sacrifice", "card") == ["peanut", "rice"]
    act(s, "sacrifice", card="rice")
    assert s.current_player == 3 and names(s) == {"sacrifice"}          # player 2: empty stock, skipped
    act(s, "sacrifice", card="banana")
    assert s.current_player == 0 and names(s) == {"sacrifice_face_down"}
    act(s, "sacrifice_face_down", card="pepper")
    assert s.current_player == 0 and names(s) == {"offer_from_supply"}
    assert options_of(s, "offer_from_supply", "kind") == sorted(KINDS)
    act(s, "offer_from_supply", kind="rice")
    assert cards(s, "altar") == ["rice", "banana", "pepper", "rice"]
    assert len(cards(s, "supply[rice]")) == rice_supply - 1
    assert names(s) == {"take"}
    assert cards(s, "stock[0]") == ["pepper"] and cards(s, "stock[1]") == ["peanut"]
    # the face-down card is hidden from everyone but its owner; the face-up ones are public
    for p in (1, 2, 3):
        assert s.observation(p)["zones"]["altar"]["cards"] == [
            {"type": "offering", "kind": "rice"}, {"type": "offering", "kind": "banana"}, None,
            {"type": "offering", "kind": "rice"}]
        assert s.observation(p)["history"][-2] == {"player": 0, "action": "sacrifice_face_down", "card": None}
    assert s.observation(0)["zones"]["altar"]["cards"][2] == {"type": "offering", "kind": "pepper"}
    assert s.observation(0)["history"][-2]["card"] == {"type": "offering", "kind": "pepper"}
    # it stays hidden when more cards cover it
    t = GAME.arranged_state(s.to_json())   # s began as an arranged position
    assert t.observation(2)["zones"]["altar"]["cards"][2] is None


def test_sacrifice_starts_left_of_the_active_player():
    s = at_play_step(start(), 2)
    e = Edit(s).set("hand[2]", ["shrine", "priest", "priest"]).stones(0, 0, 7, 0)
    for p in range(4):
        e.set(f"stock[{p}]", [KINDS[p]])
    s = e.state()
    act(s, "play_shrine")
    order = []
    while names(s) & {"sacrifice", "sacrifice_face_down", "offer_from_supply"}:
        order.append((s.current_player, s.legal_actions()[0].name))
        s.apply(s.legal_actions()[0])
    assert order == [(3, "sacrifice"), (0, "sacrifice"), (1, "sacrifice"),
                     (2, "sacrifice_face_down"), (2, "offer_from_supply")]
    assert cards(s, "altar")[:4] == ["pepper", "rice", "peanut", "banana"]


def test_empty_stock_and_empty_supply_skip_the_active_players_cards():
    e = Edit(start()).set("hand[0]", ["shrine", "priest", "priest"]).stones(7)
    e.set("stock[0]", []).set("stock[1]", ["rice"]).set("stock[2]", []).set("stock[3]", [])
    for k in KINDS:
        e.set(f"supply[{k}]", [])
    s = e.state()
    act(s, "play_shrine")
    act(s, "sacrifice", card="rice")
    assert s.current_player == 0 and names(s) == {"take"}      # [decision] both skipped
    assert cards(s, "altar") == ["rice"]


# --------------------------------------------------------------------------- 4. drawing and 5. what is scored

def test_draw_to_three_from_the_bottom_of_rows():
    e = Edit(start()).set("hand[0]", ["rice farmer"] * 3).stones(2, 0, 0, 0)
    e.set("row[0]", ["priest", "shrine", "stonemason", "pepper farmer"])
    s = e.state()
    act(s, "play_farmers", kind="rice", n=3)
    assert names(s) == {"take"} and options_of(s, "take", "r") == [0, 1, 2, 3]
    tops = [cards(s, f"row[{r}]")[-1] for r in range(4)]
    act(s, "take", r=0)
    assert cards(s, "hand[0]") == ["pepper farmer"] and cards(s, "row[0]") == ["priest", "shrine", "stonemason"]
    act(s, "take", r=0)
    assert cards(s, "hand[0]") == ["pepper farmer", "stonemason"]
    act(s, "take", r=2)
    assert sorted(cards(s, "hand[0]")) == sorted(["pepper farmer", "stonemason", tops[2]])
    assert s.current_player == 1                                # 3 in hand: the turn is over


def test_emptied_row_is_refilled_from_the_draw_pile_and_can_be_drawn_from():
    e = Edit(start()).set("hand[0]", ["rice farmer", "rice farmer", "priest"]).stones(2, 0, 0, 0)
    e.set("row[1]", ["priest"])
    # draw pile top is the last card; dealt one by one, the 4th from the top becomes the row's bottom card
    e.set("deck", ["shrine"] * 5 + ["pepper farmer", "stonemason", "priest", "stonemason"])
    s = e.state()
    act(s, "play_farmers", kind="rice", n=2)
    act(s, "take", r=1)
    assert cards(s, "row[1]") == ["stonemason", "priest", "stonemason", "pepper farmer"]
    assert len(cards(s, "deck")) == 5
    act(s, "take", r=1)                                          # drawing on from the new row
    assert sorted(cards(s, "hand[0]")) == ["pepper farmer", "priest", "priest"]
    # the card revealed last is the stonemason: 1 stone per stonemason for everyone
    assert [var(s, "stones", p) for p in range(4)] == [1 + 1, 1, 1, 1]


def test_the_card_revealed_last_is_scored():
    e = Edit(start()).set("hand[0]", ["rice farmer", "rice farmer", "pepper farmer"]).stones(2, 0, 0, 0)
    e.set("tableau[1]", ["priest"] * 2 + ["stonemason"])
    e.set("row[0]", ["priest", "shrine"]).set("row[2]", ["stonemason", "shrine"])
    s = e.state()
    act(s, "play_farmers", kind="rice", n=2)
    act(s, "take", r=0)                 # reveals a priest
    act(s, "take", r=2)                 # reveals a stonemason: this one counts
    assert [var(s, "points", p) for p in range(4)] == [0, 0, 0, 0]
    assert [var(s, "stones", p) for p in range(4)] == [1 + 1, 1, 1, 1]
    # the other order scores the priest instead
    s = e.state()
    act(s, "play_farmers", kind="rice", n=2)
    act(s, "take", r=2)
    act(s, "take", r=0)
    assert [var(s, "points", p) for p in range(4)] == [0, 2 + 1, 0, 0]
    assert [var(s, "stones", p) for p in range(4)] == [1, 0, 0, 0]


def test_a_new_rows_bottom_card_is_scored():
    e = Edit(start()).set("hand[0]", ["rice farmer", "priest", "priest"]).stones(0, 0, 0, 0)
    e.set("tableau[2]", ["priest"])
    e.set("row[3]", ["shrine"]).set("deck", ["priest"] + ["stonemason"] * 3)   # the priest is dealt last
    s = e.state()
    act(s, "play_farmers", kind="rice", n=1)
    act(s, "take", r=3)
    assert cards(s, "row[3]")[-1] == "priest" and cards(s, "deck") == []
    assert [var(s, "points", p) for p in range(4)] == [0, 0, 1, 0]
    assert not s.is_terminal and s.current_player == 1          # a draw pile of exactly 4 is dealt


# --------------------------------------------------------------------------- scoring types

def scoring(tableaus, revealed, P=4, supply_rice=None):
    """Player 0 plays a pepper farmer and takes row 0's bottom card, revealing `revealed`."""
    e = Edit(start(P)).set("hand[0]", ["pepper farmer", "priest", "priest"])
    e.stones(*[0] * P)
    for p in range(P):
        e.set(f"tableau[{p}]", tableaus.get(p, []))
        e.set(f"stock[{p}]", [])
    e.set("row[0]", [revealed, "shrine"])
    if supply_rice is not None:
        e.set("supply[rice]", ["rice"] * supply_rice)
    s = e.state()
    act(s, "play_farmers", kind="pepper", n=1)
    act(s, "take", r=0)
    return s


def test_stonemason_scoring_sole_majority():
    s = scoring({0: ["stonemason"] * 2, 1: ["stonemason"], 3: ["stonemason"] * 3}, "stonemason")
    assert [var(s, "stones", p) for p in range(4)] == [2, 1, 0, 3 + 1]
    assert [var(s, "points", p) for p in range(4)] == [0] * 4


def test_stonemason_scoring_tie_and_minimum_two():
    s = scoring({0: ["stonemason"] * 3, 3: ["stonemason"] * 3, 1: ["stonemason"]}, "stonemason")
    assert [var(s, "stones", p) for p in range(4)] == [3, 1, 0, 3]           # tied: no bonus
    s = scoring({1: ["stonemason"]}, "stonemason")
    assert [var(s, "stones", p) for p in range(4)] == [0, 1, 0, 0]           # 1 is not a majority


def test_majority_counts_the_tableau_after_this_turns_play():
    # player 1 has 2 pepper farmers, player 0 1; player 0 plays a second one: tied, no bonus
    s = scoring({0: ["pepper farmer"], 1: ["pepper farmer"] * 2}, "pepper farmer")
    assert [count(s, f"stock[{p}]")["pepper"] for p in range(4)] == [1, 1, 0, 0]


def test_priest_scoring():
    s = scoring({0: ["priest"], 2: ["priest"] * 2}, "priest")
    assert [var(s, "points", p) for p in range(4)] == [1, 0, 2 + 1, 0]
    s = scoring({0: ["priest"] * 2, 2: ["priest"] * 2}, "priest")
    assert [var(s, "points", p) for p in range(4)] == [2, 0, 2, 0]
    assert [var(s, "stones", p) for p in range(4)] == [0] * 4


def test_shrine_scoring_split_choices_clockwise_from_active_and_bonus_joins_split():
    s = scoring({0: ["shrine"], 1: ["shrine"] * 3, 3: ["shrine"]}, "shrine")
    seen = []
    for p, n in ((0, 1), (1, 1), (3, 0)):                         # player 2 has none: no choice
        assert s.current_player == p and names(s) == {"split_shrines"}
        seen.append(options_of(s, "split_shrines", "n"))
        act(s, "split_shrines", n=n)
    assert seen == [[0, 1], [0, 1, 2, 3, 4], [0, 1]]               # [decision] 3 shrines + bonus = 4
    assert [var(s, "points", p) for p in range(4)] == [1, 1, 0, 0]
    assert [var(s, "stones", p) for p in range(4)] == [0, 3, 0, 1]
    assert s.current_player == 1 and "split_shrines" not in names(s)


def test_shrine_scoring_tied_majority_has_no_bonus():
    s = scoring({1: ["shrine"] * 2, 2: ["shrine"] * 2}, "shrine")
    assert s.current_player == 1 and options_of(s, "split_shrines", "n") == [0, 1, 2]
    act(s, "split_shrines", n=2)
    assert s.current_player == 2 and options_of(s, "split_shrines", "n") == [0, 1, 2]
    act(s, "split_shrines", n=0)
    assert [var(s, "points", p) for p in range(4)] == [0, 2, 0, 0]
    assert [var(s, "stones", p) for p in range(4)] == [0, 0, 2, 0]


def test_shrine_split_order_starts_with_the_active_player():
    s = at_play_step(start(), 2)
    e = Edit(s).set("hand[2]", ["pepper farmer", "priest", "priest"]).set("row[0]", ["shrine", "priest"])
    for p in range(4):
        e.set(f"tableau[{p}]", ["shrine"])
    s = e.state()
    act(s, "play_farmers", kind="pepper", n=1)
    act(s, "take", r=0)
    order = []
    while "split_shrines" in names(s):
        order.append(s.current_player)
        act(s, "split_shrines", n=1)
    assert order == [2, 3, 0, 1]


def test_farmer_scoring_one_each_and_sole_majority_bonus():
    t = {0: ["rice farmer"], 1: ["rice farmer"] * 2, 3: ["rice farmer"]}
    s = scoring(t, "rice farmer", supply_rice=10)
    assert [count(s, f"stock[{p}]")["rice"] for p in range(4)] == [1, 2, 0, 1]
    assert len(cards(s, "supply[rice]")) == 6
    assert all(sum(count(s, f"stock[{p}]").values()) == count(s, f"stock[{p}]")["rice"] for p in range(4))
    s = scoring({0: ["rice farmer"] * 3, 1: ["rice farmer"] * 3}, "rice farmer", supply_rice=10)
    assert [count(s, f"stock[{p}]")["rice"] for p in range(4)] == [1, 1, 0, 0]   # exactly 1, tied


@pytest.mark.parametrize("pile, got", [(4, [1, 2, 0, 1]), (3, [1, 1, 0, 1]), (2, [1, 1, 0, 0]),
                                       (0, [0, 0, 0, 0])])
def test_farmer_scoring_short_supply_singles_first_clockwise_then_bonus(pile, got):
    t = {0: ["rice farmer"], 1: ["rice farmer"] * 2, 3: ["rice farmer"]}
    s = scoring(t, "rice farmer", supply_rice=pile)
    assert [count(s, f"stock[{p}]")["rice"] for p in range(4)] == got
    assert cards(s, "supply[rice]") == []


def test_farmer_short_supply_starts_from_the_active_player():
    s = at_play_step(start(), 2)
    e = Edit(s).set("hand[2]", ["pepper farmer", "priest", "priest"]).set("row[0]", ["rice farmer", "priest"])
    for p in range(4):
        e.set(f"tableau[{p}]", ["rice farmer"] if p in (0, 3) else [])
        e.set(f"stock[{p}]", [])
    e.set("supply[rice]", ["rice"])
    s = e.state()
    act(s, "play_farmers", kind="pepper", n=1)
    act(s, "take", r=0)
    assert [len(cards(s, f"stock[{p}]")) for p in range(4)] == [0, 0, 0, 1]   # player 3 comes first


def test_stock_gains_are_public_events():
    s = scoring({1: ["rice farmer"] * 2, 3: ["rice farmer"]}, "rice farmer", supply_rice=10)
    # rewards come from the public supply: everyone saw the rice go in
    assert s.observation(0)["zones"]["stock[1]"] == {
        "size": 2, "cards": [{"type": "offering", "kind": "rice"}] * 2, "hidden": 0}
    assert s.observation(0)["zones"]["stock[3]"]["cards"] == [{"type": "offering", "kind": "rice"}]
    assert len(s.observation(1)["zones"]["stock[1]"]["cards"]) == 2


def test_face_down_sacrifice_stays_hidden_even_from_players_who_knew_the_stock():
    """Others remember what went into a stock, but not which card comes out of it face down, and
    not what stays (no inference by elimination in the observation)."""
    found = 0
    for seed in range(40):
        rnd = random.Random(seed)
        s = GAME.new_game(players=3, seed=seed)
        while not s.is_terminal and found < 3:
            acts = s.legal_actions()
            fd = [a for a in acts if a.name == "sacrifice_face_down"]
            if fd:
                x = s.current_player
                s.apply(fd[rnd.randrange(len(fd))])
                for p in range(3):
                    obs = s.observation(p)
                    top = obs["zones"]["altar"]["cards"][-1]
                    if p == x:
                        assert top is not None
                    else:
                        assert top is None
                        assert obs["zones"][f"stock[{x}]"]["cards"] == []
                found += 1
                continue
            s.apply(acts[rnd.randrange(len(acts))])
        if found >= 3:
            break
    assert found >= 1


def test_oracle_revealed_last_scores_nothing():
    e = Edit(start(oracle=True)).set("hand[0]", ["pepper farmer", "stonemason", "stonemason"]).set("row[0]", ["oracle", "shrine"])
    for p in range(4):
        e.set(f"tableau[{p}]", ["stonemason"] * 2 + ["priest"] * 2 + ["shrine"] * 2)
    s = e.state()
    stocks = [count(s, f"stock[{p}]") for p in range(4)]
    act(s, "play_farmers", kind="pepper", n=1)
    act(s, "take", r=0)
    assert s.current_player == 1 and names(s) <= PLAY_STEP | {"buy", "skip"}
    assert [var(s, "stones", p) for p in range(4)] == [2, 3, 4, 5]
    assert [var(s, "points", p) for p in range(4)] == [0] * 4
    assert [count(s, f"stock[{p}]") for p in range(4)] == stocks


# --------------------------------------------------------------------------- end of the game

def test_game_ends_when_a_row_must_be_dealt_from_fewer_than_4_and_the_scoring_is_skipped():
    e = Edit(start()).set("hand[0]", ["rice farmer"] * 3).stones(2, 0, 0, 0)
    e.set("row[0]", ["stonemason"]).set("row[1]", ["stonemason", "priest"])
    e.set("deck", ["shrine"] * 3)
    s = e.state()
    act(s, "play_farmers", kind="rice", n=3)
    act(s, "take", r=1)                   # reveals a stonemason
    assert not s.is_terminal
    act(s, "take", r=0)                   # the row is empty, 3 cards left: the game ends at once
    assert s.is_terminal
    assert [var(s, "stones", p) for p in range(4)] == [0, 0, 0, 0]    # the stonemason is not scored
    assert cards(s, "row[0]") == [] and len(cards(s, "deck")) == 3
    assert len(cards(s, "hand[0]")) == 2                             # drawing stops too


def test_game_continues_while_rows_can_be_dealt():
    e = Edit(start()).set("hand[0]", ["rice farmer"] * 3).stones(2, 0, 0, 0)
    e.set("row[0]", ["stonemason"]).set("deck", ["shrine"] * 4)
    s = e.state()
    act(s, "play_farmers", kind="rice", n=3)
    act(s, "take", r=0)
    assert not s.is_terminal and cards(s, "row[0]") == ["shrine"] * 4 and cards(s, "deck") == []


ALTAR_CASES = [
    # counts of rice, peanut, banana, pepper on the altar -> their values
    ([4, 3, 2, 1], [3, 2, 1, 0]),
    ([5, 5, 3, 1], [3, 3, 2, 1]),      # two tied: 3, 2, 1 used
    ([1, 1, 3, 4], [1, 1, 2, 3]),      # two tied at the bottom: 3, 2, 1 used
    ([4, 4, 4, 1], [3, 3, 3, 2]),      # three tied: only 3 and 2
    ([5, 5, 2, 2], [3, 3, 2, 2]),      # two pairs: only 3 and 2
    ([2, 2, 2, 2], [3, 3, 3, 3]),      # all equal: each 3
    ([5, 0, 0, 0], [3, 2, 2, 2]),      # [decision] a kind with no card ranks like any other count
    ([0, 0, 0, 0], [3, 3, 3, 3]),      # [decision] an empty altar: all 3
]


@pytest.mark.parametrize("counts, values", ALTAR_CASES)
def test_final_altar_values_dense_ranks(counts, values):
    e = Edit(start()).stones(0, 0, 0, 0)
    altar = []
    for k, n in zip(KINDS, counts):
        altar += [k] * n
    altar[::3] = [c + "/down" for c in altar[::3]]       # face-down cards count as well
    e.set("altar", altar)
    for p in range(4):
        e.set(f"stock[{p}]", [KINDS[p]])                  # player p holds one card of kind p
    s = finish_game(e)
    assert s.scores == values


def test_final_score_components():
    e = Edit(start()).stones(14, 0, 0, 5)
    e.set("altar", ["rice"] * 3 + ["peanut"] * 2 + ["banana"])              # values 3, 2, 1, 0
    e.set("stock[0]", ["rice", "rice", "peanut", "pepper"]).set("stock[1]", []).set("stock[2]", [])
    e.set("stock[3]", ["banana"] * 3)
    e.set("tableau[0]", ["shrine", "shrine", "priest"]).set("tableau[3]", ["shrine"])
    e.var("points", 0, 3).var("points", 3, 1)
    s = finish_game(e)
    # player 0: 3+3+2+0 offerings, 2 shrines * 4, 14 // 5 stones, 3 tokens
    assert s.scores[0] == 8 + 8 + 2 + 3
    assert s.scores[3] == 3 + 4 + 1 + 1
    assert s.scores[1] == s.scores[2] == 0
    assert s.winners == [0]


def tie_break(stones, shrines, points):
    e = Edit(start())
    e.stones(*stones)
    for p in range(4):
        e.set(f"stock[{p}]", []).set(f"tableau[{p}]", ["shrine"] * shrines[p]).var("points", p, points[p])
    return finish_game(e)


def test_tie_breakers():
    s = tie_break([0, 0, 0, 0], [0, 0, 0, 0], [5, 6, 0, 0])
    assert s.winners == [1]                                   # most VP
    s = tie_break([0, 4, 0, 0], [1, 0, 0, 0], [0, 4, 0, 0])
    assert s.scores[:2] == [4, 4] and s.winners == [0]        # tie: most shrines (before stones)
    s = tie_break([4, 3, 0, 0], [0, 0, 0, 0], [2, 2, 0, 0])
    assert s.scores[:2] == [2, 2] and s.winners == [0]        # then most stones
    s = tie_break([5, 9, 0, 0], [0, 0, 0, 0], [2, 2, 0, 0])
    assert s.scores[:2] == [3, 3] and s.winners == [1]        # all stones count, not only the rest
    s = tie_break([3, 3, 0, 0], [1, 1, 0, 0], [2, 2, 0, 0])
    assert s.winners == [0, 1]                                # still tied: shared


# --------------------------------------------------------------------------- Oracle

@pytest.mark.parametrize("P", [2, 4])
def test_oracle_setup(P):
    s = GAME.new_game(players=P, seed=5, options={"oracle": True})
    altar = cards(s, "altar")
    assert len(altar) == 4 and all(k in KINDS for k in altar)
    for p in range(P):
        assert s.observation(p)["zones"]["altar"]["cards"] == [None] * 4     # face down, unseen
    assert sum(len(cards(s, f"supply[{k}]")) for k in KINDS) == 100 - 4 * P - 4
    assert len(cards(s, "deck")) == 58 - 16
    play = Counter(cards(s, "deck") + sum((cards(s, f"row[{r}]") for r in range(4)), []))
    assert play["oracle"] == 8 and sum(play.values()) == 58
    assert "oracle" not in GAME.new_game(players=P, seed=5).rs.type_count     # no Oracle: no oracles


def test_oracle_setup_cards_come_at_random_from_the_whole_supply():
    mixes, kinds = 0, Counter()
    for seed in range(30):
        altar = cards(GAME.new_game(players=3, seed=seed, options={"oracle": True}), "altar")
        kinds.update(altar)
        mixes += len(set(altar)) > 1
    assert set(kinds) == set(KINDS) and mixes >= 10


def oracle_turn(altar):
    e = Edit(start(oracle=True)).set("hand[0]", ["stonemason", "priest", "priest"])
    e.set("row[0]", ["priest", "oracle"]).set("altar", altar)
    e.set("stock[0]", ["pepper"])
    s = e.state()
    act(s, "play_stonemason")
    act(s, "take", r=0)
    return s


def test_oracle_look_and_take_one():
    s = oracle_turn(["pepper", "rice", "peanut/down", "banana", "rice/down"])
    assert cards(s, "removed") == ["oracle"] and cards(s, "hand[0]") == ["priest", "priest"]
    assert s.current_player == 0 and names(s) == {"oracle_keep", "skip"}
    assert options_of(s, "oracle_keep", "card") == ["banana", "peanut", "rice"]   # top 4 only
    # the look is private: the peeker now sees the face-down cards, the others do not
    mine = [c and c["kind"] for c in s.observation(0)["zones"]["altar"]["cards"]]
    theirs = [c and c["kind"] for c in s.observation(1)["zones"]["altar"]["cards"]]
    assert mine == ["pepper", "rice", "peanut", "banana", "rice"]
    assert theirs == ["pepper", "rice", None, "banana", None]
    assert s.observation(0)["history"][-1]["event"] == "look"
    assert len(s.observation(0)["history"][-1]["cards"]) == 4
    assert s.observation(1)["history"][-1] == {"player": 0, "event": "look", "count": 4}
    act(s, "oracle_keep", card="peanut")
    assert count(s, "stock[0]") == Counter(["pepper", "peanut"])
    assert cards(s, "altar") == ["pepper", "rice", "banana", "rice"]
    assert s.observation(1)["zones"]["stock[0]"]["cards"] == []
    # the oracle did not count toward the 3 cards: keep drawing
    assert s.current_player == 0 and names(s) == {"take"}
    act(s, "take", r=1)
    assert s.current_player == 1


def test_oracle_keep_none_and_a_short_or_empty_altar():
    s = oracle_turn(["rice", "banana/down"])
    assert options_of(s, "oracle_keep", "card") == ["banana", "rice"]
    act(s, "skip")
    assert cards(s, "altar") == ["rice", "banana"] and cards(s, "stock[0]") == ["pepper"]
    assert names(s) == {"take"}
    s = oracle_turn([])
    assert names(s) == {"take"} and cards(s, "removed") == ["oracle"]
    assert all(h.get("event") != "look" for h in s.observation(0)["history"])


def test_taking_an_oracle_that_ends_the_game_gives_no_look():
    e = Edit(start(oracle=True)).set("hand[0]", ["stonemason", "priest", "priest"])
    e.set("row[0]", ["oracle"]).set("deck", ["priest"] * 3).set("altar", ["rice", "pepper/down"])
    s = e.state()
    act(s, "play_stonemason")
    act(s, "take", r=0)
    assert s.is_terminal
    assert all(h.get("event") != "look" for h in s.observation(0)["history"])


# --------------------------------------------------------------------------- Demon

def test_demon_blocks_its_row_and_moves_on_priests():
    e = Edit(start(demon=True)).set("hand[0]", ["stonemason", "priest", "priest"])
    s = e.state()
    assert var(s, "demon_row") == 0
    act(s, "play_stonemason")
    assert options_of(s, "take", "r") == [1, 2, 3]              # the demon starts on the first row
    s = e.state()
    act(s, "play_priest")
    assert var(s, "demon_row") == 1 and options_of(s, "take", "r") == [0, 2, 3]
    s = e.var("demon_row", 0, 3).state()
    act(s, "play_priest")
    assert var(s, "demon_row") == 0 and options_of(s, "take", "r") == [1, 2, 3]   # wraps around


def test_no_demon_without_the_option():
    s = Edit(start()).set("hand[0]", ["stonemason", "priest", "priest"]).state()
    act(s, "play_priest")
    assert options_of(s, "take", "r") == [0, 1, 2, 3]


def test_demon_row_stays_blocked_across_turns_and_new_rows():
    e = Edit(start(demon=True)).set("hand[0]", ["rice farmer"] * 3).var("demon_row", 0, 2)
    e.set("row[1]", ["stonemason"])
    s = e.state()
    act(s, "play_farmers", kind="rice", n=2)
    act(s, "take", r=1)                                          # row 1 emptied and dealt anew
    assert len(cards(s, "row[1]")) == 4 and options_of(s, "take", "r") == [0, 1, 3]


# --------------------------------------------------------------------------- whole games

@pytest.mark.parametrize("P", [2, 3, 4])
@pytest.mark.parametrize("opts", [{}, {"oracle": True}, {"demon": True}, {"oracle": True, "demon": True}])
def test_random_games_end_with_scores(P, opts):
    r = random.Random(P)
    s = GAME.new_game(players=P, seed=P + len(opts), options=opts)
    n = 0
    while not s.is_terminal:
        acts = s.legal_actions()
        s.apply(acts[r.randrange(len(acts))])
        n += 1
        # hands never exceed 3; every card is somewhere exactly once
        assert all(len(s.z[zi(s, f"hand[{p}]")]) <= 3 for p in range(P))
    assert 50 < n < 400
    assert len(s.scores) == P and s.winners
    # the game ended because a row could not be dealt
    assert any(len(cards(s, f"row[{r}]")) == 0 for r in range(4)) and len(cards(s, "deck")) < 4
