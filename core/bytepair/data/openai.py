"""The OpenAI encodings bundled with bytepair: names, patterns, special tokens and rank data.

Names, patterns and special-token ids are those of tiktoken 0.14 (``tiktoken_ext/openai_public.py``);
the rank data are the official files, checked by sha256 when ``build/fetch_encodings.py`` packed them
(``source_sha256`` in each ``data/*.bpr`` header records which file).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["ENCODING_SPECS", "EncodingSpec"]

ENDOFTEXT = "<|endoftext|>"
FIM_PREFIX = "<|fim_prefix|>"
FIM_MIDDLE = "<|fim_middle|>"
FIM_SUFFIX = "<|fim_suffix|>"
ENDOFPROMPT = "<|endofprompt|>"

# GPT-2's original pattern, written as tiktoken writes it (same pieces, faster to match).
R50K_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)


@dataclass(frozen=True)
class EncodingSpec:
    """Everything needed to build one bundled encoding."""

    name: str
    ranks_file: str
    """Basename of the packed rank data in ``bytepair/data``."""
    pattern: str
    special_tokens: dict[str, int] = field(default_factory=dict)
    explicit_n_vocab: int | None = None


_HARMONY_SPECIALS = {
    ENDOFTEXT: 199999,
    ENDOFPROMPT: 200018,
    "<|startoftext|>": 199998,
    "<|reserved_200000|>": 200000,
    "<|reserved_200001|>": 200001,
    "<|return|>": 200002,
    "<|constrain|>": 200003,
    "<|reserved_200004|>": 200004,
    "<|channel|>": 200005,
    "<|start|>": 200006,
    "<|end|>": 200007,
    "<|message|>": 200008,
    "<|reserved_200009|>": 200009,
    "<|reserved_200010|>": 200010,
    "<|reserved_200011|>": 200011,
    "<|call|>": 200012,
    **{f"<|reserved_{i}|>": i for i in range(200013, 201088)},
}

ENCODING_SPECS: dict[str, EncodingSpec] = {
    spec.name: spec
    for spec in [
        EncodingSpec("gpt2", "r50k_base", R50K_PATTERN, {ENDOFTEXT: 50256}, explicit_n_vocab=50257),
        EncodingSpec("r50k_base", "r50k_base", R50K_PATTERN, {ENDOFTEXT: 50256}, explicit_n_vocab=50257),
        EncodingSpec("p50k_base", "p50k_base", R50K_PATTERN, {ENDOFTEXT: 50256}, explicit_n_vocab=50281),
        EncodingSpec(
            "p50k_edit",
            "p50k_base",
            R50K_PATTERN,
            {ENDOFTEXT: 50256, FIM_PREFIX: 50281, FIM_MIDDLE: 50282, FIM_SUFFIX: 50283},
        ),
        EncodingSpec(
            "cl100k_base",
            "cl100k_base",
            CL100K_PATTERN,
            {ENDOFTEXT: 100257, FIM_PREFIX: 100258, FIM_MIDDLE: 100259, FIM_SUFFIX: 100260, ENDOFPROMPT: 100276},
        ),
        EncodingSpec("o200k_base", "o200k_base", O200K_PATTERN, {ENDOFTEXT: 199999, ENDOFPROMPT: 200018}),
        EncodingSpec("o200k_harmony", "o200k_base", O200K_PATTERN, _HARMONY_SPECIALS),
    ]
}
