"""Every component class bytepair offers under an HF ``tokenizers`` 0.23.3 name takes HF's constructor
arguments: each keyword HF accepts is a keyword here, and the arguments HF takes by position come in
the same order. HF's classes are Rust: their names come from ``__text_signature__``, checked against
HF itself (a keyword HF refuses is positional only there), and how many HF takes by position from
the error HF gives for too many."""

from __future__ import annotations

import ast
import inspect
import re
import warnings

import pytest

import bytepair

tokenizers = pytest.importorskip("tokenizers")

MODULES = ["models", "normalizers", "pre_tokenizers", "processors", "decoders", "trainers"]
NOT_OFFERED = {
    ("trainers", "ParityBpeTrainer"): "not implemented (new in tokenizers 0.23: multi-corpus parity-aware BPE, its "
                                      "own train_from_iterator(tokenizer, train_iterators, dev_iterators, ratio))",
}
# Members of HF's stage objects that bytepair's objects of the same name lack: (module, member) for
# every class of the module, and why.
MEMBERS_NOT_OFFERED = {
    ("pre_tokenizers", "pre_tokenize"): "HF's pre-tokenizers edit a PreTokenizedString's splits in place; bytepair's give "
                                         "(piece, start, end) spans (pre_tokenize_str is offered; PreTokenizer.custom "
                                         "takes an object with its own pre_tokenize)",
}
# Names of the top-level tokenizers module that bytepair does not offer, and why.
TOP_LEVEL_NOT_OFFERED = {
    "OffsetReferential": "HF's enum of get_splits' choices; bytepair's PreTokenizedString.get_splits takes the same strings",
    "OffsetType": "HF's enum of get_splits' choices; bytepair's PreTokenizedString.get_splits takes the same strings",
    "SplitDelimiterBehavior": "a type alias of HF's stubs; bytepair takes the same strings",
    "implementations": "HF's old ready-made pipelines (BertWordPieceTokenizer ...): build them from the stages",
    "BertWordPieceTokenizer": "see implementations", "ByteLevelBPETokenizer": "see implementations",
    "CharBPETokenizer": "see implementations", "SentencePieceBPETokenizer": "see implementations",
    "SentencePieceUnigramTokenizer": "see implementations",
    "Encoding": "bytepair.Encoding is tiktoken's class; HF's is bytepair.Encoded",
    "EncodeInput": "a type alias", "InputSequence": "a type alias", "PreTokenizedEncodeInput": "a type alias",
    "PreTokenizedInputSequence": "a type alias", "TextEncodeInput": "a type alias", "TextInputSequence": "a type alias",
    "Offsets": "a type alias", "Enum": "typing, imported by HF's module", "List": "typing, imported by HF's module",
    "Tuple": "typing, imported by HF's module", "Union": "typing, imported by HF's module",
    "tokenizers": "HF's compiled extension module",
}
# Instances to compare members on (HF's defaults, else these arguments).
INSTANCE_ARGS: dict[tuple[str, str], tuple] = {
    ("normalizers", "Replace"): ("a", "b"), ("normalizers", "Prepend"): ("x",), ("pre_tokenizers", "Split"): ("a", "removed"),
    ("pre_tokenizers", "CharDelimiterSplit"): ("-",), ("decoders", "Replace"): ("a", "b"),
    ("processors", "BertProcessing"): (("[SEP]", 1), ("[CLS]", 0)), ("processors", "RobertaProcessing"): (("</s>", 2), ("<s>", 0)),
    ("normalizers", "Sequence"): ([],), ("pre_tokenizers", "Sequence"): ([],), ("decoders", "Sequence"): ([],),
    ("processors", "Sequence"): ([],),
}
NO_INSTANCE = {("models", "Model"), ("normalizers", "Precompiled")}  # a base class; needs a real charsmap
# Where HF's __text_signature__ is not what HF accepts (each checked against HF below).
SIGNATURE_FIXES = {
    ("pre_tokenizers", "Sequence"): {"pretokenizers": "pre_tokenizers"},  # HF refuses pretokenizers=, takes pre_tokenizers=
}
EXTRA_HF_KEYWORDS = {("trainers", "UnigramTrainer"): ["seed_size"]}  # accepted by HF, missing from its signature


def hf_classes() -> list[tuple[str, str]]:
    out = []
    for module in MODULES:
        hf_module = getattr(tokenizers, module)
        for name in dir(hf_module):
            cls = getattr(hf_module, name)
            if isinstance(cls, type) and cls.__text_signature__ is not None and (module, name) not in NOT_OFFERED:
                out.append((module, name))
    return out


def hf_names(module: str, name: str) -> list[str]:
    cls = getattr(getattr(tokenizers, module), name)
    args = ast.parse(f"def f{cls.__text_signature__}: pass").body[0].args  # type: ignore[attr-defined]
    names = [a.arg for a in args.args + args.kwonlyargs if a.arg != "self"]
    fixes = SIGNATURE_FIXES.get((module, name), {})
    return [fixes.get(n, n) for n in names] + EXTRA_HF_KEYWORDS.get((module, name), [])


def hf_takes_keyword(module: str, name: str, keyword: str) -> bool:
    cls = getattr(getattr(tokenizers, module), name)
    try:
        cls(**{keyword: object()})
    except TypeError as exc:
        return "unexpected keyword" not in str(exc)
    except Exception:  # noqa: BLE001 - a wrong value for a known keyword
        return True
    return True


