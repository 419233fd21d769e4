"""Fixed action ids (gamespec/compile/action_space.py, docs/agents.md): layout, round trips, masks, ids that
never depend on hidden information, clear errors for specs without a finite static numbering."""
from __future__ import annotations

import glob
import os
import random

import pytest

import gamespec
from gamespec.errors import GamespecError, IllegalAction
from helpers import ROOT, config_id, configs, load
from gamespec.compile.action_space import ActionSpaceError, space
from gamespec.interpreter.determinize import relabel

SPECS = sorted(glob.glob(os.path.join(ROOT, "games", "*.yaml"))) + \
    sorted(glob.glob(os.path.join(ROOT, "tests", "specs", "*.yaml")))
CONFIGS = configs(SPECS)


def states(game, players, options, seed=0, every=0.15, limit=400):
    """States met in a random game (its first, some in between, and its last one)."""
    rnd = random.Random(seed)
    s = game.new_game(players=players, seed=seed, options=options)
    n = 0
    while not s.is_terminal and n < limit:
        if n == 0 or rnd.random() < every:    # the first always: a short game still gives one
            yield s.clone()
        acts = s.legal_actions()
        s.apply(acts[rnd.randrange(len(acts))])
        n += 1
    yield s


@pytest.mark.parametrize("cfg", CONFIGS, ids=[config_id(c) for c in CONFIGS])
def test_layout_skip_first_then_one_block_per_action_in_declaration_order(cfg):
    path, players, options = cfg
    game = load(path)
    sp = game.action_space(players, options)
    assert game.num_distinct_actions(players, options) == sp.size
    assert sp.describe(0) == {"action": "skip"}
    names = [b[0] for b in sp.blocks]
    assert names == ["skip"] + list(game.spec.actions)
    bases = [b[2] for b in sp.blocks]
    assert bases == sorted(bases) and bases[0] == 0
    assert sum(sp.sizes().values()) == sp.size
    for name, _, base in sp.blocks:
        assert sp.describe(base)["action"] == name
        assert sp.id_of_json(sp.describe(base)) == base
    # every id decodes and encodes back to itself (all ids for small spaces, a sample otherwise)
    ids = range(sp.size) if sp.size <= 6000 else random.Random(1).sample(range(sp.size), 6000)
    for i in ids:
        assert sp.id_of_json(sp.describe(i)) == i


@pytest.mark.parametrize("cfg", CONFIGS, ids=[config_id(c) for c in CONFIGS])
def test_legal_ids_are_distinct_and_round_trip(cfg):
    path, players, options = cfg
    game = load(path)
    sp = game.action_space(players, options)
    seen = 0
    for s in states(game, players, options, seed=players, every=0.3):
        if s.is_terminal:
            assert s.legal_action_ids() == []
            with pytest.raises(IllegalAction):
                s.action_from_id(0)
            continue
        ids = s.legal_action_ids()
        legal = s.legal_actions()
        assert len(ids) == len(set(ids)) == len(legal)
        mask = s.legal_action_mask()
        assert len(mask) == sp.size and [i for i, m in enumerate(mask) if m] == ids
        view = s.view(s.current_player).legal_actions
        # the fast path (from the engine's actions) is the definition (from the view's JSON)
        assert sp.legal_ids(s) == [sp.id_of_json(pa.to_json(label=False)) for pa in view]
        for k, a in enumerate(legal):
            i = s.action_id(a)
            assert s.action_id(k) == i == s.action_id(view[k]) == s.action_id(view[k].to_json())
            pa = s.action_from_id(i)
            assert pa.to_json(label=False) == view[k].to_json(label=False)
            d = pa.to_json(label=False)
            if not any(isinstance(v, list) for v in d.values()):   # subsets: decoded sorted
                assert sp.describe(i) == d
        illegal = next(i for i in range(sp.size) if i not in set(ids))
        before = s.to_json()
        with pytest.raises(IllegalAction):
            s.action_from_id(illegal)
        with pytest.raises(IllegalAction):
            s.action_from_id(sp.size)
        assert s.to_json() == before
        seen += 1
        c = s.clone()                      # playing by id is playing that action
        c.apply(c.action_from_id(ids[-1]))
        d = s.clone()
        d.apply(legal[[s.action_id(a) for a in legal].index(ids[-1])])
        assert c == d
    assert seen > 0


@pytest.mark.parametrize("cfg", CONFIGS, ids=[config_id(c) for c in CONFIGS])
def test_ids_never_depend_on_hidden_information(cfg):
    """A determinization for the deciding player gives the same legal ids; exchanging a card the
    player sees with a card of another face changes something they receive (ids or observation)."""
    path, players, options = cfg
    game = load(path)
    checked = 0
    for s in states(game, players, options, seed=11):
        if s.is_terminal:
            continue
        p = s.current_player
        ids = s.legal_action_ids()
        for k in range(3):
            d = s.determinize(p, random.Random(k))
            assert d.legal_action_ids() == ids
            for i in ids:
                assert d.action_from_id(i).to_json(label=False) == s.action_from_id(i).to_json(label=False)
        checked += 1
    assert checked > 0


