"""Manifests, canonical hashes and compare_tokenizers / `bytepair diff` against real tokenizer files."""

from __future__ import annotations

import io
import json

import pytest

import bytepair
from bytepair import Tokenizer, compare_tokenizers, get_encoding
from bytepair.analysis import canonical_text, manifest
from bytepair.cli import main

from tests.hf_reference import hf_folder


def _cli(*argv: str) -> tuple[int, str]:
    out = io.BytesIO()
    code = main(list(argv), stdout=out)
    return code, out.getvalue().decode("utf-8")


@pytest.fixture(scope="module")
def gpt2_json() -> dict:
    return json.loads((hf_folder("gpt2") / "tokenizer.json").read_text(encoding="utf-8"))


def _write(tmp_path, name: str, data: dict, **dump) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data, **dump), encoding="utf-8")
    return str(path)


def test_manifest_fields_of_an_encoding():
    m = get_encoding("o200k_base").manifest()
    assert m["kind"] == "encoding" and m["merge_rule"] == "token_rank" and m["byte_level"]
    assert m["model_vocab_size"] == 199998 and m["n_merges"] == 199998 - 256
    assert m["specials"] == {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}
    assert m["pattern"] == get_encoding("o200k_base").engine.pre_tokenizer.pattern
    assert json.loads(json.dumps(m)) == m  # JSON-serialisable as is


def test_encoding_and_its_tokenizer_face_have_one_hash():
    for name in ("cl100k_base", "r50k_base"):
        a, b = get_encoding(name).manifest(), Tokenizer.from_encoding(name).manifest()
        assert a["sha256"] == b["sha256"] and a["kind"] != b["kind"]
        report = compare_tokenizers(Tokenizer.from_encoding(name), name)
        assert report["interchangeable"] and report["verdict"] == "identical"


def test_hash_ignores_json_layout_and_key_order(tmp_path, gpt2_json):
    compact = _write(tmp_path, "compact.json", gpt2_json)
    # Keys in reverse order, pretty, non-ASCII escaped: the same tokenizer written differently.
    shuffled = {k: gpt2_json[k] for k in reversed(list(gpt2_json))}
    shuffled["model"] = {k: gpt2_json["model"][k] for k in reversed(list(gpt2_json["model"]))}
    pretty = _write(tmp_path, "pretty.json", shuffled, indent=4, ensure_ascii=True)
    resaved = tmp_path / "resaved.json"
    Tokenizer.from_file(compact).save(resaved, pretty=True)
    hashes = {manifest(p)["sha256"] for p in (compact, pretty, str(resaved))}
    assert len(hashes) == 1
    assert compare_tokenizers(compact, pretty)["verdict"] == "identical"


def test_swapped_merges_change_the_hash_and_diff_names_them(tmp_path, gpt2_json):
    edited = json.loads(json.dumps(gpt2_json))
    merges = edited["model"]["merges"]
    merges[100], merges[101] = merges[101], merges[100]
    a, b = _write(tmp_path, "a.json", gpt2_json), _write(tmp_path, "b.json", edited)
    ma, mb = manifest(a), manifest(b)
    assert ma["sha256"] != mb["sha256"] and ma["merges_sha256"] != mb["merges_sha256"]
    assert ma["vocab_sha256"] == mb["vocab_sha256"]
    report = compare_tokenizers(a, b)
    assert not report["interchangeable"]
    (diff,) = report["differences"]
    assert diff["what"] == "merges" and "reordered" in diff["summary"] and diff["first_rank"] == 100


def test_changed_pattern_changes_the_hash_and_diff_names_it(tmp_path):
    data = json.loads((hf_folder("llama3") / "tokenizer.json").read_text(encoding="utf-8"))
    edited = json.loads(json.dumps(data))
    split = edited["pre_tokenizer"]["pretokenizers"][0]
    split["pattern"]["Regex"] = split["pattern"]["Regex"].replace(r"\p{N}{1,3}", r"\p{N}")
    a, b = _write(tmp_path, "a.json", data), _write(tmp_path, "b.json", edited)
    assert manifest(a)["sha256"] != manifest(b)["sha256"]
    report = compare_tokenizers(a, b)
    assert [d["what"] for d in report["differences"]] == ["pattern"]
    assert report["differences"][0]["details"][0]["b"] == split["pattern"]["Regex"]


