"""The package's shape, held: every public name imports, HF's stage names are there, modules stay a
size a reader can hold, no module reaches into another's private names, the layers are one-way.

``make test`` runs ``lint-imports`` too (the layer and no-cycle contracts of ``[tool.importlinter]`` in
pyproject.toml, for ``bytepair`` and ``bench``); the test here runs it as well, so that a broken
contract fails in ``pytest`` alone.
"""

from __future__ import annotations

import ast
import importlib
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import bytepair

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "core" / "bytepair"
GENERATED = {"pre_tokenizers/pattern/unicode_tables.py", "normalizers/grapheme_tables.py"}
MAX_LINES = 500


def test_every_public_name_imports() -> None:
    for name in bytepair.__all__:
        assert getattr(bytepair, name) is not None, name


# tiktoken's modules and names, answered by bytepair's (drop-in for `import tiktoken.<module>` code).
TIKTOKEN_NAMES = {
    "bytepair": ["Encoding", "get_encoding", "encoding_for_model", "encoding_name_for_model", "list_encoding_names"],
    "bytepair.registry": ["ENCODINGS", "get_encoding", "list_encoding_names"],
    "bytepair.model": ["MODEL_TO_ENCODING", "MODEL_PREFIX_TO_ENCODING", "encoding_for_model", "encoding_name_for_model"],
    "bytepair.load": ["load_tiktoken_bpe", "data_gym_to_mergeable_bpe_ranks", "dump_tiktoken_bpe", "read_file",
                      "read_file_cached", "check_hash"],
}

# Hugging Face tokenizers' stage modules and the classes HF code names in them: every class that
# tokenizers 0.23.3 and bytepair both offer (the intersection, so that one disappearing fails here).
# HF's that bytepair does not offer: trainers.ParityBpeTrainer (tests/test_hf_signatures.py's NOT_OFFERED).
HF_NAMES = {
    "models": ["Model", "BPE", "WordPiece", "WordLevel", "Unigram"],
    "normalizers": ["Normalizer", "NFC", "NFD", "NFKC", "NFKD", "Lowercase", "StripAccents", "Strip", "Replace",
                    "Prepend", "BertNormalizer", "ByteLevel", "Precompiled", "Nmt", "Sequence"],
    "pre_tokenizers": ["PreTokenizer", "ByteLevel", "Split", "Metaspace", "Digits", "Punctuation", "Whitespace",
                       "WhitespaceSplit", "BertPreTokenizer", "CharDelimiterSplit", "FixedLength", "UnicodeScripts",
                       "Sequence"],
    "processors": ["PostProcessor", "TemplateProcessing", "BertProcessing", "RobertaProcessing", "ByteLevel", "Sequence"],
    "decoders": ["Decoder", "ByteLevel", "Metaspace", "ByteFallback", "Fuse", "Strip", "Replace", "BPEDecoder",
                 "WordPiece", "CTC", "Sequence", "DecodeStream"],
    "trainers": ["Trainer", "BpeTrainer", "WordPieceTrainer", "WordLevelTrainer", "UnigramTrainer"],
}

TOKENIZER_API = [
    "from_str", "from_file", "from_buffer", "from_pretrained", "from_encoding", "from_gpt2_files", "to_str", "save",
    "save_model", "to_encoding", "save_tiktoken", "save_minbpe", "to_packed", "manifest", "encode", "encode_batch",
    "encode_batch_fast", "decode", "decode_batch", "decode_stream", "post_process", "num_special_tokens_to_add",
    "token_to_id", "id_to_token", "get_vocab", "get_vocab_size", "get_added_tokens_decoder", "add_tokens",
    "add_special_tokens", "enable_padding", "no_padding", "padding", "enable_truncation", "no_truncation", "truncation",
    "count", "is_within_token_limit", "count_file", "count_stream", "encode_stream", "stream_blocks", "token_counter",
    "apply_chat_template", "normalizer", "pre_tokenizer", "model", "post_processor", "decoder", "engine",
    "async_encode", "async_encode_batch", "async_encode_batch_fast", "async_decode_batch",
]


@pytest.mark.parametrize("module", sorted(TIKTOKEN_NAMES))
def test_tiktoken_module_names(module: str) -> None:
    loaded = importlib.import_module(module)
    for name in TIKTOKEN_NAMES[module]:
        assert hasattr(loaded, name), f"{module}.{name}"


@pytest.mark.parametrize("stage", sorted(HF_NAMES))
def test_hf_stage_names(stage: str) -> None:
    loaded = importlib.import_module(f"bytepair.{stage}")
    from_import = __import__("bytepair", fromlist=[stage])  # `from bytepair import <stage>`
    assert getattr(from_import, stage) is loaded
    for name in HF_NAMES[stage]:
        assert isinstance(getattr(loaded, name), type), f"bytepair.{stage}.{name}"


def test_tokenizer_api() -> None:
    tok = bytepair.Tokenizer.from_encoding("r50k_base")
    missing = [name for name in TOKENIZER_API if not hasattr(tok, name)]
    assert missing == []


def _modules(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def test_no_module_is_longer_than_a_reader_can_hold() -> None:
    long = {str(p.relative_to(PACKAGE)): n for p in _modules(PACKAGE)
            if str(p.relative_to(PACKAGE)) not in GENERATED and (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def _private_reach_ins(path: Path) -> list[str]:
    """Imports of another project module's ``_private`` names, and ``x._private`` where ``x`` is not
    ``self``/``cls``/``super()`` and the module assigns no such attribute itself."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    owned = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)}
    owned |= {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").split(".")[0] in ("bytepair", "bench")):
            found += [f"{path.name}:{node.lineno} imports {a.name}" for a in node.names
                      if a.name.startswith("_") and not a.name.startswith("__")]
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            target = node.value
            if isinstance(target, ast.Name) and target.id in ("self", "cls"):
                continue
            if isinstance(target, ast.Call) and isinstance(target.func, ast.Name) and target.func.id == "super":
                continue
            if node.attr not in owned:
                found.append(f"{path.name}:{node.lineno} reads {ast.unparse(target)}.{node.attr}")
    return found


@pytest.mark.parametrize("folder", ["core/bytepair", "bench"])
def test_no_module_reaches_into_another_modules_private_names(folder: str) -> None:
    found = [hit for path in _modules(ROOT / folder) for hit in _private_reach_ins(path)]
    assert found == []


def test_import_contracts_hold() -> None:
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if lint is None:
        pytest.skip("import-linter is not installed (make test installs it)")
    result = subprocess.run([lint, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:]


def test_import_contracts_cover_both_packages() -> None:
    """The contracts live in pyproject.toml (an ``.importlinter`` or ``setup.cfg`` section would be read
    first and hide them), and cover ``bench`` as well as the package: no import circle in either."""
    assert not (ROOT / ".importlinter").exists()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    assert sorted(config["root_packages"]) == ["bench", "bytepair"]
    acyclic = {tuple(c["ancestors"]) for c in config["contracts"] if c["type"] == "acyclic_siblings"}
    assert {("bytepair",), ("bench",)} <= acyclic


def test_architecture_doc_names_every_package() -> None:
    doc = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    packages = sorted(str(p.parent.relative_to(PACKAGE)) for p in PACKAGE.rglob("__init__.py") if p.parent != PACKAGE)
    missing = [p for p in packages if f"{p}/" not in doc]
    assert missing == []
