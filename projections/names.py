"""One policy for the names a GM types: compared after Unicode normalisation, and refused when
they only look like one already taken.

Two names are the same name when they fold alike: NFKC (the fullwidth "Ｏrc" is "Orc"; "José"
typed as e + combining accent is "José") then case folding. A new name is refused when its
look-alike skeleton (the fold, with the Cyrillic and Greek letters that are drawn like Latin
ones read as those) is another's: "Оrc" with a Cyrillic О beside "Orc" prints the same and
would take the other's damage. Only decisions use this (add, rosters, new encounters):
stored names are never folded, so old logs replay exactly as they were.

Why a small table rather than a library: Unicode's confusables data (TR39) covers every
script; the table needs the letters of the three scripts a table's keyboards mix up, and
skirmish keeps its run-time dependencies to three (docs/tutorial.md: What a command says).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

# Letters read before the fold, which would lose them: NFKC turns the lunate sigma into σ,
# and case folding turns a Greek capital into its small letter, drawn like another Latin
# letter (Η is H, η is n).
_BEFORE_FOLD = str.maketrans({
    "ϲ": "c", "Ϲ": "C",  # GREEK (CAPITAL) LUNATE SIGMA SYMBOL
    "Η": "H", "Μ": "M", "Ν": "N", "Υ": "Y",  # GREEK CAPITAL LETTER ETA, MU, NU, UPSILON
})
# Cyrillic and Greek letters (after case folding: lower case) drawn like a Latin letter.
_LOOK_ALIKES = str.maketrans({
    # Cyrillic (ё and ї keep their two dots: ë and ï)
    "а": "a", "в": "b", "е": "e", "ё": "ë", "з": "3", "і": "i", "ї": "ï", "ј": "j", "к": "k", "м": "m",
    "н": "h", "о": "o", "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "һ": "h", "ԁ": "d",
    "ԛ": "q", "ԝ": "w", "ӏ": "l", "ү": "y",
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "μ": "u", "ν": "v", "ο": "o", "ρ": "p",
    "τ": "t", "υ": "u", "χ": "x", "ω": "w", "ϳ": "j",
    # Latin letters drawn alike
    "ı": "i", "ℓ": "l",
})


def fold(name: str) -> str:
    """The name as names are compared: stripped, NFKC, case-folded (NFKC again: folding can
    undo the normal form)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name.strip()).casefold())


def skeleton(name: str) -> str:
    """What the name looks like: its fold with the look-alike letters read as Latin ones."""
    return fold(name.translate(_BEFORE_FOLD)).translate(_LOOK_ALIKES)


def same(a: str, b: str) -> bool:
    return fold(a) == fold(b)


def look_alike(name: str, taken: Iterable[str]) -> str | None:
    """The name of ``taken`` that ``name`` is, or looks like (same skeleton); None: none."""
    shape = skeleton(name)
    for other in taken:
        if skeleton(other) == shape:
            return other
    return None


class Seen:
    """Names met one after another (a roster's entries): each checked against those before
    it in one lookup, not a pass over them."""

    def __init__(self) -> None:
        self._shapes: dict[str, str] = {}

    def add(self, name: str) -> str | None:
        """Record ``name``; the earlier name it is or looks like, if any (then not recorded)."""
        shape = skeleton(name)
        before = self._shapes.get(shape)
        if before is None:
            self._shapes[shape] = name
        return before


def refusal(what: str, name: str, other: str) -> str:
    """Why ``name`` cannot be taken beside ``other``: the same name as typed, or one that
    only folds or looks like it (then with its did-you-mean)."""
    if name.strip().lower() == other.strip().lower():
        return f"there is already {what} named {name}"
    return (f"{name!r} looks like {other!r}, already {what} here (a letter from another alphabet, "
            f"or a different form of one): did you mean {other}?")
