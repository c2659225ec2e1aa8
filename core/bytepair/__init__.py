"""bytepair: exact byte-level BPE (tiktoken-compatible ids) in pure Python, natively and in Pyodide.

>>> import bytepair
>>> enc = bytepair.get_encoding("o200k_base")
>>> enc.encode("hello world")
[24912, 2375]
>>> enc.count("hello world")
2
"""

from .decode import StreamDecoder
from .encoding import Encoding
from .errors import (
    BytepairError,
    DisallowedSpecialTokenError,
    EncodingRegistrationError,
    InputDecodeError,
    InvalidInputError,
    InvalidTokenError,
    UnknownEncodingError,
    UnknownModelError,
    UnsupportedPatternError,
    UnsupportedTokenizerError,
    VocabFormatError,
    VocabHashMismatchError,
)
from .formats import load_gpt2_files, load_tiktoken_bpe, parse_gpt2_files, parse_tiktoken_bpe
from .offsets import utf16_offsets
from .pretokenize import UNICODE_VERSION
from .text_stream import read_utf8_chunks
from .tokenizer import Encoded, Tokenizer
from .registry import (
    encoding_for_model,
    encoding_name_for_model,
    get_encoding,
    list_encoding_names,
    register_encoding,
)

__version__ = "0.1.0"

__all__ = [
    "UNICODE_VERSION",
    "BytepairError",
    "DisallowedSpecialTokenError",
    "EncodingRegistrationError",
    "Encoding",
    "InputDecodeError",
    "InvalidInputError",
    "InvalidTokenError",
    "Encoded",
    "StreamDecoder",
    "Tokenizer",
    "UnknownEncodingError",
    "UnknownModelError",
    "UnsupportedPatternError",
    "UnsupportedTokenizerError",
    "VocabFormatError",
    "VocabHashMismatchError",
    "__version__",
    "encoding_for_model",
    "encoding_name_for_model",
    "get_encoding",
    "list_encoding_names",
    "load_gpt2_files",
    "load_tiktoken_bpe",
    "parse_gpt2_files",
    "parse_tiktoken_bpe",
    "read_utf8_chunks",
    "register_encoding",
    "utf16_offsets",
]
