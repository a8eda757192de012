"""Every letter of the names policy's look-alike table (projections/names.py), small and
capital, read as the Latin letter it is drawn like: a name spelled with it beside the same
name spelled in Latin letters is refused as a look-alike, in `add` and in a roster alike.

Each row below was written by hand from the letter's glyph: its code point, its Unicode
name (checked against unicodedata, so a row cannot say one letter and spell another) and
the Latin letter a reader sees. A letter's small and capital forms are compared after case
folding, so a capital drawn like another Latin letter than its small form (Greek Η is H, η
is n) has a row of its own. Small forms drawn like no Latin small letter (Cyrillic в, к, м,
н, т and Greek β, ε, κ, τ are small capitals or other shapes) are read through their
capitals only.
"""

from __future__ import annotations

import unicodedata

import pytest

from skirmish.projections import names

# (the letter, its Unicode name, the Latin letter it is drawn like)
DRAWN_LIKE: list[tuple[str, str, str]] = [
    # Cyrillic, small
    ("\u0430", "CYRILLIC SMALL LETTER A", "a"),
    ("\u0435", "CYRILLIC SMALL LETTER IE", "e"),
    ("\u0451", "CYRILLIC SMALL LETTER IO", "\u00eb"),  # ë: e with a diaeresis
    ("\u0437", "CYRILLIC SMALL LETTER ZE", "3"),
    ("\u0456", "CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I", "i"),
    ("\u0457", "CYRILLIC SMALL LETTER YI", "\u00ef"),  # ï: i with a diaeresis
    ("\u0458", "CYRILLIC SMALL LETTER JE", "j"),
    ("\u043e", "CYRILLIC SMALL LETTER O", "o"),
    ("\u0440", "CYRILLIC SMALL LETTER ER", "p"),
    ("\u0441", "CYRILLIC SMALL LETTER ES", "c"),
    ("\u0443", "CYRILLIC SMALL LETTER U", "y"),
    ("\u0445", "CYRILLIC SMALL LETTER HA", "x"),
    ("\u0455", "CYRILLIC SMALL LETTER DZE", "s"),
    ("\u04bb", "CYRILLIC SMALL LETTER SHHA", "h"),
    ("\u0501", "CYRILLIC SMALL LETTER KOMI DE", "d"),
    ("\u051b", "CYRILLIC SMALL LETTER QA", "q"),
    ("\u051d", "CYRILLIC SMALL LETTER WE", "w"),
    ("\u04cf", "CYRILLIC SMALL LETTER PALOCHKA", "l"),
    ("\u04af", "CYRILLIC SMALL LETTER STRAIGHT U", "y"),
    # Cyrillic, capital
    ("\u0410", "CYRILLIC CAPITAL LETTER A", "A"),
    ("\u0412", "CYRILLIC CAPITAL LETTER VE", "B"),
    ("\u0415", "CYRILLIC CAPITAL LETTER IE", "E"),
    ("\u0401", "CYRILLIC CAPITAL LETTER IO", "\u00cb"),  # Ë
    ("\u0417", "CYRILLIC CAPITAL LETTER ZE", "3"),
    ("\u0406", "CYRILLIC CAPITAL LETTER BYELORUSSIAN-UKRAINIAN I", "I"),
    ("\u0407", "CYRILLIC CAPITAL LETTER YI", "\u00cf"),  # Ï
    ("\u0408", "CYRILLIC CAPITAL LETTER JE", "J"),
    ("\u041a", "CYRILLIC CAPITAL LETTER KA", "K"),
    ("\u041c", "CYRILLIC CAPITAL LETTER EM", "M"),
    ("\u041d", "CYRILLIC CAPITAL LETTER EN", "H"),
    ("\u041e", "CYRILLIC CAPITAL LETTER O", "O"),
    ("\u0420", "CYRILLIC CAPITAL LETTER ER", "P"),
    ("\u0421", "CYRILLIC CAPITAL LETTER ES", "C"),
    ("\u0422", "CYRILLIC CAPITAL LETTER TE", "T"),
    ("\u0423", "CYRILLIC CAPITAL LETTER U", "Y"),
    ("\u0425", "CYRILLIC CAPITAL LETTER HA", "X"),
    ("\u0405", "CYRILLIC CAPITAL LETTER DZE", "S"),
    ("\u04ba", "CYRILLIC CAPITAL LETTER SHHA", "h"),  # a tall h
    ("\u0500", "CYRILLIC CAPITAL LETTER KOMI DE", "d"),  # a tall d
    ("\u051a", "CYRILLIC CAPITAL LETTER QA", "Q"),
    ("\u051c", "CYRILLIC CAPITAL LETTER WE", "W"),
    ("\u04c0", "CYRILLIC LETTER PALOCHKA", "l"),  # a bare stroke, as the small one
    ("\u04ae", "CYRILLIC CAPITAL LETTER STRAIGHT U", "Y"),
    # Greek, small
    ("\u03b1", "GREEK SMALL LETTER ALPHA", "a"),
    ("\u03b7", "GREEK SMALL LETTER ETA", "n"),
    ("\u03b9", "GREEK SMALL LETTER IOTA", "\u0131"),  # ı: an i with no dot, which the table reads as i
    ("\u03bc", "GREEK SMALL LETTER MU", "u"),  # a u with a tail
    ("\u03bd", "GREEK SMALL LETTER NU", "v"),
    ("\u03bf", "GREEK SMALL LETTER OMICRON", "o"),
    ("\u03c1", "GREEK SMALL LETTER RHO", "p"),
    ("\u03c5", "GREEK SMALL LETTER UPSILON", "u"),
    ("\u03c7", "GREEK SMALL LETTER CHI", "x"),
    ("\u03c9", "GREEK SMALL LETTER OMEGA", "w"),
    ("\u03f2", "GREEK LUNATE SIGMA SYMBOL", "c"),
    ("\u03f3", "GREEK LETTER YOT", "j"),
    # Greek, capital
    ("\u0391", "GREEK CAPITAL LETTER ALPHA", "A"),
    ("\u0392", "GREEK CAPITAL LETTER BETA", "B"),
    ("\u0395", "GREEK CAPITAL LETTER EPSILON", "E"),
    ("\u0397", "GREEK CAPITAL LETTER ETA", "H"),
    ("\u0399", "GREEK CAPITAL LETTER IOTA", "I"),
    ("\u039a", "GREEK CAPITAL LETTER KAPPA", "K"),
    ("\u039c", "GREEK CAPITAL LETTER MU", "M"),
    ("\u039d", "GREEK CAPITAL LETTER NU", "N"),
    ("\u039f", "GREEK CAPITAL LETTER OMICRON", "O"),
    ("\u03a1", "GREEK CAPITAL LETTER RHO", "P"),
    ("\u03a4", "GREEK CAPITAL LETTER TAU", "T"),
    ("\u03a5", "GREEK CAPITAL LETTER UPSILON", "Y"),
    ("\u03a7", "GREEK CAPITAL LETTER CHI", "X"),
    ("\u03f9", "GREEK CAPITAL LUNATE SIGMA SYMBOL", "C"),
    ("\u037f", "GREEK CAPITAL LETTER YOT", "J"),
    # Latin letters drawn like others
    ("\u0131", "LATIN SMALL LETTER DOTLESS I", "i"),
    ("\u2113", "SCRIPT SMALL L", "l"),  # NFKC's compatibility form of l: the same name, too
]
SAME_BY_NFKC = {"\u2113"}
IDS = [unicodedata.name(letter).lower().replace(" ", "-") for letter, _, _ in DRAWN_LIKE]


