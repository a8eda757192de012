"""The page tests' browser: without Chromium, their skips are reported as one line."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from support import browser


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    """A test skipped for want of Chromium is reported at the one place that looks for it
    (support/browser.py), not at its own line: pytest folds skips by place and reason, so
    -ra prints one line, however many browser tests there are."""
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if report.skipped and isinstance(report.longrepr, tuple) and report.longrepr[2].endswith(browser.HOW):
        report.longrepr = (browser.__file__, None, report.longrepr[2])  # type: ignore[assignment]
