"""The Unigram language-model family: the model (``model.py``), its lattice and best path
(``lattice.py``, long pieces stretch by stretch in ``stretches.py``), where each token of a piece
stands (``spans.py``) and subword sampling (``sampling.py``); the trainer is ``trainers/unigram.py``.

>>> Unigram([("<unk>", 0.0), ("▁a", -1.0)], unk_id=0).encode_piece("▁a")
(1,)
"""

from .model import Unigram, unigram_from_json

__all__ = ["Unigram", "unigram_from_json"]
