"""What ``bytepair count`` does with special-token text, the names ``--tokenizer`` takes besides
paths, and ``decode`` in bounded memory: the parts of the command line that answer "what does this
file cost" and "what do these ids say" for files of any size.

Why a module of its own: these rules are the command line's policy, not the encoders' (the API keeps
tiktoken's strict default), and ``cli/__init__.py`` holds the parser and the dispatch.

- ``count`` with an OpenAI encoding counts special-token text (``<|endoftext|>`` in a README) as
  ordinary text, as an API request encodes user text, and says so on stderr; ``--disallow-special``
  refuses it (exit 1), ``--allow-special TOKEN|all`` counts it as the token.
- ``--tokenizer`` takes a tokenizer.json path, a folder holding one, or a name of the JavaScript API
  (``llama3``, ``qwen2_5``, ...): those files come with the npm package, whose ``npx bytepair``
  hands their paths and sha256 here (``web_bridge/cli.py``); natively a name says where to get one.
- ``decode`` with an OpenAI encoding reads ids a block at a time and writes each block's bytes as
  it goes (a 50 MB file of ids no longer becomes one list of 10 M Python ints).

>>> import io
>>> from bytepair import get_encoding
>>> seen = SpecialText(get_encoding("o200k_base"))
>>> get_encoding("o200k_base").count_stream(seen.watch(["x <|endo", "ftext|> y"]), disallowed_special=())
9
>>> seen.found
'<|endoftext|>'
>>> [ids for ids in id_blocks(io.BytesIO(b"[1, 2]\\n[3]\\n"))]
[[1, 2], [3]]
"""

from __future__ import annotations

import codecs
import gzip
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, BinaryIO

from ..encoding import Encoding
from ..errors import InvalidInputError, InvalidTokenError
from ..text.reading import read_utf8_chunks
from ..tokenizer import Tokenizer

__all__ = ["NotUtf8Output", "SpecialText", "count_encoding", "decode_in_blocks", "id_blocks", "open_tokenizer", "prepared_tokenizers",
           "special_note"]

_READ = 1 << 16  # bytes read at a time
_BLOCK = 1 << 16  # ids decoded at a time
_WORD = re.compile(rb"[^\s,\[\]]+|[\[\],]")
_TAIL = re.compile(rb"[^\s,\[\]]*\Z")


class SpecialText:
    """Watches text chunks go by and remembers the first special token's text seen in them (also one
    cut across two chunks)."""

    def __init__(self, enc: Encoding) -> None:
        self.specials = sorted(enc.special_tokens_set, key=len, reverse=True)
        self.keep = max(map(len, self.specials), default=1) - 1
        self.found: str | None = None

    def watch(self, chunks: Iterable[str]) -> Iterator[str]:
        tail = ""
        for chunk in chunks:
            if self.found is None and self.specials:
                window = tail + chunk
                self.found = next((s for s in self.specials if s in window), None)
                tail = window[-self.keep:] if self.keep else ""
            yield chunk


def special_note(label: str, token: str) -> str:
    """The note ``count`` writes when it counted special-token text as text."""
    where = "standard input" if label == "-" else label
    return (f"note: {where} holds special-token text ({token}); counted as ordinary text, as an API request encodes "
            f"user text (--allow-special '{token}' counts it as one token, --disallow-special refuses it)")


def open_tokenizer(spec: str, named: Mapping[str, Mapping[str, Any]] | None = None) -> Tokenizer:
    """The tokenizer ``--tokenizer SPEC`` means: a tokenizer.json, a folder holding one, or one of the
    names in ``named`` (name -> {"path", "sha256"}: the npm package's prepared files, gzip'd,
    checked before use). A name not found anywhere raises InvalidInputError saying what to give."""
    if os.path.exists(spec) or os.sep in spec or "/" in spec or spec.endswith(".json"):
        return Tokenizer.from_pretrained(spec) if os.path.isdir(spec) else Tokenizer.from_file(spec)
    if named and spec in named:
        entry = named[spec]
        with open(entry["path"], "rb") as f:
            data = f.read()
        if hashlib.sha256(data).hexdigest() != entry["sha256"]:
            raise InvalidInputError(f"{entry['path']} does not match the package's manifest.json: reinstall bytepair")
        return Tokenizer.from_str(gzip.decompress(data).decode("utf-8"))
    names = ", ".join(sorted(named)) if named else "llama3, qwen2_5, qwen3, deepseek_v3, gpt2, bert_minilm, unigram_botchan (with `npx bytepair`)"
    raise InvalidInputError(
        f"--tokenizer {spec!r}: no such file or folder, and not a prepared tokenizer's name ({names}); "
        "give a tokenizer.json or the folder holding one (for example a model's Hugging Face repository)"
    )


