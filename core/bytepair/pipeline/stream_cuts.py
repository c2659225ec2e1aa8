"""When a ``tokenizer.json`` pipeline may be cut into blocks that encode exactly on their own.

Why: counting a file with a tokenizer.json (``bytepair count -t``, ``Tokenizer.count_file``) should
not hold the whole file, its pieces and their ids. ``blocks.BlockCutter`` gathers text into
blocks cut at ``Pretokenizer.cut_near``'s points, which are exact for the OpenAI patterns. A
tokenizer.json puts stages around its pattern, so this module says when those points stay exact for
the whole pipeline, and answers None (one block: the whole text, as before) otherwise:

* **normalizer**: none, NFC, NFD, Lowercase or a sequence of them. Each keeps a letter a letter and
  a symbol a symbol, and none reaches across a cut. NFKC is out ("™" becomes the letters "TM", so
  a cut between "a" and "™" would split what the model sees as one piece), and so are Replace,
  Prepend and Strip, which act on the text's ends or on strings.
* **pre-tokenizer**: its first step that splits is a ``Split`` (isolated, or removed and inverted,
  which is the same for a pattern that matches every character) by a pattern known to end a piece
  at every cut point: OpenAI's, Llama 3's, Qwen's, GPT-2's (a ByteLevel with ``use_regex``), or
  DeepSeek V3's digit and CJK splits ahead of its main one. Its later steps split each piece on its
  own. Nothing adds a space or "▁" in front of a text (``add_prefix_space``, ``Metaspace``): that
  would land at the start of every block.
* **added tokens**: matched in the raw text (``normalized: false``, or a normalizer that changes
  nothing), and a cut stays two characters clear of any of them (``BlockCutter`` sees to that).

Tests hold blocks and whole text equal for every model named here, on the corpus and on generated
text that crowds the cut rules.

>>> from bytepair.pre_tokenizers import Split, Sequence, ByteLevel
>>> step = Split(LLAMA3_PATTERN, is_regex=True)
>>> cutter_for(None, Sequence([step, ByteLevel(add_prefix_space=False, use_regex=False)]), []) is not None
True
>>> cutter_for(None, ByteLevel(add_prefix_space=True), []) is None  # a space in front of every block
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import pre_tokenizers
from ..data.openai import CL100K_PATTERN, O200K_PATTERN, R50K_PATTERN
from ..pre_tokenizers.pattern import Pretokenizer
from ..pre_tokenizers.pattern.splitter import digit_group_of

__all__ = ["MAIN_PATTERNS", "PASS_THROUGH_PATTERNS", "cutter_for"]

LLAMA3_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
"""Llama 3's (and 3.1's) Split pattern, as its tokenizer.json spells it."""

QWEN2_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
"""Qwen 2, 2.5 and 3: Llama 3's with one digit per piece."""

GPT4O_PATTERN = (
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
    r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
"""o200k's pattern as the gpt-4o tokenizer.json spells it."""

DEEPSEEK_V3_DIGITS = r"\p{N}{1,3}"
DEEPSEEK_V3_CJK = "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+"
DEEPSEEK_V3_MAIN = (
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+"
    "| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"
)
"""DeepSeek V3's three Splits, in order: digit runs, CJK runs, then the rest."""

MAIN_PATTERNS = frozenset(
    {R50K_PATTERN, CL100K_PATTERN, O200K_PATTERN, pre_tokenizers.GPT2_PATTERN, LLAMA3_PATTERN, QWEN2_PATTERN,
     GPT4O_PATTERN, DEEPSEEK_V3_MAIN}
)
"""Split patterns that end a piece at every ``Pretokenizer.cut_near`` point, whatever surrounds it."""

PASS_THROUGH_PATTERNS = frozenset({DEEPSEEK_V3_DIGITS, DEEPSEEK_V3_CJK})
"""Split patterns that may come before a main one: no match of theirs changes when the text is cut
at a cut point. A digit run never holds one (the rules cut after a number, never inside a run, so
its groups of three count from the same start); a CJK run may (before its "・"), but it is one
class run, so its two sides are the two matches the blocks give, and the main split that follows
cuts there."""

_PER_CHARACTER_NORMALIZERS = ("NFC", "NFD", "Lowercase")


def _normalizer_keeps_cuts(normalizer: Any) -> bool:
    """Judged by the normalizer's tokenizer.json form (its ``to_json``), the one public description of it."""
    return normalizer is None or _form_keeps_cuts(normalizer.to_json())


def _form_keeps_cuts(form: dict[str, Any]) -> bool:
    if form.get("type") == "Sequence":
        return all(map(_form_keeps_cuts, form.get("normalizers", [])))
    return form.get("type") in _PER_CHARACTER_NORMALIZERS


def _pre_tokenizer_cuts(pre_tokenizer: Any) -> tuple[bool, int | None]:
    """Whether the pre-tokenizer keeps the cut points, and how it cuts runs of numbers (see
    ``splitter.digit_group_of``): pass-through splits, then a main split (or ByteLevel's own GPT-2
    split); after it, any step that splits each piece alone. No step puts anything in front of a text."""
    steps = pre_tokenizer.steps if isinstance(pre_tokenizer, pre_tokenizers.Sequence) else [pre_tokenizer]
    digits: int | None = None
    for at, step in enumerate(steps):
        if isinstance(step, pre_tokenizers.ByteLevel):
            if step.add_prefix_space:
                return False, None
            if step.use_regex:  # GPT-2's split: every cut point is a piece boundary from here on
                return all(map(_later, steps[at + 1 :])), digits or digit_group_of(pre_tokenizers.GPT2_PATTERN)
        elif isinstance(step, pre_tokenizers.Split):
            if type(step) is not pre_tokenizers.Split or not step.is_regex:
                return False, None
            if (step.behavior, step.invert) not in (("isolated", False), ("removed", True)):
                return False, None  # ("removed", True) keeps the matches: the same when they cover the text
            if step.pattern in MAIN_PATTERNS:
                return all(map(_later, steps[at + 1 :])), digits or digit_group_of(step.pattern)
            if step.pattern not in PASS_THROUGH_PATTERNS:
                return False, None
            digits = digits or digit_group_of(step.pattern)
        else:
            return False, None  # Metaspace and the rest: not known to keep cut points
    return False, None


def _later(step: Any) -> bool:
    """A step after the main split: it splits each piece alone and puts nothing in front."""
    if isinstance(step, pre_tokenizers.ByteLevel):
        return not step.add_prefix_space
    return isinstance(step, pre_tokenizers.Split)


def cutter_for(normalizer: Any, pre_tokenizer: Any, added_tokens: Iterable[Any]) -> Pretokenizer | None:
    """An object whose ``cut_near`` gives exact cut points for this pipeline, or None (see the module)."""
    if pre_tokenizer is None or not _normalizer_keeps_cuts(normalizer):
        return None
    keeps, digits = _pre_tokenizer_cuts(pre_tokenizer)
    if not keeps or (normalizer is not None and any(token.is_normalized for token in added_tokens)):
        return None
    # The cut rules are the same for every pattern named above, so any of them stands for all; how a
    # run of numbers may be cut is the pipeline's own.
    return Pretokenizer(CL100K_PATTERN, cuttable=True, digit_group=digits)
