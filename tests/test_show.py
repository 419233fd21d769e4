"""`gamespec show LOG [--for N]` and `gamespec run --verbose`: a log as a readable transcript, as one
reader saw it (the leak property for this channel), and the same transcript live."""
from __future__ import annotations

import random
import re

import shutil

import pytest

from gamespec.cli import main
from gamespec.table import Labels, omniscient, transcript

from helpers import GAMES, load


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(params=GAMES, ids=lambda p: p.rsplit("/", 1)[-1][:-5])
def logs(request, tmp_path, capsys):
    path = request.param
    g = load(path)
    P = g.min_players
    full, seat1 = tmp_path / "full.jsonl", tmp_path / "seat1.jsonl"
    shutil.copy(path, tmp_path)         # the spec beside the log: found by its SHA-256
    code, out, _ = run(capsys, "run", path, "--players", P, "--seed", 6, "--verbose", "--bot", "0=greedy",
                       "--log", full, "--log-for", 1, seat1)
    assert code == 0
    from gamespec.interpreter.replay import read_log, replay
    assert replay(g, read_log(str(full)))["ok"]       # show re-plays a full log
    return {"path": path, "game": g, "P": P, "full": full, "seat1": seat1, "verbose": out}


def test_show_full_log_is_the_live_transcript(logs, capsys):
    code, out, _ = run(capsys, "show", logs["full"])
    assert code == 0
    lines = out.splitlines()
    # run --verbose printed the same transcript before its summary (which names the seed: so does the header)
    assert logs["verbose"].splitlines()[:len(lines)] == lines
    numbers = [int(m.group(1)) for m in (re.match(r"^\s*(\d+)\. player \d+: ", x) for x in lines) if m]
    assert numbers == list(range(1, len(numbers) + 1)) and numbers
    # the end as the re-played game has it: every seat's score, "(winner)" after exactly the winners; a
    # game has one unless it is cooperative (Hanabi: every seat wins a perfect show, none else) or a draw
    from gamespec.interpreter.replay import read_log, replay
    end = replay(logs["game"], read_log(str(logs["full"])))
    rs = logs["game"].new_game(players=logs["P"], seed=0).rs
    assert end["winners"] or rs.success is not None or rs.no_winner is not None
    assert lines[-1] == "Game over. Scores: " + ", ".join(
        f"player {p} {sc}" + (" (winner)" if p in end["winners"] else "") for p, sc in enumerate(end["scores"]))


def test_show_for_a_seat_replays_the_full_log(logs, capsys):
    code, a, _ = run(capsys, "show", logs["full"], "--for", 1)
    assert code == 0
    code, b, _ = run(capsys, "show", logs["seat1"])
    assert code == 0 and a == b
    assert "(as player 1 saw it)" in a and " you: " in a
    code, c, _ = run(capsys, "show", logs["full"], "--for", 0)
    assert code == 0 and c != a


