"""``Tokenizer``'s methods for text that arrives in chunks or files: blocks that encode exactly on
their own, streams of ids, counts in bounded memory (a base class of :class:`bytepair.Tokenizer`).

Why a module of its own: how a ``tokenizer.json`` pipeline may be cut into blocks
(``pipeline/stream_cuts.py``, ``pipeline/blocks.py``) is its own concern; ``tokenizer.py`` keeps the
HF API of one text and a batch.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from itertools import chain
from typing import Any, BinaryIO

from .added_tokens.scan import SpecialTokenScanner
from .data.openai import CL100K_PATTERN
from .pipeline.blocks import DEFAULT_BLOCK_CHARS, BlockCutter, TokenCounter, blocks_of
from .pipeline.stream_cuts import cutter_for
from .pre_tokenizers.pattern import Pretokenizer
from .text.reading import read_utf8_chunks

__all__ = ["TokenizerStreams"]


class TokenizerStreams:
    """Blocks, streams and file counts over a tokenizer's pipeline (see the module docstring)."""

    normalizer: Any
    pre_tokenizer: Any
    post_processor: Any
    pipeline: Any
    _added: Any
    count: Callable[..., int]

    def block_cutter(self, block_chars: int = DEFAULT_BLOCK_CHARS) -> BlockCutter:
        """A cutter that gathers chunks of text into blocks that encode exactly on their own: cut where
        this pipeline keeps piece boundaries (``pipeline/stream_cuts.py``: Llama 3, Qwen, DeepSeek V3, GPT-2 and
        the OpenAI patterns), clear of any added token's text. Any other pipeline is not cut: the
        whole text is one block, held until the end."""
        cuts = cutter_for(self.normalizer, self.pre_tokenizer, list(self._added))
        scanner = SpecialTokenScanner({token.content: token.id for token in self._added})
        return BlockCutter(cuts or Pretokenizer(CL100K_PATTERN, cuttable=False), scanner, block_chars)

    def stream_blocks(self, chunks: Iterable[str], block_chars: int = DEFAULT_BLOCK_CHARS) -> Iterator[str]:
        """The text of ``chunks`` in blocks of about ``block_chars`` characters that encode exactly on
        their own (see ``block_cutter``)."""
        return blocks_of(self.block_cutter(block_chars), chunks)

    def encode_stream(self, chunks: Iterable[str]) -> Iterator[list[int]]:
        """The ids of text that arrives in chunks, block by block, without special tokens added;
        joined, they are ``encode("".join(chunks), add_special_tokens=False).ids``."""
        for block in self.stream_blocks(chunks):
            yield list(chain.from_iterable(self.pipeline.id_chunks(block)))

    def count_stream(self, chunks: Iterable[str], *, add_special_tokens: bool = False) -> int:
        """``count("".join(chunks))`` in bounded memory where the pipeline can be cut (``block_cutter``)."""
        n = sum(map(self.count, self.stream_blocks(chunks)))
        if add_special_tokens and self.post_processor is not None:
            n += self.post_processor.added_tokens(False)
        return n

    def count_file(self, file: str | os.PathLike[str] | BinaryIO, *, errors: str = "strict", add_special_tokens: bool = False) -> int:
        """Tokens in a file (a path or a file opened ``"rb"``), read a megabyte at a time and decoded
        as UTF-8 exactly (CR, CRLF and a BOM kept; invalid UTF-8 raises :class:`InputDecodeError`
        naming the byte offset unless ``errors="replace"``).

        >>> import io
        >>> from bytepair import Tokenizer
        >>> tok = Tokenizer.from_encoding("cl100k_base")
        >>> tok.count_file(io.BytesIO(b"a\\r\\n\\r\\n  b\\r\\n"))
        5
        """
        return self.count_stream(read_utf8_chunks(file, errors=errors), add_special_tokens=add_special_tokens)

    def token_counter(self, *, errors: str = "strict") -> TokenCounter:
        """A counter handed text or UTF-8 bytes piece by piece (``feed``, ``feed_bytes``, then
        ``finish()``); see :class:`bytepair.pipeline.blocks.TokenCounter`."""
        return TokenCounter(self.block_cutter(), self.count, errors=errors)

