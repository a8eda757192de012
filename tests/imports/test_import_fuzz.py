"""Malformed and hostile stat block files, fuzzed: one BadInput naming the entry and the field, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skirmish.eventlog.errors import BadInput
from skirmish.projections.write.imports import read

from support.examples import examples

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "imports"
NAMES = sorted(p.name for p in FIXTURES.glob("*.json"))

hostile = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=40),
    st.sampled_from(["\x1b[2J", "a\u202eb", "x" * 300, "=x", "-rf", "123", "4d7", "(99d99)", "\x00"]),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)


def _paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [at] if at else []
    if isinstance(value, dict):
        for k, v in value.items():
            found += _paths(v, (*at, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += _paths(v, (*at, i))
    return found


def _put(value: Any, at: tuple[Any, ...], new: Any) -> Any:
    if not at:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[at[0]] = _put(value[at[0]], at[1:], new)  # type: ignore[index]
    return copy


def _open(name: str) -> Any:
    data = json.loads((FIXTURES / name).read_text())
    key = "ImprovedInitiative.AutoSavedEncounters.default"
    if isinstance(data, dict) and key in data:  # the fight in progress is JSON text inside: fuzz it opened
        data[key] = json.loads(data[key])
    return data


@settings(max_examples=examples(300))
@given(name=st.sampled_from(NAMES), pick=st.integers(min_value=0), new=hostile)
def test_a_field_replaced_by_anything_reads_or_is_one_clear_error(
    tmp_path_factory: Any, name: str, pick: int, new: Any
) -> None:
    data = _open(name)
    paths = _paths(data)
    at = paths[pick % len(paths)]
    broken = _put(data, at, new)
    path = tmp_path_factory.mktemp("fuzz") / name
    path.write_text(json.dumps(broken))
    try:
        read(path)
    except BadInput as e:
        message = str(e)
        assert "\n" not in message and len(message) < 600
        assert "entry" in message or "file" in message or "export" in message


@settings(max_examples=examples(100))
@given(raw=st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_any_bytes_after_a_brace_are_read_or_one_clear_error(tmp_path_factory: Any, raw: bytes) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "x.json"
    path.write_bytes(b"{" + raw)
    try:
        read(path)
    except BadInput as e:
        assert "\n" not in str(e)


def test_deep_nesting_and_huge_numbers_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    try:
        read(path)
    except BadInput as e:
        assert "nests too deep" in str(e) or "no format" in str(e)
    path.write_text('[{"index": "a", "name": "A", "hit_points": ' + "9" * 5000 + "}]")
    try:
        read(path)
    except BadInput as e:
        assert "not valid JSON" in str(e)
    path.write_text('[{"index": "a", "name": "A", "hit_points": NaN}]')
    try:
        read(path)
        raise AssertionError("NaN read as hit points")
    except BadInput as e:
        assert "not valid JSON" in str(e)


# A fight set up in a ruleset that cannot take up a round under way, and one taken up where its
# table stopped (srd-5.2's `resume` after the carries): each with the stats its stat blocks lack.
SET_UPS = [("improved-initiative.json", "modular", ("--stat", "agility=10", "--stat", "dodge=5")),
           ("improved-initiative-round-2.json", "srd-5.2", ())]


@pytest.mark.parametrize(("name", "rules", "stats"), SET_UPS, ids=[r for _, r, _ in SET_UPS])
@settings(max_examples=examples(80), deadline=None)
@given(pick=st.integers(min_value=0), new=hostile)
def test_a_broken_saved_fight_sets_up_whole_or_records_nothing(
    tmp_path_factory: Any, name: str, rules: str, stats: tuple[str, ...], pick: int, new: Any
) -> None:
    """`new --from` a fuzzed Improved Initiative export: either the whole fight, or one Error
    line and no encounter in the file."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from skirmish.cli.main import run_cli

    data = _open(name)
    paths = _paths(data)
    broken = _put(data, paths[pick % len(paths)], new)
    where = tmp_path_factory.mktemp("fuzz")
    path, db = where / "ii.json", str(where / "f.db")
    path.write_text(json.dumps(broken))
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert run_cli(["--db", db, "new", "Before", "--rules", rules]) == 0
        code = run_cli(["--db", db, "new", "Bog", "--rules", rules, "--from", str(path), *stats])
        listed = io.StringIO()
    with redirect_stdout(listed):
        run_cli(["--db", db, "encounters"])
    if code == 0:
        assert "Bog" in listed.getvalue()
    else:
        lines = err.getvalue().strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: "), err.getvalue()
        assert "Bog" not in listed.getvalue()
