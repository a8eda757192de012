"""Free text a user typed or a file brought (eventlog/text.py): refused at input where it cannot
be a name, shown escaped on a terminal, literal in Markdown. The attacks of issue 13 (items 5
and 6), reproduced: a window title set, the screen cleared, a forged log line, a script tag
and a javascript: link in a report."""

from __future__ import annotations

import json
import re
import unicodedata
from functools import partial
from pathlib import Path

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

from support.cli import Cli
from support.examples import examples
from support.fight import cli_fight

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


def test_json_safe_writes_a_hidden_character_past_u_ffff_as_its_surrogate_pair() -> None:
    # U+E0001 LANGUAGE TAG (a format character): 0xE0001 - 0x10000 = 0xD0001, whose top ten
    # bits 0x340 give 0xD800 + 0x340 = 0xDB40 and low ten bits 0x001 give 0xDC01 (RFC 8259, 7).
    assert json_safe('"a\U000E0001b"') == '"a\\udb40\\udc01b"'
    # U+1D173 MUSICAL SYMBOL BEGIN BEAM: 0xD173 -> 0xD800 + 0x34 = 0xD834, 0xDC00 + 0x173 = 0xDD73.
    assert json_safe('["\U0001D173"]') == '["\\ud834\\udd73"]'
    assert json.loads(json_safe('"\U000E0001"')) == "\U000E0001"


def test_clip_and_quoted_keep_a_text_of_exactly_the_limit_whole() -> None:
    assert clip("A" * 80) == "A" * 80 and quoted("A" * 80) == repr("A" * 80)
    assert clip("A" * 81) == "A" * 80 + "… (81 characters)"
    assert quoted("A" * 81) == repr("A" * 80) + "… (81 characters)"


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


# --- Markdown: rendered by independent renderers, CommonMark and GitHub's (wikis) ----------------


def _commonmark(markdown: str) -> str:
    from markdown_it import MarkdownIt

    return str(MarkdownIt("commonmark").enable("table").render(markdown))


def _github(markdown: str) -> str:
    """GitHub's own renderer (cmark-gfm, every extension): strikethrough, autolinks, tasks."""
    import cmarkgfm
    from cmarkgfm.cmark import Options

    return str(cmarkgfm.github_flavored_markdown_to_html(
        markdown, options=Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_FOOTNOTES))


RENDERERS = {"commonmark": _commonmark, "github": _github}


def rendered(markdown: str) -> str:
    return _commonmark(markdown)


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
    "*bold* _it_ **b** ~~s~~ ~one~",
    "www.example.com and https://example.com/x",
    "[ ] task [x] done",
    "# heading",
    "> quote",
    "- item",
    "1. first",
    "a | b | c",
    "&amp; &#106;avascript: &lt;",
    "line one\nline two\r\n# not a heading\n\n- nor a list",
    "back\\slash\\*still literal\\",
]


@pytest.mark.parametrize("renderer", RENDERERS)
@pytest.mark.parametrize("text", MD_ATTACKS)
def test_markdown_text_renders_as_exactly_the_text(text: str, renderer: str) -> None:
    html = RENDERERS[renderer](f"- #3 {markdown_text(text)}\n")
    assert html.count("<li>") == 1 and "<ul>" in html and html.count("<p>") == 0
    made_by_markup = ("<script", "<img", "<a ", "<code", "<em", "<strong", "<h1", "<blockquote", "<ol",
                      "<s>", "<del", "<br", "<input")
    for made in made_by_markup:
        assert made not in html, (text, html)
    flat = re.sub(r"\r\n|[\r\n\t]", " ", text)
    assert text_of(html).strip() == f"#3 {flat}".strip()


@settings(max_examples=examples(300))
@given(st.text(alphabet=st.sampled_from(list("ab <>&[]()!`*_|~#->+=.\\:/\n\t0123;")), max_size=40))
def test_any_text_renders_literally_in_markdown(text: str) -> None:
    html = rendered(f"- {markdown_text(text)}\n")
    assert "<a " not in html and "<code" not in html and "<em" not in html and "<strong" not in html
    flat = re.sub(r"\r\n|[\r\n\t]", " ", text)
    assert " ".join(text_of(html).split()) == " ".join(flat.split())


