"""Start-up of two builds of ``dist/`` in Chromium, fresh profiles taken in turn: an A/B of start-up.

    cp -r dist /tmp/dist-before        # before the change (or a build of an older commit)
    make bundle                        # after it
    .venv/bin/python bench/startup_ab.py /tmp/dist-before dist --rounds 4

Why: ``bench_web.py --only start-up`` measures bytepair beside five peers (~15 min a run), and on this
shared host its warm median moves by ±10% from one run to the next, more than a change worth making
to the start. This uses ``bench_web.py``'s own harness (its server, bench page, fresh persistent
profiles, and count checked against tiktoken's) for bytepair alone, serving the two builds alternately
(A, B, A, B, ...: a fresh profile each, its cold page and then ``--warm-pages`` warm pages), so that a
slow minute hits both. It prints the medians of "tokenizer ready" per build, cold and warm, B's as a
share of A's, the same for the peak private memory of the page's renderer process (Linux: ``VmHWM``
less ``RssFile``, see ``bench_web.renderer_peaks``), and the medians of the worker's own milestones,
to see which phase moved.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import bench_web as bw


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path, help="dist/ directory A (built with `make bundle`)")
    parser.add_argument("after", type=Path, help="dist/ directory B")
    parser.add_argument("--rounds", type=int, default=4, help="fresh profiles per build (default 4)")
    parser.add_argument("--warm-pages", type=int, default=4, help="warm pages per profile (default 4)")
    parser.add_argument("--encoding", default="o200k_base")
    a = parser.parse_args(argv)
    builds = [a.before.resolve(), a.after.resolve()]
    for build in builds:
        if not (build / "manifest.json").exists():
            parser.error(f"{build} holds no manifest.json: build it with `make bundle`")
    from playwright.sync_api import sync_playwright

    args = bw.parse_args(["--only", "start-up", "--encodings", a.encoding, "--warm-pages", str(a.warm_pages)])
    starts: list[list[bw.PageStart]] = [[], []]
    with tempfile.TemporaryDirectory(prefix="bytepair-startup-ab-") as tmp:
        work = Path(tmp)
        expected = bw.reference_ids(work, [a.encoding], {})
        with bw.serve_site(work, {}) as site, sync_playwright() as playwright:
            session = bw.Session(args, site, playwright, [], {}, {}, expected, work)
            link = site.root / "dist"
            for round_ in range(a.rounds):
                for which, build in enumerate(builds):
                    link.unlink()
                    link.symlink_to(build, target_is_directory=True)
                    bw.log(f"round {round_ + 1}/{a.rounds}, {'AB'[which]}")
                    directory = Path(tempfile.mkdtemp(prefix="profile-", dir=work))
                    context = bw.open_profile(session, directory)
                    try:
                        for index in range(1 + a.warm_pages):
                            start = bw.start_page(session, context, "bytepair", a.encoding, round_, index)
                            if start is None:
                                break
                            starts[which].append(start)
                    finally:
                        context.close()
                        shutil.rmtree(directory, ignore_errors=True)
    print(f"\n{a.encoding}: A = {builds[0]}, B = {builds[1]}; {a.rounds} fresh profiles each, in turn, "
          f"1 cold + {a.warm_pages} warm pages (bench/startup_ab.py)\n")  # fmt: skip
    print("| page | A ms | B ms | B ÷ A |")
    print("|:---|--:|--:|--:|")
    for label, warm in (("cold: tokenizer ready", False), ("warm: tokenizer ready", True)):
        medians = [statistics.median(s.ready_ms for s in starts[i] if (s.page > 0) == warm) for i in (0, 1)]
        print(f"| {label} | {medians[0]:,.0f} | {medians[1]:,.0f} | {medians[1] / medians[0]:.2f} |")
    for label, warm in (("cold: renderer's peak memory", False), ("warm: renderer's peak memory", True)):
        peaks = [[s.renderer_peak_kb / 1024 for s in starts[i] if (s.page > 0) == warm and s.renderer_peak_kb] for i in (0, 1)]
        if all(peaks):
            medians = [statistics.median(p) for p in peaks]
            print(f"| {label} | {medians[0]:,.0f} MB | {medians[1]:,.0f} MB | {medians[1] / medians[0]:.2f} |")
    keys = [k for s in starts[0] + starts[1] if s.page > 0 for k in (s.timings or {}) if k != "files"]
    print("\nWarm pages, the worker's milestones (ms since `Runtime.load` began), medians:\n")
    print("| milestone | A | B |")
    print("|:---|--:|--:|")
    for key in dict.fromkeys(keys):
        cells = []
        for i in (0, 1):
            values = [s.timings[key] for s in starts[i] if s.page > 0 and s.timings and isinstance(s.timings.get(key), (int, float))]
            cells.append(f"{statistics.median(values):,.0f}" if values else "–")
        print(f"| `{key}` | {cells[0]} | {cells[1]} |")
    failed = session.checks.failed or session.guard.violations or session.errors
    if failed:
        print(f"\n{len(session.checks.failed)} count mismatch(es), {len(session.guard.violations)} network violation(s), "
              f"{len(session.errors)} error(s)")  # fmt: skip
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
