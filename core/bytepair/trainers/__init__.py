"""Training: byte-level BPE identical to Hugging Face's trainer, and the classic word-level BPE.

``counts`` (mergeable piece counts) -> ``pair_queue`` (incremental pair counts, lazy heap) ->
``byte_level`` (ids, the ``tokenizer.json``) / ``extend`` (continue from a tokenizer); ``classic`` is
Sennrich-style BPE over words with "</w>"; HF's trainer objects (``BpeTrainer``, ``WordPieceTrainer``:
``bpe_trainer``; ``WordLevelTrainer``: ``word_level``) train a model from a tokenizer's word counts;
``progress`` reports on the way (tqdm, or a callback).
docs/TRAINING.md states every rule and how it was checked.

A trainer's result is data (a ``tokenizer.json``, a merges list): the faces sit above the trainers,
so ``bytepair.train`` (``training.py``) makes the ``Tokenizer`` of it.
"""

from .base import Trainer
from .bpe_trainer import BpeTrainer, WordPieceTrainer
from .byte_level import Trained, train_tokenizer_json, train_tokenizer_json_from_counts
from .classic import ClassicBPE, load_classic, train_classic
from .counts import count_pieces
from .unigram import UnigramTrainer
from .word_level import WordLevelTrainer

__all__ = ["BpeTrainer", "ClassicBPE", "Trained", "Trainer", "count_pieces", "load_classic", "train_classic", "train_tokenizer_json",
           "train_tokenizer_json_from_counts", "UnigramTrainer", "WordLevelTrainer", "WordPieceTrainer"]