def test_a_pipe_stays_inside_its_table_cell() -> None:
    html = rendered(f"| name | side |\n|---|---|\n| {markdown_text('Gob|lin', cell=True)} | {markdown_text('- a|b', cell=True)} |\n")
    assert html.count("<td>") == 2 and "<td>Gob|lin</td>" in html and "<td>- a|b</td>" in html


@pytest.mark.parametrize("renderer", RENDERERS)
def test_no_line_closes_a_markdown_fence_early(renderer: str) -> None:
    # A line of backticks alone closes a fence at least as long (CommonMark, Fenced code
    # blocks): the longest run here is 7, so the fence is 8, and no shorter one holds.
    lines = ["Orc  fighting", "```", "``````` after", "```````", "<script>x</script>", "````"]
    fenced = markdown_fence(lines)
    assert fenced[0] == "`" * 8 + "text" and fenced[-1] == "`" * 8
    html = RENDERERS[renderer]("\n".join(fenced) + "\n")
    assert html.count("<pre") == 1 and text_of(html).strip("\n") == "\n".join(lines)


def test_a_fence_is_three_backticks_where_no_line_holds_one() -> None:
    assert markdown_fence(["Orc  fighting", "no ticks"]) == ["```text", "Orc  fighting", "no ticks", "```"]


# --- at the command line: refused where it cannot be a name, escaped wherever it is shown ---------


fight = partial(cli_fight, then=[("round", "--roll", "Hauser=6,8", "--roll", "Orc=5,5")])


def log_size(cli: Cli) -> int:
    return len(cli.ok("log", "--all", "--json").splitlines())


LABEL = "names, kinds and labels are one line of printable text (no control, bidi or zero-width characters)"
TYPED = [
    (("note", "1", "evil\x1b]0;pwned\x07"),
     "TEXT 'evil\\x1b]0;pwned\\x07' holds \\x1b: a note may hold line breaks and tabs, no other control character"),
    (("effect", "Orc", "bleed\x1b[31m", "--custom", "--rounds", "2"), f"KIND 'bleed\\x1b[31m' holds \\x1b: {LABEL}"),
    (("declare", "Hauser", "melee-attack", "--ap", "3", "--trigger", "x\x1b[2Jy"),
     f"--trigger 'x\\x1b[2Jy' holds \\x1b: {LABEL}"),
    (("declare", "Hauser", "melee\u200b-attack", "--ap", "3"), f"ACTION 'melee\\u200b-attack' holds \\u200b: {LABEL}"),
    # A name looked up (WHO, --target, --roll's) is refused where it is looked up, quoted escaped.
    (("declare", "Hauser", "melee-attack", "--ap", "3", "--target", "Orc\u202e"),
     "no combatant named 'Orc\\u202e' (did you mean Orc?)"),
    (("resolve", "Hauser", "--outcome", "hit\x07"), f"--outcome 'hit\\x07' holds \\x07: {LABEL}"),
    (("leave", "Orc", "--reason", "flees\nforged"), f"--reason 'flees\\nforged' holds \\n: {LABEL}"),
    (("next", "--with", "cover=\ufeffheavy"), f"--with cover= '\\ufeffheavy' holds \\ufeff: {LABEL}"),
    (("add", "Gob", "--stat", "qu=1\x1b", "--stat", "hits=3"), f"--stat qu= '1\\x1b' holds \\x1b: {LABEL}"),
    (("add", "Gob", "--side", "foes\u2066", "--stat", "qu=1", "--stat", "hits=3"),
     f"--side 'foes\\u2066' holds \\u2066: {LABEL}"),
    (("add", "Gob\x1b[2J", "--stat", "qu=1", "--stat", "hits=3"), "'Gob\\x1b[2J' cannot be a combatant's name"),
    (("branch", "what\x1bif"), "'what\\x1bif' cannot be a branch's name"),
]


