"""Assemble the playground site: demo/ at the root and the bundle (dist/) under bytepair/.

Why a build step: the service worker must list the exact files to keep for offline use and carry a
version that changes with them, so a new build replaces the old cache instead of mixing with it.

It also writes ``analyse-sample.json`` for the playground's Analyse tab: about 1,500 characters
per language of bench/corpus (indented paragraphs: manual pages and reference documentation rather
than the fortunes), picked here so that the page never ships the whole 5 MB corpus.

Usage:  python build/site.py [--dist dist] [--out site]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import lzma
import re
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP_FILES = ["./", "index.html", "app.mjs", "train-tab.mjs", "style.css", "embed.html", "bytepair-counter.mjs", "manifest.webmanifest",
             "analyse.mjs", "analyse-sample.json", "chat.mjs"]
SAMPLE_CHARS = 1500


def build(dist: Path, out: Path) -> str:
    if not (dist / "manifest.json").is_file():
        raise SystemExit(f"{dist}/manifest.json is missing: run `make bundle` first")
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(ROOT / "demo", out, ignore=shutil.ignore_patterns("sw.js", "README.md"))
    shutil.copytree(dist, out / "bytepair")
    sample = analysis_sample(ROOT / "bench" / "corpus")
    (out / "analyse-sample.json").write_text(json.dumps(sample, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    digest = hashlib.sha256()
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        digest.update(path.relative_to(out).as_posix().encode())
        digest.update(path.read_bytes())
    version = digest.hexdigest()[:16]
    worker = (ROOT / "demo" / "sw.js").read_text(encoding="utf-8")
    worker = worker.replace('"__SITE_VERSION__"', json.dumps(version)).replace("__APP_FILES__", json.dumps(APP_FILES))
    (out / "sw.js").write_text(worker, encoding="utf-8")
    return version


def analysis_sample(corpus: Path, chars: int = SAMPLE_CHARS) -> dict[str, str]:
    """Label -> the first indented paragraphs (all paragraphs for code) of each corpus file, up to
    about ``chars`` characters; ``mixed`` is left out (its languages are the other files')."""
    sample = {}
    for path in sorted(corpus.glob("*.txt.xz")):
        label = path.name.removesuffix(".txt.xz")
        if label == "mixed":
            continue
        text = lzma.decompress(path.read_bytes()).decode("utf-8")
        keep: list[str] = []
        size = 0
        for para in re.split(r"\n[ \t]*\n", text):
            para = para.strip("\n")
            indented = all(line.startswith("   ") for line in para.split("\n"))
            if len(para) < 80 or not (indented or label.startswith("code")):
                continue
            keep.append(para)
            size += len(para)
            if size >= chars:
                break
        sample[label] = "\n\n".join(keep)
    return sample


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist")
    parser.add_argument("--out", type=Path, default=ROOT / "site")
    args = parser.parse_args()
    version = build(args.dist, args.out)
    print(f"{args.out}: playground + bundle, service-worker cache version {version}")


if __name__ == "__main__":
    main()
