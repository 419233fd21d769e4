"""The sub-commands of `gamespec`, found by gamespec.cli: each module holds one command or a few of a kind
and defines `add_parser(sub, formatter, game_args)`, which adds their argparse sub-parsers and sets each
one's `func` to a function of `args` returning the exit code. cli.FIRST orders them in `gamespec --help`
(any module it does not name follows, by name); `_common.py` (not a command: its name starts with "_")
holds what they share. Module tops import only the standard library: the heavy work is imported inside
the command, so every other command stays fast."""