@pytest.mark.parametrize(("args", "error"), TYPED, ids=[a[0] + " " + e.split(" ")[0] for a, e in TYPED])
def test_control_characters_typed_into_a_name_kind_or_label_are_refused_naming_the_field(
    cli: Cli, args: tuple[str, ...], error: str
) -> None:
    fight(cli)
    before = log_size(cli)
    assert cli.fails(*args).startswith(f"Error: {error}")
    assert log_size(cli) == before


def test_a_note_with_line_breaks_and_bidi_marks_is_one_line_wherever_it_is_shown(cli: Cli) -> None:
    fight(cli)
    text = "first line\n#99   Orc is dead\u202e (forged)\tend"
    shown = "first line\\n#99   Orc is dead\\u202e (forged)\\tend"
    out = cli.ok("note", "2", text)
    assert out.splitlines() == [f"#{out.split()[0][1:]} Note on #2: {shown}"]
    for args in (("log",), ("log", "--all"), ("replay",), ("explain", "2")):
        printed = cli.ok(*args)
        assert hidden_in(printed) == [], args
        assert shown in printed and not any(line.startswith("#99") for line in printed.splitlines()), args
    notes = [json.loads(line) for line in cli.ok("log", "--json").splitlines() if '"note-added"' in line]
    assert notes[0]["text"] == text  # the data, unchanged, in the JSON a script reads


EVIL = "Gob\x1b]0;pwned\x07\u202e\nFORGED #99 line"
EVIL_SHOWN = "Gob\\x1b]0;pwned\\x07\\u202e\\nFORGED #99 line"


def plant_hostile_log(db: str) -> None:
    """What an older skirmish, a hand-made export or another tool could have stored: an
    encounter, a combatant, its side, a note, a command and a branch holding terminal controls."""
    from skirmish.eventlog.commands import AddCombatant as Add
    from skirmish.eventlog.commands import command_encoder
    from skirmish.eventlog.events import (
        CombatantAdded,
        EncounterStarted,
        NoteAdded,
        tag_of,
    )
    from skirmish.eventlog.store import NewEvent, Store
    from skirmish.projections.write.engine import Encounter, codec_for

    codec = codec_for("ap-countdown")
    options = {"initiative": "each-round", "carry-ap": "no", "goes-down": "at-0", "pace-penalty": "worst"}
    started = EncounterStarted(name="Ambush\x1b[2J", ruleset="ap-countdown", options=options, seed=3)
    store = Store(db)
    try:
        body = codec.encode(started)
        store.create_encounter("Ambush\x1b[2J", "ap-countdown", "new ambush", body,
                               NewEvent(tag_of(EncounterStarted), 1, body))
        enc = Encounter.open(store)
        for event, text in (
            (CombatantAdded(name="Hauser", side="players", stats={"qu": 1, "hits": 40, "penalty": 0}), "add Hauser"),
            (CombatantAdded(name=EVIL, side="foes\x1b[8m", stats={"qu": 0, "hits": 30, "penalty": 0}), f"add {EVIL}"),
            (NoteAdded(about=1, text=EVIL), f"note 1 {EVIL}"),
        ):
            added = Add(name=EVIL)
            store.append(enc.row.id, enc.head(), text, command_encoder.encode(added),
                         [NewEvent(tag_of(type(event)), 1, codec.encode(event))])
        store.move(enc.row.id, None, f"what-if{EVIL}", [2], "fork", f"branch {EVIL}", b'{"type":"move-head","verb":"branch"}')
    finally:
        store.close()


