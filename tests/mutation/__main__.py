"""Mutation testing of skirmish's user-facing modules with cosmic-ray: `python -m tests.mutation [SCOPE ...]`.

Each scope of scopes.toml: its modules mutated one slip at a time, in place (the editable
install imports them from this tree), its test files run against each mutant, and the
score printed: killed, survived (each survivor's diff), timeout. Installs nothing: it needs
`pip install -e '.[mutation]'`. Sessions are cosmic-ray's own databases under
tests/mutation/sessions/, so `cr-report` and `cr-html` read them too.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.mutation.scopes import ROOT, Config, Scope, load, left_out, module_name

SESSIONS = Path(__file__).resolve().with_name("sessions")
PROGRESS_EVERY = 60.0  # seconds between progress lines of a long scope


class Refused(Exception):
    """The run cannot start (or go on) as asked: one line says why and what to do."""


@dataclass(frozen=True)
class Score:
    killed: int
    survived: int
    timeout: int
    incompetent: int
    skipped: int
    pending: int

    @property
    def tested(self) -> int:
        return self.killed + self.survived + self.timeout

    def line(self) -> str:
        rate = f"{100 * (self.killed + self.timeout) / self.tested:.0f}% caught" if self.tested else "none tested"
        return (f"{self.killed} killed, {self.survived} survived, {self.timeout} timeout, "
                f"{self.incompetent} incompetent ({rate}; {self.skipped} skipped, {self.pending} pending)")


def _cosmic_ray(module: str) -> Any:
    """A module of cosmic-ray, imported on use (`--list` runs without it; it ships no types)."""
    return importlib.import_module(f"cosmic_ray.{module}")


def _need_cosmic_ray(config: Config) -> None:
    if importlib.util.find_spec("cosmic_ray") is None:
        raise Refused("cosmic-ray is not installed here: .venv/bin/pip install -e '.[mutation]'")
    # A pattern left behind by an operator renamed in a new cosmic-ray would keep nothing
    # without a word: refused before any mutant is made.
    from cosmic_ray.plugins import operator_names  # type: ignore[import-not-found,unused-ignore]  # the mutation extra

    names = list(operator_names())
    stale = [p.pattern for p in config.keep_operators if not any(p.fullmatch(n) for n in names)]
    if stale:
        raise Refused(f"scopes.toml keeps operators this cosmic-ray does not have: {', '.join(stale)}")


def _check_imported_from_here(scope: Scope) -> None:
    # The mutants are written into this tree: the tests must import these very files. An
    # environment installed from another checkout (or not editable) would run every test
    # against the unmutated code, and every mutant would survive.
    for path in scope.modules:
        spec = importlib.util.find_spec(module_name(path))
        origin = Path(spec.origin).resolve() if spec and spec.origin else None
        if origin != (ROOT / path).resolve():
            raise Refused(f"{module_name(path)} is imported from {origin}, not {ROOT / path}: "
                          f"install this checkout editable (pip install -e '.[mutation]') and run its .venv")


@contextmanager
def _originals_kept(scope: Scope, session: Path) -> Iterator[None]:
    """Copies of the modules beside the session while mutants are written over them, put
    back if a mutant is left (an interrupted cosmic-ray); left on disk only by a kill."""
    keep = session / "originals"
    if keep.exists():
        raise Refused(f"an earlier run of {scope.name} was killed mid-mutant: `git diff` its modules "
                      f"against the copies in {keep}, put back what is yours, then delete {keep}")
    saved = {path: (ROOT / path).read_bytes() for path in scope.modules}
    for path, text in saved.items():
        (keep / path).parent.mkdir(parents=True, exist_ok=True)
        (keep / path).write_bytes(text)
    try:
        yield
    finally:
        for path, text in saved.items():
            if (ROOT / path).read_bytes() != text:
                (ROOT / path).write_bytes(text)
                print(f"  put back {path}: a mutant was still in it", file=sys.stderr)
        shutil.rmtree(keep)


def _write_config(scope: Scope, session: Path) -> Path:
    # cosmic-ray's config for this scope, kept with the session for its own tools.
    toml = importlib.import_module("toml")  # cosmic-ray's dependency, and the format it reads

    config = session / "cosmic-ray.toml"
    config.write_text(toml.dumps({"cosmic-ray": {
        "module-path": list(scope.modules),
        "timeout": scope.timeout,
        "excluded-modules": [],
        "test-command": scope.test_command_line(),
        "distributor": {"name": "local"},
    }}))
    return config


def _changed_lines(ref: str, paths: Sequence[str]) -> dict[str, set[int]]:
    """Lines of each module added or changed since ref: its commits and what is not committed."""
    out = subprocess.run(["git", "diff", "-U0", "--no-color", ref, "--", *paths], cwd=ROOT,
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise Refused(f"git diff {ref}: {out.stderr.strip()}")
    changed: dict[str, set[int]] = {}
    current = ""
    for line in out.stdout.splitlines():
        if line.startswith("+++ "):
            current = line[6:] if line.startswith("+++ b/") else ""
        elif (hunk := re.match(r"@@ -\S+ \+(\d+)(?:,(\d+))? @@", line)) and current:
            start, count = int(hunk[1]), int(hunk[2] or 1)
            changed.setdefault(current, set()).update(range(start, start + count))
    return changed


def _select(db_path: Path, config: Config, changed: dict[str, set[int]] | None, sample: int | None,
            seed: int) -> tuple[int, str]:
    """Mark skipped the mutants this run leaves out; return how many to run, and why the others not."""
    WorkDB, use_db = _cosmic_ray("work_db").WorkDB, _cosmic_ray("work_db").use_db
    WorkerOutcome, WorkResult = _cosmic_ray("work_item").WorkerOutcome, _cosmic_ray("work_item").WorkResult

    with use_db(str(db_path), WorkDB.Mode.open) as db:
        items = sorted(db.pending_work_items, key=lambda i: (str(i.mutations[0].module_path),
                                                              i.mutations[0].start_pos, i.job_id))
        kept = [i for i in items if config.kept(i.mutations[0].operator_name)]
        why = f"{len(items)} made, {len(kept)} of the operators kept"
        checks = {path: left_out((ROOT / path).read_text()) for path in {str(i.mutations[0].module_path) for i in kept}}
        kept = [i for i in kept if not checks[str(i.mutations[0].module_path)](
            i.mutations[0].start_pos, i.mutations[0].operator_name)]
        why += f", {len(kept)} outside annotations"
        if changed is not None:
            kept = [i for i in kept if changed.get(str(i.mutations[0].module_path), set()) & set(
                range(i.mutations[0].start_pos[0], i.mutations[0].end_pos[0] + 1))]
            why += f", {len(kept)} on changed lines"
        if sample is not None and sample < len(kept):
            kept = random.Random(seed).sample(kept, sample)
            why += f", a sample of {sample} (seed {seed})"
        chosen = {i.job_id for i in kept}
        others = [i.job_id for i in items if i.job_id not in chosen]
        db.set_multiple_results(others, WorkResult(worker_outcome=WorkerOutcome.SKIPPED,
                                                      output="left out by tests/mutation"))
    return len(chosen), why


def _baseline(scope: Scope) -> float:
    """Run the scope's tests on the unmutated code; their time, or Refused when they fail."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")  # as cosmic-ray runs them
    started = time.monotonic()
    out = subprocess.run(scope.test_command(), cwd=ROOT, env=env, capture_output=True, text=True)
    took = time.monotonic() - started
    if out.returncode != 0:
        tail = "\n".join((out.stdout + out.stderr).splitlines()[-15:])
        raise Refused(f"{scope.name}: its tests fail before any mutation; fix them first:\n{tail}")
    return took


