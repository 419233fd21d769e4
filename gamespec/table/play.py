"""A person at the terminal against bots: their own view, numbered actions, undo, save and resume.

The person sees only `state.view(seat)`: their hand and the public zones, the size of hidden zones
with the cards they have seen or peeked at, the variables they may see, and what the others did as
they saw it. Output goes through rich when it is installed (plain text without colours when the
output is not a terminal), input is read line by line.
"""
from __future__ import annotations

import json
import os
import sys

from gamespec.errors import GamespecError, StateFormatError

from .round_end import PhaseEnds
from .screen import decisions_in, seat_name
from .stages import stages as make_stages
from .transcript import Labels, printable

SAVE_FORMAT = "gamespec-play/1"
MAX_SAVE_BYTES = 16 * 1024 * 1024
HELP = ("type an action's number, or: r the rules (r N: section N), ? N what option N does, "
        "u take back your last decision, s [FILE] save, q quit, ? phase and step, h this help")
STAGE_HELP = ("many options: choose in stages: type a value's key, b to go back a stage; an option's "
              "number works too")
# a stage's keys: the alphabet's, but the commands' (b back, h help, q quit, r rules, s save, u undo)
KEYS = [c for c in "acdefgijklmnoptvwxyz"]


class Quit(Exception):
    """The person left the table."""


class Output:
    """Lines to the terminal: styled with rich if available, plain otherwise (and when not a tty)."""

    def __init__(self, stream=None, color=None):
        self.stream = stream or sys.stdout
        self.console = None
        if color is False or os.environ.get("NO_COLOR"):      # plain text: no escape codes at all
            return
        try:
            from rich.console import Console
        except ImportError:
            return
        kw = {"file": self.stream, "highlight": False, "soft_wrap": True}
        self.console = Console(**kw)

    def line(self, text="", style=None):
        text = printable(text)      # a label or a name is shown, never obeyed by the terminal
        if self.console is None:
            print(text, file=self.stream, flush=True)
            return
        from rich.text import Text
        self.console.print(Text(text, style=style or ""))
        self.stream.flush()


