"""The one table of visibilities: who sees a zone's cards, a variable's value or a per-card mark.

The checker takes from it where each may be declared and which need an owner (a per-player zone or
variable); the compile stage turns each declaration into the bit mask of the players who see it
(`sight`), which is all the interpreter reads; `explain` says each in its words. The schema's enums
list the same names (tests/test_layers.py holds them equal).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Visibility:
    name: str
    owner_sees: bool          # the owner of a per-player zone or variable sees it
    others_see: bool          # the other players see it
    needs_owner: bool         # only for per-player zones and variables
    applies_to: frozenset     # what may declare it: zone, variable, mark
    words: str                # how `explain` says who sees it
    by_card: bool = False     # a mark seen by whoever sees the card where it lies now

    def sight(self, owner: int | None, everyone: int) -> int | None:
        """The bit mask of the players who see it (owner: the seat of a per-player zone or variable
        cell, None for a shared one); None for a mark seen with its card (`by_card`)."""
        if self.by_card:
            return None
        if owner is None:
            return everyone if self.others_see else 0
        mine = 1 << owner
        return (mine if self.owner_sees else 0) | (everyone & ~mine if self.others_see else 0)

    @property
    def everyone(self) -> bool:
        return self.owner_sees and self.others_see and not self.by_card

    @property
    def nobody(self) -> bool:
        return not (self.owner_sees or self.others_see or self.by_card)


_ALL = frozenset({"zone", "variable", "mark"})
TABLE = (
    Visibility("public", True, True, False, _ALL, "everyone"),
    Visibility("owner", True, False, True, frozenset({"zone", "variable"}), "its owner only"),
    Visibility("all_but_owner", False, True, True, frozenset({"zone"}), "everyone but its owner"),
    Visibility("hidden", False, False, False, _ALL, "nobody"),
    Visibility("zone", False, False, False, frozenset({"mark"}), "whoever sees the card", by_card=True),
)

#: name -> Visibility
VISIBILITIES = {v.name: v for v in TABLE}


def names_for(what: str) -> list:
    """The visibilities a zone, a variable or a mark may declare, in the table's order."""
    return [v.name for v in TABLE if what in v.applies_to]
