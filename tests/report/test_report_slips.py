"""The Markdown report as its reader sees it: user text literal in a GitHub-flavoured wiki,
every line whole however the report is written out, and a branch's last declaration counted
and drawn in every ruleset."""

from __future__ import annotations

import inspect
import json
import re
import shlex
import shutil
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skirmish.cli.main import run_cli
from skirmish.eventlog.text import markdown_text
from skirmish.projections.report import markdown as report_markdown

from support.cli import Cli
from support.examples import examples

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
    """The text of each heading, paragraph, list item (its own text, not its nested list's)
    and table cell of rendered HTML, and every tag that was made."""

    headings: list[str] = field(default_factory=list)
    paragraphs: list[str] = field(default_factory=list)
    items: list[str] = field(default_factory=list)
    tables: list[list[list[str]]] = field(default_factory=list)  # table -> row -> cell text
    tags: set[str] = field(default_factory=set)


class _Reader(HTMLParser):
    COLLECTS = {"h1", "h2", "p", "li", "td", "th"}

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
        elif tag == "p":
            self.page.paragraphs.append(text)
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
    """The encounter, a combatant, its side, an effect, a trigger, a note and the branch,
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
        f"branch {q}",
        f"switch {q}",
    ])
    note = int(seen[-1].split()[0][1:])
    for renderer, html in wikis(cli.ok("export", "--format", "md")).items():
        page = read(html)
        for made in ("s", "del", "a", "input", "sup", "section"):
            assert made not in page.tags, (renderer, made, html)
        assert page.headings[0] == f"{text} at the bridge: session report", renderer
        assert f"; branch {text} at #{note}; " in page.paragraphs[0], renderer
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


# Pieces of the syntax above, and of CommonMark's, for texts a table could type.
PIECES = [*"w.:/~ |[]^x*_-#>!()<&`\\=+1", "www.", "http://", "https://", "ftp://", "~~", "[ ]", "[^1]", "]:", "&amp;"]


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=12).map("".join))
def test_any_text_reads_as_typed_in_a_wiki_item_and_table_cell(text: str) -> None:
    flat = " ".join(text.split())
    item, cell = f"- #3 {markdown_text(text)}\n", f"| a |\n|---|\n| {markdown_text(text, cell=True)} |\n"
    for renderer, html in [*wikis(item).items(), *wikis(cell).items()]:
        page = read(html)
        assert not page.tags & {"s", "del", "a", "input", "sup", "em", "strong", "code", "img"}, (renderer, html)
        shown = page.items[0] if page.items else page.tables[0][1][0]
        assert " ".join(shown.split()) == (f"#3 {flat}".strip() if page.items else flat), (renderer, html)


# --- slip: two lines run together where the writer starts a new chunk --------------------------

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "bridge-ambush.skirmish"
CHUNK = inspect.signature(report_markdown.markdown_chunks).parameters["every"].default  # lines a chunk
ITEM = re.compile(r"- #\d+ \S.*|  - \*Note #\d+:\* \S.*|- on #\d+: \S.* \(note #\d+\)")


def kind(block: list[str]) -> str:
    """What Markdown block these lines are, read strictly: a line run into another fits none."""
    first = block[0]
    if len(block) == 1 and re.fullmatch(r"#{1,2} \S.*", first):
        return "heading"
    if len(block) == 1 and re.fullmatch(r"[a-z-]+ \(.*\); branch \S+ at #\d+; verify digest [0-9a-f]{64}", first):
        return "subtitle"
    if len(block) == 1 and re.fullmatch(r"(Timeline|Phases) \(.+\):", first):
        return "intro"
    if all(ITEM.fullmatch(line) for line in block):
        return "list"
    if len(block) >= 3 and block[0] == "```text" and block[-1] == "```" and not any(
            line.startswith("`") for line in block[1:-1]):
        return "fence"
    cells = {len(re.split(r"(?<!\\)\|", line)) for line in block}
    rows = [block[0], *block[2:]]
    if len(block) >= 2 and re.fullmatch(r"\|(---\|)+", block[1]) and cells == {block[1].count("|") + 1} \
            and all(re.fullmatch(r"\| .* \|", line) for line in rows):
        return "table"
    raise AssertionError(f"not one Markdown block: {block}")


def unescaped(markdown: str) -> str:
    """Inline Markdown as it reads: backslash escapes and entities taken away."""
    from html import unescape

    return unescape(re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown))


def assert_whole_lines(md: str, cli: Cli) -> None:
    """Every line of the report is the Markdown it should be, and says what `log` and
    `state` say: the branch's events one item each, in order, and the final state whole."""
    assert md.endswith("```\n") and not md.endswith("\n\n")
    blocks: list[list[str]] = [[]]
    for line in md[:-1].split("\n"):
        if line:
            blocks[-1].append(line)
        else:
            assert blocks[-1], "two blank lines in a row"
            blocks.append([])
    kinds = [kind(b) for b in blocks]
    assert kinds[:2] == ["heading", "subtitle"]
    sections: dict[str, list[list[str]]] = {}
    for k, b in zip(kinds[2:], blocks[2:], strict=True):
        if k == "heading":
            assert b[0].startswith("## "), b
            sections[b[0][3:]] = []
        else:
            sections[list(sections)[-1]].append(b)
    state = cli.ok("state").splitlines()
    now = json.loads(cli.ok("state", "--json"))
    rounds = now["clock"]["round"]
    titles = ["Combatants", "Set-up", *(f"Round {n}" for n in range(1, rounds + 1))]
    assert [t for t in sections if not t.endswith(" over rounds") and t not in ("Notes", "Final state")] == titles
    assert list(sections)[-1] == "Final state" and sections["Final state"] == [["```text", *state, "```"]]
    # Each round's lines are the branch's events as `log` lists them, one item each.
    log = [re.sub(r"^#(\d+)\s+", r"#\1 ", line) for line in cli.ok("log", "--limit", "0").splitlines()]
    items = [unescaped(line[2:]) for t in titles[1:] for b in sections[t] for line in b if line.startswith("- #")]
    assert items == log
    fighters = len(now["combatants"])
    (combatants,), (vital,) = sections["Combatants"], next(s for t, s in sections.items() if t.endswith(" over rounds"))
    assert len(combatants) == len(vital) == 2 + fighters  # a header and a rule, a row each
    for t in titles[1:]:
        for b in sections[t]:
            if b[0] == "```text":  # a timeline: a mark under each moment, on every row
                moments = len(re.split(r"\s{2,}", b[1].strip())) - 1
                assert all(len(re.findall(r"(?<=\s)[.=<>*](?=\s|$)", row)) == moments for row in b[2:-1]), b


