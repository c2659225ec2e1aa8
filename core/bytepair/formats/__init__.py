"""Vocabulary file formats: official ``.tiktoken`` text, GPT-2's two files, and bytepair's packed form."""

from .gpt2_files import load_gpt2_files, parse_gpt2_files
from .packed_ranks import PackedRanks, expand_to_tiktoken_text, pack_ranks, read_packed_ranks
from .tiktoken_file import check_sha256, load_tiktoken_bpe, parse_tiktoken_bpe

__all__ = [
    "PackedRanks",
    "check_sha256",
    "expand_to_tiktoken_text",
    "load_gpt2_files",
    "load_tiktoken_bpe",
    "pack_ranks",
    "parse_gpt2_files",
    "parse_tiktoken_bpe",
    "read_packed_ranks",
]