def spelled(letter: str, first: bool) -> str:
    """A name with ``letter`` in it: first (a capital, a digit), or inside (a small letter)."""
    return f"{letter}oran" if first else f"Vo{letter}an"


def first(letter: str) -> bool:
    return letter.isupper() or not letter.islower()


def test_the_rows_name_the_letters_they_spell() -> None:
    for letter, name, latin in DRAWN_LIKE:
        assert len(letter) == 1 and unicodedata.name(letter) == name, (letter, name)
        assert unicodedata.name(latin).startswith(("LATIN", "DIGIT")), latin


def test_every_letter_of_the_table_has_its_row() -> None:
    """A letter added to the table without a row here would be tested by nobody."""
    tables = {**names._BEFORE_FOLD, **names._LOOK_ALIKES}  # noqa: SLF001 - the tables under test
    rowed = {form for letter, _, _ in DRAWN_LIKE for form in (letter, names.fold(letter))}
    assert {chr(code) for code in tables} <= rowed


@pytest.mark.parametrize(("letter", "name", "latin"), DRAWN_LIKE, ids=IDS)
def test_a_look_alike_letter_reads_as_the_latin_letter_it_is_drawn_like(letter: str, name: str, latin: str) -> None:
    typed, taken = spelled(letter, first(letter)), spelled(latin, first(letter))
    assert names.same(typed, taken) is (letter in SAME_BY_NFKC)  # else another name, spelled with another letter
    assert names.look_alike(typed, ["Brask", taken]) == taken
    assert names.skeleton(typed) == names.skeleton(taken)
    seen = names.Seen()  # a roster's entries, one after another
    assert seen.add(taken) is None and seen.add(typed) == taken


@pytest.mark.parametrize(("letter", "plain"), [("\u0451", "e"), ("\u0401", "E"), ("\u0457", "i"), ("\u0407", "I")],
                         ids=["io-small", "io-capital", "yi-small", "yi-capital"])
def test_a_letter_with_a_diaeresis_does_not_look_like_the_letter_without(letter: str, plain: str) -> None:
    """ё and ї print their two dots: "Voёan" is not drawn like "Voean", nor "Їoran" like "Ioran"."""
    assert names.look_alike(spelled(letter, first(letter)), [spelled(plain, first(letter))]) is None
