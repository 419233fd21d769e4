"""Fuzzing the pipeline with hypothesis: nothing but the documented errors may come out.

(a) rules generated from the rule grammar (grammar/rules.lark) put into a tiny spec: loading raises
    nothing but SpecErrors; when it loads, random games raise nothing but SpecRuntimeError;
(b) random mutations of every spec in games/: nothing but SpecErrors (and, when a mutant still
    loads, nothing but SpecRuntimeError while it plays);
(c) random damage to saved states: nothing but StateFormatError, and a state that still loads works;
(d) random damage to logs: read_log raises nothing but StateFormatError, replay returns a verdict.

Every example runs under a timer (a hang fails it). GAMESPEC_FUZZ_EXAMPLES scales the example counts.
"""
from __future__ import annotations

import contextlib
import copy
import glob
import json
import os
import random
import re
import signal

import lark
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lark.grammar import Terminal

import gamespec
from gamespec import SpecErrors, SpecRuntimeError, StateFormatError
from gamespec.spec.parser import grammar_text
from test_hostile import TINY, codegen_faults_crash

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GAMES = sorted(glob.glob(os.path.join(ROOT, "games", "*.yaml")))
from helpers import LIBRARY_GAMES  # noqa: E402  (the heavy mutation test runs on the library's games in the slow run)
SCALE = float(os.environ.get("GAMESPEC_FUZZ_EXAMPLES", "1"))
EXAMPLE_SECONDS = 10   # of this process's CPU time: a busy machine cannot trip it


def n(k):
    return max(1, int(k * SCALE))


def fuzz_settings(examples):
    return settings(max_examples=n(examples), deadline=None, database=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))


class Hang(Exception):
    pass


@contextlib.contextmanager
def time_limit(seconds=EXAMPLE_SECONDS):
    """A hang fails the example: SIGPROF after `seconds` of CPU time (not wall time, which a loaded
    machine stretches); the tests run in the main thread."""
    def alarm(signum, frame):
        raise Hang(f"no answer within {seconds} s of CPU time")
    old = signal.signal(signal.SIGPROF, alarm)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)


def test_time_limit_counts_cpu_time_not_wall_time():
    import time
    with time_limit(0.2):
        time.sleep(0.5)             # waiting (a busy machine) uses no CPU: no Hang
    with pytest.raises(Hang, match="of CPU time"):
        with time_limit(0.2):
            while True:
                pass


def backends():
    return ["closures"] if codegen_faults_crash() else ["codegen", "closures"]


def play_some(game, rnd, games=2, decisions=150):
    """A few random games with every backend that works: only SpecRuntimeError may escape."""
    for backend in backends():
        game.backend = backend
        game._rulesets.clear()
        for g in range(games):
            players = rnd.randint(game.min_players, game.max_players)
            opts = rnd.choice(game.option_sets())
            try:
                s = game.new_game(players=players, seed=rnd.randrange(1 << 30), options=opts)
                for _ in range(decisions):
                    if s.is_terminal:
                        break
                    acts = s.legal_actions()
                    assert acts, "no legal action in a state that is not terminal"
                    s.apply(acts[rnd.randrange(len(acts))])
                    if rnd.random() < 0.05:
                        s.observation(rnd.randrange(players))
            except SpecRuntimeError:
                pass


# ------------------------------------------------------------------------------ (a) grammar rules
_GRAMMAR = lark.Lark(grammar_text(), parser="lalr", start=["start_expr", "start_effects"])
NAMES = ["p", "c", "x", "it", "hand", "deck", "stopped", "players", "current", "actor", "num_players",
         "value", "type", "default", "size", "sum", "count", "max", "min", "any", "all", "first", "last",
         "top", "bottom", "cards", "range", "others", "next_player", "sorted", "abs", "index_of", "is_max",
         "move", "deal", "shuffle", "reveal", "end_game", "end_turn", "end_phase"]
WORDS = {"LET", "IF", "ELIF", "ELSE", "FOR", "IN", "WHILE", "OR", "AND", "NOT", "TRUE", "FALSE", "NONE"}


def _pad(strategy):
    return strategy.map(lambda w: f" {w} ")


def _explicit():
    """Terminal strategies: names a tiny spec knows, small numbers, spaces around words (the lexer
    needs them: `letc` is one name), no comments (they would swallow the rest of a line)."""
    ex = {"NAME": _pad(st.sampled_from(NAMES)),
          "INT": _pad(st.sampled_from(["0", "1", "2", "3", "5", "10", "63", "64", "65", "1000", "100001",
                                       "999999999999999999"])),
          "STRING": st.sampled_from(["'number'", "'x'", "''", '"value"']),
          "COMMENT": st.just(" "),
          "COMP_OP": _pad(st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "in", "not in"]))}
    for t in _GRAMMAR.terminals:
        if t.name in WORDS:
            ex[t.name] = _pad(st.just(t.pattern.value))
        elif t.name.startswith("__IGNORE"):
            ex[t.name] = st.sampled_from([" ", "\n"])
    return ex


