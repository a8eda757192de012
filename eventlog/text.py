"""One policy for free text a user typed or a file brought: what input takes, and how it is shown.

Free text is every string that reaches skirmish from outside: names, sides, branches,
effect kinds, actions, triggers, outcomes, `--with`, `--roll`, `--stat` and `--option`
words, notes, and whatever an imported file holds. Three rules:

- At input (:func:`check_label`, :func:`check_note`): a name, a kind, a label or a
  detail is one line of printable text; a note may hold line breaks and tabs. Anything
  else a terminal would act on is refused in one line naming the field.
- On a terminal (:func:`escape_controls`): what Unicode calls a control, a format
  character (bidi overrides and isolates, zero-width characters, the byte-order mark),
  a line or paragraph separator, or a lone surrogate is shown as a visible escape
  (``\\x1b``, ``\\n``, ``\\u202e``), never sent as is. This holds for text stored before
  the input rules, or brought in by `import`: the rule is applied where text is shown,
  not trusted from where it came. Backslashes are left as they are, so the escape is
  idempotent: a line escaped twice (a description inside a log line) reads the same.
- In Markdown (:func:`markdown_text`, :func:`markdown_fence`): text is flattened to one
  line and shown literally: no HTML, entity, link, image, emphasis, code span, table
  cell break or block marker can come from it.

Error lines quote input through :func:`quoted`, cut to a sane length.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from skirmish.eventlog.errors import BadInput

# Control (C0, DEL, C1), format (bidi marks, overrides and isolates, zero-width
# characters, BOM, tags), surrogate, line and paragraph separator.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_NOTE_BREAKS = frozenset("\n\t")  # what a note may hold beyond one line of printable text
_JSON_WHITESPACE = frozenset("\n\r\t")  # never raw inside a JSON string: JSON escapes them there
QUOTE_LIMIT = 80  # characters of an input an error line quotes


def is_hidden(ch: str) -> bool:
    """Whether a terminal would act on ``ch`` or hide it, rather than show it."""
    return unicodedata.category(ch) in _HIDDEN_CATEGORIES


def _escape(ch: str) -> str:
    short = _SHORT.get(ch)
    if short is not None:
        return short
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def escape_controls(text: str) -> str:
    """``text`` safe to print on a terminal: each control, format, separator or surrogate
    character as a visible escape (``\\x1b``, ``\\u202e``), everything else as it is."""
    if text.isprintable():  # the common case, in C: no character of those categories
        return text
    return "".join(_escape(ch) if is_hidden(ch) else ch for ch in text)


def json_safe(document: str) -> str:
    """A JSON document with every character :func:`escape_controls` would escape written as
    a ``\\uXXXX`` escape: the same JSON to a parser, and nothing a terminal acts on. Such
    characters occur only inside JSON strings, where the escape means the same; the line
    breaks and tabs between values (an indented document) are JSON's own, and stay."""
    if document.isprintable():
        return document

    def escaped(ch: str) -> str:
        if ch in _JSON_WHITESPACE or not is_hidden(ch):
            return ch
        code = ord(ch)
        if code < 0x10000:
            return f"\\u{code:04x}"
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"

    return "".join(escaped(ch) for ch in document)


def clip(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was: 'AAA… (50,000 characters)'."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


def quoted(text: str, limit: int = QUOTE_LIMIT) -> str:
    """An input as an error line quotes it: repr (so escaped), cut to ``limit`` characters."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text):,} characters)"


def check_label(field: str, text: str) -> str:
    """Refuse a name, kind, label or detail that is not one line of printable text."""
    found = None if text.isprintable() else next((ch for ch in text if is_hidden(ch)), None)
    if found is not None:
        raise BadInput(
            f"{field} {quoted(text)} holds {_escape(found)}: names, kinds and labels are one line "
            "of printable text (no control, bidi or zero-width characters)"
        )
    return text


def check_note(field: str, text: str) -> str:
    """Refuse a note holding a control character other than a line break or a tab (format
    characters, e.g. the joiner inside an emoji or a right-to-left mark, are taken, and
    shown escaped on a terminal)."""
    found = None if text.isprintable() else next(
        (ch for ch in text if ch not in _NOTE_BREAKS and unicodedata.category(ch) in ("Cc", "Cs")), None
    )
    if found is not None:
        raise BadInput(
            f"{field} {quoted(text)} holds {_escape(found)}: a note may hold line breaks and tabs, "
            "no other control character"
        )
    return text


# --- Markdown ---------------------------------------------------------------------------------

# Backslash first (so an escape the user typed cannot pair with one added here), then what
# opens emphasis, code, a link or image, a table cell or strikethrough anywhere in a line.
# `(`, `)` and `!` need nothing once both brackets are escaped: no link or image can open
# without `[`, no autolink or HTML without `<`, and an escaped `(` reads badly in every
# description, "(2 rounds)". `&` and `<` become entities, so no tag and no entity survives.
_MD_INLINE = {"\\": "\\\\", "`": "\\`", "*": "\\*", "_": "\\_", "[": "\\[", "]": "\\]", "|": "\\|",
              "~": "\\~", "&": "&amp;", "<": "&lt;"}
_MD_INLINE_RE = re.compile("[" + re.escape("".join(_MD_INLINE)) + "]")
# GitHub-flavoured Markdown (a wiki's) links bare text too: `www.` after a non-word
# character and `scheme://` anywhere. A backslash before the dot or the colon stops both
# (cmark-gfm's matcher never sees `www.` or `://` whole) and renders as the dot or colon.
# An e-mail address is still linked there (mailto:): no escape stops that, and it runs nothing.
_MD_AUTOLINK = re.compile(r"(?<![0-9A-Za-z])(www)\.|:(?=//)", re.IGNORECASE)
# What starts a block where the text starts a line: a heading, a quote, a list item (a
# marker then a space), a setext underline or a thematic break (a line of - or =).
_MD_BLOCK_START = re.compile(r"^(?:[#>]|[-+=](?=\s|[-=\s]*$)|\d{1,9}[.)](?=\s|$))")
_BREAKS = re.compile(r"\r\n|[\r\n\t\u2028\u2029\x0b\x0c\x85]")  # and tabs: whitespace, as HTML shows it


def markdown_text(text: str, *, cell: bool = False) -> str:
    """User text as literal inline Markdown on one line: line breaks and tabs flattened to
    spaces (as HTML shows them), other hidden characters escaped as on a terminal, Markdown
    and HTML syntax escaped. Renders as exactly the text, never as a tag, link, image or
    block. ``cell``: the text fills a table cell, where no block can start, so a lone "-"
    stays as it is."""
    flat = escape_controls(_BREAKS.sub(" ", text).strip(" "))
    inline = _MD_INLINE_RE.sub(lambda m: _MD_INLINE[m.group()], flat)
    inline = _MD_AUTOLINK.sub(lambda m: f"{m.group(1)}\\." if m.group(1) else "\\:", inline)
    if cell:
        return inline
    # The backslash goes before the punctuation that makes the block: "1\. first".
    return _MD_BLOCK_START.sub(lambda m: m.group()[:-1] + "\\" + m.group()[-1], inline, count=1)


def markdown_fence(lines: Sequence[str], info: str = "text") -> list[str]:
    """``lines`` as a fenced code block whose fence no line can close: longer than any run
    of backticks the lines hold (CommonMark closes a fence only with one as long)."""
    runs = [len(run) for line in lines for run in re.findall("`+", line)]
    fence = "`" * max(3, max(runs, default=0) + 1)
    return [f"{fence}{info}", *(escape_controls(line) for line in lines), fence]
