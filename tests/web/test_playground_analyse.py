"""The playground's Analyse tab in headless Chromium: the report drawn in the page is Python's
``bytepair.analysis.analyze`` on the same text (the downloaded JSON equals it, the numbers on the
bars and in the tables equal it, the copied Markdown is ``to_markdown`` of it), on the text box, the
built-in sample and a text file; charts are SVG with titles; it fits a 390 px screen and dark mode.

One page serves the module: the first report on o200k + cl100k takes tens of seconds in
WebAssembly on a shared machine; later ones reuse the vocabulary reports kept in the worker.
Screenshots land in test-results/ (looked at by a person)."""

from __future__ import annotations

import json

import pytest

from bytepair.analysis import analyze, fertility, to_markdown

from tests.browser import ARTIFACTS, SITE, Guard, guarded_context

pytestmark = pytest.mark.browser
COUNT = '[data-testid="token-count"]'
TEXT = ("Tokenizers split text: 1234567 and 3.14159, naïve café, Привет мир, 日本語のテキスト, "
        "def f(x):\n    return x ** 2  # ========\n")
NAMES = ["o200k_base", "cl100k_base"]
ANALYSIS_TIMEOUT = 300_000  # ms: two 100k-200k vocabularies in WebAssembly, on 2 shared cores


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"playground-analyse-{name}.png"), full_page=True)


def run_analysis(page, timeout: float = ANALYSIS_TIMEOUT) -> None:
    page.get_by_test_id("analyse-run").click()
    page.wait_for_function(
        "() => document.querySelector('[data-testid=analyse-status]').textContent.startsWith('Analysed')"
        " || !document.querySelector('#panel-analyse .error').hidden",
        timeout=timeout,
    )
    error = page.locator("#panel-analyse .error")
    assert error.is_hidden(), error.text_content()


def downloaded_report(page) -> dict:
    with page.expect_download() as info:
        page.get_by_role("button", name="Download JSON").click()
    return json.loads(open(info.value.path(), encoding="utf-8").read())


@pytest.fixture(scope="module")
def analysed(browser, site_server):
    """The page at 1366x768 with o200k_base compared with cl100k_base, analysed on TEXT."""
    guard = Guard()
    context = guarded_context(browser, guard, viewport={"width": 1366, "height": 768})
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.goto(site_server + "#e=o200k_base&c=cl100k_base")
    page.wait_for_function(f"document.querySelector('{COUNT}').textContent !== '–'", timeout=60_000)
    page.get_by_label("Text", exact=True).fill(TEXT)
    page.get_by_role("tab", name="Analyse").click()
    run_analysis(page)
    yield page
    context.close()
    assert not guard.violations, guard.violations
    assert not problems, problems


def test_report_equals_python(analysed) -> None:
    expected = analyze(NAMES, corpus={"text": TEXT})
    assert downloaded_report(analysed) == expected
    status = analysed.get_by_test_id("analyse-status").text_content()
    assert status.startswith("Analysed o200k_base and cl100k_base on the text box"), status


def test_numbers_shown_equal_python(analysed) -> None:
    expected = analyze(NAMES, corpus={"text": TEXT})
    rows = {(r["language"], r["tokenizer"]): r for r in expected["fertility"]["rows"]}
    bars = analysed.locator("svg rect[data-metric]")
    assert bars.count() == 3 * 1 * 2  # three metrics, one text (its "all" row is the same: in the table only), two tokenizers
    for i in range(bars.count()):
        bar = bars.nth(i)
        row = rows[(bar.get_attribute("data-language"), bar.get_attribute("data-tokenizer"))]
        assert float(bar.get_attribute("data-value")) == row[bar.get_attribute("data-metric")]
    # the tables show the same numbers as text, rounded as the Markdown rounds them
    cell = analysed.locator('td[data-metric="tokens_per_word"][data-language="text"][data-tokenizer="cl100k_base"]')
    assert cell.text_content() == f"{rows[('text', 'cl100k_base')]['tokens_per_word']:.2f}"
    for vocab in expected["vocabulary"]:
        section = analysed.locator(f'[data-testid="analysis-vocab"][data-name="{vocab["name"]}"]')
        assert section.get_attribute("data-size") == str(vocab["size"])
        assert section.get_attribute("data-unreachable") == str(vocab["unreachable"]["count"])
        assert section.get_attribute("data-split-alone") == str(vocab["split_alone"]["count"])
        assert section.get_attribute("data-punctuation-run") == str(vocab["junk"]["punctuation_run"]["count"])
        assert section.get_attribute("data-unused") == str(vocab["unused"]["count"])
        lengths = {str(b["bytes"]): b["count"] for b in vocab["lengths"]["histogram"]}
        hist = section.locator("svg.an-hist rect[data-bytes]")
        assert hist.count() >= 16
        for i in range(16):
            bar = hist.nth(i)
            assert int(bar.get_attribute("data-value")) == lengths.get(bar.get_attribute("data-bytes"), 0)
        script = section.locator('svg.an-scripts rect[data-script="LATIN"]')
        assert int(script.get_attribute("data-value")) == vocab["scripts"]["LATIN"]
        split = section.locator('td[data-sample="1234567"]')
        assert split.locator("code").all_text_contents() == vocab["numbers"]["splits"]["1234567"]
    o200k = analysed.locator('[data-testid="analysis-vocab"][data-name="o200k_base"]')
    assert "亚洲AV" in o200k.text_content()  # a split-alone example is listed


