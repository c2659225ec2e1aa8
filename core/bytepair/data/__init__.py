"""Data that ships with bytepair: the OpenAI encodings' specs (``openai.py``: names, patterns,
special tokens, which rank file) and their rank files (``*.bpr``, read by ``formats/packed_ranks.py``).

>>> ENCODING_SPECS["cl100k_base"].special_tokens["<|endoftext|>"]
100257
"""

from .openai import ENCODING_SPECS, EncodingSpec

__all__ = ["ENCODING_SPECS", "EncodingSpec"]
