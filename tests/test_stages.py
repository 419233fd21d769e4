"""Choosing in stages (gamespec/table/stages.py, issue 41): a decision of more than 12 options is
made one short stage at a time, in the terminal (`gamespec play`) and in the browser (the message's
`stages`). The grouping: every option reachable exactly once, stages no longer than the threshold
where the values allow, a single-value stage skipped, labels only from the view's JSON and the
spec's labels; the leak property of the new channel (the stages a seat receives are the same in every
world it cannot tell apart); the terminal flow on Bacchus at 4 players, scripted."""
from __future__ import annotations

import io
import json
import os
import random

import pytest

from gamespec.table.stages import THRESHOLD, leaves, stages, walk
from gamespec.table.transcript import Labels
from helpers import GAMES, ROOT, load

BACCHUS = os.path.join(ROOT, "games", "bacchus.yaml")


class Act:
    """A PlayerAction as a page or a test may hold one: a name, a label and its JSON, nothing else."""

    def __init__(self, name, label, params):
        self.name, self.label, self._json = name, label, params

    def to_json(self, label=True):
        d = {"action": self.name, **json.loads(json.dumps(self._json))}
        if label:
            d["label"] = self.label
        return d


def many_options(path=BACCHUS, players=4, seed=1, want=THRESHOLD + 1):
    """A state of `path` where the player to move has more than `want` - 1 options (seat 0 draws
    whenever it can: its hand of action cards grows), else None."""
    g = load(path)
    rng = random.Random(seed)
    s = g.new_game(players=players, seed=seed)
    while not s.is_terminal:
        la = s.view(s.current_player).legal_actions
        if s.current_player == 0 and len(la) >= want:
            return s
        draw = [a for a in la if a.name == "draw"]
        s.apply((draw[0] if draw and s.current_player == 0 else la[rng.randrange(len(la))]).index)
    return None


def nodes(node):
    yield node
    for c in node["choices"]:
        if "next" in c:
            yield from nodes(c["next"])


def check_tree(root, acts, labels, threshold=THRESHOLD):
    """The properties every stage tree has (the assertions of the tests below)."""
    assert sorted(leaves(root)) == list(range(len(acts)))       # every option, exactly once
    jsons = [a.to_json(label=False) for a in acts]
    for node in nodes(root):
        assert len(node["choices"]) >= 2                          # a single-value stage is skipped
        under = [[c["option"]] if "option" in c else leaves(c["next"]) for c in node["choices"]]
        if len(node["choices"]) > threshold:                       # longer only where the values are more
            values = [jsons[b[0]].get(node["step"]) for b in under]   # (and not numbers: those come in ranges)
            assert node["step"] != "action" and not all(isinstance(x, (int, float)) for x in values)
            assert len({json.dumps(x, sort_keys=True) for x in values}) == len(values)
            if all(isinstance(x, dict) for x in values):        # cards: no attribute divides them
                assert not any(2 <= len({json.dumps(x.get(k)) for x in values}) <= threshold
                               for k in {k for x in values for k in x})
        for c, below in zip(node["choices"], under):
            assert c["count"] == len(below)
            if "option" in c:
                assert c["full"] == acts[c["option"]].label
            if "face" in c:                 # a card value: a card of the JSON of every option it leads to
                assert all(c["face"] in jsons[i].values() for i in below)
                assert c["label"] in (labels.card(c["face"]), acts[below[0]].label)
            # a label is the option's own label, an action's name, a value's label from the JSON, or a
            # range of the numbers of the JSON below it
            shown = {acts[i].label for i in below} | {jsons[i]["action"].replace("_", " ") for i in below} | \
                {labels.param(jsons[i]["action"], k, v) for i in below for k, v in jsons[i].items() if k != "action"}
            faces = [v for i in below for v in jsons[i].values() if isinstance(v, dict)]
            shown |= {f"{k.replace('_', ' ')} " + ("yes" if v is True else "no" if v is False else
                                                    ", ".join(map(str, v)) if isinstance(v, list) else str(v))
                      for f in faces for k, v in f.items()}          # a group of cards by an attribute
            nums = {str(v) for i in below for k, v in jsons[i].items() if k == node["step"]}
            lo, _, hi = c["label"].partition(" to ")
            assert c["label"] in shown or (lo in nums and hi in nums), c["label"]


