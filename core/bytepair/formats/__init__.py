"""Vocabulary file formats: official ``.tiktoken`` text, GPT-2's two files, minbpe's ``.model``, and bytepair's
packed form; ``atomic.py`` writes any of them so that a failed save leaves nothing half-written."""

from .gpt2_files import dump_bpe_files, load_gpt2_files, parse_bpe_files, parse_gpt2_files
from .minbpe_model import dump_minbpe, minbpe_paths, parse_minbpe
from .packed_ranks import PackedRanks, expand_to_tiktoken_text, pack_ranks, read_packed_ranks, with_raw_payload
from .tiktoken_file import check_sha256, dump_tiktoken_bpe, load_tiktoken_bpe, parse_tiktoken_bpe

__all__ = [
    "PackedRanks",
    "check_sha256",
    "dump_bpe_files",
    "dump_minbpe",
    "dump_tiktoken_bpe",
    "expand_to_tiktoken_text",
    "load_gpt2_files",
    "minbpe_paths",
    "load_tiktoken_bpe",
    "pack_ranks",
    "parse_bpe_files",
    "parse_gpt2_files",
    "parse_minbpe",
    "parse_tiktoken_bpe",
    "read_packed_ranks",
    "with_raw_payload",
]