def id_blocks(source: BinaryIO, *, block: int = _BLOCK) -> Iterator[list[int]]:
    """The ids of ``source`` in lists of at most ``block``, a list never spanning two of the input's
    JSON lists: what ``parse_id_lists`` reads (JSON lists one after another, or integers separated by
    whitespace or commas; a leading BOM skipped), read 64 KB at a time. Malformed input raises
    ValueError naming what was expected."""
    mode: str | None = None  # "json" or "plain", set by the first word
    need, ids = "", []  # JSON: "" outside a list, "first" after "[", "value" after ",", "sep" after a value
    flat = "expected flat JSON lists of integers"
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    pending, first = b"", True
    while True:
        raw = source.read(_READ)
        decoder.decode(raw, final=not raw)  # UTF-8 is checked, as the whole-text reader did
        data = pending + raw
        if first and data.startswith(codecs.BOM_UTF8):
            data = data[len(codecs.BOM_UTF8):]
        first = False
        pending = b""
        if raw:  # a word at the end may be cut: it waits for the next read
            cut = _TAIL.search(data).start()
            data, pending = data[:cut], data[cut:]
            if len(pending) > 64:
                raise ValueError(f"not a number: {pending[:20].decode('utf-8', 'replace')!r}...")
        for match in _WORD.finditer(data):
            word = match.group()
            if mode is None:
                mode = "json" if word == b"[" else "plain"
            if mode == "json":
                if word == b"[":
                    if need:
                        raise ValueError(f"{flat}, got nested lists")
                    need = "first"
                elif word == b"]":
                    if need not in ("first", "sep"):
                        raise ValueError(flat)
                    need = ""
                    yield ids
                    ids = []
                elif word == b",":
                    if need != "sep":
                        raise ValueError(flat)
                    need = "value"
                elif need not in ("first", "value") or not re.fullmatch(rb"-?(0|[1-9][0-9]*)", word):
                    raise ValueError(flat)
                else:
                    ids.append(int(word))
                    need = "sep"
                    if len(ids) >= block:
                        yield ids
                        ids = []
            else:
                if word in (b"[", b"]"):
                    raise ValueError(f"not a number: {word.decode()!r}")
                if word == b",":
                    continue
                if not re.fullmatch(rb"[+-]?[0-9]+", word):
                    raise ValueError(f"not a number: {word.decode('utf-8', 'replace')!r}")
                ids.append(int(word))
                if len(ids) >= block:
                    yield ids
                    ids = []
        if not raw:
            break
    if need:
        raise ValueError("expected flat JSON lists of integers (a list is not closed)")
    if ids or mode == "plain":
        yield ids


class NotUtf8Output(Exception):
    """``decode --strict``: the bytes stop being UTF-8 at ``offset`` of the output."""

    def __init__(self, offset: int) -> None:
        super().__init__(f"byte {offset}")
        self.offset = offset


def decode_in_blocks(enc: Encoding, source: str | BinaryIO, out: BinaryIO, *, strict: bool) -> None:
    """Write the bytes of ``source``'s ids (a path or a binary file) block by block
    (``enc.decode_bytes`` of all of them, without holding them); with ``strict``, raise
    NotUtf8Output at the first byte that is not UTF-8, before writing its block. A bad id's
    InvalidTokenError names its position in the whole input."""
    if isinstance(source, str):
        with open(source, "rb") as f:
            decode_in_blocks(enc, f, out, strict=strict)
        return
    checker = codecs.getincrementaldecoder("utf-8")("strict")
    written = done = 0
    for ids in id_blocks(source):
        try:
            data = enc.decode_bytes(ids)
        except InvalidTokenError as exc:
            raise InvalidTokenError(re.sub(r"at position (\d+)", lambda m: f"at position {int(m[1]) + done}", str(exc))) from None
        done += len(ids)
        if strict:  # only whole characters are written: a character cut at a block's end waits for the next
            try:
                data = checker.decode(data).encode("utf-8")
            except UnicodeDecodeError as exc:
                raise NotUtf8Output(written + exc.start) from None  # exc.object: the bytes held back, then data
        out.write(data)
        written += len(data)
    if strict:
        if checker.getstate()[0]:  # a character cut off at the end
            raise NotUtf8Output(written)


def count_encoding(enc: Encoding, source: str | BinaryIO, label: str, args: Any, note: Callable[[str], None]) -> int:
    """``count``'s tokens of one input with an OpenAI encoding: special-token text as text, with a
    ``note``, unless --allow-special, --special-as-text or --disallow-special says otherwise."""
    chunks = read_utf8_chunks(source, errors=args.errors)
    if args.allow_special and "all" in args.allow_special:
        return enc.count_stream(chunks, allowed_special="all")
    if args.allow_special or args.disallow_special:
        return enc.count_stream(chunks, allowed_special=set(args.allow_special))
    if args.special_as_text:
        return enc.count_stream(chunks, disallowed_special=())
    seen = SpecialText(enc)
    n = enc.count_stream(seen.watch(chunks), disallowed_special=())
    if seen.found is not None:
        note(special_note(label, seen.found))
    return n


def prepared_tokenizers(text: str | None) -> dict[str, dict[str, Any]] | None:
    """The ``{name: {"path", "sha256"}}`` the npm CLI passes as JSON (None natively)."""
    return json.loads(text) if text else None