def _score(db_path: Path) -> tuple[Score, list[tuple[Any, Any]]]:
    """The session's counts, and its survivors as (work item, result)."""
    WorkDB, use_db = _cosmic_ray("work_db").WorkDB, _cosmic_ray("work_db").use_db
    TestOutcome, WorkerOutcome = _cosmic_ray("work_item").TestOutcome, _cosmic_ray("work_item").WorkerOutcome

    with use_db(str(db_path), WorkDB.Mode.open) as db:
        total = db.num_work_items
        done = db.completed_work_items
    counts: Counter[str] = Counter()
    survivors = []
    for item, result in done:
        if result.worker_outcome in (WorkerOutcome.SKIPPED, WorkerOutcome.NO_TEST):
            counts["skipped"] += 1
        elif result.test_outcome == TestOutcome.SURVIVED:
            counts["survived"] += 1
            survivors.append((item, result))
        elif result.test_outcome == TestOutcome.KILLED:
            # cosmic-ray counts a test run past its timeout as killed, with this output.
            counts["timeout" if result.output == "timeout" else "killed"] += 1
        else:
            counts["incompetent"] += 1
    survivors.sort(key=lambda s: (str(s[0].mutations[0].module_path), s[0].mutations[0].start_pos))
    return Score(counts["killed"], counts["survived"], counts["timeout"], counts["incompetent"],
                 counts["skipped"], total - len(done)), survivors