def test_a_card_chosen_unseen_is_a_handle_and_a_card_looked_at_is_its_face():
    """Klink: the holder chooses which of the two face-down cards of the pair to look at: the ids
    are handles (the same whatever the cards are). Once looked at, the card is known: exchanging it
    for a card of another face changes what the player receives."""
    game = load("klink")
    sp = game.action_space(3, {})
    s = game.new_game(players=3, seed=4)
    ids = s.legal_action_ids()
    assert [sp.describe(i) for i in ids] == [{"action": "look", "card": {"zone": "pair", "position": 0}},
                                            {"action": "look", "card": {"zone": "pair", "position": 1}}]
    for k in range(5):
        assert s.determinize(0, random.Random(k)).legal_action_ids() == ids
    # a known card: relabel the state so the card player 0 looked at has another face
    s.apply(s.action_from_id(ids[0]))
    rs = s.rs
    seen = [c for c in s.z[rs.zone_base["pair"]] if s._vis(c) & 1]
    assert len(seen) == 1
    c = seen[0]
    x = next(x for x in range(rs.ncards) if rs.face_of[x] != rs.face_of[c] and s.loc[x] != s.loc[c])
    m = list(range(rs.ncards))
    m[c], m[x] = x, c
    d = relabel(s, m, 0, random.Random(0))
    assert d.observation(0) != s.observation(0)


def test_subsets_rank_as_multisets():
    """Ladder's dump takes 1 or 2 cards of the hand: ids are multisets of faces/handles, order-free."""
    game = load(os.path.join(ROOT, "tests", "specs", "ladder.yaml"))
    sp = game.action_space(2, {})
    name, doms, base = sp.by_name["dump"]
    dom = doms[0]
    n = dom.cards.size
    assert dom.size == n + n * (n + 1) // 2
    decoded = [sp.describe(base + i)["cs"] for i in range(dom.size)]
    keys = {tuple(sorted(map(repr, v))) for v in decoded}
    assert len(keys) == dom.size                       # distinct multisets
    a, b = decoded[n + 5]
    assert sp.id_of_json({"action": "dump", "cs": [a, b]}) == sp.id_of_json({"action": "dump", "cs": [b, a]})


def test_where_on_the_card_alone_narrows_the_faces():
    """Klink's `ab: {from: abilities_up, where: "ab.kind == 'swap'"}` takes only the swap face
    (abilities_up is public: no handles); bali's split_shrines number is bounded by the card count."""
    game = load("klink")
    sp = game.action_space(3, {})
    ab = sp.by_name["use_peek"][1][0]
    assert [sp.rs.faces[f] for f in ab.faces] == [{"type": "ability", "kind": "peek"}]
    assert ab.zones == []
    # the pair is a hidden pile of number cards: faces of numbers, then 2 x positions of the pair
    look = sp.by_name["look"][1][0]
    assert {sp.rs.faces[f]["type"] for f in look.faces} == {"number"}
    assert [sp.rs.zone_label[z] for z in look.zones] == ["pair"] and look.cap == 63
    bali = load("bali")
    n = bali.action_space(2, {"oracle": False, "demon": False}).by_name["split_shrines"][1][0]
    rs = bali.ruleset(2, bali.check_options({}))
    assert (n.lo, n.size) == (0, rs.ncards + 2)     # count(...) + is_sole_max(...) <= ncards + 1


def _spec(param, extra_vars=""):
    return f"""
name: Bad
players: [2, 2]
cards:
  number:
    zone: deck
    faces:
      - {{each: {{value: [1, 2, 3]}}}}
zones:
  deck: {{kind: pile, visibility: hidden}}
variables:
  n: {{initial: 0}}
  names: {{type: list, initial: [a, b]}}
start: play
phases:
  play:
    turn:
      steps:
        - choose: [go]
    end_if: "n > 2"
    next: end
actions:
  go:
    params:
      x: {param}
    effect: "n += 1"
scoring:
  score: "n"
"""


@pytest.mark.parametrize("param, message", [
    ('{number: [0, "n"]}', "cannot bound its upper value"),
    ('{number: ["0 - n", 3]}', "cannot bound its lower value"),
    ('{choice: "names"}', "no static list of values"),
    ('{number: [0, 3000000]}', "more than 2000000 distinct actions"),
])
def test_a_space_that_cannot_be_bounded_is_a_clear_error(param, message):
    game = gamespec.load_text(_spec(param), "bad.yaml")
    with pytest.raises(ActionSpaceError) as e:
        game.num_distinct_actions(2)
    assert message in str(e.value)
    assert "bad.yaml" in str(e.value) and isinstance(e.value, GamespecError)
    if "distinct" not in message:                   # the game itself still runs
        s = game.new_game(players=2, seed=1)
        with pytest.raises(ActionSpaceError):
            s.legal_action_ids()