@pytest.fixture(scope="module")
def ambush(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bridge ambush played once: undone damage, a what-if branch, notes, three rounds."""
    db = tmp_path_factory.mktemp("sample") / "ambush.db"
    assert run_cli(["--db", str(db), "run", str(SAMPLE)]) == 0
    return db


def exports(cli: Cli, out: Path) -> list[str]:
    """The report as printed and as written to a file: both go out a chunk at a time."""
    printed = cli.ok("export", "--format", "md")
    cli.ok("export", "--format", "md", "--out", str(out))
    return [printed, out.read_text(encoding="utf-8")]


@pytest.mark.parametrize("every", [1, 2, 3, 7])
def test_no_two_report_lines_run_together_where_a_chunk_ends(
        ambush: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, every: int) -> None:
    # Chunks of a few lines put a boundary before every kind of line of a short report:
    # a heading, a blank, a table row, an item, a note, a fence, a timeline row.
    shutil.copy(ambush, cli.db)
    whole = report_markdown.markdown_chunks
    monkeypatch.setattr(report_markdown, "markdown_chunks", lambda report: whole(report, every))
    for md in exports(cli, tmp_path / "report.md"):
        assert_whole_lines(md, cli)


@pytest.mark.slow
def test_a_long_fights_report_keeps_every_line_whole_across_its_chunks(cli: Cli, tmp_path: Path) -> None:
    from benchmarks.fight import generate

    store, _ = generate(cli.db, 10_000)  # ~14,000 report lines: three boundaries at the real size
    store.close()
    for md in exports(cli, tmp_path / "report.md"):
        assert md.count("\n") > 3 * CHUNK
        assert_whole_lines(md, cli)


# --- slip: the branch's last declaration left out of the count and the timeline ------------------


@dataclass(frozen=True)
class LastWord:
    """A round whose last event is a declaration, and what the report must show of it."""

    script: list[str]
    declared: dict[str, int]  # actions declared by each combatant: the declare lines of the script
    moments: list[str]  # the round's moments, from the rules text and the dice typed
    bars: list[tuple[str, str]]  # each action of the round and its mark under each moment
    phases: dict[str, list[str]] | None = None  # the phase grid's row of each combatant


# Each ends on an action declared and settled at once (a point, `*`), the one whose bar a
# report that misses the branch's last command has nowhere else to draw from.
LAST_WORDS = {
    # ap-countdown.md, Initiative: 2d10 + Qu, + 5 per AP left (4): Hauser 6 + 8 + 1 = 15 -> 35,
    # Orc 5 + 5 = 10 -> 30. Hauser's attack waits for its count (20), the Orc's too (10),
    # both past the round's end so far (`>`); the parry is announced, not waited for.
    "ap-countdown": LastWord(
        ["add Hauser --side players --stat qu=1 --stat hits=40",
         "add Orc --side foes --stat qu=0 --stat hits=30",
         "round --roll Hauser=6,8 --roll Orc=5,5",
         "declare Hauser melee-attack --ap 3 --target Orc",
         "next",
         "declare Orc melee-attack --ap 4 --target Hauser",
         "declare Orc parry --amount 10 --target Hauser"],
        {"Hauser": 1, "Orc": 2}, ["count 35", "count 30"],
        [("Hauser: melee-attack", "=>"), ("Orc: melee-attack", ".>"), ("Orc: parry", ".*")],
    ),
    # modular.md, Initiative: 1d100 + Agility, greatest first: Hauser 40 + 47 = 87, Orc 35 + 20
    # = 55. An action is taken whole in the actor's turn.
    "modular": LastWord(
        ["add Hauser --side players --stat agility=47 --stat dodge=13 --stat health=30",
         "add Orc --side foes --stat agility=20 --stat dodge=10 --stat health=25",
         "round --roll Hauser=40 --roll Orc=35",
         "declare Hauser skill --target Orc --with skill=sword",
         "next",
         "declare Orc move --amount 10",
         "declare Orc evade"],
        {"Hauser": 1, "Orc": 2}, ["before the first turn", "Hauser's turn", "Orc's turn"],
        [("Hauser: skill", ".*."), ("Orc: move", "..*"), ("Orc: evade", "..*")],
    ),
    # percent-activity.md, Initiative Step: 2d10 + Quickness, highest first: Hauser 6 + 8 + 1
    # = 15, Orc 5 + 5 = 10. Hauser's attack resolved in his turn; the Orc's moves are done as
    # declared.
    "percent-activity": LastWord(
        ["add Hauser --side players --stat qu=1 --stat hits=40",
         "add Orc --side foes --stat qu=0 --stat hits=30",
         "round --roll Hauser=6,8 --roll Orc=5,5",
         "declare Hauser melee-attack --percent 80 --target Orc",
         "resolve Hauser --outcome hit --hits 12",
         "next",
         "declare Orc move --percent 30",
         "declare Orc move --percent 20"],
        {"Hauser": 1, "Orc": 2}, ["Hauser's turn", "Orc's turn"],
        [("Hauser: melee-attack", "*."), ("Orc: move", ".*"), ("Orc: move", ".*")],
    ),
    # phases.md, Turn Sequence: phase 6 first, where only initiative 6 acts (no one here);
    # no one acts in phase 5 either; phase 4 calls 4 (Bauer); phase 3 calls 3 (Rook), then 4
    # (Bauer). An action takes its whole phase.
    "phases": LastWord(
        ["add Bauer --side players --stat initiative=4 --stat agility=7 --stat bulk=2",
         "add Rook --side foes --stat initiative=3 --stat agility=5",
         "round",
         "next",
         "declare Bauer fire --target Rook",
         "resolve Bauer --outcome miss",
         "next",
         "declare Rook prone",
         "next",
         "declare Bauer crawl"],
        {"Bauer": 2, "Rook": 1}, ["phase 6, start", "phase 4, call 4", "phase 3, call 3", "phase 3, call 4"],
        [("Bauer: fire", ".*.."), ("Rook: prone", "..*."), ("Bauer: crawl", "...*")],
        {"Bauer": ["-", "fire >; fire !", "crawl >; crawl !"], "Rook": ["-", "-", "prone >; prone !"]},
    ),
    # crisis.md, Turn Order: 3d6 + Intelligence + Speed, highest first: Jack 15 + 1 + 2 = 18,
    # Alpha 9 + 0 + 1 = 10. The attack is rolled as declared and resolved in Jack's turn.
    "crisis": LastWord(
        ["add Jack --side players --stat int=1 --stat speed=2 --stat endurance=10 --stat health=8 "
         "--stat melee=3 --stat might=2",
         "add Alpha --side foes --stat int=0 --stat speed=1 --stat endurance=4 --stat health=4 --stat melee=1",
         "round --roll Jack=5,5,5 --roll Alpha=3,3,3",
         "declare Jack attack --target Alpha --with skill=3 --with ability=2 --roll Jack=2,3,4",
         "resolve Jack --hits 2",
         "next",
         "declare Alpha draw",
         "declare Alpha move"],
        {"Jack": 1, "Alpha": 2}, ["Jack's turn", "Alpha's turn"],
        [("Jack: attack", "*."), ("Alpha: draw", ".*"), ("Alpha: move", ".*")],
    ),
}


def table(lines: list[str]) -> list[list[str]]:
    """A Markdown table's rows (header first, the rule left out), as cell texts."""
    return [[c.strip() for c in line.strip("|").split("|")] for i, line in enumerate(lines) if i != 1]


@pytest.mark.parametrize("ruleset", LAST_WORDS)
def test_the_last_declaration_of_a_branch_is_counted_and_drawn(cli: Cli, ruleset: str) -> None:
    fight = LAST_WORDS[ruleset]
    play(cli, [f"new 'Last word' --rules {ruleset} --seed 1", *fight.script])
    md = cli.ok("export", "--format", "md")
    head, *rows = table(md.split("## Combatants\n\n")[1].split("\n\n")[0].splitlines())
    assert {row[0]: int(row[head.index("actions declared")]) for row in rows} == fight.declared
    round1 = md.split("## Round 1\n\n")[1].split("\n## ")[0]
    timeline = round1.split("```text\n")[1].split("\n```")[0].splitlines()
    assert re.split(r"\s{2,}", timeline[0].strip())[1:] == fight.moments
    drawn = [(" ".join(row.split()[:-len(fight.moments)]), "".join(row.split()[-len(fight.moments):]))
             for row in timeline[1:]]
    assert drawn == fight.bars
    if fight.phases is not None:
        phases, *grid = table(round1.split("Phases (`>` declared, `!` resolved):\n\n")[1].splitlines())
        assert phases == ["combatant", "6", "4", "3"]  # the phases someone acted in, as above
        assert {row[0]: row[1:] for row in grid} == fight.phases
