"""Names and models map exactly as in tiktoken; custom encodings can be registered."""

from __future__ import annotations

import pytest

import bytepair

MODELS = [
    "gpt-4o", "gpt-4o-mini", "gpt-4o-2024-05-13", "chatgpt-4o-latest", "gpt-4", "gpt-4-0314", "gpt-4-32k",
    "gpt-3.5-turbo", "gpt-3.5-turbo-16k", "gpt-35-turbo", "o1", "o1-mini", "o3", "o3-mini", "o4-mini",
    "gpt-4.1", "gpt-4.1-nano", "gpt-4.5-preview", "gpt-5", "gpt-5-mini", "gpt-oss-120b",
    "text-embedding-3-small", "text-embedding-ada-002", "davinci-002", "text-davinci-003",
    "text-davinci-edit-001", "code-davinci-002", "davinci", "ada", "gpt2", "gpt-2",
    "ft:gpt-4o-mini:org::id", "ft:gpt-3.5-turbo:org::id", "ft:davinci-002:x",
]


def test_names_match_tiktoken() -> None:
    tiktoken = pytest.importorskip("tiktoken")
    assert sorted(bytepair.list_encoding_names()) == sorted(tiktoken.list_encoding_names())


@pytest.mark.parametrize("model", MODELS)
def test_models_match_tiktoken(model: str) -> None:
    tiktoken_model = pytest.importorskip("tiktoken.model")
    assert bytepair.encoding_name_for_model(model) == tiktoken_model.encoding_name_for_model(model)


def test_encoding_for_model_shares_instances() -> None:
    assert bytepair.encoding_for_model("gpt-4o") is bytepair.get_encoding("o200k_base")
    assert bytepair.get_encoding("gpt2")._mergeable_ranks is bytepair.get_encoding("r50k_base")._mergeable_ranks


def test_register_encoding(monkeypatch: pytest.MonkeyPatch) -> None:
    from bytepair import registry

    # Registrations are global: keep this one out of the other tests.
    monkeypatch.setattr(registry, "_CONSTRUCTORS", dict(registry._CONSTRUCTORS))
    monkeypatch.setattr(registry, "_ENCODINGS", dict(registry._ENCODINGS))
    ranks = {bytes((b,)): b for b in range(256)} | {b"ab": 256}
    bytepair.register_encoding(
        "tiny_test", lambda: bytepair.Encoding("tiny_test", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    )
    assert "tiny_test" in bytepair.list_encoding_names()
    assert bytepair.get_encoding("tiny_test").encode("ab a") == [256, 32, 97]
    with pytest.raises(ValueError, match="already registered"):
        bytepair.register_encoding("o200k_base", lambda: bytepair.get_encoding("tiny_test"))


def test_repr_and_properties() -> None:
    enc = bytepair.get_encoding("o200k_harmony")
    assert repr(enc) == "<Encoding 'o200k_harmony'>"
    assert enc.n_vocab == 201088 and enc.max_token_value == 201087
    assert "<|call|>" in enc.special_tokens_set


def test_data_dir_override_checks_hashes_unless_verified(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """The browser runtime reads ranks from a directory it fills with manifest-checked files."""
    from bytepair import registry
    from bytepair.formats.packed_ranks import read_packed_ranks

    from tests.conftest import PACKAGE_DATA

    monkeypatch.setattr(registry, "_ENCODINGS", {})
    registry._packed.cache_clear()
    monkeypatch.setattr(registry, "_data_dir", None)
    data = (PACKAGE_DATA / "r50k_base.bpr").read_bytes()
    header_end = data.index(b"\n", 5)
    # Same ranks, but the payload hash in the header is wrong: only a trusted directory accepts it.
    stale = data[:header_end].replace(read_packed_ranks(data).header["payload_sha256"].encode(), b"0" * 64)
    (tmp_path / "r50k_base.bpr").write_bytes(stale + data[header_end:])
    try:
        registry.use_data_dir(str(tmp_path))
        with pytest.raises(bytepair.VocabHashMismatchError, match="r50k_base.bpr"):
            bytepair.get_encoding("r50k_base")
        registry._packed.cache_clear()
        registry.use_data_dir(str(tmp_path), verified=True)
        assert bytepair.get_encoding("r50k_base").encode("hello world") == [31373, 995]
        # Structure is still checked: a truncated file is refused even from a trusted directory.
        registry._packed.cache_clear()
        monkeypatch.setattr(registry, "_ENCODINGS", {})
        (tmp_path / "r50k_base.bpr").write_bytes(data[:-100])
        with pytest.raises(bytepair.VocabFormatError, match="does not decompress"):
            bytepair.get_encoding("r50k_base")
    finally:
        registry.use_data_dir(None)
        registry._packed.cache_clear()
