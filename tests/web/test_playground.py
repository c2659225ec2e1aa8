"""The playground page in headless Chromium: live counts equal the native core's, every view works,
state survives in the URL, the page works offline, and the embed example counts too.

Screenshots land in test-results/ (looked at by a person, see the issue notes)."""

from __future__ import annotations

import json
import random
import re
import string
import time

import pytest

import bytepair
from bytepair.text.words import count_words

from tests.browser import ARTIFACTS, ROOT, SITE, Guard, guarded_context, serve
from tests.conftest import corpus_texts
from tests.web.test_node_api import PREPARED

pytestmark = pytest.mark.browser
O200K = bytepair.get_encoding("o200k_base")
CL100K = bytepair.get_encoding("cl100k_base")
COUNT = '[data-testid="token-count"]'


def shot(page, name: str, *, full_page: bool = True) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"playground-{name}.png"), full_page=full_page)


def wait_count(page, expected: int, timeout: float = 60_000) -> None:
    page.wait_for_function(
        "([sel, want]) => document.querySelector(sel).textContent.replace(/,/g, '') === String(want)",
        arg=[COUNT, expected],
        timeout=timeout,
    )


def set_text(page, text: str) -> None:
    page.get_by_label("Text", exact=True).fill(text)


def paste(page, text: str) -> None:
    """Put a large text in the box as a paste would (Playwright's fill types it in, too slowly)."""
    page.evaluate(
        "(t) => { const el = document.getElementById('text'); el.value = t; el.dispatchEvent(new Event('input')); }",
        text,
    )


