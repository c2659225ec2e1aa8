"""The bridge's analysis operations (the playground's Analyse tab): the parts JavaScript asks for one
at a time, joined as Tokenizer.analyze joins them, equal Python's ``bytepair.analysis.analyze``, for
an OpenAI encoding and a loaded tokenizer.json, also when the kept corpus-free parts are reused for a
new text; bad arguments answer typed errors."""

from __future__ import annotations

import json

import pytest

from bytepair import Tokenizer
from bytepair.analysis import TokenizerView, analyze, to_markdown
from bytepair.web_bridge import dispatch, unload_tokenizer

from tests.hf_reference import hf_folder


def joined(names: list[str], corpus: dict[str, str] | None) -> dict:
    """What web/bytepair.mjs's Tokenizer.analyze puts together from the parts."""
    value = lambda *args: dispatch("analyze", *args)["value"]  # noqa: E731
    report: dict = {"tokenizers": [value("tokenizer", [n]) for n in names]}
    if corpus is not None:
        report["fertility"] = value("fertility", names, corpus)
    report["vocabulary"] = [value("vocabulary", [n], corpus) for n in names]
    return report


@pytest.fixture(scope="module")
def llama3():
    path = hf_folder("llama3") / "tokenizer.json"
    info = dispatch("load_tokenizer_json", path.read_text(encoding="utf-8"), "llama3")["value"]
    view = TokenizerView.of(Tokenizer.from_file(str(path)))
    view.name = "llama3"  # as the page names it
    yield info["key"], view
    unload_tokenizer(info["key"])


def test_parts_equal_python_and_reuse_is_exact(llama3) -> None:
    key, view = llama3
    for corpus in ({"en": "Hello, world! 1234567", "ja": "日本語のテキスト。"}, {"other": "A new text ========"}, None):
        ours = joined(["r50k_base", key], corpus)
        expected = analyze(["r50k_base", view], corpus=corpus)
        assert ours == expected
        assert dispatch("analysis_markdown", json.dumps(ours))["value"] == to_markdown(expected)
    # Llama 3 has 588 unreachable tokens, more than the 20 listed: the unused part must skip them all
    assert ours["vocabulary"][1]["unreachable"]["count"] == 588


@pytest.mark.parametrize(("args", "name", "fragment"), [
    (("everything", ["r50k_base"]), "InvalidInputError", "part must be one of"),
    (("vocabulary", ["r50k_base", "gpt2"]), "InvalidInputError", "one tokenizer at a time"),
    (("tokenizer", "r50k_base"), "InvalidInputError", "array of tokenizer names"),
    (("fertility", ["r50k_base"]), "InvalidInputError", "needs a corpus"),
    (("fertility", ["r50k_base"], {"en": "  "}), "InvalidInputError", "no text"),
    (("fertility", ["r50k_base"], ["text"]), "InvalidInputError", "label -> text"),
    (("vocabulary", ["r50k_base"], None, 0), "InvalidInputError", "from 1 to 1000"),
    (("tokenizer", ["no_such_encoding"]), "UnknownEncodingError", "no_such_encoding"),
    (("tokenizer", ["tokenizer.json:0000"]), "UnknownEncodingError", "create it again"),
])
def test_bad_arguments_answer_typed_errors(args: tuple, name: str, fragment: str) -> None:
    error = dispatch("analyze", *args)["error"]
    assert error["name"] == name and fragment in error["message"], error


def test_markdown_of_something_else_is_a_typed_error() -> None:
    for bad in ("{", '{"tokenizers": 3}', 5):
        assert dispatch("analysis_markdown", bad)["error"]["name"] == "InvalidInputError"