def _print_survivors(survivors: list[tuple[Any, Any]]) -> None:
    for item, result in survivors:
        m = item.mutations[0]
        print(f"  survived: {m.module_path}:{m.start_pos[0]} {m.operator_name} (in {m.definition_name})")
        for line in (result.diff or "").splitlines():
            if line.startswith(("-", "+")) and not line.startswith(("---", "+++")):
                print(f"      {line}")


def _execute(scope: Scope, config_path: Path, db_path: Path, to_run: int) -> None:
    """cosmic-ray exec, one mutant after another, with a progress line now and then."""
    started = last = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "cosmic_ray.cli", "exec", str(config_path), str(db_path)],
                            cwd=ROOT)
    try:
        while proc.poll() is None:
            time.sleep(2)
            if time.monotonic() - last >= PROGRESS_EVERY:
                last = time.monotonic()
                score, _ = _score(db_path)
                done = to_run - score.pending
                print(f"  {scope.name}: {done}/{to_run} mutants in {_minutes(last - started)}: {score.line()}",
                      flush=True)
    finally:
        if proc.poll() is None:
            proc.terminate()  # cosmic-ray puts the module back as it unwinds
            proc.wait()
    if proc.returncode != 0:
        raise Refused(f"cosmic-ray exec stopped with exit code {proc.returncode}")


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min" if seconds >= 60 else f"{seconds:.0f} s"