def test_bounded_by_min_of_a_constant():
    game = gamespec.load_text(_spec('{number: [0, "min(n, 6)"]}'), "ok.yaml")
    assert game.num_distinct_actions(2) == 1 + 7
    s = game.new_game(players=2, seed=1)
    assert [space(s.rs).describe(i) for i in s.legal_action_ids()] == [{"action": "go", "x": 0}]


def test_face_flow_follows_cards_through_moves():
    """Faces reach a family only by set-up or by a move/deal from where they may be: Bacchus's
    action cards never reach a column, maenads never an action hand; Klink's abilities never reach
    a collection. A card parameter's faces follow: Bacchus's send names action cards only."""
    from gamespec.compile.action_space import FaceFlow
    bacchus = load("bacchus")
    rs = bacchus.ruleset(3, {})
    flow = FaceFlow(rs)
    types = {fam: {rs.faces[f]["type"] for f in fs} for fam, fs in flow.faces.items()}
    assert types["column"] == {"maenad"} and types["actions"] == {"action_card"}
    assert types["played"] == {"action_card"} and types["kidnapped"] == {"maenad"}
    send = space(rs).by_name["send"][1][0]
    assert {rs.faces[f]["type"] for f in send.faces} == {"action_card"} and send.zones == []
    klink = load("klink")
    rs = klink.ruleset(3, {})
    flow = FaceFlow(rs)
    assert {rs.faces[f]["type"] for f in flow.faces["faceup"]} == {"number"}
    assert {rs.faces[f]["type"] for f in flow.faces["abilities_up"]} == {"ability"}


MOVED_BY_ZONE_OF = """
name: Wander
players: [2, 2]
cards:
  a:
    zone: deck
    faces:
      - {each: {value: [1, 2]}}
  b:
    zone: box
    faces:
      - {value: 3}
zones:
  deck: {kind: pile, visibility: public}
  box: {kind: set, visibility: public}
variables:
  n: {initial: 0}
start: play
phases:
  play:
    turn:
      steps:
        - choose: [go, take]
    end_if: "n > 3"
    next: end
actions:
  go:
    if: "size(deck) > 0 and size(box) > 0"
    effect: "n += 1; move(top(deck), zone_of(top(box)))"
  take:
    params:
      card: {from: "box"}
    effect: "n += 1"
scoring:
  score: "n"
"""


def test_a_move_to_a_zone_the_analysis_cannot_name_widens_every_family():
    """`move(x, zone_of(y))` may land anywhere: every family may then hold x's faces, so the
    parameter `card: {from: box}` can name a card of class a (and the game plays through ids)."""
    from gamespec.spec import ast as A
    from gamespec.compile.action_space import FaceFlow
    game = gamespec.load_text(MOVED_BY_ZONE_OF, "wander.yaml")
    rs = game.ruleset(2, {})
    flow = FaceFlow(rs)
    assert flow.faces["box"] == set(range(len(rs.faces)))
    card = space(rs).by_name["take"][1][0]
    assert len(card.faces) == 3
    s = game.new_game(players=2, seed=1)
    s.apply_id(space(rs).id_of_json({"action": "go"}))
    assert {"action": "take", "card": {"type": "a", "value": 2}} in [sp for sp in
                                                                     (space(rs).describe(i) for i in s.legal_action_ids())]
    assert flow.faces_of(A.Name(1, 1, "mystery")) == set(range(len(rs.faces)))   # untraceable: every face


@pytest.mark.parametrize("cfg", CONFIGS, ids=[config_id(c) for c in CONFIGS])
def test_every_legal_action_has_an_id_in_many_games(cfg):
    """The static bounds are sound: in many random games every legal action maps to an id (a
    legal action outside the space would raise)."""
    path, players, options = cfg
    game = load(path)
    for seed in range(6):
        rnd = random.Random(seed)
        s = game.new_game(players=players, seed=seed, options=options)
        while not s.is_terminal:
            ids = s.legal_action_ids()
            assert len(set(ids)) == len(s.legal_actions())
            s.apply_id(ids[rnd.randrange(len(ids))])


def test_a_count_over_a_list_variable_or_a_range_has_no_card_bound():
    """size(list variable) and count(... range(...)) may exceed the card count: no bound from them."""
    for hi in ('"size(names)"', '"count(i for i in range(n))"'):
        game = gamespec.load_text(_spec("{number: [0, %s]}" % hi), "bad.yaml")
        with pytest.raises(ActionSpaceError, match="upper value"):
            game.num_distinct_actions(2)
    game = gamespec.load_text(_spec('{number: [0, "min(size(names), size(deck))"]}'), "ok.yaml")
    assert game.num_distinct_actions(2) == 1 + 4          # size(deck) <= 3 cards
