"""Playwright helpers for the browser tests: Debian's Chromium, dist/ served on 127.0.0.1, and a
route handler that fails the test on any request that leaves 127.0.0.1."""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "dist"
SITE = ROOT / "site"
ARTIFACTS = ROOT / "test-results"
CHROMIUM = os.environ.get("BYTEPAIR_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TEST_PAGE = "__test__.html"


def _load_serve_module():
    spec = importlib.util.spec_from_file_location("bytepair_build_serve", ROOT / "build" / "serve.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


serve = _load_serve_module()


def require_bundle() -> None:
    if not (DIST / "manifest.json").is_file():
        pytest.fail("dist/ is missing: run `make bundle` (make test does it)")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (make test does it)")


def require_site() -> None:
    require_bundle()
    if not (SITE / "sw.js").is_file() or not (SITE / "bytepair" / "manifest.json").is_file():
        pytest.fail("site/ is missing: run `make site` (make test does it)")


@dataclass
class Guard:
    """Records requests; any host other than 127.0.0.1 is a violation."""

    violations: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    # path -> (status, body) to serve instead of the real file (corruption / missing-asset tests)
    overrides: dict[str, tuple[int, bytes]] = field(default_factory=dict)
    # serve every response with COOP/COEP, so that the page is cross-origin isolated (SharedArrayBuffer)
    isolated: bool = False

    def handle(self, route) -> None:
        url = route.request.url
        parsed = urlparse(url)
        if parsed.scheme in ("blob", "data"):
            route.continue_()
            return
        if parsed.hostname != "127.0.0.1":
            self.violations.append(url)
            route.abort()
            return
        self.requests.append(parsed.path)
        isolation = {"Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp"} if self.isolated else {}
        if parsed.path.endswith("/" + TEST_PAGE):
            route.fulfill(status=200, content_type="text/html", headers=isolation,
                          body="<!doctype html><meta charset=utf-8><title>bytepair test</title>")
            return
        for suffix, (status, body) in self.overrides.items():
            if parsed.path.endswith(suffix):
                route.fulfill(status=status, body=body)
                return
        if self.isolated:
            response = route.fetch()
            route.fulfill(response=response, headers={**response.headers, **isolation})
            return
        route.continue_()


def _serving(directory: Path) -> Iterator[str]:
    server, base = serve.serve_in_background(directory)
    yield base
    server.shutdown()


@pytest.fixture(scope="session")
def dist_server() -> Iterator[str]:
    require_bundle()
    yield from _serving(DIST)


@pytest.fixture(scope="session")
def site_server() -> Iterator[str]:
    require_site()
    yield from _serving(SITE)


@pytest.fixture(scope="session")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} not found")
    with sync_api.sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


def guarded_context(browser, guard: Guard, **options):
    """A new context whose every request goes through ``guard`` (service workers blocked: Playwright
    cannot route what a service worker answers)."""
    context = browser.new_context(service_workers="block", **options)
    context.route("**/*", guard.handle)
    return context


def open_page(browser, base: str, guard: Guard, *, context=None):
    """A page on the dist origin with the guard routing every request."""
    ctx = context or browser.new_context()
    ctx.route("**/*", guard.handle)
    page = ctx.new_page()
    page.goto(base + TEST_PAGE)
    return ctx, page


def runtime_snapshot_files(page) -> list[str]:
    """The names of bytepair's runtime snapshots in the page's origin private file system."""
    return page.evaluate(
        """async () => {
          const names = [];
          for await (const name of (await navigator.storage.getDirectory()).keys()) {
            if (name.startsWith('bytepair-runtime-')) names.push(name);
          }
          return names.sort();
        }"""
    )


def wait_for_runtime_snapshot(page, timeout_s: float = 60.0, *, besides: frozenset[str] = frozenset()) -> list[str]:
    """Wait until the worker has stored a snapshot of its started runtime (it does so in the
    background after the first encoding is built: its .json is written last), one not in ``besides``."""
    import time

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        names = runtime_snapshot_files(page)
        if any(name.endswith(".json") and name not in besides for name in names):
            return names
        page.wait_for_timeout(100)
    raise AssertionError(f"no runtime snapshot was stored within {timeout_s} s: {runtime_snapshot_files(page)}")


def wait_for_warm_up(page, tok: str = "tok", timeout_s: float = 60.0) -> float:
    """Wait until the worker behind ``tok`` (a page global) has run its warm-up after start; its
    duration in ms (the runtime's ``"warm-up"`` timing)."""
    import time

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        timings = page.evaluate(f"() => {tok}.backend.request('timings', {{}})")
        if "warm-up" in timings:
            return float(timings["warm-up"])
        page.wait_for_timeout(50)
    raise AssertionError(f"the worker did not finish its warm-up within {timeout_s} s")
