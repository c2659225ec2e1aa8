"""What the browser benchmark (``python -m bench browser``) assumes about its worst-case inputs.

Why: tiktoken's own pattern step panics on 1 MB of spaces, so the benchmark takes tiktoken's BPE of
the whole text as one piece (``browser_harness.single_piece_ids``) as the reference for the texts it
lists in ``SINGLE_PIECES``. That is exact only if the pattern really leaves those texts whole, and if
the single-piece path gives the ids ``encode_ordinary`` gives; both are checked here at sizes where
tiktoken does not panic. The digits text is the one worst case that is not a single piece.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench.bench_modules import import_bench

regex = pytest.importorskip("regex")
pytest.importorskip("playwright")


@pytest.fixture(scope="module")
def harness():
    return import_bench("browser_harness")


@pytest.fixture(scope="module")
def browser():
    return import_bench("browser")


@pytest.fixture(scope="module")
def startup():
    return import_bench("browser_startup")


@pytest.fixture(scope="module")
def common():
    return import_bench("common")


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
def test_single_piece_fallback_is_exact(harness, tiktoken_ref, encoding: str) -> None:
    enc = tiktoken_ref(encoding)
    texts = dict(harness.worst_case_texts(20_000).values())
    assert set(harness.SINGLE_PIECES) < set(texts)
    for name, text in texts.items():
        pieces = regex.findall(enc._pat_str, text)
        assert "".join(pieces) == text
        if name in harness.SINGLE_PIECES:
            assert len(pieces) == 1, name
            assert harness.single_piece_ids(enc, text) == enc.encode_ordinary(text), name
        else:
            assert len(pieces) > 1, name


def test_worst_case_texts_have_the_size_asked(harness) -> None:
    texts = harness.worst_case_texts(1_000)
    assert len(texts) == 4
    for label, (name, text) in texts.items():
        assert len(text) == 1_000 and "1,000" in label and name.startswith("worst-")
    assert texts != harness.worst_case_texts(999)


def test_a_run_of_part_of_a_section_does_not_write_over_it(browser, common, tmp_path: Path) -> None:
    """``--only 'first pass'`` once rewrote the whole browser section with its first pass alone,
    dropping the mixed-stream, throughput and worst-case tables of the run before."""
    chosen = [m for m in browser.MEASUREMENTS if m.name == "first pass"]
    assert browser.left_out_of("browser", chosen) == ["mixed stream", "throughput", "worst cases"]
    assert browser.left_out_of("browser-startup", [m for m in browser.MEASUREMENTS if m.name == "start-up"]) == []
    doc = tmp_path / "PERFORMANCE.md"
    assert not common.has_section(doc, "browser")
    common.replace_section(doc, "browser", "## Browser\n\nold tables")
    assert common.has_section(doc, "browser") and not common.has_section(doc, "playground")


def test_a_cold_download_over_the_target_is_reported_not_met(harness, startup) -> None:
    """The cold-download target (7.5 MB) is checked in the start-up notes: a bundle that grows past
    it (7,545,961 bytes on 2026-11-23 while the summary still said "met") shows as not met."""

    def start(*sizes: int):
        requests = [harness.Request("/bench/bench.mjs", 200, 9_000)]
        requests += [harness.Request(f"/dist/f{i}", 200, n) for i, n in enumerate(sizes)]
        return startup.PageStart("bytepair", "o200k_base", 0, 0, 50.0, 900.0, 910.0, None, requests)

    over = startup.cold_bytes_note("o200k_base", start(7_000_000, 545_961))
    assert "7,545,961 bytes" in over and "**not met**" in over
    under = startup.cold_bytes_note("o200k_base", start(7_000_000, 331_759))
    assert "7,331,759 bytes" in under and under.endswith(": met).")
