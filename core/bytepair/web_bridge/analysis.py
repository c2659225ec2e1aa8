"""The playground's Analyse tab: ``bytepair.analysis`` on the tokenizers loaded here, part by part.

>>> analyze("tokenizer", ["r50k_base"])["vocab_size"]
50257
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..analysis import TokenizerView, fertility, to_markdown, tokenizer_summary, unreachable_tokens, unused_tokens, vocabulary_report
from ..errors import InvalidInputError
from .faces import KEY_PREFIX, JsonFace, face_of, loaded
from .values import to_py

__all__ = ["analysis_markdown", "analyze"]

_ANALYSIS_PARTS = ("tokenizer", "fertility", "vocabulary")
_analysis_cache: dict[tuple[str, str, int], Any] = {}  # (part, name, limit) -> the part without a corpus
_ANALYSIS_CACHE_SIZE = 16


def analyze(part: Any, names: Any, corpus: Any = None, limit: Any = 20) -> Any:
    """One part of ``bytepair.analysis.analyze(names, corpus=corpus, limit=limit)`` on tokenizers
    loaded here (encoding names or tokenizer.json keys). JavaScript asks for the parts one at a time,
    so that it can show progress and other calls are answered in between, and puts them together
    into the same dict: ``"tokenizer"`` (one name) is that tokenizer's entry of ``tokenizers``,
    ``"fertility"`` (all names; needs a corpus) is ``fertility``, ``"vocabulary"`` (one name) its
    entry of ``vocabulary``. Each tokenizer's summary and corpus-free vocabulary report are kept,
    so analysing another text redoes only the corpus part (the unused tokens).

    >>> analyze("tokenizer", ["r50k_base"])["vocab_size"]
    50257
    >>> analyze("fertility", ["r50k_base"], {"en": "Hello, world!"})["rows"][0]["tokens_per_word"]
    2.0
    >>> analyze("vocabulary", ["r50k_base"], {"en": "Hello, world!"})["unused"]["seen"]
    4
    """
    if part not in _ANALYSIS_PARTS:
        raise InvalidInputError(f"part must be one of {', '.join(map(repr, _ANALYSIS_PARTS))}, not {part!r}")
    keys = to_py(names)
    if isinstance(keys, str) or not isinstance(keys, (list, tuple)) or not keys or not all(isinstance(k, str) for k in keys):
        raise InvalidInputError(f"names must be a non-empty array of tokenizer names, not {keys!r}")
    if part != "fertility" and len(keys) != 1:
        raise InvalidInputError(f"the {part!r} part is asked for one tokenizer at a time, not {len(keys)}")
    texts = _analysis_corpus(corpus)
    size = int(limit) if isinstance(limit, float) and limit.is_integer() else limit
    if not isinstance(size, int) or isinstance(size, bool) or not 1 <= size <= 1000:
        raise InvalidInputError(f"limit (examples listed per kind) must be an integer from 1 to 1000, not {limit!r}")
    for stale in [k for k in _analysis_cache if k[1].startswith(KEY_PREFIX) and k[1] not in loaded]:
        del _analysis_cache[stale]  # its tokenizer.json was unloaded
    if part == "fertility":
        if texts is None:
            raise InvalidInputError("the fertility part needs a corpus: an object of label -> text")
        return fertility([_analysis_view(k) for k in keys], texts)
    if part == "tokenizer":
        return _analysis_cached(("tokenizer", keys[0], 0), lambda: _summary(keys[0]))
    report, unreachable = _analysis_cached(("vocabulary", keys[0], size), lambda: _vocabulary(keys[0], size))
    if texts is None:
        return report
    return {**report, "unused": unused_tokens(_analysis_view(keys[0]), texts, unreachable=unreachable, limit=size)}


def _analysis_corpus(corpus: Any) -> dict[str, str] | None:
    if corpus is None or type(corpus).__name__ == "JsNull":
        return None
    texts = to_py(corpus)
    if not isinstance(texts, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in texts.items()):
        raise InvalidInputError("corpus must be an object of label -> text (strings), e.g. {text: \"...\"}")
    return texts


def _analysis_view(name: str) -> Any:
    """The analysis view of a loaded tokenizer, named as JavaScript names it."""
    face = face_of(name)
    if isinstance(face, JsonFace):
        view = TokenizerView.of(face.tok)
        view.name = face.name
        return view
    return TokenizerView.of(face)


def _analysis_cached(key: tuple[str, str, int], make: Callable[[], Any]) -> Any:
    value = _analysis_cache.get(key)
    if value is None:
        value = make()
        while len(_analysis_cache) >= _ANALYSIS_CACHE_SIZE:
            del _analysis_cache[next(iter(_analysis_cache))]
        _analysis_cache[key] = value
    return value


def _summary(name: str) -> dict[str, Any]:
    return tokenizer_summary(_analysis_view(name))


def _vocabulary(name: str, limit: int) -> tuple[dict[str, Any], list[int]]:
    """The corpus-free vocabulary report, and the ids of all its unreachable tokens (the report lists
    the first ``limit``; only when there are more are they found again)."""
    view = _analysis_view(name)
    report = vocabulary_report(view, limit=limit)
    listed = report["unreachable"]
    if listed["count"] <= len(listed["tokens"]):
        return report, [t["id"] for t in listed["tokens"]]
    return report, [t["id"] for t in unreachable_tokens(view)]


def analysis_markdown(report: Any) -> str:
    """``bytepair.analysis.to_markdown`` of a report (given as its JSON text): what ``bytepair
    analyze`` prints, for the playground's "Copy Markdown".

    >>> analysis_markdown('{"tokenizers": [], "vocabulary": []}')
    '# Tokenizer analysis\\n\\n| tokenizer | kind | vocab | merge rule | sha256 |\\n|:---|---:|---:|---:|---:|\\n'
    """
    import json

    if not isinstance(report, str):
        raise InvalidInputError(f"the report must be given as its JSON text, not {type(report).__name__}")
    try:
        data = json.loads(report)
        return to_markdown(data)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise InvalidInputError(f"not a report of bytepair.analysis.analyze ({type(exc).__name__}: {exc}); pass what analyze() returned") from None
