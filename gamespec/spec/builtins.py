"""The one table of the rule language's built-in functions and names: what every stage reads.

The checker takes each function's arity, named arguments, argument kinds and result kind from here;
both backends take which ones visit every item of their first argument (a step per item); the action
space which ones hold no card; `explain` the words it says them in; the reference (docs/reference.md)
the signature, the text and the example (checked by a test, like every reference entry).
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Builtin:
    name: str
    min_args: int
    max_args: int
    #: argument kinds by position (the checker's kinds: int, bool, player, card, zone, list...), each
    #: with the words an error says it in (None: the kind's own words)
    args: tuple = ()
    #: with more than one argument where a single one is a list (max, min): every argument is this kind
    many: str | None = None
    #: the kind every item of argument 1 must be (sum, runs...: numbers), checked where it is known
    items: str | None = None
    #: named arguments -> the constant values each may take (None: any expression)
    kwargs: dict = field(default_factory=dict)
    statement: bool = False      # an effect (a statement), not a value
    #: the value's kind: a kind, or 'elem' (the items' kind of argument 1), 'same' (argument 1's kind,
    #: a zone read as its cards), 'numbers' (max/min: the items' kind, a number or a text; else any)
    result: str = "none"
    result_full: str | None = None   # the result with every optional argument given (first(xs, n))
    elem: str | None = None      # the kind of a list result's items: a kind, or 'arg' (argument 1's)
    aggregate: bool = False      # takes a `for` comprehension as its argument
    walks: bool = False          # visits every item of argument 1: charged a step per item
    no_cards: bool = False       # its value holds no card, whatever its arguments
    hook: str | None = None      # a check the checker adds (named in Checker.call)
    # how `explain` says it: aggregate words before a comprehension, the one- and two-argument forms
    agg_words: str | None = None
    words: str | None = None
    words2: str | None = None
    # the reference entry
    signature: str = ""
    text: str = ""
    example: dict = field(default_factory=dict)


L = ("list", None)
ZL = ("list", "a zone or a list")
INT = ("int", None)
ZONE = ("zone", None)
PLAYER = ("player", None)
CARD = ("card", None)
_FACE = ("up", "down")


def _b(*a, **k):
    return Builtin(*a, **k)


TABLE = (
    _b("size", 1, 1, (ZL,), result="int", no_cards=True, words="the number of cards in {0}",
       signature="size(x)", text="The number of cards in a zone or items in a list.",
       example={"expr": "size(hand[actor])"}),
    _b("count", 1, 1, (ZL,), result="int", aggregate=True, no_cards=True, agg_words="the number of",
       signature="count(xs), count(e for v in xs if c)", text="The number of items (that satisfy the condition).",
       example={"expr": "count(c for c in hand[actor] if c.rank > 3)"}),
    _b("sum", 1, 1, (L,), items="int", result="int", aggregate=True, walks=True, no_cards=True, hook="sum",
       agg_words="the sum of", signature="sum(xs), sum(e for v in xs if c)",
       text="The sum of numbers; the total below 2^63 like every number (beyond it: `integer too large`).",
       example={"expr": "sum(c.rank for c in hand[actor])"}),
    _b("max", 1, 8, (L,), many="int", kwargs={"default": None, "key": None}, result="numbers", aggregate=True,
       walks=True, hook="key", agg_words="the greatest",
       signature="max(xs, default=d), max(e for x in xs, key=k), max(a, b, ...)",
       text="The greatest item; of an empty list, `default` (an error without one). With `key=` (the `for` form "
            "only): the item whose key, computed from the loop variable, is greatest (the first such).",
       example={"expr": "max(c for c in hand[actor], key=c.rank, default=card)"}),
    _b("min", 1, 8, (L,), many="int", kwargs={"default": None, "key": None}, result="numbers", aggregate=True,
       walks=True, hook="key", agg_words="the least",
       signature="min(xs, default=d), min(e for x in xs, key=k), min(a, b, ...)",
       text="The least item; of an empty list, `default`. With `key=`: the item whose key is least (the first such).",
       example={"expr": "min(card.rank, 3)"}),
    _b("product", 1, 1, (L,), items="int", result="int", aggregate=True, no_cards=True, hook="sum",
       agg_words="the product of", signature="product(xs), product(e for v in xs if c)",
       text="The product of numbers (1 of an empty list); below 2^63 like every number.",
       example={"expr": "product(c.rank for c in hand[actor])"}),
    _b("any", 1, 1, (L,), result="bool", aggregate=True, walks=True, no_cards=True, agg_words="at least one of",
       signature="any(xs), any(e for ...)", text="Whether some item is true.",
       example={"expr": "any(c.rank == 5 for c in hand[actor])"}),
    _b("all", 1, 1, (L,), result="bool", aggregate=True, walks=True, no_cards=True, agg_words="every one of",
       signature="all(xs), all(e for ...)", text="Whether every item is true (true of an empty list).",
       example={"expr": "all(size(hand[q]) > 0 for q in players)"}),
    _b("first", 1, 2, (L, INT), result="elem", result_full="same", aggregate=True, walks=True,
       agg_words="the first of", words2="the first {1} of {0}",
       signature="first(xs), first(xs, n)", text="The first item (none if empty); the first n items.",
       example={"expr": "first(c for c in hand[actor] if c.rank == 1)"}),
    _b("last", 1, 2, (L, INT), result="elem", result_full="same", aggregate=True, walks=True,
       agg_words="the last of", words2="the last {1} of {0}",
       signature="last(xs), last(xs, n)", text="The last item (none if empty); the last n items.",
       example={"expr": "last(discard)"}),
    _b("top", 1, 2, (ZONE, INT), result="card", result_full="cards", words="the top card of {0}",
       words2="the top {1} cards of {0}", signature="top(z), top(z, n)",
       text="A zone's top card (none if empty); its top n cards, topmost first.", example={"expr": "top(deck)"}),
    _b("bottom", 1, 2, (ZONE, INT), result="card", result_full="cards", words="the bottom card of {0}",
       words2="the bottom {1} cards of {0}", signature="bottom(z), bottom(z, n)",
       text="A zone's bottom card; its bottom n cards, bottom first.", example={"expr": "bottom(deck, 2)"}),
    _b("cards", 1, 1, (ZONE,), result="cards", words="the cards of {0}", signature="cards(z)",
       text="A copy of a zone's cards as a list (bottom to top), unaffected by later moves.",
       example={"expr": "cards(discard)"}),
    _b("others", 1, 1, (PLAYER,), result="players", no_cards=True,
       words="the other players, clockwise from {0}", signature="others(p)",
       text="The other players, clockwise from p's left.", example={"expr": "others(actor)"}),
    _b("players_from", 1, 1, (PLAYER,), result="players", no_cards=True,
       words="all players clockwise from {0}", signature="players_from(p)",
       text="All players clockwise, starting with p.", example={"expr": "players_from(current)"}),
    _b("next_player", 1, 1, (PLAYER,), result="player", no_cards=True, words="the player left of {0}",
       signature="next_player(p)", text="The player on p's left (next clockwise).",
       example={"expr": "next_player(actor)"}),
    _b("prev_player", 1, 1, (PLAYER,), result="player", no_cards=True, words="the player right of {0}",
       signature="prev_player(p)", text="The player on p's right.", example={"expr": "prev_player(actor)"}),
    _b("indices", 1, 1, (), result="list", no_cards=True, hook="family", words="the members of {0}",
       signature="indices(family)", text="The keys of a zone family: `[0 .. count-1]`, its `keys`, or the players.",
       example={"expr": "indices(hand)"}),
    _b("range", 1, 2, (INT, INT), result="list", elem="int", no_cards=True,
       words="the numbers from 0 to {0} minus 1", words2="the numbers from {0} to {1} minus 1",
       signature="range(n), range(a, b)", text="The integers 0..n-1, or a..b-1.", example={"expr": "range(1, 4)"}),
    _b("is_max", 2, 2, (L, INT), kwargs={"min": None}, result="bool", walks=True, no_cards=True,
       words2="entry {1} of {0} is a (possibly shared) greatest", signature="is_max(xs, i, min=k)",
       text="Whether xs[i] is a (possibly shared) maximum and at least k: majorities where ties all score.",
       example={"expr": "is_max([points[q] for q in players], actor, min=1)"}),
    _b("is_sole_max", 2, 2, (L, INT), kwargs={"min": None}, result="bool", walks=True, no_cards=True,
       words2="entry {1} of {0} is the only greatest", signature="is_sole_max(xs, i, min=k)",
       text="Whether xs[i] is greater than every other item and at least k.",
       example={"expr": "is_sole_max([points[q] for q in players], actor, min=2)"}),
    _b("dense_rank", 2, 2, (L,), result="int", walks=True, no_cards=True,
       words2="the rank of entry {1} in {0} (0 = greatest)", signature="dense_rank(xs, i)",
       text="The rank of xs[i]: 0 for the greatest value, equal values share a rank, ranks have no gaps.",
       example={"expr": "dense_rank([points[q] for q in players], actor)"}),
    _b("run_length", 2, 2, (L,), items="int", result="int", walks=True, no_cards=True,
       words2="the length of the run of consecutive numbers through {1} in {0}", signature="run_length(xs, v)",
       text="The length of the run of consecutive integers in xs that goes through v (0 if v is absent).",
       example={"expr": "run_length([c.rank for c in hand[actor]], card.rank)"}),
    _b("longest_run", 1, 1, (L,), items="int", result="int", walks=True, no_cards=True,
       words="the longest run of consecutive numbers in {0}", signature="longest_run(xs)",
       text="The length of the longest run of consecutive integers in xs.",
       example={"expr": "longest_run([c.rank for c in hand[actor]])"}),
    _b("index_of", 2, 2, (L,), result="int", walks=True, no_cards=True, words2="the position of {1} in {0}",
       signature="index_of(xs, x)", text="The position of x in xs, -1 if absent.",
       example={"expr": "index_of([1, 3, 5], card.rank)"}),
    _b("abs", 1, 1, (INT,), result="int", no_cards=True, words="the absolute value of {0}",
       signature="abs(x)", text="The absolute value.", example={"expr": "abs(card.rank - 3)"}),
    _b("zone_of", 1, 1, (CARD,), result="zone", words="the zone holding {0}", signature="zone_of(c)",
       text="The zone a card lies in (compare it with a zone, or move cards to it).",
       example={"expr": "zone_of(card) == hand[actor]"}),
    _b("face_down", 1, 1, (CARD,), result="bool", no_cards=True, words="{0} is face down",
       signature="face_down(c)", text="Whether the card was turned face down by `move(..., face='down')`.",
       example={"expr": "face_down(card)"}),
    _b("sorted", 1, 1, (L,), kwargs={"key": None}, result="same", aggregate=True, walks=True, hook="key",
       agg_words="in increasing order,", signature="sorted(xs), sorted(e for x in xs, key=k)",
       text="The items in increasing order (numbers or strings); with `key=` (the `for` form only), ordered by "
            "the key computed from the loop variable (stable: equal keys keep their order).",
       example={"expr": "sorted(c for c in hand[actor], key=-c.rank)"}),
    _b("subsets", 1, 1, (ZL,), result="list", elem="sub",
       words="every selection of items of {0} (the sub-lists)", signature="subsets(xs)",
       text="Every sub-list of xs (items in xs's order), by size, then by position: `subsets([1, 2])` is "
            "`[[], [1], [2], [1, 2]]`. Sized and charged before it is built (a step per item produced and "
            "one per list); at most 100000 lists (16 items).",
       example={"expr": "count(s for s in subsets([c.rank for c in hand[actor]]) if sum(s) == 5)"}),
    _b("combinations", 2, 2, (ZL, INT), result="list", elem="sub",
       words2="every selection of {1} items of {0}", signature="combinations(xs, k)",
       text="The sub-lists of k items of xs, in order of positions. Sized and charged before it is built; at "
            "most 100000 lists.",
       example={"expr": "size(combinations(hand[actor], 2))"}),
    _b("permutations", 1, 2, (ZL, INT), result="list", elem="sub",
       words="every ordering of {0}", words2="every ordering of {1} items of {0}",
       signature="permutations(xs), permutations(xs, k)",
       text="The orderings of all (or k) items of xs, in lexicographic order of positions. Sized and charged "
            "before it is built; at most 100000 lists.",
       example={"expr": "size(permutations([1, 2, 3]))"}),
    _b("runs", 1, 1, (L,), items="int", result="list", elem="list", no_cards=True,
       words="the runs of consecutive numbers in {0}", signature="runs(xs)",
       text="The maximal runs of consecutive integers among the distinct values of xs, each increasing, in "
            "increasing order: `runs([5, 3, 4, 9, 4])` is `[[3, 4, 5], [9]]`. A step per item read, then sized "
            "and charged before it is built (a step per run and one per value).",
       example={"expr": "max([size(r) for r in runs([c.rank for c in hand[actor]])], default=0)"}),
    _b("team", 1, 1, (PLAYER,), result="int", no_cards=True, hook="teams", words="the team of {0}",
       signature="team(p)", text="Player p's team number (the spec's `teams`): index team variables and zones with it.",
       example={"expr": "team(actor)", "spec": {"teams": "p % 2"}}),
    _b("members", 1, 1, (INT,), result="players", no_cards=True, hook="teams", words="the players of team {0}",
       signature="members(t)", text="The players of team t, in seat order.",
       example={"expr": "members(team(actor))", "spec": {"teams": "p % 2"}}),
    _b("distinct", 1, 1, (ZL,), result="same", elem="arg", walks=True, words="the distinct values of {0}",
       signature="distinct(xs)", text="The distinct values of xs, each at its first occurrence (one pass).",
       example={"expr": "size(distinct([c.rank for c in hand[actor]]))"}),
    _b("count_by", 1, 1, (ZL,), result="list", elem="int", walks=True, words="the counts of the distinct values of {0}",
       signature="count_by(xs)",
       text="How many times each value of `distinct(xs)` occurs in xs, in the same order (one pass).",
       example={"expr": "any(k >= 2 for k in count_by([c.rank for c in hand[actor]]))"}),
    _b("mark", 2, 2, (), result="any", no_cards=True, hook="mark", words2="the {1} mark on {0}",
       signature="mark(c, 'NAME')",
       text="The value of the per-card mark NAME (declared under `marks:`, a quoted name) on card c: a number "
            "or a bool as declared. `none` as the card is a run-time error.",
       example={"expr": "mark(card, 'tokens') + 1", "spec": {"marks": {"tokens": {"initial": 0}}}}),
    _b("set_mark", 3, 3, (), statement=True, hook="set_mark", words="Set the {1} mark on {0} to {2}.",
       signature="set_mark(x, 'NAME', v)",
       text="Set the per-card mark NAME to v on a card, a list of cards or every card of a zone (a step per "
            "card). The value must fit the mark's type (checked at validate time, and at run time for values "
            "typed only then).",
       example={"effects": "set_mark(card, 'tokens', mark(card, 'tokens') + 1)",
                "spec": {"marks": {"tokens": {"initial": 0}}}}),
    _b("move", 2, 2, (None, ZONE), kwargs={"face": _FACE, "at": ("top", "bottom")}, statement=True,
       hook="cards_arg", words="Move {0} to {1}.", signature="move(x, zone, face='up'|'down', at='top'|'bottom')",
       text="Move a card, a list of cards (in list order) or every card of a zone (bottom first) onto the "
            "zone's top (or bottom). `face` turns the card against the zone's visibility. Players who saw a "
            "card and no longer can remember it.",
       example={"effects": "move(card, discard, face='down', at='bottom')"}),
    _b("deal", 2, 3, (ZONE, ZONE, INT), kwargs={"face": _FACE}, statement=True, words="Deal from {0} to {1}.",
       signature="deal(src, dst, n=1, face='up'|'down')",
       text="Move n cards one at a time from src's top; an empty src does what its `on_empty` says.",
       example={"effects": "if size(deck) > 0 { deal(deck, hand[actor], 1) }"}),
    _b("shuffle", 1, 1, (ZONE,), statement=True, words="Shuffle {0}.", signature="shuffle(z)",
       text="Shuffle with the game's seeded RNG; nobody can follow a card through a shuffle; logged as a "
            "chance event. What a player saw before the shuffle stays in their history: a card shown and "
            "shuffled back in one effect is still named there.", example={"effects": "shuffle(deck)"}),
    _b("reveal", 2, 2, (None, PLAYER), statement=True, hook="cards_arg", words="{1} secretly looks at {0}.",
       signature="reveal(cards, p)", text="A private look: player p learns the card(s); nobody else sees what.",
       example={"effects": "reveal(top(deck, 2), actor)"}),
    _b("can", 1, 1, (), result="bool", no_cards=True, hook="action",
       words="{0} is a legal choice for the acting player now", signature="can(action, param=v, ...)",
       text="Whether the acting player (`actor`) could take the action now: some listing of it is legal (its "
            "`if`, its parameters' sources and `where`, its cost). Parameters given are fixed to those values "
            "(a card by identity); the others range over their legal values (a subset parameter cannot be "
            "fixed). A step per candidate visited, plus what its rules cost. An action's own legality may "
            "not ask can() of itself, even through other actions (a check error).",
       example={"expr": "not can(take, card=card)",
                "spec": {"actions": {"take": {"params": {"card": {"from": "hand[actor]"}},
                                              "if": "card.rank > 3"}}}}),
    _b("end_game", 0, 0, statement=True, words="The game ends now.", signature="end_game()",
       text="The game ends now: the rest of the turn is skipped, the game's `on_end` and scoring run.",
       example={"effects": "if size(deck) == 0 { end_game() }"}),
    _b("end_phase", 0, 0, statement=True, words="This phase ends now.", signature="end_phase()",
       text="The current phase ends now (its `on_end` runs, then `next`).",
       example={"effects": "if size(deck) == 0 { end_phase() }"}),
    _b("end_turn", 0, 0, statement=True, words="This turn ends now.", signature="end_turn()",
       text="The current turn ends now (its `on_end` runs).",
       example={"effects": "if card.rank == 1 { end_turn() }"}),
)

#: name -> Builtin
BUILTINS = {b.name: b for b in TABLE}

#: the built-in names: name -> kind
CONSTANTS = {"players": "players", "num_players": "int", "current": "player", "actor": "player",
             "num_teams": "int"}

#: names authors reach for from other languages -> the built-in that does it
ALIASES = {"len": "size", "length": "size", "sort": "sorted", "maximum": "max", "minimum": "min",
           "powerset": "subsets", "choose": "combinations", "prod": "product"}

#: functions that visit every item of their first argument (a step per item, both backends)
WALKS_LIST = frozenset(b.name for b in TABLE if b.walks)
#: functions whose value holds no card, whatever their arguments (the action space's face flow)
NO_CARDS = frozenset(b.name for b in TABLE if b.no_cards)
#: functions that take a `for` comprehension
AGGREGATES = frozenset(b.name for b in TABLE if b.aggregate)


# -- each engine's registry ------------------------------------------------------------------------
def registry(engine, aggregate=False):
    """A new registry of one engine's built-ins: (the dict name -> emitter, its decorator `emits`).
    `@emits("max", "min")` registers a function under each name (a family shares one entry); a name
    the table lacks, or registered twice, is an error naming it. `aggregate`: the registry of the
    generator (`for`) forms, whose names are the built-ins the table marks `aggregate` (AGGREGATES).
    The engine calls `check(engine, dict)` once its module has registered everything (docs/native.md,
    "One table of mirrors")."""
    table = {}
    names, what = (AGGREGATES, "aggregate built-in") if aggregate else (BUILTINS, "built-in")

    def emits(*names_):
        def register(fn):
            for name in names_:
                if name not in names:
                    raise AssertionError(f"{engine}: {name!r} is registered but is no {what} of the table")
                if name in table:
                    raise AssertionError(f"{engine}: {what} {name!r} registered twice")
                table[name] = fn
            return fn
        return register
    return table, emits


def check(engine, table, aggregate=False):
    """The engine's registry covers the table exactly: a built-in without an entry, or an entry that is
    not a built-in, is an error naming it. `aggregate`: the generator forms' registry, against the
    built-ins the table marks `aggregate`."""
    names, what = (AGGREGATES, "aggregate built-in") if aggregate else (BUILTINS, "built-in")
    missing = [b.name for b in TABLE if b.name in names and b.name not in table]
    extra = sorted(set(table) - set(names))
    if missing or extra:
        raise AssertionError(f"{engine}: {what}s without an entry: {missing}; entries that are no {what}: {extra}")
    return table