class Table:
    """One game at the terminal: the person at `seat`, bots (of `kinds`) in the other seats."""

    def __init__(self, game, spec_path, players, seat, seed, options, kinds, out=None, ask=None,
                 save_default="gamespec-save.json", log_path=None, offer_log=False):
        from gamespec.bots import make_bot
        self.game = game
        self.spec_path = spec_path
        self.players = players
        self.seat = seat
        self.seed = seed
        self.options = dict(options)
        self.kinds = list(kinds)
        self.out = out or Output()
        self.ask = ask or input
        self.save_default = save_default
        self.state = game.new_game(players=players, seed=seed, options=self.options, log=True)
        self.labels = Labels(self.state.rs)
        from gamespec.spec.presentation import of_game

        from .screen import Screen
        self.screen = Screen(of_game(game), self.labels, players, seat, self.kinds)
        self.log_path = log_path        # where the game's full log is written at the end (--log)
        self.offer_log = offer_log      # ask for a file name when the person leaves without --log
        self.bots = [None if p == seat else make_bot(kinds[p], p, seed) for p in range(players)]
        self.actions = []       # every decision as JSON, for saving
        self.deciders = []      # who took each decision (public)
        self.notes = []         # public notes: the decisions taken back (table/undo.py)
        self.seen = 0           # history events already shown to the person
        self.notes_seen = 0     # notes already shown

    # -- the game loop --------------------------------------------------------------------------
    def run(self) -> int:
        """Play to the end (or until the person quits); 0 either way."""
        o = self.out
        o.line(f"{self.game.name}: {self.players} players, you are player {self.seat}; "
               f"{HELP}.", "bold")
        o.line("New to this game? Type r for its rulebook (by section), or ? and an option's number "
               "to hear what that option does.", "bold")
        try:
            while not self.state.is_terminal:
                if self.state.current_player == self.seat:
                    self.person_turn()
                else:
                    self.bot_turn()
        except Quit:
            o.line("You left the table.")
            self.keep_log(leaving=True)
            return 0
        self.show_end()
        self.keep_log()
        return 0

    def show_end(self):
        """The end: the last moves, the final table (every seat with its score, the winners marked),
        the scores and the winners; from the person's view only."""
        o = self.out
        self.show_history()
        s = self.state
        v = s.view(self.seat)
        obs = v.observation
        scores, winners = obs["scores"], obs["winners"]
        for text, style in self.screen.lines(obs, f"== {self.game.name} · the final table ==", scores, winners):
            o.line(text, style)
        o.line("Game over. Scores: " + ", ".join(f"{seat_name(p, self.seat)} {sc}" + (" (winner)" if p in winners
                                                else "") for p, sc in enumerate(scores)), "bold")
        o.line("You win!" if self.seat in winners else
               f"Winner{'s' if len(winners) > 1 else ''}: "
               + ", ".join(seat_name(p, self.seat) for p in winners))

    def keep_log(self, leaving=False):
        """Write the game's full log (replayable; `gamespec show FILE --for SEAT` reads it) to --log,
        or, when the person leaves without one, to a file they name (Enter: none)."""
        path = self.log_path
        if path is None and leaving and self.offer_log:
            try:
                path = self.ask("Keep this game's log for 'gamespec show'? File name (Enter: no): ").strip()
            except EOFError:
                path = ""
            if not path:
                return
        if path is None:
            return
        lines = self.state.log_lines()
        try:
            with open(path, "w", encoding="utf-8") as f:
                for line in lines:
                    f.write(json.dumps(line, separators=(",", ":")) + "\n")
        except OSError as e:
            self.out.line(f"Cannot write the log to {path}: {e.strerror or e}")
            return
        self.out.line(f"Log written to {path} ({self.state.decisions} decisions). Read it with: "
                      f"gamespec show {path} --for {self.seat} --spec {self.spec_path}")

    def apply(self, i):
        a = self.state.legal_actions()[i]
        self.deciders.append(self.state.current_player)
        self.actions.append(a.to_json(label=False))
        ends = self.phase_ends()
        before = ends.before(self.state, self.seat) if ends.watches(self.state.phase_name) else None
        self.state.apply(a)
        if before is not None:
            self.show_phase_end(before)

    # -- the end of a round or phase ---------------------------------------------------------------
    def phase_ends(self) -> PhaseEnds:
        """The ends the spec defines (the phases with an `on_end`: table/round_end.py); made once."""
        if getattr(self, "_phase_ends", None) is None:
            from gamespec.spec.presentation import of_game
            self._phase_ends = PhaseEnds(self.game.spec, of_game(self.game))
        return self._phase_ends

    def show_phase_end(self, before):
        """After a decision: when a phase with an `on_end` ended, its block (table/round_end.py: what
        it set for every player as this seat sees it, how, who did best); then the next screen."""
        lines = self.phase_ends().block(before, self.state, self.seat, self.screen.value)
        if not lines:
            return
        self.out.line("")
        styles = {"title": "bold magenta", "best": "bold"}
        for text, kind in lines:
            self.out.line(text, styles.get(kind))

    def bot_turn(self):
        from gamespec.bots import decide
        from gamespec.bots.base import may_take_time
        p = self.state.current_player
        bot = self.bots[p]
        if may_take_time(bot) and len(self.state.legal_actions()) > 1:     # (one option: no search)
            self.out.line(f"{seat_name(p, self.seat)} is thinking…", "dim")
        i, _ = decide(self.state, bot)
        self.apply(i)

    def view(self):
        return self.state.view(self.seat)

    def person_turn(self):
        v = self.view()
        legal = v.legal_actions
        root = make_stages(legal, self.labels)
        stack = [root] if root is not None else []      # the stages chosen so far (table/stages.py)
        self.show(v, root)
        while True:
            try:
                prompt = (f"Your move [1-{len(legal)}, a stage's key, b back, h for help]: " if stack else
                          f"Your move [1-{len(legal)}, h for help]: ")
                text = self.ask(prompt)
            except EOFError:
                raise Quit() from None
            text = text.strip()
            if text.isdigit() and 1 <= int(text) <= len(legal):
                self.apply(legal[int(text) - 1].index)
                return
            cmd, _, arg = text.partition(" ")
            cmd = cmd.lower()
            if stack and cmd in stage_keys(stack[-1]) and not arg:
                c = stack[-1]["choices"][stage_keys(stack[-1]).index(cmd)]
                if "option" in c:
                    self.apply(legal[c["option"]].index)
                    return
                stack.append(c["next"])
                self.show_stage(stack[-1], len(legal))
                continue
            if stack and cmd in ("b", "back"):
                if len(stack) == 1:
                    self.out.line("This is the first stage.")
                else:
                    stack.pop()
                self.show_stage(stack[-1], len(legal))
                continue
            if cmd in ("q", "quit"):
                raise Quit()
            if cmd in ("u", "undo"):
                if self.take_back():
                    return
                continue
            if cmd in ("s", "save"):
                self.save(arg.strip() or self.save_default)
                continue
            if cmd == "?" and arg.strip():
                self.explain_option(arg.strip(), legal)
                continue
            if cmd.startswith("?") and cmd[1:].isdigit():       # "?3"
                self.explain_option(cmd[1:], legal)
                continue
            if cmd == "?":
                self.out.line(self.where())
                continue
            if cmd in ("r", "rules"):
                self.show_rules(arg.strip())
                continue
            if cmd in ("h", "help", ""):
                if cmd == "":
                    self.show(v, stack[-1] if stack else None)
                self.out.line(HELP)
                if stack:
                    self.out.line(STAGE_HELP + f" (1 to {len(legal)}).")
                continue
            if stack:
                self.out.line(f"Not understood: {text!r}. Type a key of this stage, b to go back, "
                              f"an option's number (1 to {len(legal)}), or h for help.")
            else:
                self.out.line(f"Not understood: {text!r}. Type 1 to {len(legal)}, or h for help.")

    def show_stage(self, node, n):
        """One stage: where the person is (the values chosen so far), then its values, a key each,
        with how many options each leads to (an option itself: its number too)."""
        o = self.out
        where = " · ".join(node["path"])
        o.line((f"{where} — " if where else "") + f"choose {node['title']}:", "bold")
        for key, c in zip(stage_keys(node), node["choices"]):
            more = f"  (option {c['option'] + 1})" if "option" in c else f"  ({c['count']} options)"
            o.line(f"   {key}. {c['label']}{more}", "cyan")
        if node["path"]:
            o.line("   b. back a stage", "dim")

    def take_back(self) -> bool:
        """`u`: take back the person's last decision under the rule of every table (table/undo.py):
        their own last decision only, while it made nothing new known to anyone; noted in the
        history. False, with the reason said, when the rule refuses."""
        from .undo import UndoRefused, take_back
        if self.seat not in self.deciders:
            self.out.line("Nothing to undo: you have not decided yet.")
            return False
        try:
            note = take_back(self, self.seat)
        except UndoRefused as e:
            why = str(e)
            if e.kind == "undo-too-late":
                last = max(i for i, p in enumerate(self.deciders) if p == self.seat)
                since = sorted(set(self.deciders[last + 1:]))
                why += f" ({' and '.join(seat_name(p, self.seat) for p in since)} decided since)"
            self.out.line(f"Cannot undo: {why}.", "bold red")
            return False
        self.seen = min(self.seen, len(self.view().observation.get("history") or []))
        self.out.line(f"Undone: decision {note['decision']} is taken back.", "bold")
        return True

    # -- the rules: `explain`'s rulebook, by section, and one action in words ---------------------
    def rule_sections(self) -> list:
        """The rulebook (gamespec explain's, for this game's players and options) as [(title,
        blocks)], one per section (a level-2 heading); made once."""
        if getattr(self, "_sections", None) is None:
            from gamespec.authoring.rulebook import rulebook
            doc = rulebook(self.game, self.players, self.options)
            sections = [("Overview", [])]
            for b in doc.blocks:
                if b[0] == "h" and b[1] <= 2:
                    if b[1] == 2:
                        sections.append((b[2], []))
                    continue
                sections[-1][1].append(b)
            self._sections = [(title, blocks) for title, blocks in sections if blocks]
        return self._sections

    def _print_blocks(self, blocks):
        from gamespec.authoring.rulebook import Doc
        d = Doc()
        d.blocks = list(blocks)
        for line in d.markdown().rstrip().splitlines():
            self.out.line(line)

    def show_rules(self, arg=""):
        """`r`: the rulebook's sections, numbered; `r N`: section N."""
        sections = self.rule_sections()
        if arg.isdigit() and 1 <= int(arg) <= len(sections):
            title, blocks = sections[int(arg) - 1]
            self.out.line(f"-- {self.game.name}: {title} --", "bold")
            self._print_blocks(blocks)
            self.out.line(f"(r N for another section, 1 to {len(sections)}; Enter shows the table again)")
            return
        if arg:
            self.out.line(f"No section {arg!r}: the sections are 1 to {len(sections)}.")
        self.out.line(f"The rules of {self.game.name}, by section (type r and a number):", "bold")
        for n, (title, _) in enumerate(sections, 1):
            self.out.line(f"  {n:>2}. {title}")

    def explain_option(self, arg, legal):
        """`? N`: what option N does, in the rulebook's words for its action."""
        if not arg.isdigit() or not 1 <= int(arg) <= len(legal):
            self.out.line(f"? N explains option N: N is 1 to {len(legal)}.")
            return
        a = legal[int(arg) - 1]
        name = self.state.legal_actions()[a.index][0]
        act = self.game.spec.actions.get(name)
        self.out.line(f"Option {arg}: {a.label}", "bold")
        if act is None:         # an optional step's 'skip'
            self.out.line("Pass: do nothing at this step (it is optional).")
            return
        blocks, on = [], False
        for title, bl in self.rule_sections():
            if title != "Actions":
                continue
            for b in bl:
                if b[0] == "h":
                    on = b[2].endswith(f"(*{name}*)") or b[2] == name
                    continue
                if on:
                    blocks.append(b)
        if blocks:
            self._print_blocks(blocks)
        else:
            self.out.line(f"The action {name} (see r for the rules).")

    def where(self) -> str:
        s = self.state
        rs = s.rs
        ch = rs.chooses[s.pending] if 0 <= s.pending < len(rs.chooses) else None
        step = getattr(ch, "path", None) or "?"
        names = ", ".join(getattr(ch, "names", ()) or ())
        choice = f" (a choice among: {names})" if names else ""
        return (f"Phase: {s.phase_name or '-'}; step: {step}{choice}; decision {s.decisions + 1}; "
                f"turn {s.turns}")

    # -- drawing the view -----------------------------------------------------------------------
    def show(self, v, node=None):
        o = self.out
        obs = v.observation
        o.line("")
        header = (f"== {self.game.name} · you are player {self.seat} · phase {obs.get('phase') or '-'} "
                  f"· decision {self.state.decisions + 1} ==")
        for text, style in self.screen.lines(obs, header):
            o.line(text, style)
        self.show_history()
        if node is not None:
            n = len(v.legal_actions)
            o.line(f"Your options: {n}, chosen in stages (type a value's key, b goes back a stage; "
                   f"typing an option's number, 1 to {n}, works too):", "bold")
            self.show_stage(node, n)
            return
        o.line("Your options:", "bold")
        for n, a in enumerate(v.legal_actions, 1):
            o.line(f"  {n:>2}. {a.label}", "cyan")

    def show_history(self):
        """What happened since the person last saw the table, as they saw it (the last few moves),
        the decisions taken back since (the notes) in their places."""
        hist = self.view().observation.get("history") or []
        new = hist[self.seen:]
        start = decisions_in(hist[:self.seen])
        self.seen = len(hist)
        notes = self.notes[self.notes_seen:]
        self.notes_seen = len(self.notes)
        lines = self.screen.moves(new, notes, start)
        if not lines:
            return
        self.out.line("Since your last look:", "bold")
        for text, style in lines:
            self.out.line(text, style)

    # -- save and resume ------------------------------------------------------------------------
    def save(self, path):
        data = {"format": SAVE_FORMAT, "spec": self.spec_path, "spec_sha256": self.game.spec.sha256,
                "players": self.players, "seat": self.seat, "seed": self.seed, "options": self.options,
                "bots": self.kinds, "actions": self.actions, "notes": self.notes}
        try:
            with open(path, "w", encoding="utf-8") as f:
                json.dump(data, f)
        except OSError as e:
            self.out.line(f"Cannot save to {path}: {e.strerror or e}")
            return
        self.out.line(f"Saved to {path}. Resume with: gamespec play --resume {path}")