def test_bacchus_many_options_are_chosen_in_short_stages():
    s = many_options(want=41)
    assert s is not None
    v = s.view(0)
    acts = v.legal_actions
    assert len(acts) > 40               # issue 41 met 67 at one prompt
    labels = Labels(s.rs)
    root = stages(acts, labels)
    check_tree(root, acts, labels)
    assert root["step"] == "action" and {c["label"] for c in root["choices"]} >= {"send"}
    send = next(c for c in root["choices"] if c["label"] == "send")["next"]
    assert send["step"] == "card" and send["path"] == ["send"]
    col = send["choices"][0]["next"]
    assert col["title"] == "column" and [c["label"] for c in col["choices"]][:2] == ["column 0", "column 1"]
    assert all(len(n["choices"]) <= THRESHOLD for n in nodes(root) if n["step"] != "card")
    # nothing but the actions' names, labels and JSON is read: the same tree from bare copies
    bare = [Act(a.name, a.label, {k: v for k, v in a.to_json(label=False).items() if k != "action"}) for a in acts]
    assert stages(bare, labels) == root
    # few options: no stages
    assert stages(acts[:THRESHOLD], labels) is None and stages(acts[:THRESHOLD + 1], labels) is not None


def test_the_labels_come_from_the_json_a_changed_card_changes_them():
    """The converse, so that the leak test can fail: a card of the JSON is what its stage shows."""
    s = many_options()
    acts = s.view(0).legal_actions
    labels = Labels(s.rs)
    root = stages(acts, labels)
    faces = [f for f in s.rs.faces if f.get("type") == "action_card"]
    card = next(c for c in walk(root, [next(i for i, c in enumerate(root["choices"]) if c["label"] == "send")])["choices"])
    other = next(f for f in faces if labels.card(f) != card["label"] and f not in
                 [a.to_json()["card"] for a in acts if "card" in a.to_json()])
    changed = [Act(a.name, a.label, {k: (other if v == card["face"] else v) for k, v in a.to_json(label=False).items()
                                     if k != "action"}) for a in acts]
    labels_shown = json.dumps(stages(changed, labels))
    assert labels.card(other) in labels_shown and json.dumps(root) != labels_shown


def test_numbers_come_in_ranges_and_identical_options_by_label():
    labels = Labels(None)
    acts = [Act("bid", f"bid {n}", {"n": n}) for n in range(40, 0, -1)] + [Act("pass", "pass", {})]
    root = stages(acts, labels)
    check_tree(root, acts, labels)
    bid = next(c for c in root["choices"] if c["label"] == "bid")["next"]
    assert [c["label"] for c in bid["choices"]] == ["1 to 12", "13 to 24", "25 to 36", "37 to 40"]
    assert [c["label"] for c in bid["choices"][3]["next"]["choices"]] == ["37", "38", "39", "40"]
    assert all(len(n["choices"]) <= THRESHOLD for n in nodes(root))
    many = [Act("bid", f"bid {n}", {"n": n}) for n in range(200)]          # ranges of ranges
    root = stages(many, labels)
    check_tree(root, many, labels)
    assert all(len(n["choices"]) <= THRESHOLD for n in nodes(root))
    same = [Act("x", f"the same {k}", {}) for k in range(14)]              # nothing tells them apart but labels
    root = stages(same, labels)
    assert root["step"] == "option" and sorted(leaves(root)) == list(range(14))


def _states(path, players, per_game=6, games=2):
    g = load(path)
    for seed in range(games):
        rng = random.Random(seed)
        s = g.new_game(players=players, seed=1000 + seed, log=True)
        while not s.is_terminal:
            la = s.legal_actions()
            if len(la) > THRESHOLD or rng.random() < 0.03:
                yield s.clone()
                per_game -= 1
                if per_game <= 0:
                    break
            s.apply(la[rng.randrange(len(la))])


