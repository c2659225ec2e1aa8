"""Assemble the playground site: demo/ at the root and the bundle (dist/) under bytepair/.

Why a build step: the service worker must list the exact files to keep for offline use and carry a
version that changes with them, so a new build replaces the old cache instead of mixing with it.

Usage:  python build/site.py [--dist dist] [--out site]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP_FILES = ["./", "index.html", "app.mjs", "style.css", "embed.html", "bytepair-counter.mjs", "manifest.webmanifest"]


def build(dist: Path, out: Path) -> str:
    if not (dist / "manifest.json").is_file():
        raise SystemExit(f"{dist}/manifest.json is missing: run `make bundle` first")
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(ROOT / "demo", out, ignore=shutil.ignore_patterns("sw.js", "README.md"))
    shutil.copytree(dist, out / "bytepair")
    digest = hashlib.sha256()
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        digest.update(path.relative_to(out).as_posix().encode())
        digest.update(path.read_bytes())
    version = digest.hexdigest()[:16]
    worker = (ROOT / "demo" / "sw.js").read_text(encoding="utf-8")
    worker = worker.replace('"__SITE_VERSION__"', json.dumps(version)).replace("__APP_FILES__", json.dumps(APP_FILES))
    (out / "sw.js").write_text(worker, encoding="utf-8")
    return version


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist")
    parser.add_argument("--out", type=Path, default=ROOT / "site")
    args = parser.parse_args()
    version = build(args.dist, args.out)
    print(f"{args.out}: playground + bundle, service-worker cache version {version}")


if __name__ == "__main__":
    main()
