"""The fast path (cli/fast.py) reads the hot commands as the typer app declares them: a
parameter added to, renamed in or retyped in cli/main.py without the fast path following
would have it parse a line into other values than the app, so the two declarations are held
to each other here, parameter by parameter."""

from __future__ import annotations

from typing import Any

import pytest
import typer.main

import skirmish.cli.main  # noqa: F401 - registers the commands on the app
from skirmish.cli import fast
from skirmish.cli.app import app

_KINDS = {"IntParamType": int, "StringParamType": str, "BoolParamType": bool}


def _apps_parameters(name: str) -> tuple[list[tuple[str, type, bool]], dict[str, tuple[str, type, bool]]]:
    command = typer.main.get_command(app).commands[name]  # type: ignore[attr-defined]
    arguments, options = [], {}
    for param in command.params:
        kind = _KINDS[type(param.type).__name__]
        if param.param_type_name == "argument":
            arguments.append((param.name, kind, bool(param.required)))
        else:
            (flag,) = param.opts
            options[flag] = (param.name, bool if getattr(param, "is_flag", False) else kind, bool(param.multiple))
    return arguments, options


@pytest.mark.parametrize("name", sorted(fast._SPECS))
def test_the_fast_paths_parameters_are_the_apps(name: str) -> None:
    spec = fast._SPECS[name]
    arguments, options = _apps_parameters(name)
    required = len(spec.arguments) - spec.optional
    assert [(key, kind, i < required) for i, (key, kind) in enumerate(spec.arguments)] == arguments
    read: dict[str, Any] = dict(spec.options)
    if spec.table is not None:
        read.update(fast._shared_flags(spec.table))
    assert {flag: (o.dest, o.kind, o.many) for flag, o in read.items()} == options


def test_a_changed_parameter_would_be_seen(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above reads what it says: the fast path's `--at` typed as text is caught."""
    changed = dict(fast._SPECS)
    changed["state"] = fast._Spec((), {**fast._SPECS["state"].options, "--at": fast._Option("at", str)})
    monkeypatch.setattr(fast, "_SPECS", changed)
    with pytest.raises(AssertionError):
        test_the_fast_paths_parameters_are_the_apps("state")