def test_charts_are_accessible_svg(analysed) -> None:
    charts = analysed.locator("#panel-analyse svg.an-chart")
    assert charts.count() == 3 + 2 * 2  # the fertility metrics; lengths and scripts per tokenizer
    for i in range(charts.count()):
        svg = charts.nth(i)
        assert svg.get_attribute("role") == "img"
        title = svg.locator(":scope > title")
        assert title.get_attribute("id") == svg.get_attribute("aria-labelledby")
        assert title.text_content().strip()
        bars = svg.locator("rect")
        assert bars.count() and all(bars.nth(j).locator("title").text_content() for j in range(bars.count()))
    tables = analysed.locator("#panel-analyse details table")
    assert tables.count() == charts.count()  # each chart has its numbers as a table


def test_copy_markdown_is_the_cli_markdown(analysed) -> None:
    analysed.get_by_role("button", name="Copy Markdown").click()
    analysed.wait_for_function("() => document.querySelector('#panel-analyse .an-actions [role=status]').textContent !== ''")
    copied = analysed.evaluate("() => navigator.clipboard.readText()")
    assert copied == to_markdown(analyze(NAMES, corpus={"text": TEXT}))


def test_phone_width_and_dark_mode(analysed) -> None:
    page = analysed
    page.set_viewport_size({"width": 1366, "height": 768})
    shot(page, "wide")
    page.set_viewport_size({"width": 390, "height": 844})
    page.locator("#panel-analyse").scroll_into_view_if_needed()
    overflow = page.evaluate("() => document.documentElement.scrollWidth")
    assert overflow <= 390, f"the page is {overflow} px wide at 390 px"
    widest = page.evaluate("() => Math.max(...[...document.querySelectorAll('#panel-analyse svg')].map((s) => s.getBoundingClientRect().right))")
    assert widest <= 390
    shot(page, "phone")
    page.emulate_media(color_scheme="dark")
    label_fill = page.evaluate("() => getComputedStyle(document.querySelector('.an-chart .an-label')).fill")
    body = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    assert body != "rgb(251, 251, 250)" and label_fill == "rgb(231, 233, 236)"  # the dark palette's text colour
    page.set_viewport_size({"width": 1366, "height": 768})
    shot(page, "dark")
    page.emulate_media(color_scheme="light")


def test_builtin_sample_and_a_text_file(analysed, tmp_path) -> None:
    page = analysed
    sample = json.loads((SITE / "analyse-sample.json").read_text(encoding="utf-8"))
    assert len(sample) == 13 and all(1000 <= len(t) <= 6000 for t in sample.values())
    page.get_by_label("built-in sample", exact=False).check()
    run_analysis(page)
    assert downloaded_report(page)["fertility"] == fertility(NAMES, sample)
    page.get_by_text("the built-in sample", exact=False).first.wait_for()

    path = tmp_path / "notes.txt"
    path.write_text("Ein kurzer Text.\r\nZweite Zeile: 2024.\n", encoding="utf-8", newline="")
    with page.expect_file_chooser() as chooser:
        page.locator("#panel-analyse").get_by_role("button", name="Choose…").click()
    chooser.value.set_files(str(path))
    page.wait_for_function("() => document.querySelector('#panel-analyse').textContent.includes('1 file: notes.txt')")
    run_analysis(page)
    report = downloaded_report(page)
    assert report == analyze(NAMES, corpus={"notes.txt": path.read_bytes().decode("utf-8")})  # CRLF kept