def stage_keys(node) -> list:
    """A stage's keys: one character per choice (no command's), then two."""
    n = len(node["choices"])
    keys = list(KEYS) + [a + b for a in KEYS for b in KEYS]
    return keys[:n]


def read_save(path) -> dict:
    """A save file → its checked dict (StateFormatError if it is not one). Nothing in it is run."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_SAVE_BYTES + 1)
    except OSError as e:
        raise StateFormatError(f"cannot read {path}: {e.strerror or e}") from None
    if len(data) > MAX_SAVE_BYTES:
        raise StateFormatError(f"{path}: larger than {MAX_SAVE_BYTES} bytes: not a save file")
    try:
        d = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise StateFormatError(f"{path}: not a gamespec save file (not JSON)") from None
    if not isinstance(d, dict) or d.get("format") != SAVE_FORMAT:
        raise StateFormatError(f"{path}: not a gamespec save file (format is not {SAVE_FORMAT})")
    ok = (isinstance(d.get("spec"), str) and type(d.get("players")) is int and type(d.get("seat")) is int
          and type(d.get("seed")) is int and isinstance(d.get("options"), dict)
          and isinstance(d.get("bots"), list) and all(isinstance(k, str) for k in d["bots"])
          and isinstance(d.get("actions"), list) and all(isinstance(a, dict) for a in d["actions"])
          and isinstance(d.get("notes", []), list)
          and all(isinstance(n, dict) and type(n.get("at")) is int and type(n.get("seat")) is int
                  and type(n.get("decision")) is int and isinstance(n.get("text"), str)
                  for n in d.get("notes", [])))
    if not ok:
        raise StateFormatError(f"{path}: a malformed save file")
    return d


def spec_of_save(d, path) -> str:
    spec = d["spec"]
    tries = [spec] if os.path.isabs(spec) else [spec, os.path.join(os.path.dirname(os.path.abspath(path)), spec)]
    for t in tries:
        if os.path.isfile(t):
            return t
    raise StateFormatError(f"cannot find the spec {spec!r} named in {path}; give it: "
                           f"gamespec play SPEC --resume {path}")


def resume(table_args, d, path, bot_override=()):
    """Rebuild a Table from a save: a new game from its seed, every saved decision applied again
    (each checked: a save from another spec version or an edited one is refused)."""
    from gamespec.bots import parse_kind
    from gamespec.errors import IllegalAction, SpecRuntimeError
    game = table_args["game"]
    if d.get("spec_sha256") not in (None, game.spec.sha256):
        raise StateFormatError(f"{path} was saved with another version of the spec")
    P, seat = d["players"], d["seat"]
    if not game.min_players <= P <= game.max_players or not 0 <= seat < P or len(d["bots"]) != P:
        raise StateFormatError(f"{path}: a malformed save file (players, seat or bots)")
    kinds = list(d["bots"])
    given = dict(bot_override)
    for p, k in enumerate(kinds):
        if p == seat:
            continue
        if p in given:
            kinds[p] = given[p]
            continue
        try:
            name, _ = parse_kind(k)
        except GamespecError:
            raise StateFormatError(f"{path}: seat {p}'s bot {k[:60]!r} is not a bot kind") from None
        if name == "class":     # a file never makes gamespec import code
            raise StateFormatError(f"{path} names the bot {k!r} for seat {p}; a save file never loads "
                                   f"code: give --bot {p}={k} to load it")
    try:
        opts = game.check_options(d["options"])
    except GamespecError as e:
        raise StateFormatError(f"{path}: {e}") from None
    t = Table(game, table_args["spec_path"], P, seat, d["seed"], opts, kinds, out=table_args.get("out"),
              ask=table_args.get("ask"), save_default=path, log_path=table_args.get("log_path"),
              offer_log=table_args.get("offer_log", False))
    for n, act in enumerate(d["actions"], 1):
        if t.state.is_terminal:
            raise StateFormatError(f"{path}: decision {n}: the game had already ended")
        player = t.state.current_player
        try:
            t.state.apply(act)
        except (IllegalAction, SpecRuntimeError) as e:
            raise StateFormatError(f"{path}: decision {n} does not apply: {e}") from None
        t.deciders.append(player)
        t.actions.append(act)
    t.seen = 0
    t.notes = [dict(x) for x in d.get("notes", [])]
    return t


def new_table(game, spec_path, players, seat, seed, options, bots=(), out=None,
              save_default="gamespec-save.json", log_path=None, offer_log=False) -> Table:
    """`gamespec play SPEC`: the person at `seat`, bots of `--bot SEAT=KIND` texts elsewhere (random
    by default; a module:Class is loaded now, for a clean error). UsageError for a bad seat or bot."""
    from gamespec.bots import bots_from_args, kinds_from_args
    from gamespec.errors import UsageError
    if not 0 <= seat < players:
        raise UsageError(f"--seat {seat}: no such seat (seats are 0 to {players - 1})")
    kinds = kinds_from_args(bots, players)
    if any(text.split("=", 1)[0].strip() == str(seat) for text in bots or ()):
        raise UsageError(f"--bot names seat {seat}, which is yours (--seat {seat})")
    bots_from_args(bots, players, seed)
    return Table(game, spec_path, players, seat, seed, options, kinds, out=out, save_default=save_default,
                 log_path=log_path, offer_log=offer_log)


def resume_file(path, spec_path=None, bots=(), out=None, log_path=None, offer_log=False) -> Table:
    """`gamespec play --resume FILE`: the saved game rebuilt (see resume), its spec `spec_path` or the
    one the save names; `--bot SEAT=KIND` texts replace saved bots (UsageError for a bad one)."""
    import gamespec
    from gamespec.bots import BotError, parse_seat
    from gamespec.errors import UsageError
    d = read_save(path)
    spec_path = spec_path or spec_of_save(d, path)
    game = gamespec.load(spec_path)
    override = []
    for text in bots or ():
        try:
            override.append(parse_seat(text, d["players"]))
        except BotError as e:
            raise UsageError(str(e)) from None
    return resume({"game": game, "spec_path": spec_path, "out": out, "log_path": log_path,
                   "offer_log": offer_log}, d, path, override)
