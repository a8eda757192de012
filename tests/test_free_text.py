"""Free text a user typed or a file brought (eventlog/text.py): refused at input where it cannot
be a name, shown escaped on a terminal, literal in Markdown."""

from __future__ import annotations

import json
import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skirmish.eventlog.errors import BadInput
from skirmish.eventlog.text import (
    check_label,
    check_note,
    clip,
    escape_controls,
    json_safe,
    markdown_fence,
    markdown_text,
    quoted,
)

# What the issue names: C0 and C1 controls (ESC, BEL, CR, LF among them) and DEL, bidi
# overrides and isolates, zero-width characters and the byte-order mark.
NAMED = (
    [chr(c) for c in range(0x00, 0x20)] + ["\x7f"] + [chr(c) for c in range(0x80, 0xA0)]
    + [chr(c) for c in range(0x202A, 0x202F)] + [chr(c) for c in range(0x2066, 0x206A)]
    + [chr(c) for c in range(0x200B, 0x2010)] + ["\u2060", "\ufeff"]
)
HIDDEN = {"Cc", "Cf", "Cs", "Zl", "Zp"}  # what Unicode calls control, format, surrogate, separator


def hidden_in(text: str) -> list[str]:
    """Every character of ``text`` a terminal acts on or hides, line breaks between lines aside."""
    return [ch for ch in text if ch != "\n" and unicodedata.category(ch) in HIDDEN]


