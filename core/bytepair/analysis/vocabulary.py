"""A vocabulary report: token lengths, script mix, unreachable, unused and junk tokens, numbers.

Why: a vocabulary says much about a tokenizer before any text is encoded: which languages got
tokens, how numbers are cut, which tokens are dead weight. Every part is a JSON-serialisable dict,
so the command line and the playground draw the same numbers.

**Unreachable tokens** (:func:`unreachable_tokens`). Let ``merge(x)`` be the model's merge rule
alone run on bytes ``x`` (tiktoken: the adjacent pair whose joined bytes rank lowest merges first,
the leftmost of equals; HF: the listed pair with the lowest rank). A token ``t`` is *unreachable by
merging* when ``merge(bytes(t)) != [t]``. Claim: merging then never builds ``t`` inside any piece.
Proof: suppose a run on a piece ``P`` builds ``t`` over ``P[i:j]``. Parts are intervals that only
ever join, so until ``t`` exists no merge crosses ``i`` or ``j``; a merge outside ``[i, j)`` leaves
the parts inside unchanged, and a merge inside is, among all pairs, the lowest (rank, position), so
also the lowest among the pairs inside (their ranks depend on the inside parts alone). Hence the
merges inside ``[i, j)`` are, in order, the first steps of ``merge(P[i:j])`` run alone, and that run
also ends at ``[t]``: a contradiction. Both tiktoken and HF with ``ignore_merges`` (Llama 3) also
emit a piece that is exactly a token as that token; so an unreachable token's id can still appear
when the pre-tokenizer yields exactly its text as a piece. The report therefore marks each one:
``never`` (its bytes are not valid UTF-8, and every piece of a ``str`` is, so it is never emitted by
``encode``; for HF models without ``ignore_merges`` every unreachable token is ``never``),
``whole_piece`` (encoding its text alone gives it, through the whole-piece lookup) or ``split``
(its text alone is cut by the pre-tokenizer; emitted only if some context keeps it whole).
Reachable tokens whose text alone the pre-tokenizer cuts are listed apart (:func:`split_alone`).

**Unused on a corpus**: reachable tokens that the corpus never produced (under-trained candidates:
a model sees such ids rarely or never in training).

**Junk** (:func:`junk_kind`), heuristics on a token's text (a leading space ignored):
``punctuation_run``: 8 or more characters, all punctuation or symbols (Unicode P* or S*);
``mojibake``: UTF-8 read as Latin-1/cp1252: either encoding the text as cp1252 (or Latin-1) gives
valid UTF-8 that decodes to other non-ASCII text (``Ã©`` -> ``é``, ``â€™`` -> ``’``), or two or more
``Ã``/``Â`` each followed by a character in U+0080-00BF or another ``Ã``/``Â`` (``ÃÂÃÂ``).

>>> report = vocabulary_report("cl100k_base")
>>> report["size"], report["unreachable"]["count"], report["numbers"]["single_tokens_0_999"]["3"]
(100256, 0, 900)
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from ..pipeline.view import TokenizerView
from .load import Spec, view_of

__all__ = ["junk_kind", "script_class", "split_alone", "unreachable_tokens", "unused_tokens", "vocabulary_report"]

_BYTE_TOKEN = re.compile(rb"<0x([0-9A-F]{2})>")
_MOJIBAKE_CHAIN = re.compile("(?:[\u00c2\u00c3][\u0080-\u00bf\u00c2\u00c3]){2,}")
NUMBER_SAMPLES = ("7", "42", "123", "2024", "12345", "1234567", "3.14159", "1,000,000", " 2024")


# ---------------------------------------------------------------- classes of tokens
@lru_cache(maxsize=1 << 16)
def _char_script(ch: str) -> str | None:
    """A script-ish name for a letter (the first word of its Unicode name), None for others."""
    if not unicodedata.category(ch).startswith("L"):
        return None
    name = unicodedata.name(ch, "")
    if name.startswith("CJK"):
        return "CJK"
    first = name.split(" ", 1)[0]
    return first or "UNKNOWN"


def script_class(data: bytes) -> str:
    """The class of a token's bytes: ``partial-utf8``, ``whitespace``, ``digits``, the majority
    script of its letters (``LATIN``, ``CYRILLIC``, ``CJK``, ``HIRAGANA`` ...), or ``other``
    (punctuation, symbols, mixed digits).

    >>> [script_class(t) for t in (b" the", b"\\xe4\\xb8", b"  ", b"2024", " Привет".encode(), "日本".encode(), b"!=")]
    ['LATIN', 'partial-utf8', 'whitespace', 'digits', 'CYRILLIC', 'CJK', 'other']
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "partial-utf8"
    if text.isspace():
        return "whitespace"
    body = text.strip()
    if body.isdigit():
        return "digits"
    scripts = Counter(s for s in map(_char_script, body) if s is not None)
    if scripts:
        return scripts.most_common(1)[0][0]
    return "other"


