"""Tokens matched whole before anything else touches the text: the first stage of the pipeline.

Two faces, one idea: tiktoken's special tokens (``scan.py``: a leftmost-longest trie over their
strings, and ``policy.py``: which of them a call allows or refuses) and a ``tokenizer.json``'s added
tokens with HF's flags (``vocabulary.py``: ``special``, ``normalized``, ``single_word``, ``lstrip``,
``rstrip``), which reuse the same trie.

>>> AddedVocabulary([AddedToken("<s>", special=True, id=1)]).split("a<s>b", normalized=False)
[('a', None, 0, 1), ('<s>', 1, 1, 4), ('b', None, 4, 5)]
"""

from .scan import SpecialTokenScanner, trie_pattern
from .vocabulary import AddedToken, AddedVocabulary

__all__ = ["AddedToken", "AddedVocabulary", "SpecialTokenScanner", "trie_pattern"]
