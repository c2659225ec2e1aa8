"""Measurement ``worst cases`` of the browser section (part of section ``browser`` of
docs/PERFORMANCE.md): one ``encode`` of a long single piece (1 MB of "x", random letters, spaces)
and of random digits, per library on a fresh page, with a time limit.

Why apart: a library may run for minutes or throw on these inputs, so each call gets a page of its
own that is closed (killing its renderer) when the limit passes; the result is a time, "> limit" or
the error, never a harness failure.
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.browser_harness import (
    LIBRARIES,
    JobError,
    JobTimeout,
    Session,
    bench_page,
    fmt_bytes,
    target_mark,
)
from bench.common import WORST_CASE_SEED, Column, log, md_table

TARGET_WORST_S = 3.0


@dataclass
class WorstRun:
    library: str
    encoding: str
    case: str
    n_bytes: int
    n_tokens: int | None
    ms: float | None  # None: over the time limit, or failed
    failure: str | None = None


def worst_case_run(session: Session, library: str, encoding: str, case: str, name: str) -> WorstRun:
    """One encode of one worst-case text on a fresh page (empty caches); the page dies on time-out."""
    n_bytes = session.text_bytes[name]
    with bench_page(session.browser(), session.site, session.guard) as page:
        try:
            page.call("load", library, encoding, timeout_s=120)
        except (JobTimeout, JobError) as err:
            session.error(f"worst case {library} {encoding} {case}: loading: {err}")
            return WorstRun(library, encoding, case, n_bytes, None, None, "did not load")
        try:
            r = page.call("encodeOnce", f"/corpus/{name}.txt", timeout_s=session.args.timeout)
        except JobTimeout:
            log(f"worst case: {library} {encoding} {case}: over {session.args.timeout:g} s, page closed")
            return WorstRun(library, encoding, case, n_bytes, None, None, f"> {session.args.timeout:g} s")
        except JobError as err:  # the library itself failed on this input: a result, not a harness error
            message = str(err).splitlines()[0]
            log(f"worst case: {library} {encoding} {case} threw {message}")
            return WorstRun(library, encoding, case, n_bytes, None, None, f"throws `{message}`")
    session.check_ids(encoding, name, library, r, case)
    return WorstRun(library, encoding, case, r["bytes"], r["tokens"], r["ms"])


def measure_worst_cases(session: Session) -> list[WorstRun]:
    runs = []
    for encoding in session.args.worst_encodings:
        for case, name in session.worst_cases.items():
            for library in LIBRARIES:
                log(f"worst case: {encoding}, {case}, {library}")
                runs.append(worst_case_run(session, library, encoding, case, name))
    return runs


# ------------------------------------------------------------------------------------- reporting
WORST_COLUMNS: list[Column] = (
    [("encoding", "l"), ("input", "l"), ("bytes", "r"), ("tokens", "r")]
    + [(f"{library} s", "r") for library in LIBRARIES]
    + [(f"target: bytepair < {TARGET_WORST_S:g} s", "l")]
)


def worst_cell(run: WorstRun | None) -> str:
    if run is None:
        return "–"
    return run.failure if run.ms is None else f"{run.ms / 1000:.2f}"


def render_worst_cases(session: Session, runs: list[WorstRun]) -> str:
    body = []
    for encoding in session.args.worst_encodings:
        for case, name in session.worst_cases.items():
            by_library = {r.library: r for r in runs if r.encoding == encoding and r.case == case}
            row = [encoding, case, fmt_bytes(session.text_bytes[name]), f"{session.expected.tokens[encoding, name]:,}"]
            ours = by_library.get("bytepair")
            target = "–" if ours is None else (
                "**not met**" if ours.ms is None else target_mark(ours.ms / 1000, TARGET_WORST_S)
            )  # fmt: skip
            body.append(row + [worst_cell(by_library.get(library)) for library in LIBRARIES] + [target])
    others = [e for e in session.args.encodings if e not in session.args.worst_encodings]
    skipped = (
        f" Not run for {', '.join(others)} (`--worst-encodings`): each encoding costs about four peers × three"
        f" cases × the {session.args.timeout:g} s limit."
        if others
        else ""
    )
    return f"""### 4. Worst cases: {session.args.worst_chars:,}-character pieces

One `encode` of {session.args.worst_chars:,} characters: `"x"` repeated (every merge the same), random
lowercase letters (seeded {WORST_CASE_SEED}; no run of letters repeats) and spaces, each a single piece
under both encodings' patterns, and random digits (seeded), which the patterns cut into pieces of up
to three digits, so that row is not a single piece. Each call on a fresh page right after the library
loaded (bytepair's caches empty). Seconds; a call still running after {session.args.timeout:g} s is
abandoned (its page is closed) and shown as "> {session.args.timeout:g} s". Tokens are tiktoken's count.
Target: bytepair under {TARGET_WORST_S:g} s on every row.{skipped}

{md_table(WORST_COLUMNS, body)}
"""


def failures_by_library(runs: list[WorstRun], prefix: str) -> str:
    """"lib: all 4 cases" or "lib: enc case, …" for the runs whose failure starts with ``prefix``."""
    parts = []
    for library in LIBRARIES:
        mine = [r for r in runs if r.library == library]
        hit = [r for r in mine if r.failure and r.failure.startswith(prefix)]
        if hit:
            cases = ", ".join(f"{r.encoding} {r.case}" for r in hit)
            what = f"all {len(mine)} runs" if len(hit) == len(mine) else cases
            parts.append(f"{library} ({what}{'' if prefix == '>' else ': ' + hit[0].failure})")
    return "; ".join(parts)


def worst_notes(session: Session, runs: list[WorstRun]) -> list[str]:
    out = []
    ours = [r for r in runs if r.library == "bytepair"]
    if ours:
        met = [r for r in ours if r.ms is not None and r.ms / 1000 < TARGET_WORST_S]
        slowest = max((r for r in ours if r.ms is not None), key=lambda r: r.ms or 0.0, default=None)
        worst = "" if slowest is None else f"; slowest {slowest.encoding} {slowest.case}: {slowest.ms / 1000:.2f} s"
        out.append(
            f"- Worst cases, bytepair under {TARGET_WORST_S:g} s: {len(met)} of {len(ours)} runs"
            f" ({'met' if len(met) == len(ours) else '**not met**'}){worst}."
        )
    slow = failures_by_library(runs, ">")
    if slow:
        out.append(f"- Worst cases still running after the {session.args.timeout:g} s limit: {slow}.")
    threw = failures_by_library(runs, "throws")
    if threw:
        out.append(
            f"- Worst cases that threw instead of returning ids: {threw}. `RuntimeError: unreachable` is how "
            "a Rust panic inside a WebAssembly module surfaces."
        )
    return out
