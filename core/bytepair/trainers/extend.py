"""Vocabulary extension: go on training from an existing byte-level BPE tokenizer.

Why: adding a language or a domain to a tokenizer must not move a single existing id, or every
embedding trained on it is lost. Here every id, merge and rank of the base stays as it is; new
tokens get the ids after the base's largest, and new merges come after the base's.

How: the corpus is cut by the base's own normalizer and pre-tokenizer, each distinct piece is
encoded with the base's merges (lowest rank first, leftmost first: what HF's BPE model does), and
the merge loop of ``pair_queue.py`` then counts pairs of base tokens and goes on with HF's rules.
A new merge whose string is already a base token reuses that token's id (HF's rule for trained
vocabularies too). Special tokens asked for that the base lacks are added after the new merges.

Only a byte-level BPE base (HF ``ByteLevel`` pre-tokenizer, with or without a ``Split`` before it)
can be extended, and only with its own pattern: pieces cut another way would give merges the base's
tokenizer never applies.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import TrainingError
from ..pipeline.tokenizer_json import renumbered_by_hf
from ..pre_tokenizers import GPT2_PATTERN
from ..text.byte_unicode import BYTE_TO_UNICODE
from .counts import resolve_pattern
from .pair_queue import learn_merges, merge_list, piece_words
from .progress import Reporter

if TYPE_CHECKING:  # pragma: no cover
    from ..tokenizer import Tokenizer

__all__ = ["BaseModel", "extend_from_counts"]


def _base_regex(pre: Any) -> tuple[str, bool] | None:
    """(regex, is ByteLevel's own regex) of a byte-level pre-tokenizer JSON, else None."""
    if not isinstance(pre, dict):
        return None
    if pre.get("type") == "ByteLevel" and pre.get("use_regex", True):
        return GPT2_PATTERN, True
    if pre.get("type") == "Sequence":
        parts = pre.get("pretokenizers") or []
        if (len(parts) == 2 and parts[0].get("type") == "Split" and "Regex" in (parts[0].get("pattern") or {})
                and parts[1].get("type") == "ByteLevel" and not parts[1].get("use_regex", True)):
            return parts[0]["pattern"]["Regex"], False
    return None


class BaseModel:
    """What training needs from a base tokenizer: its JSON, pieces, ids and merges."""

    def __init__(self, base: Tokenizer, pattern: str | None = None) -> None:
        """``base``: a ``bytepair.Tokenizer`` (``bytepair.train`` checks it is one)."""
        self.tokenizer = base
        self.data: dict[str, Any] = json.loads(base.to_str())
        model = self.data.get("model") or {}
        found = _base_regex(self.data.get("pre_tokenizer"))
        if (model.get("type", "BPE") != "BPE" or found is None or model.get("continuing_subword_prefix")
                or model.get("end_of_word_suffix")):
            raise TrainingError("only a byte-level BPE tokenizer (ByteLevel pre-tokenizer, no subword prefix or suffix) "
                                "can be extended; train a new tokenizer instead (no base=)")
        regex, byte_level_regex = found
        if pattern is not None:
            wanted = resolve_pattern(pattern)
            if (wanted.regex, wanted.byte_level_regex) != (regex, byte_level_regex):
                raise TrainingError(
                    f"the base tokenizer cuts text with {'ByteLevel' if byte_level_regex else 'the regex'} {regex!r}, "
                    f"not with {pattern!r}; leave pattern out when extending (the base's own is used)")
        self.vocab: dict[str, int] = dict(model.get("vocab") or {})
        self.tokens: dict[int, str] = {i: t for t, i in self.vocab.items()}
        for added in self.data.get("added_tokens") or []:
            self.tokens.setdefault(added["id"], added["content"])
        self.merges_as_text = bool(model.get("merges")) and isinstance(model["merges"][0], str)
        self.ranks: dict[tuple[int, int], tuple[int, int]] = {}
        vocab = self.vocab
        for rank, merge in enumerate(model.get("merges") or []):
            a, b = merge.split(" ", 1) if isinstance(merge, str) else merge
            if a in vocab and b in vocab and a + b in vocab:
                self.ranks.setdefault((vocab[a], vocab[b]), (rank, vocab[a + b]))
        self.ignore_merges = bool(model.get("ignore_merges"))
        missing = [ch for ch in BYTE_TO_UNICODE.values() if ch not in vocab]
        if missing:
            raise TrainingError(f"the base vocabulary lacks byte tokens {missing[:5]!r}...; extend a byte-level BPE "
                                "whose vocabulary holds all 256 ByteLevel characters")
        self.byte_id = [vocab[BYTE_TO_UNICODE[b]] for b in range(256)]
        normalizer, pre = base.normalizer, base.pre_tokenizer
        assert pre is not None
        split = pre.split
        if normalizer is None:
            self.split = split
        else:
            normalize = normalizer.normalize
            self.split = lambda text: split(normalize(text))

    def encode(self, data: bytes) -> list[int]:
        """The base's tokens for one piece's bytes: merge the lowest-ranked pair (leftmost first) until none is left."""
        if self.ignore_merges:
            whole = self.vocab.get("".join(BYTE_TO_UNICODE[b] for b in data))
            if whole is not None:
                return [whole]
        word = [self.byte_id[b] for b in data]
        ranks = self.ranks
        while len(word) > 1:
            best = None
            for j in range(len(word) - 1):
                found = ranks.get((word[j], word[j + 1]))
                if found is not None and (best is None or found[0] < best[0]):
                    best = (found[0], j, found[1])
            if best is None:
                break
            word[best[1]: best[1] + 2] = [best[2]]
        return word


def extend_from_counts(base: Tokenizer, counts: Mapping[str, int], vocab_size: int, *, pattern: str | None,
                       special_tokens: Sequence[str], min_frequency: int, max_token_length: int | None,
                       reporter: Reporter) -> tuple[dict[str, Any], list[str]]:
    """``train_from_counts(..., base=base)``: see the module docstring. Returns the extended
    ``tokenizer.json`` and the new special tokens to add once it is loaded."""
    plan = BaseModel(base, pattern)
    tokens = dict(plan.tokens)
    size = base.get_vocab_size(with_added_tokens=True)
    if vocab_size <= size:
        raise TrainingError(f"the base tokenizer already has {size} tokens; ask for vocab_size > {size} "
                            f"(e.g. {size + 1000}) to add tokens")
    new_specials = [t for t in special_tokens if base.token_to_id(t) is None]
    if vocab_size < size + len(new_specials):
        raise TrainingError(f"the base tokenizer has {size} tokens and {len(new_specials)} new special token(s) come on top; "
                            f"ask for vocab_size >= {size + len(new_specials)} (vocab_size counts the whole vocabulary)")
    words, weights = piece_words(counts, plan.encode)
    reporter.stage("merge", vocab_size - size - len(new_specials))
    merges: list[tuple[int, int, int]] = []
    learn_merges(words, weights, tokens, vocab_size=vocab_size - len(new_specials), vocab_len=size,
                 min_frequency=min_frequency, max_token_length=max_token_length,
                 on_merge=reporter.merge_hook(merges, tokens), learned=merges)
    reporter.close()
    data = plan.data
    model = data["model"]
    vocab = model.setdefault("vocab", {})
    for _, _, new in merges:
        vocab.setdefault(tokens[new], new)
    extra = merge_list(merges, tokens)
    model["merges"] = list(model.get("merges") or []) + ([" ".join(m) for m in extra] if plan.merges_as_text else extra)
    # The new tokens sit after the added ones: added tokens the vocabulary lacks must join it to keep their ids.
    vocab.update(renumbered_by_hf(vocab, [(t["content"], t["id"]) for t in data.get("added_tokens") or []]))
    return data, new_specials