def junk_kind(text: str) -> str | None:
    """``punctuation_run``, ``mojibake`` or None (see the module docstring).

    >>> [junk_kind(t) for t in ("ÃÂÃÂ", " Ã©", "â€™", "========", "!!!", "café", " ção", "Straße")]
    ['mojibake', 'mojibake', 'mojibake', 'punctuation_run', None, None, None, None]
    """
    body = text[1:] if text.startswith(" ") else text
    if len(body) >= 8 and all(unicodedata.category(c)[0] in "PS" for c in body):
        return "punctuation_run"
    if _MOJIBAKE_CHAIN.search(body):
        return "mojibake"
    if not body.isascii():
        for codec in ("cp1252", "latin-1"):
            try:
                fixed = body.encode(codec).decode("utf-8")
            except (UnicodeEncodeError, UnicodeDecodeError):
                continue
            if fixed != body and not fixed.isascii():
                return "mojibake"
    return None


# ---------------------------------------------------------------- reachability
def unreachable_tokens(spec: Spec) -> list[dict[str, Any]]:
    """Model tokens that merging never builds (see the module docstring), each as ``{"id", "token",
    "hex", "parts" (what merging its bytes gives), "emitted": "never"|"whole_piece"|"split"}``.
    Byte-fallback tokens (``<0xNN>``) are not built by merging: one is listed (``never``) when no
    character outside the vocabulary has that byte in its UTF-8, so the fallback never emits it.

    >>> from bytepair import Encoding
    >>> ranks = {bytes([b]): b for b in range(256)}
    >>> ranks.update({b"bc": 256, b"ab": 257, b"cd": 258, b"abcd": 259})
    >>> enc = Encoding("tiny", pat_str=r"\\w+|\\s+|[^\\w\\s]+", mergeable_ranks=ranks, special_tokens={})
    >>> [(t["token"], t["parts"], t["emitted"]) for t in unreachable_tokens(enc)]
    [('abcd', [97, 256, 100], 'whole_piece')]
    """
    view = view_of(spec)
    merge = view.merge_builder()
    if merge is None:
        return []
    fallback = _fallback_bytes(view) if view.model_options.get("byte_fallback") else None
    out = []
    for token_id, data in sorted(view.tokens.items()):
        if fallback is not None:
            found = _BYTE_TOKEN.fullmatch(data)
            if found:
                if int(found.group(1), 16) not in fallback:
                    out.append(_entry(token_id, data, [], "never"))
                continue
        if len(data) < 2 and view.byte_level:
            continue  # single bytes are where merging starts
        parts = merge(data)
        if parts != [token_id]:
            out.append(_entry(token_id, data, parts, _emitted(view, token_id)))
    return out


def _entry(token_id: int, data: bytes, parts: list[int], emitted: str) -> dict[str, Any]:
    return {"id": token_id, "token": data.decode("utf-8", "backslashreplace"), "hex": data.hex(),
            "parts": parts, "emitted": emitted}


def _fallback_bytes(view: TokenizerView) -> set[int]:
    """The bytes that occur in the UTF-8 of some character the vocabulary lacks as a token."""
    known = {t for t in view.tokens.values() if len(t) <= 4}
    out: set[int] = set()
    for cp in range(0x110000):
        if 0xD800 <= cp < 0xE000:
            continue
        data = chr(cp).encode("utf-8")
        if data not in known:
            out.update(data)
            if len(out) == 256:
                break
    return out


def _emitted(view: TokenizerView, token_id: int) -> str:
    if view.merge_rule == "pair_rank":
        return "never"  # HF without ignore_merges has no whole-piece lookup
    try:
        text = view.surface(token_id).decode("utf-8")
    except UnicodeDecodeError:
        return "never"
    return "whole_piece" if view.encode_ordinary(text) == [token_id] else "split"


def split_alone(spec: Spec) -> list[dict[str, Any]]:
    """Tokens whose own text the pre-tokenizer cuts into several pieces, so that encoding the text
    alone does not give the token (o200k: ``亚洲AV`` -> ``亚洲`` + ``AV``). Such a token is emitted only
    where some context keeps its text inside one piece: a candidate for a never- or rarely-seen
    token, not a proof. Each as ``{"id", "token", "pieces"}``."""
    view = view_of(spec)
    engine = view.face.engine
    out = []
    for token_id in sorted(view.tokens):
        try:
            text = view.surface(token_id).decode("utf-8")
        except UnicodeDecodeError:
            continue
        pieces = engine.split(text)
        if len(pieces) > 1:
            out.append({"id": token_id, "token": text, "pieces": pieces})
    return out