def hf_positional(module: str, name: str) -> int:
    cls = getattr(getattr(tokenizers, module), name)
    try:
        cls(*[None] * 30)
    except TypeError as exc:
        found = re.search(r"takes (?:from \d+ to )?(\d+) positional", str(exc))
        if found:
            return int(found.group(1))
    raise AssertionError(f"{module}.{name}: cannot tell how many arguments HF takes by position")


def _public(obj: object) -> set[str]:
    return {name for name in dir(obj) if not name.startswith("_")}


def test_every_hf_name_is_offered_or_listed() -> None:
    """dir() of HF's modules, of instances of their classes, of ``Tokenizer`` and ``Encoding``, against
    bytepair's: what is missing is exactly what the tables above list (a new gap, or a closed one, fails)."""
    missing_names = {(module, name) for module in MODULES for name in _public(getattr(tokenizers, module))
                     if name != module and not hasattr(getattr(bytepair, module), name)}
    assert missing_names == set(NOT_OFFERED)
    missing_members = set()
    for module, name in hf_classes():
        if (module, name) in NO_INSTANCE or not hasattr(getattr(bytepair, module), name):
            continue
        args = INSTANCE_ARGS.get((module, name), ())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref, ours = getattr(getattr(tokenizers, module), name)(*args), getattr(getattr(bytepair, module), name)(*args)
        missing_members |= {(module, member) for member in _public(ref) if not hasattr(ours, member)}
    assert missing_members == set(MEMBERS_NOT_OFFERED)
    tok = bytepair.Tokenizer.from_encoding("r50k_base")
    assert {n for n in _public(tokenizers.Tokenizer) if not hasattr(tok, n)} == set()
    encoded = tok.encode("a b")  # (its fields are built when first read: hasattr, not dir)
    assert {n for n in _public(tokenizers.Encoding) if not hasattr(encoded, n)} == set()
    assert {n for n in _public(tokenizers) if not hasattr(bytepair, n)} - set(TOP_LEVEL_NOT_OFFERED) == set()


def test_the_table_is_hfs() -> None:
    assert hf_takes_keyword("pre_tokenizers", "Sequence", "pre_tokenizers")
    assert not hf_takes_keyword("pre_tokenizers", "Sequence", "pretokenizers")
    assert "seed_size" in tokenizers.trainers.UnigramTrainer(seed_size=7).__getstate__().decode()
    for module, name in NOT_OFFERED:
        assert not hasattr(getattr(bytepair, module), name), f"{module}.{name} is offered now: take it off NOT_OFFERED"


@pytest.mark.parametrize(("module", "name"), hf_classes(), ids=lambda v: v)
def test_same_argument_names(module: str, name: str) -> None:
    ours = getattr(getattr(bytepair, module), name, None)
    assert ours is not None, f"bytepair.{module} has no {name}"
    params = inspect.signature(ours).parameters
    positional = [p.name for p in params.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    keywords = {p.name for p in params.values() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    names = hf_names(module, name)
    by_position = names[: hf_positional(module, name)]
    assert positional[: len(by_position)] == by_position, f"{module}.{name}: HF's positional order is {by_position}"
    for keyword in names:
        if hf_takes_keyword(module, name, keyword):
            assert keyword in keywords, f"{module}.{name} lacks HF's keyword {keyword!r}"


def test_renamed_arguments_work() -> None:
    from bytepair import decoders, normalizers, pre_tokenizers, processors, trainers

    assert decoders.Strip(content=" ", left=1, right=0).to_json() == {"type": "Strip", "content": " ", "start": 1, "stop": 0}
    assert decoders.Strip(" ", 1, 0).decode_chain([" a ", "  b"]) == ["a ", " b"]
    assert normalizers.Sequence(normalizers=[normalizers.Lowercase()]).normalize("AB") == "ab"
    assert pre_tokenizers.Sequence(pre_tokenizers=[pre_tokenizers.Whitespace()]).split("a b") == ["a", "b"]
    bert = processors.BertProcessing(sep=("[SEP]", 1), cls_token=("[CLS]", 0))
    hf = tokenizers.processors.BertProcessing(sep=("[SEP]", 1), cls_token=("[CLS]", 0))
    assert bert.to_json() == __import__("json").loads(hf.__getstate__())
    roberta = processors.RobertaProcessing(sep=("</s>", 2), cls_token=("<s>", 0), trim_offsets=False)
    assert roberta.to_json()["cls"] == ["<s>", 0] and roberta.trim_offsets is False
    assert trainers.BpeTrainer(progress_format="json").progress_format == "json"


@pytest.mark.parametrize("trainer", ["BpeTrainer", "WordPieceTrainer", "WordLevelTrainer", "UnigramTrainer"])
def test_trainers_ignore_unknown_keywords_as_hf(trainer: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        getattr(tokenizers.trainers, trainer)(no_such_option=1)  # HF: "Ignored unknown kwargs option"
    with pytest.warns(UserWarning, match="no_such_option"):
        made = getattr(bytepair.trainers, trainer)(vocab_size=100, no_such_option=1)
    assert made.vocab_size == 100