def test_changed_special_token_is_named(tmp_path, gpt2_json):
    edited = json.loads(json.dumps(gpt2_json))
    edited["added_tokens"].append({"id": 50257, "content": "<|pad|>", "single_word": False, "lstrip": False,
                                   "rstrip": False, "normalized": False, "special": True})
    report = compare_tokenizers(_write(tmp_path, "a.json", gpt2_json), _write(tmp_path, "b.json", edited))
    assert [d["what"] for d in report["differences"]] == ["specials"]
    assert report["differences"][0]["details"] == [{"token": "<|pad|>", "a_id": None, "b_id": 50257, "flags_differ": False}]


def test_canonical_form_is_as_documented():
    lines = canonical_text("r50k_base").splitlines()
    assert lines[0] == "bytepair-canonical 1"
    at = lines.index("vocab 50256")
    assert lines[at + 1] == "0 21" and lines[at + 256 + 1] == "256 2074"  # token 256 is " t"
    merges_at = lines.index("merges 50000")
    assert lines[merges_at + 1] == "20 74"  # the first merge: " " + "t"
    assert len(lines) == merges_at + 1 + 50000


def test_gpt4o_tokenizer_json_against_o200k():
    """What the gpt4o tokenizer.json is, held against o200k_base: same vocabulary (ids and bytes), the
    same merges as derived from o200k's ranks, the same two special tokens at the same ids, the same
    pattern text; it differs in form only (HF's pair-rank merge rule; the Split step written as
    Removed+invert), and every token's bytes merge to the same ids both ways."""
    report = compare_tokenizers(str(hf_folder("gpt4o")), "o200k_base", texts=["Hello world!\n\tx = 1234567 🫠 café"])
    assert report["verdict"] == "unproven" and not report["interchangeable"]
    assert sorted(d["what"] for d in report["differences"]) == ["merge_rule", "pre_tokenizer"]
    checks = report["checks"]
    assert checks["tokens_checked"] == 199998 and checks["n_token_mismatches"] == 0 and not checks["text_mismatches"]
    a, b = manifest(str(hf_folder("gpt4o"))), manifest("o200k_base")
    assert a["vocab_sha256"] == b["vocab_sha256"] and a["merges_sha256"] == b["merges_sha256"]
    assert a["specials"] == b["specials"]


def test_llama3_and_qwen2_5_are_not_interchangeable():
    report = compare_tokenizers(str(hf_folder("llama3")), str(hf_folder("qwen2_5")))
    assert report["verdict"] == "different"
    assert {"vocab", "merges", "pattern", "normalizer", "specials"} <= {d["what"] for d in report["differences"]}


def test_cli_manifest_and_diff_exit_codes():
    code, text = _cli("manifest", "cl100k_base")
    assert code == 0 and json.loads(text)["sha256"] == get_encoding("cl100k_base").manifest()["sha256"]
    code, text = _cli("diff", "cl100k_base", "cl100k_base")
    assert code == 0 and "interchangeable" in text
    code, text = _cli("diff", "r50k_base", "p50k_base", "--json")
    assert code == 1 and json.loads(text)["verdict"] == "different"
    code, text = _cli("diff", str(hf_folder("llama3")), str(hf_folder("qwen2_5")))
    assert code == 1 and "NOT interchangeable" in text and "pattern changed" in text


def test_unknown_names_and_paths(tmp_path, capsys):
    with pytest.raises(bytepair.UnknownEncodingError, match="neither an encoding name"):
        manifest("no_such_encoding")
    assert _cli("manifest", str(tmp_path / "missing.json"))[0] == 2
    assert _cli("diff", "cl100k_base", "nope")[0] == 2
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert _cli("manifest", str(bad))[0] == 1
    assert "bytepair:" in capsys.readouterr().err
