"""What `pip install .` ships: every package folder of skirmish is listed in pyproject.toml
(setuptools installs only the packages named there). An editable install finds a folder
left out, so the rest of the suite would not notice one: a non-editable install would then
fail on the first import of it (`add --from monsters.json` once did, for projections/imports)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_folder_is_listed_in_pyproject() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(config["packages"])
    found = set()
    for top, folder in config["package-dir"].items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder)
            found.add(".".join([top, *relative.parts]))
    assert found - listed == set(), "folders pip would leave out of the package"
    assert listed - found == set(), "packages listed that have no folder"
