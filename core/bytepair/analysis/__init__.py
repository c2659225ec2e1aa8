"""Tokenizer analysis: manifests and hashes, comparisons, fertility on a corpus, vocabulary reports.

Why a package of its own: these questions are about tokenizers, not about encoding text, and use
only the faces' public API (``Encoding``, ``Tokenizer``) through one read-only view (``pipeline/view.py``).
Every result is a JSON-serialisable dict (the command line prints it as JSON or Markdown; the
playground can draw it).

* ``pipeline/manifest.py`` - what a tokenizer is, with hashes over a canonical form of what decides its ids;
* ``compare.py`` - whether two tokenizers' ids are interchangeable, and where they differ;
* ``fertility.py`` - tokens per word, characters and bytes per token, per language;
* ``vocabulary.py`` - token lengths, script mix, unreachable, unused and junk tokens, numbers;
* ``report.py`` - all of it for several tokenizers, and its Markdown form.

>>> from bytepair.analysis import compare_tokenizers
>>> compare_tokenizers("cl100k_base", "o200k_base")["interchangeable"]
False
"""

from .compare import compare_tokenizers, format_comparison
from .fertility import count_words, fertility, read_corpus, text_stats
from .report import analyze, to_markdown, tokenizer_summary
from ..pipeline.view import TokenizerView
from .load import canonical_text, load, manifest, view_of
from .vocabulary import junk_kind, script_class, split_alone, unreachable_tokens, unused_tokens, vocabulary_report

__all__ = [
    "TokenizerView",
    "analyze",
    "canonical_text",
    "compare_tokenizers",
    "count_words",
    "fertility",
    "format_comparison",
    "junk_kind",
    "load",
    "manifest",
    "read_corpus",
    "script_class",
    "split_alone",
    "text_stats",
    "to_markdown",
    "tokenizer_summary",
    "unreachable_tokens",
    "unused_tokens",
    "view_of",
    "vocabulary_report",
]
