"""What every collected test needs, the doctests in core/bytepair included (tests/conftest.py holds
the rest, for tests/ only).

Playwright's sync API (tests/browser.py's browser, kept for the session) leaves its event loop marked
as running on the main thread between its calls, so in a worker that has run a browser test,
``asyncio.run`` in a later test (the async methods' doctest and tests) fails with "cannot be called
from a running event loop". A test that uses no browser runs with that mark cleared, and the mark is
put back after it.

Under pytest-xdist, the files that need most memory run first, while the workers are small
(tests/xdist_heavy_first.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _no_leftover_event_loop(request: pytest.FixtureRequest) -> Iterator[None]:
    loop = None if "browser" in request.fixturenames else asyncio._get_running_loop()
    if loop is not None:
        asyncio._set_running_loop(None)
    try:
        yield
    finally:
        if loop is not None:
            asyncio._set_running_loop(loop)


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist, the files that need most memory run first, while the workers are small
    (tests/xdist_heavy_first.py)."""
    if config.pluginmanager.hasplugin("xdist"):
        from tests.xdist_heavy_first import HeavyFilesFirstPlugin

        config.pluginmanager.register(HeavyFilesFirstPlugin(), "heavy-files-first")
