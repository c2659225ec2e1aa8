"""Byte-pair encoding: the two models and every kernel that merges a piece.

The models: ``rank_model.RankModel`` (tiktoken's: token bytes ranked, the lowest-ranked merged token
first) and ``merges_model.BPEModel`` (a ``tokenizer.json``'s: vocabulary and ranked merge pairs,
Hugging Face's rule). The kernels, each with a plain reference beside its fast path and tests that
hold them equal:

* ``merge.py`` - the merge rule by token rank (reference, short-piece and heap merges, dropout);
* ``pair_merge.py`` - the merge rule by pair rank;
* ``char_merge.py`` - merging from whole characters where that is exact (non-Latin scripts);
* ``pair_check.py`` - whether two adjacent tokens stay apart (a new piece of two tokens, found
  without merging); ``backtrack.py`` - longest tokens first, with backtracking;
* ``long_pieces.py`` - long pieces assembled exactly from cached chunks; ``piece_cuts.py`` - places
  in a long piece no merge can cross; ``small_alphabet.py`` - long pieces of a few distinct bytes;
  ``ranked_long_pieces.py`` - the same for a byte-level ``BPEModel``, its merges read as ranks.

>>> from bytepair import get_encoding
>>> isinstance(get_encoding("r50k_base").engine.model, RankModel)
True
"""

from .merges_model import BPEModel
from .rank_model import RankModel

__all__ = ["BPEModel", "RankModel"]
