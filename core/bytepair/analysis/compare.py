"""``compare_tokenizers(a, b)``: are two tokenizers' ids interchangeable, and if not, where they part.

Why: swapping one tokenizer file for another (a re-export, a converted ``tokenizer.json``, a new
release of a model) is safe only if every text gets the same ids. Equal canonical hashes
(``pipeline/manifest.py``) prove it. Otherwise each part that decides ids is compared on its own: vocabulary
(ids that moved, tokens only on one side), merges (reordered, added, removed), merge rule, pattern
and pre-tokenizer, normalizer, post-processor, special tokens.

Verdicts: ``identical`` (same canonical form: interchangeable), ``different`` (some part differs in a
way that changes ids, or a probe found different ids), ``unproven`` (only the form differs: the merge
rule, tiktoken's rank of the merged token against HF's rank of the pair, or how the pre-tokenizer
step is written; then every token's own bytes are merged both ways, and any ``texts`` given are
encoded both ways, and no difference was found; the rules agree for vocabularies trained the usual
way but not in general, so this is evidence, not proof).

>>> report = compare_tokenizers("cl100k_base", "cl100k_base")
>>> report["verdict"], report["interchangeable"]
('identical', True)
>>> [d["what"] for d in compare_tokenizers("r50k_base", "p50k_base")["differences"]]
['vocab', 'merges']
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..data.openai import R50K_PATTERN
from ..pre_tokenizers import GPT2_PATTERN
from ..pipeline.manifest import pattern_of
from ..pipeline.view import TokenizerView
from .load import Spec, manifest, view_of

__all__ = ["compare_tokenizers", "format_comparison"]


def compare_tokenizers(a: Spec, b: Spec, *, texts: Iterable[str] = (), limit: int = 10) -> dict[str, Any]:
    """Compare two tokenizers (names, paths, faces or views); a JSON-serialisable report.

    Keys: ``a``/``b`` (name, kind, sha256), ``verdict``, ``interchangeable`` (True only when
    ``identical``), ``differences`` (each ``{"what", "summary", "details"}``, at most ``limit``
    details each), ``checks`` (what the probes compared and the first mismatches), ``summary`` (text).
    """
    va = view_of(a)
    vb = view_of(b)
    ma, mb = manifest(va), manifest(vb)
    report: dict[str, Any] = {
        "a": {k: ma[k] for k in ("name", "kind", "sha256")},
        "b": {k: mb[k] for k in ("name", "kind", "sha256")},
        "differences": [],
        "checks": {},
    }
    if ma["sha256"] == mb["sha256"]:
        report["verdict"] = "identical"
    else:
        diffs = _differences(va, vb, ma, mb, limit)
        report["differences"] = diffs
        form_only = all(d.get("form_only") for d in diffs)
        verdict = "unproven" if form_only else "different"
        if form_only:
            report["checks"] = _probe(va, vb, list(texts), limit)
            if report["checks"]["token_mismatches"] or report["checks"]["text_mismatches"]:
                verdict = "different"
        report["verdict"] = verdict
    report["interchangeable"] = report["verdict"] == "identical"
    report["summary"] = format_comparison(report)
    return report


def _differences(va: TokenizerView, vb: TokenizerView, ma: dict[str, Any], mb: dict[str, Any], limit: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if va.byte_level != vb.byte_level:
        out.append(_diff("byte_level", f"byte-level: {va.byte_level} vs {vb.byte_level}", []))
    if ma["vocab_sha256"] != mb["vocab_sha256"]:
        out.append(_vocab_diff(va, vb, limit))
    if ma["merges_sha256"] != mb["merges_sha256"]:
        out.append(_merges_diff(va.merges, vb.merges, limit))
    if va.merge_rule != vb.merge_rule:
        out.append(_diff("merge_rule", f"merge rule: {va.merge_rule} vs {vb.merge_rule}", [], form_only=True))
    if va.pre_tokenizer != vb.pre_tokenizer:
        pa, pb = pattern_of(va), pattern_of(vb)
        if split_rule(pa) != split_rule(pb):
            out.append(_diff("pattern", "pre-tokenization pattern changed", [{"a": pa, "b": pb}]))
        else:
            out.append(_diff("pre_tokenizer", "pre-tokenizer steps written differently (same split rule)",
                             [{"a": va.pre_tokenizer, "b": vb.pre_tokenizer}], form_only=_same_split(va, vb)))
    for what in ("normalizer", "post_processor", "model_options"):
        x, y = getattr(va, what), getattr(vb, what)
        if what == "model_options" and va.merge_rule != vb.merge_rule:
            x = {k: v for k, v in x.items() if k != "ignore_merges" and v}
            y = {k: v for k, v in y.items() if k != "ignore_merges" and v}
        if x != y:
            out.append(_diff(what, f"{what.replace('_', ' ')} changed", [{"a": x, "b": y}]))
    if va.added != vb.added:
        out.append(_specials_diff(va, vb, limit))
    return out


def _diff(what: str, summary: str, details: list[Any], *, form_only: bool = False) -> dict[str, Any]:
    return {"what": what, "summary": summary, "details": details, "form_only": form_only}


# One split rule, two spellings. tiktoken rewrote GPT-2's pattern for its regex engine: possessive
# quantifiers (a run is never given back, and nothing after it could take it) and `\s++$|...|\s`
# where HF's file has `...|\s+` (a whitespace run that `\s+(?!\S)` cannot take is one character
# long; one that ends the text `\s+(?!\S)` takes whole anyway). Not so cl100k's rewrite: against
# the pattern of Llama 3's file, `\s++$` takes " \n " at the end of a text whole, where the older
# form gives " \n" and " ". tests/analysis/test_analysis.py holds each pair listed here to the same pieces.
SAME_SPLIT = {R50K_PATTERN: GPT2_PATTERN}


def split_rule(pattern: str | None) -> str | None:
    """``pattern`` under the spelling ``SAME_SPLIT`` gives its rule (unchanged if it lists none)."""
    return None if pattern is None else SAME_SPLIT.get(pattern, pattern)


def _same_split(va: TokenizerView, vb: TokenizerView) -> bool:
    """One step each that splits by one rule (``split_rule``): a Split step (``Isolated`` and
    ``Removed`` with ``invert`` give the same pieces when the pattern matches every character, as
    the OpenAI patterns do) or GPT-2's ByteLevel step with its regex and no prefix space; the
    rest is left to the probes."""
    def splits(step: dict[str, Any]) -> bool:
        if step.get("type") == "ByteLevel":
            return bool(step.get("use_regex", True)) and not step.get("add_prefix_space", False)
        return step.get("type") == "Split"

    return len(va.pre_tokenizer) == len(vb.pre_tokenizer) == 1 and splits(va.pre_tokenizer[0]) and splits(vb.pre_tokenizer[0])


def _show(data: bytes) -> str:
    text = data.decode("utf-8", "backslashreplace")
    return text


def _vocab_diff(va: TokenizerView, vb: TokenizerView, limit: int) -> dict[str, Any]:
    ids_a = {t: i for i, t in va.tokens.items()}
    ids_b = {t: i for i, t in vb.tokens.items()}
    moved = sorted((i, ids_b[t], t) for t, i in ids_a.items() if t in ids_b and ids_b[t] != i)
    only_a = sorted((i, t) for t, i in ids_a.items() if t not in ids_b)
    only_b = sorted((i, t) for t, i in ids_b.items() if t not in ids_a)
    parts = []
    if moved:
        parts.append(f"{len(moved)} token(s) moved to other ids")
    if only_a:
        parts.append(f"{len(only_a)} only in a")
    if only_b:
        parts.append(f"{len(only_b)} only in b")
    details = [{"token": _show(t), "a_id": x, "b_id": y} for x, y, t in moved[:limit]]
    details += [{"token": _show(t), "a_id": i, "b_id": None} for i, t in only_a[:limit]]
    details += [{"token": _show(t), "a_id": None, "b_id": i} for i, t in only_b[:limit]]
    return {**_diff("vocab", "vocabulary differs: " + ", ".join(parts or ["same tokens, same ids"]), details),
            "moved": len(moved), "only_a": len(only_a), "only_b": len(only_b)}


def _merges_diff(ma: list[tuple[bytes, ...]], mb: list[tuple[bytes, ...]], limit: int) -> dict[str, Any]:
    first = next((i for i, (x, y) in enumerate(zip(ma, mb)) if x != y), min(len(ma), len(mb)))
    sa, sb = set(ma), set(mb)
    only_a, only_b = [m for m in ma if m not in sb], [m for m in mb if m not in sa]
    if not only_a and not only_b and len(ma) == len(mb):
        summary = f"merges reordered (same {len(ma)} merges); first at rank {first}"
    else:
        summary = f"merges differ: {len(only_a)} only in a, {len(only_b)} only in b; first difference at rank {first}"
    show = lambda m: None if m is None else " + ".join(map(_show, m))  # noqa: E731
    details: list[dict[str, Any]] = [{"rank": first, "a": show(ma[first] if first < len(ma) else None),
                                      "b": show(mb[first] if first < len(mb) else None)}]
    details += [{"only_in": "a", "merge": show(m)} for m in only_a[:limit]]
    details += [{"only_in": "b", "merge": show(m)} for m in only_b[:limit]]
    return {**_diff("merges", summary, details), "first_rank": first, "only_a": len(only_a), "only_b": len(only_b)}


def _specials_diff(va: TokenizerView, vb: TokenizerView, limit: int) -> dict[str, Any]:
    a, b = {t["content"]: t for t in va.added}, {t["content"]: t for t in vb.added}
    details: list[dict[str, Any]] = []
    for text in sorted(a.keys() | b.keys(), key=lambda t: (a.get(t) or b[t])["id"]):
        x, y = a.get(text), b.get(text)
        if x != y:
            details.append({"token": text, "a_id": x and x["id"], "b_id": y and y["id"],
                            "flags_differ": bool(x and y and x["id"] == y["id"])})
    moved = sum(1 for d in details if d["a_id"] is not None and d["b_id"] is not None and d["a_id"] != d["b_id"])
    only_a = sum(1 for d in details if d["b_id"] is None)
    only_b = sum(1 for d in details if d["a_id"] is None)
    flags = sum(1 for d in details if d["flags_differ"])
    summary = f"special/added tokens differ: {only_a} only in a, {only_b} only in b, {moved} moved, {flags} with other flags"
    return _diff("specials", summary, details[:limit])


def _probe(va: TokenizerView, vb: TokenizerView, texts: list[str], limit: int) -> dict[str, Any]:
    """Merge every token's bytes by both models; encode ``texts`` by both faces."""
    merge_a, merge_b = va.merge_builder(), vb.merge_builder()
    mismatches = []
    checked = 0
    if merge_a is not None and merge_b is not None:
        for token in va.tokens.values():
            checked += 1
            x, y = merge_a(token), merge_b(token)
            if x != y:
                mismatches.append({"token": _show(token), "a": x, "b": y})
    text_mismatches = []
    for n, text in enumerate(texts):
        x, y = va.encode_ordinary(text), vb.encode_ordinary(text)
        if x != y:
            at = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
            text_mismatches.append({"text": n, "first_token": at, "a": x[at:at + 5], "b": y[at:at + 5]})
    return {"tokens_checked": checked, "token_mismatches": mismatches[:limit], "n_token_mismatches": len(mismatches),
            "texts_checked": len(texts), "text_mismatches": text_mismatches[:limit]}


def format_comparison(report: dict[str, Any]) -> str:
    """The report as a few readable lines."""
    a, b = report["a"], report["b"]
    verdict = report["verdict"]
    head = {
        "identical": "interchangeable: identical canonical form (same ids for every text)",
        "different": "NOT interchangeable",
        "unproven": "probably interchangeable, not proven: only the form differs and no probe found different ids",
    }[verdict]
    lines = [f"a: {a['name']} ({a['kind']}, sha256 {a['sha256'][:16]})",
             f"b: {b['name']} ({b['kind']}, sha256 {b['sha256'][:16]})", head]
    for d in report["differences"]:
        lines.append(f"- {d['summary']}" + (" [form only]" if d.get("form_only") else ""))
        for detail in d["details"][:5]:
            text = str(detail)
            lines.append(f"    {text[:200]}{'...' if len(text) > 200 else ''}")
    checks = report.get("checks") or {}
    if checks:
        lines.append(f"checked: {checks['tokens_checked']} tokens merged both ways ({checks['n_token_mismatches']} differ), "
                     f"{checks['texts_checked']} texts encoded both ways ({len(checks['text_mismatches'])} differ)")
    return "\n".join(lines)