def expected_escape(ch: str) -> str:
    """The visible escape of one character, written out independently of the module."""
    short = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    if ch in short:
        return short[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


# --- the policy itself ------------------------------------------------------------------------


@pytest.mark.parametrize("ch", NAMED, ids=[f"U+{ord(c):04X}" for c in NAMED])
def test_every_named_character_is_a_visible_escape(ch: str) -> None:
    assert escape_controls(f"a{ch}b") == f"a{expected_escape(ch)}b"


def test_the_terminal_attacks_come_out_as_text() -> None:
    title = "evil\x1b]0;pwned\x07"
    assert escape_controls(title) == "evil\\x1b]0;pwned\\x07"
    assert escape_controls("x\x1b[2Jy\rforged") == "x\\x1b[2Jy\\rforged"
    assert escape_controls("note\n#99   Orc is dead") == "note\\n#99   Orc is dead"
    assert escape_controls("\u202eabc\u2066d\u200be\ufeff") == "\\u202eabc\\u2066d\\u200be\\ufeff"
    assert escape_controls("\U000e0041") == "\\U000e0041"  # a tag character, astral
    assert escape_controls("\udcff") == "\\udcff"  # a lone surrogate (invalid UTF-8 on argv)


def test_printable_text_is_left_as_it_is() -> None:
    for text in ("Hauser", "Jörg the Bold", "オーク", "Goblin 1", "back\\slash", "50% (2 rounds)", "🗡️ ⚔", "a\u00a0b"):
        assert escape_controls(text) == text


@given(st.text())
def test_escaped_text_holds_nothing_hidden_and_escaping_again_changes_nothing(text: str) -> None:
    shown = escape_controls(text)
    assert hidden_in(shown.replace("\n", "\x00")) == []
    assert escape_controls(shown) == shown


@given(st.recursive(st.text() | st.integers() | st.none(),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
                    max_leaves=8))
def test_json_safe_is_the_same_json_with_nothing_hidden(data: object) -> None:
    for indent in (None, 2):  # compact, and indented: line breaks between values are JSON's own
        document = json_safe(json.dumps(data, ensure_ascii=False, indent=indent))
        assert json.loads(document) == data
        assert hidden_in(document) == []


def test_clip_and_quoted_cut_a_huge_input() -> None:
    assert clip("short") == "short"
    assert clip("A" * 50_000_000) == "A" * 80 + "… (50,000,000 characters)"
    assert quoted("B" * 3000) == "'" + "B" * 80 + "'… (3,000 characters)"
    assert quoted("Orc\x1b") == "'Orc\\x1b'"


def test_labels_are_one_line_of_printable_text() -> None:
    assert check_label("--trigger", "the Orc crosses the bridge") == "the Orc crosses the bridge"
    with pytest.raises(BadInput) as refused:
        check_label("--trigger", "x\x1b[2Jy")
    assert str(refused.value) == ("--trigger 'x\\x1b[2Jy' holds \\x1b: names, kinds and labels are one line "
                                  "of printable text (no control, bidi or zero-width characters)")
    for ch in NAMED:
        with pytest.raises(BadInput):
            check_label("KIND", f"bleed{ch}")


def test_a_note_may_hold_line_breaks_tabs_and_format_characters_but_no_other_control() -> None:
    for text in ("two\nlines", "a\ttab", "family 👨\u200d👩\u200d👧", "\u200fRTL"):
        assert check_note("TEXT", text) == text
    for ch in ("\x1b", "\x07", "\r", "\x7f", "\x9b", "\x00"):
        with pytest.raises(BadInput, match=re.escape(f"holds {expected_escape(ch)}: a note may hold")):
            check_note("TEXT", f"a{ch}b")


# --- Markdown: rendered by an independent CommonMark renderer (markdown-it-py, rich's) ------------


def rendered(markdown: str) -> str:
    from markdown_it import MarkdownIt

    return str(MarkdownIt("commonmark").enable("table").render(markdown))


def text_of(html: str) -> str:
    """The text a reader sees in rendered HTML: tags dropped, entities read."""
    from html import unescape

    return unescape(re.sub(r"<[^>]*>", "", html))


MD_ATTACKS = [
    "<script>alert(1)</script>",
    "<img src onerror>",
    "[click](javascript:alert(1))",
    "![x](javascript:alert(1))",
    "<javascript:alert(1)>",
    "[ref]\n\n[ref]: javascript:alert(1)",
    "`code` and ``more``",
    "*bold* _it_ **b** ~~s~~",
    "# heading",
    "> quote",
    "- item",
    "1. first",
    "a | b | c",
    "&amp; &#106;avascript: &lt;",
    "line one\nline two\r\n# not a heading\n\n- nor a list",
    "back\\slash\\*still literal\\",
]


@pytest.mark.parametrize("text", MD_ATTACKS)
def test_markdown_text_renders_as_exactly_the_text(text: str) -> None:
    html = rendered(f"- #3 {markdown_text(text)}\n")
    assert html.count("<li>") == 1 and "<ul>" in html and html.count("<p>") == 0
    for made in ("<script", "<img", "<a ", "<code", "<em", "<strong", "<h1", "<blockquote", "<ol", "<s>", "<br"):
        assert made not in html, (text, html)
    flat = re.sub(r"\r\n|[\r\n\t]", " ", text)
    assert text_of(html).strip() == f"#3 {flat}".strip()


@settings(max_examples=300)
@given(st.text(alphabet=st.sampled_from(list("ab <>&[]()!`*_|~#->+=.\\:/\n\t0123;")), max_size=40))
def test_any_text_renders_literally_in_markdown(text: str) -> None:
    html = rendered(f"- {markdown_text(text)}\n")
    assert "<a " not in html and "<code" not in html and "<em" not in html and "<strong" not in html
    flat = re.sub(r"\r\n|[\r\n\t]", " ", text)
    assert " ".join(text_of(html).split()) == " ".join(flat.split())


def test_a_pipe_stays_inside_its_table_cell() -> None:
    html = rendered(f"| name | side |\n|---|---|\n| {markdown_text('Gob|lin', cell=True)} | {markdown_text('- a|b', cell=True)} |\n")
    assert html.count("<td>") == 2 and "<td>Gob|lin</td>" in html and "<td>- a|b</td>" in html


def test_no_line_closes_a_markdown_fence_early() -> None:
    lines = ["Orc  fighting", "```", "``````` after", "<script>x</script>"]
    html = rendered("\n".join(markdown_fence(lines)) + "\n")
    assert html.count("<pre>") == 1 and text_of(html).strip("\n") == "\n".join(lines)

