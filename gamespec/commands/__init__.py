"""Sub-commands that live in a module of their own (discovered by gamespec.cli): each module defines
`add_parser(sub, formatter, game_args)`, which adds its argparse sub-parser and sets `func` to a function
of `args` returning the exit code. Module tops import only the standard library: the heavy work is
imported inside the command, so every other command stays fast."""