def test_names_stored_or_imported_with_controls_are_shown_escaped_everywhere(cli: Cli, tmp_path: Path) -> None:
    plant_hostile_log(cli.db)
    cli.ok("round", "--roll", "Hauser=6,8", "--roll", f"{EVIL}=5,5")  # a name that is there, typed back
    cli.ok("damage", EVIL, "4")
    exported = tmp_path / "hostile.jsonl"
    cli.ok("export", "--out", str(exported))
    assert hidden_in(exported.read_text(encoding="utf-8")) == []  # a file someone cats, the same JSON
    assert hidden_in(cli.ok("export")) == []
    imported = Cli(str(tmp_path / "imported.db"), cli.capsys)
    assert "Imported 'Ambush\\x1b[2J'" in imported.ok("import", str(exported))
    for reader in (cli, imported):
        for args in (
            ("log",), ("log", "--all"), ("state",), ("state", "--wide"), ("replay",), ("explain", "3"),
            ("explain", "4"), ("why", EVIL), ("branches",), ("encounters",), ("diff", "main", f"what-if{EVIL}"),
            ("verify",), ("export", "--format", "md"), ("undo",), ("redo",),
        ):
            printed = reader.ok(*args) + reader.err
            assert hidden_in(printed) == [], (args, printed)
            assert not any(line.startswith("FORGED") for line in printed.splitlines()), args
        assert EVIL_SHOWN in reader.ok("log")
        for args in (("state", "--json"), ("log", "--all", "--json"), ("explain", "3", "--json"),
                     ("branches", "--json"), ("encounters", "--json"), ("why", EVIL, "--json")):
            printed = reader.ok(*args)
            assert hidden_in(printed) == [], args
        names = [c["name"] for c in json.loads(reader.ok("state", "--json"))["combatants"]]
        assert EVIL in names  # scripts read the data as it is
    assert cli.fails("declare", "Nobody\x1b[2J", "dodge") == "Error: no combatant named 'Nobody\\x1b[2J' (combatants: Hauser, " + EVIL_SHOWN + ")"


def test_the_markdown_report_shows_user_text_as_written_and_nothing_else(cli: Cli) -> None:
    """Issue 13, item 5: names, sides, notes, effect kinds, triggers, outcomes and the
    encounter's name, typed at the table, rendered by an independent CommonMark renderer."""
    cli.ok("new", "<b>Bridge</b> [x](javascript:alert(1))", "--rules", "ap-countdown", "--seed", "5")
    cli.ok("add", "<img src onerror>", "--side", "*foes*", "--stat", "qu=1", "--stat", "hits=40")
    cli.ok("add", "[Orc](javascript:alert(1))", "--side", "# heading", "--stat", "qu=0", "--stat", "hits=30")
    cli.ok("round", "--roll", "<img src onerror>=6,8", "--roll", "[Orc](javascript:alert(1))=5,5")
    cli.ok("declare", "<img src onerror>", "melee-attack", "--ap", "3",
           "--target", "[Orc](javascript:alert(1))", "--trigger", "![x](javascript:alert(1)) `go`")
    cli.ok("effect", "[Orc](javascript:alert(1))", "<i>cursed</i> | _x_", "--custom", "--rounds", "2")
    note = "<script>alert(1)</script>\n# heading\n> quote\n- item ![x](javascript:alert(1)) `code` | pipe &amp;"
    cli.ok("note", "2", note)
    md = cli.ok("export", "--format", "md")
    html = rendered(md)
    for made in ("<script", "<img", "<i>", "<b>", "<a ", "<blockquote", "<strong", "<ol"):
        assert made not in html, made
    assert html.count("<em>") == md.count("- *Note #")  # the report's own emphasis, no other
    assert html.count("<h1>") == 1
    assert html.count("<h2>") == sum(line.startswith("## ") for line in md.splitlines())
    assert html.count("<table>") == 2  # combatants, and the vital figure over rounds
    seen = " ".join(text_of(html).split())
    assert " ".join(note.split()) in seen  # the note, whole, on one line
    assert "<i>cursed</i> | _x_" in seen and "*foes*" in seen and "# heading" in seen
    assert "<b>Bridge</b> [x](javascript:alert(1)): session report" in seen


def test_shell_completion_leaves_out_a_name_holding_a_control() -> None:
    from skirmish.cli.complete import _matching

    assert _matching(["Orc", EVIL, "Gob", "Ogre\u202e"], "") == ["Orc", "Gob"]