@pytest.fixture(scope="module")
def app(browser, site_server):
    guard = Guard()
    context = guarded_context(browser, guard, viewport={"width": 1200, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(site_server)
    page.wait_for_function(f"document.querySelector('{COUNT}').textContent !== '–'", timeout=60_000)
    yield page
    context.close()
    assert not guard.violations, guard.violations
    assert not errors, errors


def test_labelled_controls_exist(app) -> None:
    assert app.get_by_label("Text", exact=True).evaluate("el => el.tagName") == "TEXTAREA"
    assert app.get_by_label("Tokenizer", exact=True).evaluate("el => el.tagName") == "SELECT"
    assert app.get_by_label("Tokenizer", exact=True).input_value() == "o200k_base"
    options = app.get_by_label("Tokenizer", exact=True).evaluate("el => [...el.options].map(o => o.value)")
    # GPT-2's tokenizer.json is "hf:gpt2": "gpt2" is OpenAI's encoding of that name.
    assert options == [*bytepair.list_encoding_names(), *(f"hf:{n}" if n == "gpt2" else n for n in PREPARED)]
    texts = app.get_by_label("Tokenizer", exact=True).evaluate("el => Object.fromEntries([...el.options].map(o => [o.value, o.text]))")
    assert (texts["gpt2"], texts["hf:gpt2"], texts["llama3"]) == ("gpt2", "GPT-2", "Llama 3")  # two GPT-2s told apart


def test_typing_updates_the_count(app) -> None:
    box = app.get_by_label("Text", exact=True)
    box.fill("")
    box.type("Hello, wörld! 🫠 ", delay=5)
    wait_count(app, O200K.count("Hello, wörld! 🫠 "))
    box.press("End")
    box.type("日本語", delay=5)
    text = "Hello, wörld! 🫠 日本語"
    wait_count(app, O200K.count(text))
    assert app.inner_text("#char-count") == str(len(text))
    assert app.inner_text("#word-count") == str(count_words(text)) == "6"  # 日本語: a word per character
    spans = app.locator("#tokens .tok")
    assert spans.count() == O200K.count(text)
    shot(app, "typing")


def test_encoding_picker_and_stats(app) -> None:
    text = corpus_texts()["fr"][:3000]
    set_text(app, text)
    app.get_by_label("Tokenizer", exact=True).select_option("cl100k_base")
    wait_count(app, CL100K.count(text, disallowed_special=()))
    ratio = float(app.inner_text("#chars-per-token"))
    assert abs(ratio - len(text) / CL100K.count(text)) < 0.01
    app.get_by_label("Tokenizer", exact=True).select_option("o200k_base")
    wait_count(app, O200K.count(text))


def test_compare_view(app) -> None:
    text = corpus_texts()["zh"][:2000]
    set_text(app, text)
    app.get_by_label("Compare with", exact=True).select_option("cl100k_base")
    a, b = O200K.count(text), CL100K.count(text)
    app.wait_for_function(
        "want => document.querySelector('[data-testid=compare-b-count]').textContent.replace(/,/g, '') === String(want)",
        arg=b,
    )
    assert app.inner_text('[data-testid="compare-a-count"]').replace(",", "") == str(a)
    assert app.inner_text('[data-testid="compare-diff"]').startswith(f"+{b - a:,}" if b > a else f"{b - a:,}")
    shot(app, "compare")
    app.get_by_label("Compare with", exact=True).select_option("")
    app.locator("#compare-stats").wait_for(state="hidden")


def test_ids_round_trip(app) -> None:
    text = "Round trip: ids → text. 🫠 naïve café"
    set_text(app, text)
    wait_count(app, O200K.count(text))
    app.get_by_role("tab", name="Ids", exact=True).click()
    ids_json = app.locator('[data-testid="ids-out"]').input_value()
    assert [int(x) for x in re.findall(r"\d+", ids_json)] == O200K.encode(text)
    app.get_by_role("tab", name="Ids → text").click()
    app.locator('[data-testid="ids-in"]').fill(ids_json)
    app.wait_for_function("want => document.querySelector('[data-testid=decoded]').textContent === want", arg=text)
    app.locator('[data-testid="ids-in"]').fill(" ".join(map(str, O200K.encode(text))))
    app.wait_for_function("want => document.querySelector('[data-testid=decoded]').textContent === want", arg=text)
    shot(app, "decode")


@pytest.mark.parametrize(
    ("ids", "fragment"),
    [("[1, -2]", "InvalidTokenError"), ("[1, 2.5]", "integers"), ("1 2 three", "not a number"), ("[1, 2", "Cannot read"),
     ("[99999999]", "not a token id")],
)
def test_invalid_ids_show_inline_errors(app, ids: str, fragment: str) -> None:
    app.get_by_role("tab", name="Ids → text").click()
    app.locator('[data-testid="ids-in"]').fill(ids)
    error = app.locator("#decode-error")
    # Wait for this input's message (not a stale one still showing from the previous input).
    app.wait_for_function(
        "want => { const e = document.getElementById('decode-error'); return !e.hidden && e.textContent.includes(want); }",
        arg=fragment,
    )
    assert fragment in error.inner_text()
    app.locator('[data-testid="ids-in"]').fill("")
    error.wait_for(state="hidden")
    app.get_by_role("tab", name="Tokens").click()


def test_special_token_choices(app) -> None:
    """A special token in the text (while asking) keeps the counts in view, counted as text, with the
    count it would have as a special token and one-click buttons for both choices."""
    text = "Hello <|endoftext|> world"
    as_text, as_special = O200K.count(text, disallowed_special=()), O200K.count(text, allowed_special="all")
    assert as_text != as_special
    set_text(app, text)
    found = app.locator("#special-found")
    found.wait_for(state="visible")
    wait_count(app, as_text)
    message = found.inner_text()
    assert "<|endoftext|>" in message and f"{as_text} tokens" in message and f"would be {as_special}" in message
    assert app.locator("#error").is_hidden()
    assert app.inner_text("#char-count") == str(len(text))
    assert app.locator("#tokens .tok").count() == as_text and app.locator("#tokens .tok.special").count() == 0
    assert app.locator("#token-count").bounding_box()["y"] < 1000  # still in the first viewport
    shot(app, "special-found")
    app.get_by_role("button", name="Encode as special tokens").click()
    wait_count(app, as_special)
    assert app.get_by_label("encode as special tokens", exact=True).is_checked()
    assert found.is_hidden()
    assert app.locator("#tokens .tok.special").count() == 1
    app.get_by_label("ask (count as text meanwhile)", exact=True).check()
    found.wait_for(state="visible")
    app.get_by_role("button", name="Treat as plain text").click()
    found.wait_for(state="hidden")
    wait_count(app, as_text)
    assert app.get_by_label("treat as plain text", exact=True).is_checked()
    app.get_by_label("ask (count as text meanwhile)", exact=True).check()


def test_model_picker(app) -> None:
    set_text(app, "model picker")
    model = app.get_by_label("Model", exact=True)
    model.fill("gpt-4")
    model.press("Enter")
    app.wait_for_function("() => document.getElementById('encoding').value === 'cl100k_base'")
    wait_count(app, CL100K.count("model picker"))
    model.fill("no-such-model")
    model.press("Enter")
    app.wait_for_function("() => document.getElementById('model-note').textContent.includes('Unknown model')")
    app.get_by_label("Tokenizer", exact=True).select_option("o200k_base")
    app.wait_for_function("() => document.getElementById('model-note').textContent === ''")


def test_tokens_by_keyboard_and_hover(app) -> None:
    text = "a🫠b"
    set_text(app, text)
    wait_count(app, O200K.count(text))
    first = app.locator("#tokens .tok").first
    first.focus()
    tooltip = app.locator("#tooltip")
    tooltip.wait_for(state="visible")
    assert f"id {O200K.encode(text)[0]}" in tooltip.inner_text()
    app.keyboard.press("ArrowRight")
    assert f"id {O200K.encode(text)[1]}" in tooltip.inner_text()
    assert "part of" in tooltip.inner_text()  # the emoji is split over several tokens
    assert app.locator("#tokens .tok.partial").count() >= 1
    shot(app, "tooltip")


def test_url_state_restores(app, browser) -> None:
    text = "State in the URL: 日本語 🫠\nsecond line"
    set_text(app, text)
    app.get_by_label("Tokenizer", exact=True).select_option("cl100k_base")
    app.get_by_label("Compare with", exact=True).select_option("o200k_base")
    app.get_by_label("treat as plain text", exact=True).check()
    wait_count(app, CL100K.count(text))
    app.wait_for_function("() => location.hash.includes('c=o200k_base') && location.hash.includes('s=text')")
    url = app.url
    guard = Guard()
    context = guarded_context(browser, guard)
    page = context.new_page()
    page.goto(url)
    wait_count(page, CL100K.count(text))
    assert page.get_by_label("Text", exact=True).input_value() == text
    assert page.get_by_label("Tokenizer", exact=True).input_value() == "cl100k_base"
    assert page.get_by_label("Compare with", exact=True).input_value() == "o200k_base"
    assert page.get_by_label("treat as plain text", exact=True).is_checked()
    # A long text is kept compressed in the link.
    long_text = corpus_texts()["en"][:8000]
    set_text(page, long_text)
    page.wait_for_function("() => location.hash.includes('z=')")
    page.goto("about:blank")
    page.goto(page.url if page.url != "about:blank" else url)
    context.close()
    assert not guard.violations
    # Back on the main page: defaults again.
    app.get_by_label("Compare with", exact=True).select_option("")
    app.get_by_label("Tokenizer", exact=True).select_option("o200k_base")
    app.get_by_label("ask (count as text meanwhile)", exact=True).check()


def test_damaged_url_state(browser, site_server) -> None:
    guard = Guard()
    context = guarded_context(browser, guard)
    page = context.new_page()
    url = site_server + "#e=o999k&t=%%%not-base64&s=sideways"
    page.goto(url)
    note = page.locator("#state-note")
    note.wait_for(state="visible")
    assert "could not be fully read" in note.inner_text()
    page.wait_for_function(f"document.querySelector('{COUNT}').textContent !== '–'", timeout=60_000)
    assert page.get_by_label("Tokenizer", exact=True).input_value() == "o200k_base"
    page.wait_for_timeout(500)  # a link is written only after an edit: the note stays, the link too
    assert note.is_visible() and "could not be fully read" in note.inner_text()
    assert page.url == url
    shot(page, "damaged-url")
    context.close()
    assert not guard.violations


@pytest.mark.timing
def test_one_megabyte_stays_responsive(app) -> None:
    seed = corpus_texts()["mixed"]
    text = (seed * (1_000_000 // len(seed) + 1))[:1_000_000]
    # Chromium itself needs about a second to lay out a textarea holding 1 MB; that happens before
    # tokenizing starts and is not bytepair's. Measure the main thread from the edit event on.
    app.evaluate(
        """async (t) => {
          const el = document.getElementById('text');
          el.value = t;
          await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
          window.__gaps = [];
          let last = performance.now();
          window.__timer = setInterval(() => { const now = performance.now(); window.__gaps.push(now - last); last = now; }, 20);
          el.dispatchEvent(new Event('input'));
        }""",
        text,
    )
    wait_count(app, O200K.count(text, disallowed_special=()), timeout=120_000)
    worst = app.evaluate("() => { clearInterval(window.__timer); return Math.max(...window.__gaps); }")
    assert worst < 500, f"the page froze for {worst:.0f} ms while tokenizing"
    # The first slices of tokens are drawn with the count, the rest in the tasks that follow.
    app.wait_for_function("() => document.querySelectorAll('#tokens .tok').length === 2000 && !document.querySelector('#tokens .later')")
    assert app.locator("#token-ids .tid").count() == 2000
    assert "Showing the first 2,000" in app.inner_text("#tokens-more")
    shot(app, "one-megabyte")
    # A keystroke in the middle of 1 MB updates the count.
    box = app.get_by_label("Text", exact=True)
    box.evaluate("(el) => { el.focus(); el.setSelectionRange(500000, 500000); }")
    app.keyboard.type("XYZ")
    edited = text[:500_000] + "XYZ" + text[500_000:]
    wait_count(app, O200K.count(edited, disallowed_special=()), timeout=60_000)


def test_long_token_lists_are_drawn_in_slices(app) -> None:
    """2,000 tokens are drawn in blocks that end at a newline token (or after 400 tokens of one line), the
    later ones after the count; all of them in order, ids equal to the core's; an edit redraws only the
    blocks from the first changed token on, and a token in a later block still links to its id."""
    lines = [f"line {k}: {' '.join(random.Random(k).choices(['alpha', 'beta', 'gamma', '42', '--'], k=12))}" for k in range(40)]
    text = "\n".join(lines) + "\n" + "x" * 3 + ",y" * 1500
    ids = O200K.encode(text)[:2000]
    drawn = """() => { const t = [...document.querySelectorAll('#tokens .tok')];
      return t.length === 2000 && !document.querySelector('.later') ? t.map((el) => Number(el.dataset.index)) : null; }"""

    def shown_ids() -> list[int]:
        return app.evaluate("() => [...document.querySelectorAll('#token-ids .tid')].map((el) => Number(el.textContent))")

    app.get_by_label("Text", exact=True).fill(text)
    wait_count(app, O200K.count(text))
    assert app.wait_for_function(drawn).json_value() == list(range(2000))
    assert shown_ids() == ids
    slices = app.evaluate(
        """() => [...document.querySelectorAll('#tokens .slice')].map((s) => [s.children.length,
             s.lastChild.nodeType === Node.TEXT_NODE && s.lastChild.textContent.startsWith('\\n')])"""
    )
    assert len(slices) > 5
    assert all(ends_line or size == 400 for size, ends_line in slices[:-1]), slices
    assert any(size == 400 and not ends_line for size, ends_line in slices), "the line without newlines was not cut"
    # Each slice that goes on with a cut line (and only those) opens with the continuation mark.
    marked = app.evaluate(
        """() => [...document.querySelectorAll('#tokens .slice')].map((s) =>
             s.classList.contains('cont') && getComputedStyle(s, '::before').content === '"↪"')"""
    )
    assert marked == [False] + [not ends_line for _, ends_line in slices[:-1]], (marked, slices)
    # An edit in line 30 keeps the blocks before it (the same elements) and redraws the rest.
    app.evaluate("() => document.querySelectorAll('#tokens .slice').forEach((s) => { s.dataset.old = '1'; })")
    at = text.index("line 30:")
    box = app.get_by_label("Text", exact=True)
    box.evaluate(f"(el) => {{ el.focus(); el.setSelectionRange({at}, {at}); }}")
    app.keyboard.type("Z")
    edited = text[:at] + "Z" + text[at:]
    wait_count(app, O200K.count(edited))
    assert app.wait_for_function(drawn).json_value() == list(range(2000))
    assert shown_ids() == O200K.encode(edited)[:2000]
    old = app.evaluate("() => [...document.querySelectorAll('#tokens .slice')].map((s) => s.dataset.old === '1')")
    first_new = old.index(False)
    assert first_new > 0 and not any(old[first_new:])
    # Hovering a token in the last block links it to its id.
    app.locator("#tokens .tok").nth(1990).hover()
    linked = app.evaluate("() => [...document.querySelectorAll('.linked')].map((el) => el.className.split(' ')[0] + el.dataset.index)")
    assert linked == ["tok1990", "tid1990"]


@pytest.mark.timing
def test_ten_megabytes_pasted(app) -> None:
    """A paste of 10 MB: kept out of the box (browsers freeze laying it out), counted in full."""
    line = "Ten megabytes of pasted text, 日本語 too 🙂\n"
    text = line * (10_000_000 // len(line.encode()))
    app.get_by_role("button", name="Clear").click()
    app.evaluate(
        """(t) => {
          const data = new DataTransfer();
          data.setData('text/plain', t);
          window.__gaps = [];
          let last = performance.now();
          window.__timer = setInterval(() => { const now = performance.now(); window.__gaps.push(now - last); last = now; }, 20);
          document.getElementById('text').dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
        }""",
        text,
    )
    app.locator("#busy").wait_for(state="visible")
    wait_count(app, O200K.count(text), timeout=300_000)
    worst = app.evaluate("() => { clearInterval(window.__timer); return Math.max(...window.__gaps); }")
    assert worst < 1000, f"the page froze for {worst:.0f} ms"
    assert app.locator("#error").is_hidden()
    assert "Large text" in app.inner_text("#state-note")
    assert app.get_by_label("Text", exact=True).is_editable() is False
    shot(app, "ten-megabytes")
    app.get_by_role("button", name="Clear").click()
    wait_count(app, 0)
    assert app.get_by_label("Text", exact=True).is_editable()


def test_offline_reload(browser) -> None:
    """First visit installs the service worker; with the server stopped a reload still works."""
    server, base = serve.serve_in_background(SITE)
    context = browser.new_context()
    outside: list[str] = []
    context.on("request", lambda r: None if r.url.startswith(("http://127.0.0.1", "blob:", "data:")) else outside.append(r.url))
    page = context.new_page()
    page.goto(base)
    page.wait_for_function(f"document.querySelector('{COUNT}').textContent !== '–'", timeout=60_000)
    page.evaluate("async () => { await navigator.serviceWorker.ready; }")
    page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=60_000)
    deadline = time.time() + 60
    while time.time() < deadline:  # wait for the precache to be complete
        done = page.evaluate(
            """async () => {
              const names = (await caches.keys()).filter((n) => n.startsWith('bytepair-playground-'));
              if (!names.length) return false;
              const keys = await (await caches.open(names[0])).keys();
              return keys.some((r) => r.url.endsWith('pyodide.asm.wasm'));
            }"""
        )
        if done:
            break
        time.sleep(0.5)
    server.shutdown()
    server.server_close()
    page.reload()
    set_text(page, "Works offline: 日本語")
    wait_count(page, O200K.count("Works offline: 日本語"), timeout=60_000)
    shot(page, "offline")
    context.close()
    assert not outside, outside


def test_embed_example(browser, site_server) -> None:
    guard = Guard()
    context = guarded_context(browser, guard)
    page = context.new_page()
    page.goto(site_server + "embed.html")
    page.wait_for_function("() => document.getElementById('static-counter').dataset.count !== undefined", timeout=60_000)
    assert page.locator("#static-counter").get_attribute("data-count") == str(O200K.count("Hello, world!"))
    assert page.locator("#static-counter textarea").count() == 0  # a fixed text shows only its count
    assert " ".join(page.locator("#static-counter .badge").inner_text().split()) == "4 tokens (o200k_base)"
    page.wait_for_function("() => document.getElementById('static-counter-gpt2').dataset.count !== undefined")
    assert page.locator("#static-counter-gpt2").get_attribute("data-count") == str(
        bytepair.get_encoding("gpt2").count("Hello, world!")
    )
    page.wait_for_function("() => document.getElementById('static-counter-llama3').dataset.count !== undefined", timeout=60_000)
    llama3 = bytepair.Tokenizer.from_file(ROOT / "build" / "cache" / "hf" / "llama3" / "tokenizer.json")
    assert page.locator("#static-counter-llama3").get_attribute("data-count") == str(
        len(llama3.encode("Hello, world!", add_special_tokens=False).ids)
    )
    editor = page.locator("#editable-counter").locator("textarea")
    editor.fill("Counting tokens for gpt-4o in the docs.")
    page.wait_for_function(
        "want => document.getElementById('editable-counter').dataset.count === String(want)",
        arg=O200K.count("Counting tokens for gpt-4o in the docs."),
    )
    prompt = "Summarize this page in one sentence, please."
    page.get_by_label("Prompt", exact=True).fill(prompt)
    page.wait_for_function(
        "want => document.getElementById('for-counter').dataset.count === String(want)", arg=CL100K.count(prompt)
    )
    shot(page, "embed")
    # On a phone nothing sticks out of the page (the text field was 6 px wider than its column).
    page.set_viewport_size({"width": 390, "height": 844})
    wider = page.evaluate(
        """() => [...document.querySelectorAll('textarea, pre, p')].filter((el) =>
             el.getBoundingClientRect().right > document.documentElement.clientWidth).map((el) => el.id || el.tagName)"""
    )
    assert wider == [] and page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth"), wider
    shot(page, "embed-phone")
    context.close()
    assert not guard.violations, guard.violations


def test_dark_mode_screenshot(browser, site_server) -> None:
    guard = Guard()
    context = guarded_context(browser, guard, color_scheme="dark", viewport={"width": 1200, "height": 1000})
    page = context.new_page()
    page.goto(site_server)
    page.get_by_role("button", name="Code").click()
    wait_count(page, O200K.count(page.get_by_label("Text", exact=True).input_value()))
    background = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    assert background != "rgb(251, 251, 250)"  # the dark palette is in use
    shot(page, "dark")
    context.close()
    assert not guard.violations


# ---------------------------------------------------------------- open-model tokenizers (tokenizer.json)
def hf_count(name: str, text: str) -> int:
    """The count from Hugging Face tokenizers itself (add_special_tokens=False, as the page counts)."""
    from tests.hf_reference import hf_folder

    tokenizers = pytest.importorskip("tokenizers")
    return len(tokenizers.Tokenizer.from_file(str(hf_folder(name) / "tokenizer.json")).encode(text, add_special_tokens=False).ids)


LLAMA_TEXT = "<|begin_of_text|>Tokenizers differ: 日本語のテキスト 🫠 and   spaces.\nSecond line, 12345."


@pytest.fixture
def wide(browser, site_server):
    guard = Guard()
    context = guarded_context(browser, guard, viewport={"width": 1366, "height": 768})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(site_server)
    page.wait_for_function(f"document.querySelector('{COUNT}').textContent !== '–'", timeout=60_000)
    yield page, guard
    context.close()
    assert not guard.violations, guard.violations
    assert not errors, errors


def test_pick_llama3_count_equals_hf(wide) -> None:
    page, guard = wide
    assert not any("/tokenizers/" in p for p in guard.requests)  # nothing fetched before it is picked
    picker = page.get_by_label("Tokenizer", exact=True)
    labels = picker.evaluate("el => [...el.querySelectorAll('optgroup')].filter(g => !g.hidden).map(g => [g.label, [...g.children].map(o => o.textContent)])")
    assert labels[1] == ["Open models (tokenizer.json)", ["Llama 3", "Qwen 2.5", "Qwen 3", "DeepSeek V3", "GPT-2",
                                                          "BERT · WordPiece (all-MiniLM-L6-v2)",
                                                          "Unigram · SentencePiece (botchan, 1k)"]]
    picker.select_option("llama3")
    set_text(page, LLAMA_TEXT)
    wait_count(page, hf_count("llama3", LLAMA_TEXT))
    assert [p.rsplit("/", 1)[1] for p in guard.requests if "/tokenizers/" in p] == ["llama3.json.gz"]
    assert page.locator("#tokens .tok").count() == hf_count("llama3", LLAMA_TEXT)
    special = page.locator("#tokens .tok.special")
    assert special.count() == 1 and special.inner_text() == "<|begin_of_text|>"
    assert "Llama 3 always reads its special tokens" in page.inner_text("#special-note")
    page.wait_for_function("() => location.hash.includes('e=llama3')")
    # The offsets tooltip for a token that holds part of the emoji.
    partial = page.locator("#tokens .tok.partial").first
    partial.hover()
    tooltip = page.locator("#tooltip")
    tooltip.wait_for(state="visible")
    assert "holds part of: 🫠" in tooltip.inner_text() and "(UTF-16)" in tooltip.inner_text()
    shot(page, "llama3-1366")
    page.set_viewport_size({"width": 390, "height": 844})
    page.mouse.move(0, 0)
    shot(page, "llama3-390")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, width  # nothing sticks out sideways on a phone


@pytest.mark.parametrize(("name", "marker", "shown_marker"), [("bert_minilm", "##", "##"), ("unigram_botchan", "▁", "·")])
def test_pick_wordpiece_and_unigram_models_shows_their_own_tokens(wide, name, marker, shown_marker) -> None:
    """The other model families in the picker: counts equal to HF tokenizers, and the tokens shown
    with their own boundaries (WordPiece's ## continuations; SentencePiece's ▁ word starts, which the
    page shows as the space they stand for, ·)."""
    from tests.hf_reference import hf_folder

    tokenizers = pytest.importorskip("tokenizers")
    page, guard = wide
    text = "Tokenizers split unfamiliar words: unbelievably, internationalization."
    page.get_by_label("Tokenizer", exact=True).select_option(name)
    set_text(page, text)
    expected = tokenizers.Tokenizer.from_file(str(hf_folder(name) / "tokenizer.json")).encode(text, add_special_tokens=False)
    wait_count(page, len(expected.ids))
    assert [p.rsplit("/", 1)[1] for p in guard.requests if "/tokenizers/" in p] == [f"{name}.json.gz"]
    shown = page.locator("#tokens .tok").all_inner_texts()
    assert len(shown) == len(expected.ids)
    assert any(marker in token for token in expected.tokens) and any(shown_marker in token for token in shown)
    shot(page, f"{name}-1366")


def test_link_restores_a_prepared_tokenizer(browser, site_server) -> None:
    guard = Guard()
    context = guarded_context(browser, guard)
    page = context.new_page()
    page.goto(site_server + "#e=hf:gpt2&c=o200k_base&t=aGVsbG8gd29ybGQ")  # "hello world"
    wait_count(page, hf_count("gpt2", "hello world"))
    assert page.get_by_label("Tokenizer", exact=True).input_value() == "hf:gpt2"
    assert page.text_content("#compare-a-label") == "GPT-2"
    # A link opened in the same tab: its settings and text, without a reload.
    page.evaluate("() => { location.hash = '#e=cl100k_base&t=SGkgdGhlcmUsIGZyaWVuZHM'; }")  # "Hi there, friends"
    wait_count(page, CL100K.count("Hi there, friends"))
    assert page.get_by_label("Tokenizer", exact=True).input_value() == "cl100k_base"
    assert page.get_by_label("Compare with", exact=True).input_value() == ""  # left out of the link: the default
    context.close()
    assert not guard.violations


def test_compare_o200k_with_llama3(wide) -> None:
    page, _ = wide
    text = corpus_texts()["zh"][:1500]
    set_text(page, text)
    page.get_by_label("Compare with", exact=True).select_option("llama3")
    b = hf_count("llama3", text)
    page.wait_for_function(
        "want => document.querySelector('[data-testid=compare-b-count]').textContent.replace(/,/g, '') === String(want)",
        arg=b,
    )
    assert page.inner_text('[data-testid="compare-a-count"]').replace(",", "") == str(O200K.count(text))
    assert [page.text_content("#compare-a-label"), page.text_content("#compare-b-label")] == ["o200k_base", "Llama 3"]
    page.wait_for_function("() => location.hash.includes('c=llama3')")
    shot(page, "compare-o200k-llama3")


def test_open_tokenizer_json_with_the_file_input(wide) -> None:
    from tests.hf_reference import hf_folder

    page, guard = wide
    path = hf_folder("qwen2_5") / "tokenizer.json"
    text = "Qwen reads this: <|im_start|>user\nhello 🫠<|im_end|>"
    page.locator("#file").set_input_files(str(path))
    page.wait_for_function("() => document.getElementById('encoding').value.startsWith('file:')", timeout=60_000)
    set_text(page, text)
    wait_count(page, hf_count("qwen2_5", text))
    assert "tokenizer.json" in page.inner_text("#file-note") and "nothing was sent" in page.inner_text("#file-note")
    assert page.locator("#tokens .tok.special").count() == 2
    assert not any("/tokenizers/" in p for p in guard.requests)  # read from the file, not the bundle
    page.wait_for_timeout(400)  # the link is written after a pause
    assert "e=" not in page.evaluate("() => location.hash") and "file" not in page.evaluate("() => location.hash")
    # A file that is not a tokenizer.json says so and changes nothing.
    page.locator("#file").set_input_files(files=[{"name": "notes.json", "mimeType": "application/json", "buffer": b'{"hello": 1}'}])
    page.wait_for_function("() => document.getElementById('file-note').classList.contains('failed')")
    assert "notes.json" in page.inner_text("#file-note") and "cannot be used" in page.inner_text("#file-note")
    assert page.get_by_label("Tokenizer", exact=True).input_value().startswith("file:")
    shot(page, "opened-file")


def test_drop_a_tokenizer_json_on_the_page(wide) -> None:
    page, _ = wide
    spec = {"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2, "<s>": 3}, "merges": ["a b"]},
            "added_tokens": [{"id": 3, "content": "<s>", "special": True}]}
    source = json.dumps(spec)
    page.evaluate(
        """(source) => {
          const data = new DataTransfer();
          data.items.add(new File([source], 'tiny.json', { type: 'application/json' }));
          for (const type of ['dragenter', 'dragover', 'drop']) {
            document.body.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }));
          }
        }""",
        source,
    )
    page.wait_for_function("() => document.getElementById('encoding').selectedOptions[0]?.textContent === 'tiny.json'")
    set_text(page, "abab<s>ba")
    expected = bytepair.Tokenizer.from_str(source).encode("abab<s>ba", add_special_tokens=False).ids
    wait_count(page, len(expected))
    assert page.locator("#drop").is_hidden()


# ---------------------------------------------------------------- results in view (issue 11, item 4)
def contrast(fg: str, bg: str) -> float:
    """WCAG contrast ratio of two computed colours ("rgb(r, g, b)")."""

    def luminance(color: str) -> float:
        channels = [int(c) / 255 for c in re.findall(r"\d+", color)[:3]]
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted([luminance(fg), luminance(bg)], reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_contrast_formula() -> None:
    assert contrast("rgb(0, 0, 0)", "rgb(255, 255, 255)") == pytest.approx(21)
    assert contrast("rgb(118, 118, 118)", "rgb(255, 255, 255)") == pytest.approx(4.54, abs=0.01)


# Every token colour (and the colour of a token that holds part of a character) with a whitespace
# marker in it, as computed by the page's styles.
MARKER_COLOURS = """() => {
  const host = document.getElementById('tokens');
  const pairs = [];
  for (const cls of ['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c0 partial']) {
    const tok = document.createElement('span');
    tok.className = `tok ${cls}`;
    const ws = document.createElement('span');
    ws.className = 'ws';
    ws.textContent = '·';
    tok.append(ws);
    host.append(tok);
    pairs.push([cls, getComputedStyle(ws).color, getComputedStyle(tok).backgroundColor]);
    tok.remove();
  }
  for (const ws of document.querySelectorAll('#tokens .tok .ws')) {
    pairs.push(['shown', getComputedStyle(ws).color, getComputedStyle(ws.closest('.tok')).backgroundColor]);
  }
  return pairs;
}"""


def check_marker_contrast(page) -> None:
    pairs = page.evaluate(MARKER_COLOURS)
    assert len(pairs) > 8  # the page shows markers too
    for cls, fg, bg in pairs:
        assert contrast(fg, bg) >= 4.5, (cls, fg, bg, contrast(fg, bg))


def box(page, selector: str) -> dict:
    found = page.locator(selector).first.bounding_box()
    assert found is not None, selector
    return found


def test_wide_screen_keeps_results_in_view(browser, site_server) -> None:
    """1366x768: count and first tokens in the first viewport; the link is not rewritten before an
    edit; the loading note names the steps after the bytes; the live region follows the count; text,
    tokens and ids are linked both ways; marker contrast (light)."""
    guard = Guard()
    context = guarded_context(browser, guard, viewport={"width": 1366, "height": 768})
    context.add_init_script(
        """window.__phases = [];
        document.addEventListener('DOMContentLoaded', () => {
          const el = document.getElementById('load-detail');
          new MutationObserver(() => window.__phases.push(el.textContent)).observe(el, { childList: true, characterData: true, subtree: true });
        });"""
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(site_server)
    page.wait_for_function(f"document.querySelector('{COUNT}').textContent !== '–'", timeout=60_000)
    text = page.get_by_label("Text", exact=True).input_value()
    wait_count(page, O200K.count(text))
    for selector in (COUNT, "#tokens .tok", "#token-ids .tid", "#text"):
        assert box(page, selector)["y"] + box(page, selector)["height"] < 768, selector
    assert page.evaluate("() => window.scrollY") == 0
    phases = page.evaluate("() => window.__phases")
    for step in ("compiling WebAssembly", "starting Python", "loading the o200k_base ranks"):  # the runtime's phases, named one by one
        assert any(f"fetched; {step}…" in p for p in phases), (step, phases)
    assert page.locator("#loading").is_hidden()
    # No link is written before the user types.
    page.wait_for_timeout(400)
    assert page.url == site_server
    shot(page, "wide-1366")

    # The live region follows the count (after a pause in typing).
    live = page.locator('[data-testid="count-live"]')
    assert live.get_attribute("aria-live") == "polite"
    box_ = page.get_by_label("Text", exact=True)
    box_.fill("")
    box_.type("Linked: text, tokens and ids.\nSecond line", delay=5)
    typed = "Linked: text, tokens and ids.\nSecond line"
    wait_count(page, O200K.count(typed))
    page.wait_for_function("want => document.querySelector('[data-testid=count-live]').textContent === want", arg=f"{O200K.count(typed)} tokens")
    page.wait_for_function("() => location.hash.includes('t=')")  # written once the user typed

    # Hover a token: its characters are marked in the box, its id in the id list.
    ids, spans = O200K.encode_with_offsets(typed)
    k = 3
    page.locator("#tokens .tok").nth(k).hover()
    assert page.text_content("#text-backdrop mark") == typed[spans[k][0]:spans[k][1]]
    assert page.locator("#token-ids .tid.linked").all_inner_texts() == [str(ids[k])]
    # ... in a backdrop laid out as the box is (same text width, font and scroll position).
    layout = """(el) => { const s = getComputedStyle(el); return [el.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight),
      s.fontFamily, s.fontSize, s.lineHeight, s.paddingTop, s.whiteSpace, el.scrollTop]; }"""
    assert page.locator("#text-backdrop").evaluate(layout) == box_.evaluate(layout)
    page.mouse.move(0, 0)
    assert page.locator("#text-backdrop mark").count() == 0
    # Hover an id: its token and characters.
    page.locator("#token-ids .tid").nth(k + 1).hover()
    assert page.locator("#tokens .tok.linked").count() == 1
    assert page.text_content("#text-backdrop mark") == typed[spans[k + 1][0]:spans[k + 1][1]]
    # Select text in the box: its tokens.
    start, end = typed.index("tokens"), typed.index("Second") + 3
    box_.evaluate("(el, [s, e]) => { el.focus(); el.setSelectionRange(s, e); el.dispatchEvent(new Event('select')); }", [start, end])
    expected = [i for i, (s, e) in enumerate(spans) if s < end and e > start]
    got = page.evaluate("() => [...document.querySelectorAll('#tokens .tok.linked')].map((el) => Number(el.dataset.index))")
    assert got == expected
    shot(page, "linked-1366")
    check_marker_contrast(page)
    context.close()
    assert not guard.violations, guard.violations
    assert not errors, errors


def test_phone_count_bar_stays_and_tokens_never_wrap(browser, site_server) -> None:
    guard = Guard()
    context = guarded_context(browser, guard, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(site_server)
    page.wait_for_function(f"document.querySelector('{COUNT}').textContent !== '–'", timeout=60_000)
    text = corpus_texts()["mixed"][:3000] + SAMPLE_CODE + "\n  antidisestablishmentarianism\t日本語のテキスト 🫠👩‍👩‍👧 " + "=" * 40 + "\n\n"
    paste(page, text)
    wait_count(page, O200K.count(text, disallowed_special=()))
    # The box focused and scrolled into view, then the page scrolled on: the count bar stays on screen.
    page.get_by_label("Text", exact=True).focus()
    for y in (None, 600, 100_000):
        if y is not None:
            page.evaluate("(y) => window.scrollTo(0, y)", y)
        page.wait_for_timeout(50)
        count = box(page, COUNT)
        assert 0 <= count["y"] and count["y"] + count["height"] <= 844, (y, count)
        assert page.evaluate("() => getComputedStyle(document.querySelector('.stats')).position") == "sticky"
        shot(page, f"phone-390-scrolled-{y}", full_page=False)
    assert page.evaluate("() => window.scrollY") > 600
    # No token box is split over two lines.
    split = page.evaluate("() => [...document.querySelectorAll('#tokens .tok')].filter((el) => el.getClientRects().length !== 1).length")
    assert split == 0
    multiline = page.evaluate(
        "() => [...document.querySelectorAll('#tokens .tok')].filter((el) => el.getBoundingClientRect().height > 2 * parseFloat(getComputedStyle(el).fontSize)).length"
    )
    assert multiline == 0
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    # With the special-token question in it the bar would cover half the screen: it scrolls away.
    paste(page, "Hi <|endoftext|> there")
    page.wait_for_selector("#special-found:not([hidden])")
    assert page.evaluate("() => getComputedStyle(document.querySelector('.stats')).position") == "static"
    page.get_by_role("button", name="Treat as plain text").click()
    page.wait_for_selector("#special-found", state="hidden")
    assert page.evaluate("() => getComputedStyle(document.querySelector('.stats')).position") == "sticky"
    context.close()
    assert not guard.violations, guard.violations


def test_dark_mode_marker_contrast(browser, site_server) -> None:
    guard = Guard()
    context = guarded_context(browser, guard, color_scheme="dark", viewport={"width": 1366, "height": 768})
    page = context.new_page()
    page.goto(site_server)
    page.get_by_role("button", name="Code").click()
    wait_count(page, O200K.count(SAMPLE_CODE))
    assert page.evaluate("() => matchMedia('(prefers-color-scheme: dark)').matches")
    check_marker_contrast(page)
    shot(page, "dark-1366")
    context.close()


def test_a_sample_picked_while_the_page_starts_is_counted(browser, site_server) -> None:
    """A sample button clicked before the page has read the bundle's manifest is not lost: the page
    counts that sample, not the English one it would have shown. (On a slow machine the click of
    the dark-mode test above landed in that window and its count never came.) The manifest is held back
    until the click has happened."""
    guard = Guard()
    context = guarded_context(browser, guard)
    held = []
    context.route("**/bytepair/manifest.json", lambda route: held.append(route))  # answered after the click
    page = context.new_page()
    page.goto(site_server)
    page.get_by_role("button", name="Code").click()
    assert held, "the page asked for no manifest before the click: nothing was held back"
    context.unroute("**/bytepair/manifest.json")  # later asks (the worker's) go straight through
    for route in held:
        route.fallback()
    wait_count(page, O200K.count(SAMPLE_CODE))
    assert page.get_by_label("Text", exact=True).input_value() == SAMPLE_CODE
    context.close()
    assert not guard.violations, guard.violations


SAMPLE_CODE = (
    "def fibonacci(n: int) -> list[int]:\n"
    '    """Return the first n Fibonacci numbers."""\n'
    "    seq = [0, 1]\n"
    "    while len(seq) < n:\n"
    "        seq.append(seq[-1] + seq[-2])\n"
    "    return seq[:n]\n\n"
    "print(fibonacci(10))  # [0, 1, 1, 2, 3, 5, 8, 13, 21, 34]\n"
)


def test_open_a_crlf_file_counts_its_bytes(app) -> None:
    """The box turns CRLF into LF; a file's tokens are counted from its bytes, and the note says so."""
    line = "Line with CRLF ends, café 日本\r\n  indented\r\n  \r\n"  # CR LF after spaces splits differently from LF
    data = ("\ufeff" + line * (10_000 // len(line.encode()))).encode()
    text = data.decode("utf-8")
    as_file, as_box = O200K.count(text, disallowed_special=()), O200K.count(text.replace("\r\n", "\n"), disallowed_special=())
    assert as_file != as_box
    app.locator("#text-file").set_input_files(files=[{"name": "notes.txt", "mimeType": "text/plain", "buffer": data}])
    wait_count(app, as_file)
    note = app.locator("#state-note")
    app.wait_for_function("() => document.getElementById('state-note').textContent.includes('tokens')")
    assert note.inner_text() == (
        f"notes.txt has CRLF line ends: counted as in the file ({as_file:,} tokens); the text box shows LF."
    )
    assert "\r" not in app.get_by_label("Text", exact=True).input_value()
    # A token's characters are marked in the box at the right place despite the dropped CRs.
    ids, spans = O200K.encode_with_offsets(text)
    k = max(i for i, (s, e) in enumerate(spans[:1500]) if "日" in text[s:e])
    app.locator("#tokens .tok").nth(k).hover()
    assert app.text_content("#text-backdrop mark") == text[spans[k][0]:spans[k][1]]
    app.mouse.move(0, 0)
    shot(app, "crlf-file")
    # An edit makes the box (LF) the text counted.
    app.get_by_label("Text", exact=True).press("Control+End")
    app.keyboard.type("!")
    wait_count(app, O200K.count(text.replace("\r\n", "\n") + "!", disallowed_special=()))
    assert "now for the text in the box" in note.inner_text()
    # A file that is not UTF-8 says so.
    app.locator("#text-file").set_input_files(files=[{"name": "latin1.txt", "mimeType": "text/plain", "buffer": "café".encode("latin-1")}])
    app.wait_for_function("() => document.getElementById('state-note').textContent.includes('not UTF-8')")


def test_share_link_keeps_the_model(app, browser) -> None:
    set_text(app, "model in the link")
    model = app.get_by_label("Model", exact=True)
    model.fill("gpt-3.5-turbo")
    model.press("Enter")
    wait_count(app, CL100K.count("model in the link"))
    app.wait_for_function("() => location.hash.includes('m=gpt-3.5-turbo')")
    assert "e=cl100k_base" in app.url
    guard = Guard()
    context = guarded_context(browser, guard)
    page = context.new_page()
    page.goto(app.url)
    wait_count(page, CL100K.count("model in the link"))
    assert page.get_by_label("Model", exact=True).input_value() == "gpt-3.5-turbo"
    assert page.get_by_label("Tokenizer", exact=True).input_value() == "cl100k_base"
    assert "gpt-3.5-turbo uses cl100k_base" in page.inner_text("#model-note")
    context.close()
    assert not guard.violations
    app.get_by_label("Tokenizer", exact=True).select_option("o200k_base")
    app.wait_for_function("() => !location.hash.includes('m=')")


def split_differences(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> tuple[list[tuple[int, int]], int]:
    """The plain reference for the page's compare view: cut the text where both tokenizations end a
    token; a piece that is not one token on both sides is split differently."""
    ends_a = {e for _, e in a}
    ends_b = {e for _, e in b}
    cuts = sorted(ends_a & ends_b)
    pieces = list(zip([0, *cuts], cuts))
    differ = []
    for start, end in pieces:
        inside_a = [s for s in a if s[0] >= start and s[1] <= end]
        inside_b = [s for s in b if s[0] >= start and s[1] <= end]
        if len(inside_a) != 1 or len(inside_b) != 1:
            differ.append((start, end))
    return differ, len(pieces)


def test_compare_marks_the_spans_split_differently(app) -> None:
    text = "Tokenizers split text into pieces: antidisestablishmentarianism, 1234567, 日本語のテキスト and   spaces."
    set_text(app, text)
    app.get_by_label("Compare with", exact=True).select_option("cl100k_base")
    a_ids, a_spans = O200K.encode_with_offsets(text)
    b_ids, b_spans = CL100K.encode_with_offsets(text)
    app.wait_for_function(
        "want => document.querySelector('[data-testid=compare-b-count]').textContent === String(want)", arg=len(b_ids)
    )
    assert app.inner_text('[data-testid="compare-a-count"]') == str(len(a_ids))
    words = count_words(text)
    assert app.inner_text("#compare-a-tpw") == f"{len(a_ids) / words:.2f}"
    assert app.inner_text("#compare-b-tpw") == f"{len(b_ids) / words:.2f}"
    differ, total = split_differences(a_spans, b_spans)
    assert differ  # the two encodings do split this text differently
    assert app.inner_text('[data-testid="compare-spans"]').startswith(f"{len(differ)} of {total} spans are split differently")
    for pane, spans in (("#tokens", a_spans), ("#tokens-b", b_spans)):
        marked = app.evaluate(f"() => [...document.querySelectorAll('{pane} .tok')].map((el) => el.classList.contains('differs'))")
        assert marked == [any(s >= ds and e <= de for ds, de in differ) for s, e in spans], pane
    assert app.locator("#pane-b").is_visible() and app.locator("#pane-a-head").inner_text().startswith("o200k_base")
    # The largest differences: by how much the counts differ, then by length; equal counts say so.
    items = app.evaluate("() => [...document.querySelectorAll('#compare-examples li')].map((li) => [Number(li.dataset.start), Number(li.dataset.end), li.textContent])")
    count_in = lambda spans, start, end: sum(1 for s, e in spans if s >= start and e <= end)  # noqa: E731
    want = sorted(differ, key=lambda d: (-abs(count_in(a_spans, *d) - count_in(b_spans, *d)), -(d[1] - d[0])))[:5]
    assert [(start, end) for start, end, _ in items] == want
    for start, end, line in items:
        na, nb = count_in(a_spans, start, end), count_in(b_spans, start, end)
        assert line.endswith(f"{na} tokens on both sides, split at different places" if na == nb else f"o200k_base {na}, cl100k_base {nb} tokens"), line
    assert any("on both sides" in line for *_, line in items)  # "establishment": 2 tokens each, cut apart differently
    shot(app, "compare-spans")
    app.get_by_label("Compare with", exact=True).select_option("")
    app.locator("#pane-b").wait_for(state="hidden")


# ---------------------------------------------------------------- the Train tab
def visible_merge(left: str, right: str) -> str:
    """A merge as the Train tab lists it: each token's text (whitespace marked), or its ByteLevel form
    when it is part of a character."""
    from bytepair.text.byte_unicode import visible_to_bytes

    def show(token: str) -> str:
        try:
            text = visible_to_bytes(token).decode("utf-8")
        except (KeyError, ValueError):
            return token
        return text.translate({ord(" "): "·", ord("\n"): "↵", ord("\t"): "→", ord("\r"): "\\r"})

    return f"{show(left)} + {show(right)} → {show(left + right)}"


def test_train_tab_end_to_end(wide) -> None:
    tk = pytest.importorskip("tokenizers")
    page, _ = wide
    text = (corpus_texts()["en"] + corpus_texts()["fr"])[:20_000]
    tok = bytepair.train([text], 400, pattern="o200k_base", special_tokens=["<|endoftext|>"], min_frequency=2)
    merges = json.loads(tok.to_str())["model"]["merges"]
    page.get_by_role("tab", name="Train").click()
    page.evaluate("(t) => { document.getElementById('train-text').value = t; }", text)
    page.get_by_label("Vocabulary size").fill("400")
    page.evaluate("""() => {
      window.__statuses = [];
      new MutationObserver(() => window.__statuses.push(document.getElementById('train-status').textContent))
        .observe(document.getElementById('train-status'), { childList: true, characterData: true, subtree: true });
    }""")
    page.get_by_role("button", name="Train", exact=True).click()
    page.wait_for_function("() => document.getElementById('train-status').textContent.startsWith('Done')", timeout=120_000)
    statuses = page.evaluate("() => window.__statuses")
    assert any(s.startswith("Counting pieces") for s in statuses) and any(s.startswith("Merging:") for s in statuses), statuses
    assert page.inner_text('[data-testid="train-summary"]').startswith(f"{len(merges)} merges, vocabulary {tok.get_vocab_size()}")
    listed = page.locator("#train-merges li").all_inner_texts()
    assert len(listed) == min(len(merges), 200)
    assert listed[:20] == [visible_merge(a, b) for a, b in reversed(merges[-20:])]
    assert page.evaluate("() => [...document.querySelectorAll('#train-merges li')].slice(0, 3).map(li => li.value)") == [
        len(merges), len(merges) - 1, len(merges) - 2]
    shot(page, "train-1366")

    # The download is a tokenizer.json that HF tokenizers loads and that encodes as bytepair does.
    with page.expect_download() as info:
        page.get_by_role("link", name="Download tokenizer.json").click()
    download = info.value
    assert download.suggested_filename == "tokenizer.json"
    saved = open(download.path(), encoding="utf-8").read()
    assert json.loads(saved)["model"]["merges"] == merges
    held_out = corpus_texts()["de"][:10_000] + " <|endoftext|> 🫠"
    assert tk.Tokenizer.from_str(saved).encode(held_out).ids == tok.encode(held_out).ids

    # "Use in main view": the main view counts with the trained tokenizer; then beside o200k_base.
    held_out = "<|endoftext|>" + text + " 🫠"  # the training text, in the main box
    paste(page, held_out)
    page.get_by_role("tab", name="Train").click()
    page.get_by_role("button", name="Use in main view").click()
    wait_count(page, tok.count(held_out))
    assert page.get_by_role("tab", name="Tokens").get_attribute("aria-selected") == "true"
    assert page.locator("#tokens .tok.special").count() == 1
    page.get_by_role("tab", name="Train").click()
    page.get_by_role("button", name="Compare with o200k_base").click()
    page.wait_for_function(
        "want => document.querySelector('[data-testid=compare-b-count]').textContent.replace(/,/g, '') === String(want)",
        arg=O200K.count(held_out, disallowed_special=()),  # the page counts it as text until asked
    )
    assert page.inner_text('[data-testid="compare-a-count"]').replace(",", "") == str(tok.count(held_out))
    assert page.text_content("#compare-b-label") == "o200k_base"
    shot(page, "train-compare-1366")
    page.get_by_role("tab", name="Train").click()
    page.set_viewport_size({"width": 390, "height": 844})
    shot(page, "train-390")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, width


def test_train_tab_files_and_stop(wide) -> None:
    page, _ = wide
    page.get_by_role("tab", name="Train").click()
    # Files are read line by line, as `bytepair train FILE` reads them.
    lines = corpus_texts()["de"][:5000]
    page.locator("#train-files").set_input_files(files=[{"name": "de.txt", "mimeType": "text/plain", "buffer": lines.encode()}])
    assert "1 file" in page.inner_text('[data-testid="train-files-note"]') and "de.txt" in page.inner_text('[data-testid="train-files-note"]')
    page.get_by_label("Vocabulary size").fill("300")
    page.get_by_label("Split text with").select_option("gpt2")
    page.get_by_test_id("train-special").fill("")
    page.get_by_label("Minimum pair count").fill("0")
    page.get_by_role("button", name="Train", exact=True).click()
    page.wait_for_function("() => document.getElementById('train-status').textContent.startsWith('Done')", timeout=120_000)
    tok = bytepair.train(lines.splitlines(keepends=True), 300, pattern="gpt2")
    assert page.inner_text('[data-testid="train-summary"]').startswith(
        f"{len(json.loads(tok.to_str())['model']['merges'])} merges, vocabulary {tok.get_vocab_size()}")

    # Stop: a long training ends (the worker is terminated) and says so; the main view keeps counting meanwhile.
    # Half a megabyte of distinct random words to 100,000 tokens: the merging phase lasts several seconds
    # natively and longer in the worker, so the click lands mid-merge (a repeated corpus file ran out of
    # pairs within a second and raced the click).
    rng = random.Random(7)
    words = ("".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 12))) for _ in range(60_000))
    page.evaluate("(t) => { document.getElementById('train-text').value = t; }", " ".join(words))
    page.get_by_label("Vocabulary size").fill("100000")
    page.get_by_role("button", name="Train", exact=True).click()
    set_text(page, "counted while training")
    wait_count(page, O200K.count("counted while training"))
    assert page.get_by_role("button", name="Stop").is_enabled()  # still training while the main view counted
    page.wait_for_function("() => document.getElementById('train-status').textContent.startsWith('Merging')", timeout=120_000)
    page.get_by_role("button", name="Stop").click()
    page.wait_for_function("() => document.getElementById('train-status').textContent.startsWith('Stopped')", timeout=60_000)
    assert page.get_by_role("button", name="Train", exact=True).is_enabled()


def native_family(kind: str, text: str, vocab_size: int, specials: list[str]) -> bytepair.Tokenizer:
    """The tokenizer the Train tab trains for a model choice, trained natively (docs/TRAINING.md's pipelines)."""
    from bytepair import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

    if kind == "wordpiece":
        tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.normalizer, tok.pre_tokenizer, tok.decoder = normalizers.BertNormalizer(), pre_tokenizers.BertPreTokenizer(), decoders.WordPiece()
        trainer = trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=["[UNK]", *specials], min_frequency=2, show_progress=False)
    else:
        tok = Tokenizer(models.Unigram())
        tok.pre_tokenizer, tok.decoder = pre_tokenizers.Metaspace(), decoders.Metaspace()
        trainer = trainers.UnigramTrainer(vocab_size=vocab_size, unk_token="<unk>", special_tokens=["<unk>", *specials], show_progress=False)
    tok.train_from_iterator([text], trainer)
    return tok


def test_train_tab_other_families(wide) -> None:
    """Pick WordPiece, then Unigram: each trains in the page to the tokenizer it trains natively, its
    own tokens (## continuations, ▁ for a space) show in the main view, and the list shows merges or pieces."""
    page, _ = wide
    text = corpus_texts()["en"][:6000]
    page.get_by_role("tab", name="Train").click()
    page.evaluate("(t) => { document.getElementById('train-text').value = t; }", text)
    page.get_by_test_id("train-special").fill("[SEP]")
    for kind, label, vocab_size, mark in [("wordpiece", "WordPiece (BERT-style)", 400, "##"), ("unigram", "Unigram (SentencePiece-style)", 300, "▁")]:
        page.get_by_test_id("train-model").select_option(kind)
        assert not page.get_by_label("Split text with").is_visible()  # byte-level BPE's option only
        assert page.get_by_label("Minimum pair count").is_visible() == (kind == "wordpiece")
        page.get_by_label("Vocabulary size").fill(str(vocab_size))
        page.get_by_role("button", name="Train", exact=True).click()
        page.wait_for_function("() => document.getElementById('train-status').textContent.startsWith('Done')", timeout=180_000)
        tok = native_family(kind, text, vocab_size, ["[SEP]"])
        summary = page.inner_text('[data-testid="train-summary"]')
        assert summary.startswith(f"{label}: ") and f"vocabulary {tok.get_vocab_size()}" in summary, summary
        listed = page.locator("#train-merges li").all_inner_texts()
        assert listed and any(mark in item for item in listed), listed[:5]
        if kind == "unigram":  # the pieces by id, with their scores
            pieces = json.loads(tok.to_str())["model"]["vocab"]
            assert listed[3].split(" ")[0] == pieces[3][0].replace(" ", "·")
        with page.expect_download() as info:
            page.get_by_role("link", name="Download tokenizer.json").click()
        saved, native = json.loads(open(info.value.path(), encoding="utf-8").read()), json.loads(tok.to_str())
        if kind == "unigram":  # the same pieces; the same scores but for the last bits of a sum (1e-9 relative)
            ours, theirs = saved["model"].pop("vocab"), native["model"].pop("vocab")
            assert [p for p, _ in ours] == [p for p, _ in theirs]
            assert [s for _, s in ours] == pytest.approx([s for _, s in theirs], rel=1e-9)
        assert saved == native

        probe = "Tokenizers learn their vocabulary from the text they are trained on. [SEP]"
        paste(page, probe)
        page.get_by_role("tab", name="Train").click()
        page.get_by_role("button", name="Use in main view").click()
        wait_count(page, len(tok.encode(probe).ids))
        shown = page.locator("#tokens .tok").all_inner_texts()
        assert len(shown) == len(tok.encode(probe).ids) and page.locator("#tokens .tok.special").count() == 1
        assert any(mark in t for t in tok.encode(probe).tokens)
        shot(page, f"train-{kind}-1366")
        page.get_by_role("tab", name="Train").click()


def test_an_edit_during_a_drawing_leaves_no_slice_hidden(app) -> None:
    """Slices after the first two are drawn hidden (class "later") and shown together at the end; an
    edit that lands before that end keeps the slices drawn so far, and they must still be shown.
    The page's zero-delay timers (the drawing's steps) are held and released by hand, so the edit
    lands mid-drawing every time."""
    lines = [f"line {k}: {' '.join(random.Random(k).choices(['alpha', 'beta', 'gamma', '42', '--'], k=12))}" for k in range(150)]
    text = "\n".join(lines) + "\n"
    app.evaluate("""() => {
      const original = window.setTimeout.bind(window);
      window.heldSteps = [];
      window.setTimeout = (fn, ms, ...args) => (ms ? original(fn, ms, ...args) : (window.heldSteps.push(() => fn(...args)), 0));
    }""")
    app.get_by_label("Text", exact=True).fill(text)
    wait_count(app, O200K.count(text))
    app.wait_for_function("() => window.heldSteps.length === 1")  # two slices drawn, the next step waits
    app.evaluate("() => window.heldSteps.shift()()")  # one step: four more slices, drawn hidden
    assert app.evaluate("() => document.querySelectorAll('#tokens .slice.later').length") == 4
    edited = text.replace("line 120:", "line 120 edited:")  # beyond the slices drawn so far
    app.get_by_label("Text", exact=True).fill(edited)
    wait_count(app, O200K.count(edited))
    # Run the held steps (and those they add) until the drawing is done: no slice may stay hidden.
    app.wait_for_function(
        "() => { while (window.heldSteps.length) window.heldSteps.shift()();"
        " return document.querySelectorAll('#tokens .slice').length > 6 && !document.querySelector('#tokens .later'); }",
        timeout=10_000,
    )
    assert app.evaluate("() => [...document.querySelectorAll('#tokens .tok')].length") == 2000
