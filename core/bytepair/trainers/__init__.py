"""Training: byte-level BPE identical to Hugging Face's trainer, and the classic word-level BPE.

``counts`` (mergeable piece counts) -> ``pair_queue`` (incremental pair counts, lazy heap) ->
``byte_level`` (ids, ``tokenizer.json``) / ``extend`` (continue from a tokenizer); ``classic`` is
Sennrich-style BPE over words with "</w>". docs/TRAINING.md states every rule and how it was checked.
"""

from .byte_level import train, train_from_counts
from .classic import ClassicBPE, load_classic, train_classic
from .counts import count_pieces

__all__ = ["ClassicBPE", "count_pieces", "load_classic", "train", "train_classic", "train_from_counts"]
