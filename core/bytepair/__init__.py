"""bytepair: exact byte-level BPE (tiktoken-compatible ids) in pure Python, natively and in Pyodide.

>>> import bytepair
>>> enc = bytepair.get_encoding("o200k_base")
>>> enc.encode("hello world")
[24912, 2375]
>>> enc.count("hello world")
2
"""

from .llm.chat_count import count_chat
from .llm.collate import collate
from .decoders.token_table import StreamDecoder
from .encoding import Encoding
from .errors import (
    BytepairError,
    DecodeStreamError,
    DisallowedSpecialTokenError,
    EmptyCorpusError,
    EncodingRegistrationError,
    InputDecodeError,
    InputTooLargeError,
    InvalidArgumentError,
    InvalidInputError,
    InvalidTokenError,
    MissingDependencyError,
    ReservedLiteralError,
    TemplateError,
    TemplateLimitError,
    TokenIdOverflowError,
    TrainingError,
    UnknownEncodingError,
    UnknownModelError,
    UnsavableError,
    UnsupportedPatternError,
    UnsupportedTokenizerError,
    VocabFormatError,
    VocabHashMismatchError,
)
from .formats.component_json import Regex
from .formats import load_gpt2_files, load_tiktoken_bpe, parse_gpt2_files, parse_tiktoken_bpe
from .load import load_minbpe
from .text.offsets import utf16_offsets
from .pre_tokenizers.pattern import UNICODE_VERSION
from .pre_tokenizers.normalized_string import NormalizedString
from .pre_tokenizers.pre_tokenized_string import PreTokenizedString
from .text.reading import read_utf8_chunks
from .added_tokens.vocabulary import AddedToken
from .models.token import Token
from .tokenizer import Encoded, Tokenizer
from .trainers import ClassicBPE, count_pieces, load_classic, train_classic
from .training import train, train_from_counts
from .registry import (
    encoding_for_model,
    encoding_name_for_model,
    get_encoding,
    list_encoding_names,
    register_encoding,
)

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # The analysis package is imported on first use: ``import bytepair`` (and the browser's first
    # load, whose memory snapshot holds what importing bytepair builds) does not pay for it.
    if name == "compare_tokenizers":
        from .analysis import compare_tokenizers

        return compare_tokenizers
    # Likewise the corpus encoder and SentencePiece's processor (``import bytepair as spm`` then
    # ``spm.SentencePieceProcessor(...)`` imports it here).
    if name == "encode_corpus":
        from .corpus import encode_corpus

        return encode_corpus
    if name == "SentencePieceProcessor":
        from .sentencepiece_processor import SentencePieceProcessor

        return SentencePieceProcessor
    raise AttributeError(f"module 'bytepair' has no attribute {name!r}")

__all__ = [
    "UNICODE_VERSION",
    "BytepairError",
    "DecodeStreamError",
    "DisallowedSpecialTokenError",
    "EmptyCorpusError",
    "EncodingRegistrationError",
    "Encoding",
    "InputDecodeError",
    "InputTooLargeError",
    "InvalidArgumentError",
    "InvalidInputError",
    "InvalidTokenError",
    "MissingDependencyError",
    "NormalizedString",
    "PreTokenizedString",
    "Regex",
    "ReservedLiteralError",
    "SentencePieceProcessor",
    "TemplateError",
    "TemplateLimitError",
    "TokenIdOverflowError",
    "AddedToken",
    "Encoded",
    "StreamDecoder",
    "Token",
    "Tokenizer",
    "TrainingError",
    "ClassicBPE",
    "UnknownEncodingError",
    "UnknownModelError",
    "UnsavableError",
    "UnsupportedPatternError",
    "UnsupportedTokenizerError",
    "VocabFormatError",
    "VocabHashMismatchError",
    "__version__",
    "count_chat",
    "collate",
    "compare_tokenizers",
    "encoding_for_model",
    "encoding_name_for_model",
    "get_encoding",
    "list_encoding_names",
    "load_gpt2_files",
    "load_minbpe",
    "load_tiktoken_bpe",
    "parse_gpt2_files",
    "parse_tiktoken_bpe",
    "read_utf8_chunks",
    "register_encoding",
    "utf16_offsets",
    "count_pieces",
    "load_classic",
    "train",
    "train_classic",
    "train_from_counts",
    "encode_corpus",
]
