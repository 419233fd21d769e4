"""The game library (games/*.yaml, installed as package data gamespec.games) → its entries: id, name,
players, family, description, for `gamespec list` and `gamespec new NAME --from ID`."""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path

# A library spec says its family in its header, before the first key: `# family: trick-taking`.
_FAMILY = re.compile(r"^#\s*family:\s*(.+?)\s*$", re.M)
_HEADER_DESCRIPTION = re.compile(r"^#\s*description:\s*(.+?)\s*$", re.M)
MODELINE = re.compile(r"\A# yaml-language-server: \$schema=\S*\n")


@dataclass(frozen=True)
class Entry:
    id: str            # the file's name without .yaml: what `--from` takes
    name: str          # the spec's `name`
    players: str       # "2", "3-5"
    family: str        # from the header's `# family:` line ("" when it has none)
    description: str   # the spec's `description` (its first sentence), or the header's `# description:`
    path: str

    def as_json(self) -> dict:
        return asdict(self)


def games_dir() -> Path:
    """The library's folder: installed, the package data gamespec/games; in a checkout, games/.
    (Not importlib.resources: gamespec.games is a namespace of data files, whose `files()` is a
    MultiplexedPath, not a folder.)"""
    here = Path(__file__).resolve().parents[1] / "games"
    if here.is_dir():
        return here
    return Path(__file__).resolve().parents[2] / "games"


def _players(value) -> str:
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return str(value[0]) if value[0] == value[1] else f"{value[0]}-{value[1]}"
    return str(value)


def _first_sentence(text: str) -> str:
    """The description's first sentence; the next one too while it says too little alone (under 60
    characters: "Each player holds ten cards.")."""
    text = " ".join(str(text).split())
    out = ""
    for m in re.finditer(r"(.+?[.!?])(?:\s|$)", text):
        out = f"{out} {m.group(1)}".strip()
        if len(out) >= 60:
            break
    return out or text


def entry(path: Path) -> Entry | None:
    """The entry of one library file, or None when it is not a mapping (a broken file is not listed:
    `gamespec validate` is the place for its errors)."""
    import yaml
    text = path.read_text(encoding="utf-8")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    if not isinstance(data, dict):
        return None
    header = text.split("\nname:", 1)[0]
    family = _FAMILY.search(header)
    described = data.get("description")
    if not described:
        described = (_HEADER_DESCRIPTION.search(header) or [None, ""])[1]
    return Entry(id=path.stem, name=str(data.get("name", path.stem)), players=_players(data.get("players")),
                 family=family.group(1) if family else "", description=_first_sentence(described or ""),
                 path=str(path))


def entries() -> list[Entry]:
    found = (entry(p) for p in sorted(games_dir().glob("*.yaml")))
    return [e for e in found if e is not None]


def ids() -> list[str]:
    return [p.stem for p in sorted(games_dir().glob("*.yaml"))]


def starter_text(game_id: str, schema_file: str) -> str:
    """A library game's text to start a new spec from: the same rules, its modeline naming the schema
    file written beside the new spec."""
    text = (games_dir() / f"{game_id}.yaml").read_text(encoding="utf-8")
    return f"# yaml-language-server: $schema={schema_file}\n" + MODELINE.sub("", text, count=1)