def run_scope(scope: Scope, config: Config, args: argparse.Namespace) -> Score:
    session = args.sessions / scope.name
    session.mkdir(parents=True, exist_ok=True)
    db_path = session / "session.sqlite"
    for missing in scope.missing_tests():
        print(f"warning: {scope.name}: {missing} does not exist (yet): run without it", file=sys.stderr)
    if not scope.present_tests():
        raise Refused(f"{scope.name}: none of its test files exists")
    _check_imported_from_here(scope)
    config_path = _write_config(scope, session)
    started = time.monotonic()
    with _originals_kept(scope, session):
        if not (args.resume and db_path.exists()):
            subprocess.run([sys.executable, "-m", "cosmic_ray.cli", "init", "--force", str(config_path),
                            str(db_path)], cwd=ROOT, check=True)
            changed = _changed_lines(args.changed, scope.modules) if args.changed else None
            to_run, why = _select(db_path, config, changed, args.sample, args.seed)
        else:
            score, _ = _score(db_path)
            to_run, why = score.pending, f"resumed: {score.tested} run before"
        clean = _baseline(scope)
        print(f"{scope.name} ({scope.what}): {to_run} mutants to run ({why}); its tests take "
              f"{clean:.1f} s clean, so at most {_minutes(to_run * clean)} (a killed mutant stops at its "
              f"first failing test), timeout {scope.timeout:.0f} s a mutant", flush=True)
        if clean > scope.timeout / 2:
            print(f"warning: {scope.name}: the clean run takes over half the timeout: raise it in "
                  f"scopes.toml", file=sys.stderr)
        if to_run:
            _execute(scope, config_path, db_path, to_run)
    took = time.monotonic() - started
    score, survivors = _score(db_path)
    _print_survivors(survivors)
    print(f"{scope.name}: {score.line()} in {_minutes(took)}", flush=True)
    (session / "score.json").write_text(json.dumps({
        "scope": scope.name, "modules": list(scope.modules), "tests": list(scope.present_tests()),
        "killed": score.killed, "survived": score.survived, "timeout": score.timeout,
        "incompetent": score.incompetent, "skipped": score.skipped, "pending": score.pending,
        "seconds": round(took), "clean_seconds": round(clean, 1), "commit": _commit(),
        "date": time.strftime("%Y-%m-%d"), "changed": args.changed, "sample": args.sample,
    }, indent=1) + "\n")
    return score


def _commit() -> str:
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "diff", "--quiet", "HEAD"], cwd=ROOT).returncode != 0
    return out.stdout.strip() + ("+changes" if dirty else "")


def report(scope: Scope, args: argparse.Namespace) -> None:
    db_path = args.sessions / scope.name / "session.sqlite"
    if not db_path.exists():
        print(f"{scope.name}: no session yet")
        return
    score, survivors = _score(db_path)
    _print_survivors(survivors)
    print(f"{scope.name}: {score.line()}")


def list_scopes(config: Config) -> None:
    for scope in config.scopes.values():
        print(f"{scope.name}: {scope.what}\n  modules: {' '.join(scope.modules)}\n  timeout: {scope.timeout:.0f} s")
        for test in scope.tests:
            print(f"  test: {test}{'' if (ROOT / test).is_file() else '  (missing: skipped)'}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.mutation", description=__doc__.splitlines()[0])
    parser.add_argument("scopes", nargs="*", help="scopes to run, in order (default: all of them; --list names them)")
    parser.add_argument("--list", action="store_true", help="print each scope's modules and test files, run nothing")
    parser.add_argument("--changed", metavar="REF",
                        help="only mutants on lines changed since REF (git diff REF: commits and edits not committed)")
    parser.add_argument("--sample", type=int, metavar="N", help="a seeded random N of each scope's mutants")
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed (default 0)")
    parser.add_argument("--resume", action="store_true", help="run what the scope's last session left pending")
    parser.add_argument("--report", action="store_true", help="print the last session's score and survivors; run nothing")
    parser.add_argument("--sessions", type=Path, default=SESSIONS, help=f"where sessions are kept (default {SESSIONS})")
    args = parser.parse_args(argv)
    config = load()
    if args.list:
        list_scopes(config)
        return 0
    unknown = [name for name in args.scopes if name not in config.scopes]
    if unknown:
        parser.error(f"unknown scope {', '.join(unknown)}: one of {', '.join(config.scopes)}")
    chosen = [config.scopes[name] for name in args.scopes or config.scopes]
    # A kill (not -9) unwinds like Ctrl-C: cosmic-ray is stopped and the modules put back.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    try:
        if args.report:
            for scope in chosen:
                report(scope, args)
            return 0
        _need_cosmic_ray(config)
        scores = {scope.name: run_scope(scope, config, args) for scope in chosen}
    except Refused as refusal:
        print(f"Error: {refusal}", file=sys.stderr)
        return 2
    if len(scores) > 1:
        for name, score in scores.items():
            print(f"{name}: {score.line()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