def rule_strategy(start):
    """hypothesis.extra.lark.from_lark, bounded: past a depth or a token budget each rule takes its
    cheapest expansion, so that examples stay small (plain from_lark mostly overruns on this grammar)."""
    from hypothesis.extra.lark import LarkStrategy, from_lark
    try:
        class Bounded(LarkStrategy):
            def __init__(self):
                super().__init__(_GRAMMAR, start, _explicit(), st.characters(codec="utf-8"))
                exps = {k: list(s.elements) for k, s in self.nonterminal_strategies.items()}
                cost = {}

                def c(sym):
                    return 1 if isinstance(sym, Terminal) else cost.get(sym.name, float("inf"))
                changed = True
                while changed:
                    changed = False
                    for k, v in exps.items():
                        best = min(sum(c(x) for x in e) for e in v)
                        if best < cost.get(k, float("inf")):
                            cost[k], changed = best, True
                self.cheapest = {k: min(v, key=lambda e: sum(c(x) for x in e)) for k, v in exps.items()}

            def do_draw(self, data):
                self.depth = self.tokens = 0
                return super().do_draw(data)

            def draw_symbol(self, data, symbol, draw_state):
                if isinstance(symbol, Terminal):
                    self.tokens += 1
                    return super().draw_symbol(data, symbol, draw_state)
                if self.depth < 30 and self.tokens < 30:
                    self.depth += 1
                    try:
                        return super().draw_symbol(data, symbol, draw_state)
                    finally:
                        self.depth -= 1
                data.start_span(self.rule_label(symbol.name))
                for e in self.cheapest[symbol.name]:
                    self.draw_symbol(data, e, draw_state)
                data.stop_span()
        return Bounded()
    except Exception:  # noqa: BLE001 - hypothesis internals moved: the plain strategy still works
        return from_lark(_GRAMMAR, start=start, explicit=_explicit())


def _check_rule_in(text, seed):
    with time_limit():
        try:
            game = gamespec.load_text(text, "fuzz.yaml")
        except SpecErrors as e:
            assert all(re.match(r"fuzz\.yaml:\d+:\d+: error: ", line) for line in str(e).splitlines()), str(e)
            return False
        play_some(game, random.Random(seed))
        return True


# 120 rules from the grammar in the default run, 300 in the slow run
GRAMMAR_EXAMPLES = [pytest.param(120, id="120"), pytest.param(300, id="300", marks=pytest.mark.slow)]


@pytest.mark.parametrize("examples", GRAMMAR_EXAMPLES)
def test_grammar_expressions_as_the_score(examples):
    @fuzz_settings(examples)
    @given(rule=rule_strategy("start_expr"), seed=st.integers(0, 1000))
    def check(rule, seed):
        _check_rule_in(TINY.replace('score: "sum(c.value for c in hand[p])"', "score: " + json.dumps(rule)), seed)
    check()


@pytest.mark.parametrize("examples", GRAMMAR_EXAMPLES)
def test_grammar_effects_as_an_action(examples):
    @fuzz_settings(examples)
    @given(rule=rule_strategy("start_effects"), seed=st.integers(0, 1000))
    def check(rule, seed):
        _check_rule_in(TINY.replace('effect: "stopped[actor] = 1"', "effect: " + json.dumps(rule)), seed)
    check()


# Well-typed rules reach the compiler and the interpreter far more often than grammar strings do.
# Loops stay small here (lists of at most 10 items, a few leaves): the budget checks have their own
# cases in test_hostile.py; this hunts faults of the values (overflow, division, indexes, types).
_LEAF = st.sampled_from(["0", "1", "2", "-3", "7", "63", "64", "65", "9223372036854775807", "size(deck)",
                         "stopped[p]", "num_players", "p", "-9223372036854775807"])


