"""What every JavaScript test shares: the runtime snapshots Node, Deno and Bun keep between starts
(web/stored.mjs) go to a folder of this test process, not the user's cache, so that a test starts
cold unless it warmed the runtime itself, and a run leaves nothing behind. Set when this conftest is
imported (before the test modules copy os.environ for their subprocesses), removed at the end."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator

import pytest

CACHE_DIR = tempfile.mkdtemp(prefix="bytepair-cache-")
os.environ["BYTEPAIR_CACHE_DIR"] = CACHE_DIR


@pytest.fixture(autouse=True, scope="session")
def _runtime_cache() -> Iterator[None]:
    yield
    shutil.rmtree(CACHE_DIR, ignore_errors=True)
