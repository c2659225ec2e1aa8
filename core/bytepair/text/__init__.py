"""Text before and around tokenization, with nothing of any tokenizer in it.

* ``checks.py`` - the input checks every entry point shares (types, lone surrogates);
* ``reading.py`` - files and binary streams read as exact UTF-8, a megabyte at a time;
* ``offsets.py`` - token spans in characters, and in JavaScript's UTF-16 units;
* ``byte_unicode.py`` - GPT-2's reversible map between bytes and visible characters;
* ``words.py`` - how words are counted (tokens per word), for scripts with and without spaces.

>>> repair_surrogates("a\\ud800b")
'a\\ufffdb'
"""

from .byte_unicode import BYTE_TO_UNICODE, UNICODE_TO_BYTE, bytes_to_visible, visible_to_bytes
from .checks import repair_surrogates, require_str
from .offsets import utf16_offsets
from .reading import read_utf8_chunks
from .words import count_words

__all__ = [
    "BYTE_TO_UNICODE",
    "UNICODE_TO_BYTE",
    "bytes_to_visible",
    "count_words",
    "read_utf8_chunks",
    "repair_surrogates",
    "require_str",
    "utf16_offsets",
    "visible_to_bytes",
]
