"""docs/PERFORMANCE.md as marked sections, each written by the script that measures it.

Why sections: the native benchmark (``bench_encode.py``) and the browser benchmark (``bench_web.py``)
run separately, need different tools and take minutes each. Each replaces only the text between its
own markers, so re-running one never erases, or silently goes stale against, the other's numbers::

    <!-- BEGIN native -->
    ...
    <!-- END native -->
"""

from __future__ import annotations

import re
from pathlib import Path

# Known sections in document order, with the command that writes each; the order places a section
# that is written for the first time, and the list goes into the intro of a new file.
SECTIONS: dict[str, str] = {
    "native": "`bench/bench_encode.py`: bytepair on CPython against tiktoken (Rust) and a naive BPE",
    "browser-startup": "`bench/bench_web.py`: the browser bundle's start-up (cold and warm) and download size",
    "browser": "`bench/bench_web.py`: the browser bundle in headless Chromium against JavaScript tokenizers",
    "playground": "`bench/bench_web.py`: the playground's first load and its latency from keystroke to updated view",
    "training": "`bench/bench_train.py`: bytepair.train against HF BpeTrainer, rustbpe, bpeasy and a minbpe-style loop",
    "analysis": "`bench/bench_analysis.py`: vocabulary reports, manifests, a diff and fertility (bytepair.analysis)",
    "training-web": "`bench/bench_train_web.py`: the JS API's train() in headless Chromium, 1 MB at 8k",
}


def begin_marker(name: str) -> str:
    return f"<!-- BEGIN {name} -->"


def end_marker(name: str) -> str:
    return f"<!-- END {name} -->"


def intro() -> str:
    """The head of a new file: what it is and which command writes which section."""
    listed = "\n".join(f"- `{name}`: {what}" for name, what in SECTIONS.items())
    return (
        "# Performance\n\n"
        "Generated, section by section, by the benchmark scripts; `make bench` runs them all. Each\n"
        "section comes from one run of its script, on the machine it names, and a script rewrites only\n"
        "its own section (between the `BEGIN`/`END` comments), so re-run a script rather than edit its\n"
        "numbers. Sections:\n\n"
        f"{listed}\n"
    )


def wrap(name: str, markdown: str) -> str:
    """The section's markdown between its markers, with exactly one newline before the end marker."""
    return f"{begin_marker(name)}\n{markdown.strip()}\n{end_marker(name)}"


def _section_span(text: str, name: str) -> tuple[int, int] | None:
    """Start and end offsets of the whole marked section (markers included), or None if absent."""
    pattern = re.compile(re.escape(begin_marker(name)) + r".*?" + re.escape(end_marker(name)), re.DOTALL)
    matches = list(pattern.finditer(text))
    if len(matches) > 1:
        raise ValueError(f"section {name!r} appears {len(matches)} times; fix the file by hand")
    if not matches and (begin_marker(name) in text or end_marker(name) in text):
        raise ValueError(f"section {name!r} has only one of its two markers; fix the file by hand")
    return (matches[0].start(), matches[0].end()) if matches else None


def _insertion_point(text: str, name: str) -> int:
    """Where a new section goes: before the first present section that SECTIONS lists after it."""
    names = list(SECTIONS)
    later = names[names.index(name) + 1 :] if name in SECTIONS else []
    for other in later:
        span = _section_span(text, other)
        if span is not None:
            return span[0]
    return len(text)


def has_section(path: Path, name: str) -> bool:
    """Whether ``path`` exists and holds section ``name``."""
    return path.exists() and _section_span(path.read_text(encoding="utf-8"), name) is not None


def replace_section(path: Path, name: str, markdown: str) -> None:
    """Replace section ``name`` of ``path`` with ``markdown``, keeping every other byte of the file.

    An absent section is added (in SECTIONS order where the neighbours exist, else at the end); a
    missing file is created with the intro first.
    """
    text = path.read_text(encoding="utf-8") if path.exists() else intro()
    block = wrap(name, markdown)
    span = _section_span(text, name)
    if span is not None:
        text = text[: span[0]] + block + text[span[1] :]
    else:
        at = _insertion_point(text, name)
        before, after = text[:at].rstrip("\n"), text[at:]
        text = f"{before}\n\n{block}\n" + (f"\n{after}" if after else "")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")

