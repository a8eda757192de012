"""The Markdown report as its reader sees it: user text literal in a GitHub-flavoured wiki,
every line whole however the report is written out, and a branch's last declaration counted
and drawn in every ruleset."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import Cli

from skirmish.projections import report_render

# --- reading what the reader sees ---------------------------------------------------------------


def wikis(markdown: str) -> dict[str, str]:
    """The report as GitHub-flavoured wikis show it, by renderer: GitHub's own (cmark-gfm,
    every GFM extension, footnotes, raw HTML let through as a wiki's sanitizer would judge
    it), and markdown-it-py's gfm-like preset with the footnote and task-list plugins (it
    comes with textual). Their linkify differs (markdown-it-py's also links a bare
    example.com or an e-mail address, GitHub's also links those escaped), so the texts below
    hold only what both link; GitHub strikes through one tilde, markdown-it-py does not."""
    import cmarkgfm
    from cmarkgfm.cmark import Options
    from markdown_it import MarkdownIt
    from mdit_py_plugins.footnote import footnote_plugin
    from mdit_py_plugins.tasklists import tasklists_plugin

    github = cmarkgfm.github_flavored_markdown_to_html(
        markdown, options=Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_FOOTNOTES)
    markdown_it = MarkdownIt("gfm-like").use(footnote_plugin).use(tasklists_plugin).render(markdown)
    return {"cmark-gfm": str(github), "markdown-it-py": str(markdown_it)}


@dataclass
class Page:
    """The text of each heading, list item (its own text, not its nested list's) and table
    cell of rendered HTML, and every tag that was made."""

    headings: list[str] = field(default_factory=list)
    items: list[str] = field(default_factory=list)
    tables: list[list[list[str]]] = field(default_factory=list)  # table -> row -> cell text
    tags: set[str] = field(default_factory=set)


class _Reader(HTMLParser):
    COLLECTS = {"h1", "h2", "li", "td", "th"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()
        self.open: list[tuple[str, list[str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.page.tags.add(tag)
        if tag == "table":
            self.page.tables.append([])
        elif tag == "tr":
            self.page.tables[-1].append([])
        if tag in self.COLLECTS:
            self.open.append((tag, []))

    def handle_endtag(self, tag: str) -> None:
        if tag not in self.COLLECTS:
            return
        opened, parts = self.open.pop()
        assert opened == tag, (opened, tag)
        text = "".join(parts).strip()
        if tag in ("h1", "h2"):
            self.page.headings.append(text)
        elif tag == "li":
            self.page.items.append(text)
        else:
            self.page.tables[-1][-1].append(text)

    def handle_data(self, data: str) -> None:
        if self.open:  # the innermost element only: a list item's nested notes are their own items
            self.open[-1][1].append(data)


def read(html: str) -> Page:
    reader = _Reader()
    reader.feed(html)
    reader.close()
    return reader.page


def play(cli: Cli, script: list[str]) -> list[str]:
    """Run each command line; return the event lines the table saw ("#5 Hauser declares ...")."""
    printed: list[str] = []
    for line in script:
        printed += [out for out in cli.ok(*shlex.split(line)).splitlines() if re.match(r"#\d+ ", out)]
    return printed


# --- slip: user text struck through or linked in a GitHub-flavoured wiki ------------------------

# What GitHub-flavoured Markdown makes of bare text and CommonMark does not: strikethrough
# (two tildes or one), www. and scheme:// autolinks, task-list boxes, footnotes, table cells.
GFM_ONLY = [
    "~~struck~~",
    "~one~ tilde",
    "www.example.com",
    "see https://example.com/x",
    "http://example.org/a and ftp://example.org/f",
    "[ ] to do",
    "[x] done",
    "a[^1] [^1]: the footnote",
    "left | right",
]


@pytest.mark.parametrize("text", GFM_ONLY)
def test_gfm_syntax_typed_at_the_table_is_shown_literally_in_a_wiki(cli: Cli, text: str) -> None:
    """The encounter, a combatant, its side, an effect, a trigger and a note,
    all typed as ``text``: each reads in the wiki as typed, nothing struck through, linked,
    ticked or footnoted, no table cell split."""
    q = shlex.quote(text)
    seen = play(cli, [
        f"new {shlex.quote(text + ' at the bridge')} --rules ap-countdown --seed 5",
        "add Hauser --side players --stat qu=1 --stat hits=40",
        f"add {q} --side {q} --stat qu=0 --stat hits=30",
        f"round --roll Hauser=6,8 --roll {shlex.quote(text + '=5,5')}",
        f"declare Hauser melee-attack --ap 3 --target {q} --trigger {q}",
        f"effect {q} {q} --custom --rounds 2",
        f"note 2 {q}",
    ])
    note = int(seen[-1].split()[0][1:])
    for renderer, html in wikis(cli.ok("export", "--format", "md")).items():
        page = read(html)
        for made in ("s", "del", "a", "input", "sup", "section"):
            assert made not in page.tags, (renderer, made, html)
        assert page.headings[0] == f"{text} at the bridge: session report", renderer
        # The combatants and the vital figure over rounds, and no other table: each row as
        # many cells as its header.
        combatants, vital = page.tables
        assert all(len(row) == 7 for row in combatants) and all(len(row) == 3 for row in vital), renderer
        assert combatants[2][:2] == [text, text] and vital[2][0] == text, renderer
        # Every event line the table saw reads the same in the wiki; the note under its
        # event and in the list of notes.
        for line in seen:
            assert line in page.items, (renderer, line, page.items)
        assert f"Note #{note}: {text}" in page.items, renderer
        assert f"on #2: {text} (note #{note})" in page.items, renderer