@pytest.mark.parametrize("path", GAMES, ids=lambda p: os.path.basename(p)[:-5])
def test_the_stages_a_seat_receives_are_the_same_in_every_world_it_cannot_tell_apart(path):
    """The leak property of the new channel: the message's `stages` (and the terminal's) is built
    from the view alone: the same in worlds determinized for the seat; each tree well formed."""
    from gamespec.web.messages import seat_message
    g = load(path)
    rng = random.Random(7)
    staged = 0
    for players in sorted({g.min_players, g.max_players}):
        for s in _states(path, players):
            p = s.current_player
            table = {"game": g.name, "seats": ["person"] * players}
            got = seat_message(s, p, table)["stages"]
            acts = s.view(p).legal_actions
            if got is not None:
                staged += 1
                check_tree(got, acts, Labels(s.rs))
            for _ in range(2):
                d = s.determinize(p, random.Random(rng.getrandbits(32)))
                assert json.dumps(seat_message(d, p, table)["stages"], sort_keys=True) == \
                    json.dumps(got, sort_keys=True)
    if path == BACCHUS:
        assert staged > 0


def test_choosing_in_stages_at_the_terminal_bacchus_4_players():
    from gamespec.table.play import Output, Table, stage_keys
    g = load(BACCHUS)
    buf = io.StringIO()
    script = []

    def ask(prompt):
        buf.write(prompt)
        text = script.pop(0)
        buf.write(text + "\n")
        return text

    t = Table(g, BACCHUS, 4, 0, 1, {}, ["random"] * 4, out=Output(buf, color=False), ask=ask)
    for _ in range(400):                # draw (option 1) until the seat has many options
        if t.state.current_player != 0:
            t.bot_turn()
            continue
        legal = t.view().legal_actions
        if len(legal) > THRESHOLD:
            break
        d = [i for i, a in enumerate(legal) if a.name == "draw"]
        script[:] = [str((d[0] if d else 0) + 1)]
        t.person_turn()
    legal = t.view().legal_actions
    assert len(legal) > THRESHOLD
    root = stages(legal, t.labels)
    k_send = [c["label"] for c in root["choices"]].index("send")
    send = root["choices"][k_send]["next"]
    col = send["choices"][1]["next"]
    want = col["choices"][2]["option"]
    keys = stage_keys(root)
    assert "b" not in stage_keys({"choices": [0] * 30}) and len(set(stage_keys({"choices": [0] * 30}))) == 30
    # into send, back, "b" at the first stage, into send again, the second card, back, again, the third column
    script[:] = [keys[k_send], "b", "b", keys[k_send], "zz", stage_keys(send)[1], "b", stage_keys(send)[1],
                 stage_keys(col)[2]]
    start = len(buf.getvalue())
    n = len(t.actions)
    expect = t.state.legal_actions()[legal[want].index].to_json(label=False)
    t.person_turn()
    out = buf.getvalue()[start:]
    assert not script                                   # every line was read
    assert t.actions[n] == expect
    assert f"Your options: {len(legal)}, chosen in stages" in out and "an option's number" in out
    assert "choose what to do:" in out and f"   {keys[k_send]}. send  ({root['choices'][k_send]['count']} options)" in out
    assert "send — choose card:" in out and "This is the first stage." in out and "Not understood: 'zz'" in out
    assert f"send · {send['choices'][1]['label']} — choose column:" in out
    assert f"   {stage_keys(col)[2]}. column 2  (option {want + 1})" in out
    for node in (root, send, col):          # each stage is short: a line a value
        assert len(node["choices"]) <= THRESHOLD or node is send
    # the full number still works from the first stage
    for _ in range(400):
        if t.state.is_terminal:
            pytest.skip("the game ended before another staged decision")
        if t.state.current_player != 0:
            t.bot_turn()
            continue
        legal = t.view().legal_actions
        if len(legal) > THRESHOLD:
            break
        script[:] = ["1"]
        t.person_turn()
    n = len(t.actions)
    expect = t.state.legal_actions()[legal[-1].index].to_json(label=False)
    script[:] = [str(len(legal))]
    t.person_turn()
    assert t.actions[n] == expect