# ---------------------------------------------------------------- the report
def vocabulary_report(spec: Spec, *,
                      corpus: Mapping[str, str] | None = None, limit: int = 20) -> dict[str, Any]:
    """The report for one tokenizer (JSON-serialisable); ``corpus`` adds the unused tokens.

    Keys: ``name``, ``size`` (model tokens), ``lengths`` (histogram of token byte lengths),
    ``scripts`` (class -> count, see :func:`script_class`), ``leading_space`` (tokens starting with
    a space), ``unreachable`` (count, by emitted kind, first ``limit``), ``junk`` (counts and
    examples), ``numbers``, and with a corpus ``unused``.
    """
    view = view_of(spec)
    surfaces = {i: view.surface(i) for i in view.tokens}
    report: dict[str, Any] = {"name": view.name, "size": len(surfaces)}
    report["lengths"] = _lengths(surfaces.values())
    report["scripts"] = dict(Counter(map(script_class, surfaces.values())).most_common())
    report["leading_space"] = sum(1 for s in surfaces.values() if s[:1] == b" " and s.strip())
    unreachable = unreachable_tokens(view)
    report["unreachable"] = {
        "count": len(unreachable),
        "by_emitted": dict(Counter(t["emitted"] for t in unreachable)),
        "tokens": unreachable[:limit],
    }
    alone = split_alone(view)
    report["split_alone"] = {"count": len(alone), "tokens": alone[:limit]}
    report["junk"] = _junk(surfaces, limit)
    report["numbers"] = _numbers(view, surfaces)
    if corpus is not None:
        report["unused"] = _unused(view, surfaces, corpus, {t["id"] for t in unreachable}, limit)
    return report


def _lengths(values: Iterable[bytes]) -> dict[str, Any]:
    counts = Counter(map(len, values))
    total = sum(counts.values())
    return {
        "histogram": [{"bytes": n, "count": counts[n]} for n in sorted(counts)],
        "mean_bytes": round(sum(n * c for n, c in counts.items()) / total, 3) if total else None,
        "max_bytes": max(counts, default=0),
    }


def _junk(surfaces: dict[int, bytes], limit: int) -> dict[str, Any]:
    found: dict[str, list[dict[str, Any]]] = {"punctuation_run": [], "mojibake": []}
    for token_id, data in surfaces.items():
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        kind = junk_kind(text)
        if kind is not None:
            found[kind].append({"id": token_id, "token": text})
    return {kind: {"count": len(items), "examples": items[:limit]} for kind, items in found.items()}


def _numbers(view: TokenizerView, surfaces: dict[int, bytes]) -> dict[str, Any]:
    by_bytes = {s: i for i, s in surfaces.items()}
    digit_tokens = [s for s in surfaces.values() if s.isdigit()]
    present = {str(k): sum(1 for n in range(lo, hi) if str(n).encode() in by_bytes)
               for k, (lo, hi) in ((1, (0, 10)), (2, (10, 100)), (3, (100, 1000)))}
    splits = {}
    for sample in NUMBER_SAMPLES:
        ids = view.encode_ordinary(sample)
        splits[sample] = [_token_text(view, i) for i in ids]
    return {
        "digit_tokens": len(digit_tokens),
        "max_digits": max(map(len, digit_tokens), default=0),
        "single_tokens_0_999": present,
        "single_tokens_0_999_of": {"1": 10, "2": 90, "3": 900},
        "splits": splits,
    }


def _token_text(view: TokenizerView, token_id: int) -> str:
    data = view.surface(token_id) if token_id in view.tokens else next(
        (t.encode() for t, i in view.specials.items() if i == token_id), b"?")
    return data.decode("utf-8", "backslashreplace")


def unused_tokens(spec: Spec, corpus: Mapping[str, str], *,
                  unreachable: Iterable[int] | None = None, limit: int = 20) -> dict[str, Any]:
    """The ``unused`` part of :func:`vocabulary_report` alone: reachable tokens that encoding
    ``corpus`` never produced. ``unreachable`` (ids) saves finding the unreachable tokens again when
    the caller has them (the playground keeps the rest of a report and redoes only this part for a
    new text).

    >>> unused = unused_tokens("r50k_base", {"en": "Hello, world!"}, unreachable=[])
    >>> unused["seen"], unused["count"], unused["corpus_chars"]
    (4, 50252, 13)
    """
    view = view_of(spec)
    skip = {t["id"] for t in unreachable_tokens(view)} if unreachable is None else set(unreachable)
    return _unused(view, {i: view.surface(i) for i in view.tokens}, corpus, skip, limit)


def _unused(view: TokenizerView, surfaces: dict[int, bytes], corpus: Mapping[str, str], unreachable: set[int],
            limit: int) -> dict[str, Any]:
    seen: set[int] = set()
    for text in corpus.values():
        seen.update(view.encode_ordinary(text))
    unused = [i for i in surfaces if i not in seen and i not in unreachable]
    words = [i for i in unused if script_class(surfaces[i]) not in ("partial-utf8", "whitespace", "other")]
    words.sort(key=lambda i: (-len(surfaces[i]), i))
    return {
        "count": len(unused),
        "seen": len(seen & surfaces.keys()),
        "corpus_chars": sum(map(len, corpus.values())),
        "longest_word_like": [{"id": i, "token": surfaces[i].decode("utf-8", "replace")} for i in words[:limit]],
    }
