"""The playground as a new user meets it on a phone (390x844) and on a laptop (1366x768): the text
box and its count are on the first screen of a phone (the settings below them); the Model field
acts as the user types, not only when it loses focus; the loading bar counts the bytes the network
carries (the server's Brotli copies: about 7.5 MB), not the decoded files' 30 MB.
Screenshots: test-results/playground-first-screen-{390,1366}.png."""

from __future__ import annotations

import json

import pytest

import bytepair

from tests.browser import DIST, Guard, guarded_context
from tests.web.test_playground import COUNT, O200K, box, shot, wait_count

pytestmark = pytest.mark.browser
CL100K = bytepair.get_encoding("cl100k_base")
TRACE = """window.__bars = [];
document.addEventListener('DOMContentLoaded', () => {
  const el = document.getElementById('load-detail');
  new MutationObserver(() => window.__bars.push(el.textContent)).observe(el, { childList: true, characterData: true, subtree: true });
});"""


def _cold_start_sizes() -> tuple[float, float]:
    """(files, Brotli copies) in MB of a cold o200k start, from dist/ itself."""
    manifest = json.loads((DIST / "manifest.json").read_text())
    paths = [*manifest["runtime"].values(), manifest["snapshot"], manifest["encodings"]["o200k_base"]["file"]]
    plain = sum(manifest["files"][p]["size"] for p in paths)
    brotli = sum((DIST / f"{p}.br").stat().st_size if (DIST / f"{p}.br").exists() else manifest["files"][p]["size"] for p in paths)
    return plain / 1e6, brotli / 1e6


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1366, 768)])
def test_first_screen_has_the_text_and_its_count(browser, site_server, width: int, height: int) -> None:
    guard = Guard()
    context = guarded_context(browser, guard, viewport={"width": width, "height": height}, is_mobile=width < 500, has_touch=width < 500)
    context.add_init_script(TRACE)
    page = context.new_page()
    page.goto(site_server)
    page.wait_for_function(f"document.querySelector('{COUNT}').textContent !== '–'", timeout=60_000)
    text = page.get_by_label("Text", exact=True).input_value()
    wait_count(page, O200K.count(text))
    for selector in (COUNT, "#text"):
        found = box(page, selector)
        assert found["y"] >= 0 and found["y"] + 40 < height, (selector, found)  # on the first screen, not below the fold
    if width < 500:
        assert box(page, "#text")["y"] < box(page, "#encoding")["y"]  # settings come after the text on a phone
    shot(page, f"first-screen-{width}", full_page=False)
    # The bar said what the wire carried: "x of 7.x MB", never the 30 MB of decoded files.
    plain, brotli = _cold_start_sizes()
    bars = [b for b in page.evaluate("() => window.__bars") if " of " in b]
    assert bars, page.evaluate("() => window.__bars")
    totals = {float(b.split(" of ")[1].split()[0]) for b in bars}
    assert totals == {round(brotli, 1)}, (totals, brotli, plain)
    context.close()
    assert not guard.violations, guard.violations


def test_model_field_acts_as_the_user_types(browser, site_server) -> None:
    guard = Guard()
    context = guarded_context(browser, guard, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(site_server)
    page.wait_for_function(f"document.querySelector('{COUNT}').textContent !== '–'", timeout=60_000)
    text = "日本語のテキストを数える"  # 9 tokens in o200k_base, 12 in cl100k_base
    page.get_by_label("Text", exact=True).fill(text)
    wait_count(page, O200K.count(text))
    model = page.get_by_label("Model", exact=True)
    model.type("gpt-4", delay=40)  # no Enter, no Tab: the field keeps the focus
    wait_count(page, CL100K.count(text))
    page.wait_for_function("() => document.getElementById('model-note').textContent === 'gpt-4 uses cl100k_base.'")
    assert page.evaluate("() => document.activeElement.id") == "model"
    model.type("o", delay=40)  # gpt-4o
    wait_count(page, O200K.count(text))
    assert page.get_by_label("Tokenizer", exact=True).input_value() == "o200k_base"
    context.close()
    assert not guard.violations, guard.violations