def _grow(inner):
    return st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "//", "%", "**"]), inner).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["sum", "max", "min"]), inner).map(lambda t: f"{t[0]}({t[1]} for c in hand[p])"),
        inner.map(lambda x: f"count(c for c in deck if {x} > 0)"),
        inner.map(lambda x: f"abs({x})"),
        inner.map(lambda x: f"-{x}"),
        inner.map(lambda x: f"size(range({x} % 10))"),
        inner.map(lambda x: f"[1, 2, 3][{x}]"),
        inner.map(lambda x: f"max({x}, 0)"),
        st.tuples(inner, inner).map(lambda t: f"index_of([{t[0]}, 5], {t[1]})"),
        st.tuples(inner, inner).map(lambda t: f"sum(x * {t[1]} for x in range({t[0]} % 10))"),
        st.tuples(inner, inner).map(lambda t: f"dense_rank([{t[0]}, {t[1]}, 2], 0)"),
        st.tuples(inner, inner).map(lambda t: f"first([{t[0]}, {t[1]}], 1)[0]"),
    )


_INT = st.recursive(_LEAF, _grow, max_leaves=6)


@fuzz_settings(200)
@given(expr=_INT, seed=st.integers(0, 1000))
def test_typed_expressions_as_the_score(expr, seed):
    _check_rule_in(TINY.replace('score: "sum(c.value for c in hand[p])"', f'score: "{expr}"'), seed)


# ------------------------------------------------------------------------------ (b) spec mutations
YAML_BITS = [":", ": ", "-", "- ", "[", "]", "{", "}", ",", "&a ", "*a", "!!str ", "!!binary ", "|", ">", "#",
             "'", '"', "%", "@", "`", "\t", "? ", "<<: ", "---\n", "\n", "  ", "\\", "\u00e9", "\x00", "\ufeff"]


def _identifiers(text):
    return sorted(set(re.findall(r"[A-Za-z_][A-Za-z0-9_]{2,}", text)))


@st.composite
def mutated(draw, text):
    lines = text.split("\n")
    names = _identifiers(text)
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["delete", "duplicate", "swap", "char", "name", "yaml", "indent"]))
        i = draw(st.integers(0, len(lines) - 1))
        line = lines[i]
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, line)
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], line
        elif op == "char" and line:
            k = draw(st.integers(0, len(line) - 1))
            ch = draw(st.characters(codec="utf-8", exclude_categories=("Cs",)))
            lines[i] = line[:k] + ch + line[k + 1:]
        elif op == "name":
            here = [m for m in re.finditer(r"[A-Za-z_][A-Za-z0-9_]{2,}", line)]
            if here:
                m = draw(st.sampled_from(here))
                how = draw(st.sampled_from(["other", "typo", "underscore", "dunder"]))
                w = m.group()
                if how == "other":
                    new = draw(st.sampled_from(names))
                elif how == "typo":
                    k = draw(st.integers(0, len(w) - 1))
                    new = w[:k] + draw(st.sampled_from("aeiouxz_0")) + w[k + 1:]
                elif how == "underscore":
                    new = "_" + w
                else:
                    new = f"__{w}__"
                lines[i] = line[:m.start()] + new + line[m.end():]
        elif op == "yaml":
            k = draw(st.integers(0, len(line)))
            lines[i] = line[:k] + draw(st.sampled_from(YAML_BITS)) + line[k:]
        elif op == "indent":
            lines[i] = draw(st.sampled_from(["", " ", "  ", "\t"])) + line.lstrip(" ") if draw(st.booleans()) \
                else " " + line
    return "\n".join(lines)


def _spec_texts():
    return {os.path.basename(p): open(p, encoding="utf-8").read() for p in GAMES}


# the seed games 50 mutants each in the default run; every game 150 in the slow run
@pytest.mark.parametrize("name,examples",
                         [(n, 50) for n in sorted(_spec_texts()) if os.path.join(ROOT, "games", n) not in LIBRARY_GAMES]
                         + [pytest.param(n, 150, marks=pytest.mark.slow) for n in sorted(_spec_texts())])
def test_mutated_specs(name, examples):
    text = _spec_texts()[name]

    @fuzz_settings(examples)
    @given(mutant=mutated(text), seed=st.integers(0, 1000))
    def check(mutant, seed):
        with time_limit():
            try:
                game = gamespec.load_text(mutant.encode("utf-8", "surrogatepass"), name)
            except SpecErrors as e:
                assert str(e).startswith(f"{name}:"), str(e)
                return
            play_some(game, random.Random(seed), games=1, decisions=100)
    check()


# ------------------------------------------------------------------------------ (c) damaged states
JUNK = [-1, 0, 1, 2, 3, 1 << 63, -(1 << 70), "", "x", "0", None, True, False, 0.5, [], {}, [0], [[0]], [None],
        {"a": 1}, [1, "a"], "\u00b2", [0, 0, 0]]


def junk(data):
    """A fresh junk value (never a shared list or dict: examples must not leak into each other)."""
    return copy.deepcopy(data.draw(st.sampled_from(JUNK)))