def test_transcript_labels_are_the_actions_labels():
    """A decision without card parameters reads exactly as the action's label."""
    g = load("klink")
    s = g.new_game(players=3, seed=2, log=True)
    rng = random.Random(2)
    labels = []
    while not s.is_terminal:
        acts = s.legal_actions()
        a = acts[rng.randrange(len(acts))]
        labels.append(a.label if not (a[4] and a[4].card_params) else None)
        s.apply(a)
    text = transcript(omniscient(s), Labels(s.rs))
    said = [re.sub(r"^\s*\d+\. player \d+: ", "", x) for x in text if re.match(r"^\s*\d+\. player", x)]
    assert len(said) == len(labels)
    assert all(want is None or want == got for want, got in zip(labels, said))
    assert sum(w is not None for w in labels) > 10


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.rsplit("/", 1)[-1][:-5])
def test_seat_transcript_leak_property(path):
    """The transcript as seat p saw it is unchanged under determinization for p, and changes
    somewhere when cards p knows move (a determinization for the next seat) in a game whose logs
    show p cards that seat does not see (a look, a card passed face down; derived from the logs,
    entry by entry, at each case checked)."""
    g = load(path)
    P = g.min_players
    rng = random.Random(3)
    changed = checked = games = sensitive = 0
    # three games at least, more (a bounded count) until 5 cases: a short game (Kuhn poker's 2 or 3
    # decisions) yields one in ten decisions checked rarely; and until 8 cases that show p a card the
    # next seat does not see, where some were met
    while games < 3 or (checked < 5 and games < 400) or (0 < sensitive < 8 and games < 60):
        s = g.new_game(players=P, seed=games, log=True)
        games += 1
        while True:
            if rng.random() < 0.1:      # the end too (a showdown's cards, the scores)
                p = rng.randrange(P)
                labels = Labels(s.rs)
                mine = transcript(s.log_for(p), labels, p)
                assert transcript(s.view(p).determinize(rng).log_for(p), labels, p) == mine
                q = (p + 1) % P
                changed += transcript(s.view(q).determinize(rng).log_for(p), labels, p) != mine
                sensitive += _shown_to_p_only(s.log_for(p), s.log_for(q))
                checked += 1
            if s.is_terminal:
                break
            acts = s.legal_actions()
            s.apply(acts[rng.randrange(len(acts))])
    assert checked >= 5, (checked, games)
    print(f"\n{path.rsplit('/', 1)[-1]}: {checked} cases in {games} games, {sensitive} with a card p's log shows "
          f"and the next seat's hides, {changed} changed for another's world")
    # where p's log shows cards the next seat does not see, that seat's determinization redraws them:
    # p's transcript must change somewhere (a redraw can give the same card back, so a few cases first)
    if sensitive >= 8:
        assert changed >= 1, f"{sensitive} cases showed p a card hidden from the next seat; none changed"


def _shown_to_p_only(lp, lq):
    """Whether p's log shows a card (a face) where q's log, entry for entry, shows none (null)."""
    if len(lp) != len(lq):
        return False

    def card(a):        # a card's face (a dict with its type), or a dict or list holding one
        if isinstance(a, dict):
            return "type" in a or any(map(card, a.values()))
        return isinstance(a, list) and any(map(card, a))

    def walk(a, b):     # within an entry: where q's has nothing (null, or a count instead of cards)
        if b is None:
            return card(a)
        if isinstance(a, dict) and isinstance(b, dict):
            return any(walk(v, b.get(k)) for k, v in a.items())
        if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            return any(walk(x, y) for x, y in zip(a, b))
        return False
    return any(walk(a, b) for a, b in zip(lp, lq))


def test_show_errors(tmp_path, capsys):
    path = GAMES[0]
    full, seat0 = tmp_path / "f.jsonl", tmp_path / "s0.jsonl"
    shutil.copy(path, tmp_path)
    assert run(capsys, "run", path, "--seed", 1, "--log", full, "--log-for", 0, seat0)[0] == 0
    code, _, err = run(capsys, "show", full, "--for", 9)
    assert code == 1 and "no such seat" in err
    code, _, err = run(capsys, "show", seat0, "--for", 1)
    assert code == 1 and "seat 0's own" in err
    junk = tmp_path / "junk.jsonl"
    junk.write_text("hello\n")
    code, _, err = run(capsys, "show", junk)
    assert code == 1 and "not JSON" in err
    lines = full.read_text().splitlines()
    tampered = tmp_path / "t.jsonl"
    tampered.write_text("\n".join(lines[:-3] + lines[-2:]) + "\n")
    code, _, err = run(capsys, "show", tampered)
    assert code == 1 and "does not replay" in err and "Traceback" not in err
    code, out, _ = run(capsys, "show", full, "--json")
    assert code == 0 and '"lines"' in out


def test_verbose_with_json_keeps_stdout_json(tmp_path, capsys):
    import json
    code, out, err = run(capsys, "run", GAMES[0], "--seed", 2, "--verbose", "--json", "--bot", "1=greedy")
    assert code == 0 and json.loads(out)["bots"] == ["random", "greedy", "random"]
    assert "Game over. Scores:" in err and "   1. player " in err
