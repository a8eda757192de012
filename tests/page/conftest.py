"""The page tests' browser: one Chromium a test module (the `browser` fixture), and without
Chromium their skips reported as one line."""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Any

import pytest

from support import browser as browser_support


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    """A test skipped for want of Chromium is reported at the one place that looks for it
    (support/browser.py), not at its own line: pytest folds skips by place and reason, so
    -ra prints one line, however many browser tests there are."""
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if report.skipped and isinstance(report.longrepr, tuple) and report.longrepr[2].endswith(browser_support.HOW):
        report.longrepr = (browser_support.__file__, None, report.longrepr[2])  # type: ignore[assignment]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's chromium driven by Playwright (support/browser.py finds it), one a module:
    a test module's pages share it, and no module sees another's. Playwright is imported
    here, so a page test that needs no browser runs without it."""
    sync_api = pytest.importorskip("playwright.sync_api")
    found = browser_support.chromium()
    with sync_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=found, args=browser_support.ARGS)
        yield launched
        launched.close()
