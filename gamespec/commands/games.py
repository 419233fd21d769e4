"""`gamespec list`: the game library (games/*.yaml) with players, family and a one-line description."""
from __future__ import annotations


def add_parser(sub, formatter, game_args) -> None:
    ls = sub.add_parser(
        "list", formatter_class=formatter, help="list the library's games (players, family, description)",
        description="The games that ship with gamespec: each one's id (what 'gamespec new NAME --from ID'\n"
                    "starts from), players, family and a one-line description. docs/games.md has more:\n"
                    "the mechanisms each game uses, its balance verdict and speed.",
        epilog="examples:\n  gamespec list\n  gamespec list --family poker\n  gamespec list --json\n"
               "  gamespec new mygame --from ID")
    ls.add_argument("--family", metavar="NAME", help="only the games of this family (e.g. trick-taking)")
    ls.add_argument("--json", action="store_true", help="print the list as JSON")
    ls.set_defaults(func=run)


def run(args) -> int:
    import json
    import sys

    from gamespec.authoring.library import entries
    games = entries()
    if args.family:
        known = sorted({g.family for g in games if g.family})
        games = [g for g in games if g.family == args.family]
        if not games:
            print(f"gamespec: error: no game of family '{args.family}' (families: {', '.join(known)})",
                  file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps([g.as_json() for g in games], indent=2))
        return 0
    width = max([len(g.id) for g in games] + [2])
    fam = max([len(g.family) for g in games] + [6])
    print(f"{'id':<{width}}  players  {'family':<{fam}}  description")
    for g in games:
        print(f"{g.id:<{width}}  {g.players:<7}  {g.family:<{fam}}  {g.description}")
    print(f"\n{len(games)} games; start your own from one: gamespec new mygame --from {games[0].id if games else 'ID'}")
    return 0
