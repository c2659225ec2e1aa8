"""``analyze``: fertility and vocabulary reports for several tokenizers, as JSON and as Markdown.

Why one entry point: ``bytepair analyze`` and the playground's analysis tab show the same thing;
both take the dict :func:`analyze` returns (plain JSON types only) and draw it; :func:`to_markdown`
is the command line's drawing.

>>> report = analyze(["r50k_base", "cl100k_base"], corpus={"en": "Hello, world!"})
>>> [(r["tokenizer"], r["tokens_per_word"]) for r in report["fertility"]["rows"] if r["language"] == "en"]
[('r50k_base', 2.0), ('cl100k_base', 2.0)]
>>> print(to_markdown(report).splitlines()[0])
# Tokenizer analysis
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .fertility import fertility
from .load import Spec, manifest, view_of
from .vocabulary import vocabulary_report

__all__ = ["analyze", "to_markdown", "tokenizer_summary"]


def analyze(tokenizers: Iterable[Spec], *,
            corpus: Mapping[str, str] | None = None, limit: int = 20) -> dict[str, Any]:
    """``{"tokenizers": [manifest summaries], "fertility": ... (with a corpus), "vocabulary": [...]}``."""
    views = [view_of(t) for t in tokenizers]
    out: dict[str, Any] = {"tokenizers": []}
    for view in views:
        out["tokenizers"].append(tokenizer_summary(view))
    if corpus is not None:
        out["fertility"] = fertility(views, corpus)
    out["vocabulary"] = [vocabulary_report(v, corpus=corpus, limit=limit) for v in views]
    return out


def tokenizer_summary(spec: Spec) -> dict[str, Any]:
    """The manifest's ``name``, ``kind``, ``vocab_size``, ``merge_rule``, ``pattern`` and ``sha256``:
    one entry of the report's ``tokenizers``."""
    m = manifest(view_of(spec))
    return {k: m[k] for k in ("name", "kind", "vocab_size", "merge_rule", "pattern", "sha256")}


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value).replace("|", "\\|").replace("\n", "\\n").replace("\r", "\\r")


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join([":---"] + ["---:"] * (len(header) - 1)) + "|"]
    lines += ["| " + " | ".join(map(_cell, row)) + " |" for row in rows]
    return lines + [""]


def _token(text: str) -> str:
    return "`" + _cell(repr(text)[1:-1]).replace("`", "'") + "`"


def to_markdown(report: dict[str, Any]) -> str:
    """The report of :func:`analyze` as Markdown tables."""
    lines = ["# Tokenizer analysis", ""]
    lines += _table(["tokenizer", "kind", "vocab", "merge rule", "sha256"],
                    [[t["name"], t["kind"], t["vocab_size"], t["merge_rule"], t["sha256"][:16]] for t in report["tokenizers"]])
    fert = report.get("fertility")
    if fert:
        names = fert["tokenizers"]
        by = {(r["language"], r["tokenizer"]): r for r in fert["rows"]}
        for key, title in (("tokens_per_word", "Tokens per word (fertility; lower is better)"),
                           ("chars_per_token", "Characters per token"), ("bytes_per_token", "Bytes per token")):
            lines += [f"## {title}", ""]
            lines += _table(["language", "words", *names],
                            [[lang, by[(lang, names[0])]["words"], *(by[(lang, n)][key] for n in names)] for lang in fert["languages"]])
    for vocab in report["vocabulary"]:
        lines += _vocab_markdown(vocab)
    return "\n".join(lines).rstrip() + "\n"


def _vocab_markdown(v: dict[str, Any]) -> list[str]:
    lines = [f"## Vocabulary of {v['name']} ({v['size']} model tokens)", ""]
    lengths = v["lengths"]
    lines.append(f"Token length: mean {lengths['mean_bytes']} bytes, max {lengths['max_bytes']}; "
                 f"{v['leading_space']} tokens start with a space.")
    lines.append("")
    lines += _table(["bytes", "tokens"], [[h["bytes"], h["count"]] for h in lengths["histogram"] if h["bytes"] <= 16])
    lines += _table(["script class", "tokens"], [[k, c] for k, c in list(v["scripts"].items())[:15]])
    u = v["unreachable"]
    lines.append(f"Unreachable by merging: {u['count']} {u['by_emitted'] or ''}")
    lines += [f"- {t['id']} {_token(t['token'])} ({t['emitted']})" for t in u["tokens"][:10]]
    s = v["split_alone"]
    lines += ["", f"Reachable, but the pre-tokenizer cuts their text when alone: {s['count']}"]
    lines += [f"- {t['id']} {_token(t['token'])} -> {' + '.join(map(_token, t['pieces']))}" for t in s["tokens"][:10]]
    lines.append("")
    for kind, junk in v["junk"].items():
        examples = ", ".join(_token(e["token"]) for e in junk["examples"][:8])
        lines.append(f"Junk ({kind}): {junk['count']}" + (f": {examples}" if examples else ""))
    n = v["numbers"]
    have, of = n["single_tokens_0_999"], n["single_tokens_0_999_of"]
    lines += ["", f"Numbers: {n['digit_tokens']} all-digit tokens, up to {n['max_digits']} digits; single tokens for "
              + ", ".join(f"{have[k]}/{of[k]} {k}-digit" for k in have) + "."]
    lines += [f"- {_token(sample)} -> {' + '.join(map(_token, parts))}" for sample, parts in n["splits"].items()]
    if "unused" in v:
        un = v["unused"]
        lines += ["", f"Never produced on the corpus ({un['corpus_chars']} characters): {un['count']} reachable tokens "
                  f"(under-trained candidates); longest word-like: "
                  + ", ".join(_token(t["token"]) for t in un["longest_word_like"][:10])]
    return lines + [""]