def _paths(x, path=()):
    yield path
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _paths(v, path + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _paths(v, path + (i,))


def _saved_states():
    out = []
    for p in GAMES:
        game = gamespec.load(p)
        for seed, moves in ((1, 3), (2, 40), (3, 10_000)):
            s = game.new_game(players=game.max_players, seed=seed, log=seed != 2,
                              options=game.option_sets()[-1])
            rnd = random.Random(seed)
            for _ in range(moves):
                if s.is_terminal:
                    break
                acts = s.legal_actions()
                s.apply(acts[rnd.randrange(len(acts))])
            d = json.loads(json.dumps(s.to_json()))
            out.append((game, d, [q for q in _paths(d) if q]))
    return out


@pytest.fixture(scope="module")
def saved_states():
    return _saved_states()


def use_state(s, rnd):
    """Everything a user may do with a loaded state: only GamespecError (or ValueError for a log that
    is not there) may come out, and the state still round-trips."""
    P = s.num_players
    for p in range(P):
        s.observation(p)
        if s.log is not None:
            s.log_for(p)
    if s.log is not None:
        s.log_lines()
    assert s.clone() == s
    json.dumps(s.to_json())
    acts = s.legal_actions()
    assert bool(acts) != s.is_terminal
    for a in acts[:5]:
        a.label
    if acts:
        s.apply(acts[rnd.randrange(len(acts))])
        s.observation(0)


def test_damaged_states(saved_states):
    @fuzz_settings(400)
    @given(which=st.integers(0, len(saved_states) - 1), data=st.data())
    def check(which, data):
        game, base, paths = saved_states[which]
        d = json.loads(json.dumps(base))
        for _ in range(data.draw(st.integers(1, 3))):
            path = data.draw(st.sampled_from(paths))
            parent = d
            try:
                for k in path[:-1]:
                    parent = parent[k]
                if data.draw(st.integers(0, 9)) == 0:
                    del parent[path[-1]]
                else:
                    parent[path[-1]] = junk(data)
            except (KeyError, IndexError, TypeError):
                pass
        with time_limit():
            try:
                s = game.state_from_json(d)
            except StateFormatError as e:
                assert "internal error" not in str(e), str(e)
                return
            try:
                use_state(s, random.Random(0))
            except SpecRuntimeError:
                pass      # a state may be consistent and still make a rule fail
    check()


# ------------------------------------------------------------------------------ (d) damaged logs
def _logs():
    out = []
    for p in GAMES:
        game = gamespec.load(p)
        s = game.new_game(players=game.min_players, seed=4, log=True)
        rnd = random.Random(4)
        while not s.is_terminal:
            acts = s.legal_actions()
            s.apply(acts[rnd.randrange(len(acts))])
        out.append((game, s.log_lines()))
    return out


@pytest.fixture(scope="module")
def logs():
    return _logs()


def test_damaged_logs(logs, tmp_path_factory):
    from gamespec.interpreter.replay import read_log, replay
    path = tmp_path_factory.mktemp("logs") / "game.jsonl"

    @fuzz_settings(200)
    @given(which=st.integers(0, len(logs) - 1), data=st.data())
    def check(which, data):
        game, lines = logs[which]
        raw = [json.dumps(x) for x in lines]
        for _ in range(data.draw(st.integers(1, 3))):
            i = data.draw(st.integers(0, len(raw) - 1))
            op = data.draw(st.sampled_from(["delete", "swap", "junk", "value", "truncate"]))
            if op == "delete":
                del raw[i]
            elif op == "swap":
                j = data.draw(st.integers(0, len(raw) - 1))
                raw[i], raw[j] = raw[j], raw[i]
            elif op == "junk":
                raw.insert(i, data.draw(st.sampled_from(["[]", "{}", "null", "{\"type\": 1}", "x", "{", "[" * 5000])))
            elif op == "truncate":
                raw[i] = raw[i][:data.draw(st.integers(0, len(raw[i])))]
            else:
                try:
                    obj = json.loads(raw[i])
                except ValueError:
                    continue
                keys = [k for k in obj if k != "type"] if isinstance(obj, dict) else []
                if keys:
                    obj[data.draw(st.sampled_from(keys))] = junk(data)
                raw[i] = json.dumps(obj)
            if not raw:
                break
        path.write_text("\n".join(raw) + "\n", encoding="utf-8")
        with time_limit():
            try:
                got = read_log(str(path))
            except StateFormatError:
                return
            r = replay(game, got)
            assert set(r) >= {"ok", "decisions", "error"}
    check()
