"""The ``WordPiece``, ``CTC`` and ``BPEDecoder`` decoders against HF ``tokenizers`` 0.23.3 on random
token lists, and their JSON written back as HF writes it."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bytepair.decoders import decoder_from_json

tokenizers = pytest.importorskip("tokenizers")
D = tokenizers.decoders

HF = [lambda: D.WordPiece(), lambda: D.WordPiece("@@", False), lambda: D.CTC(), lambda: D.CTC("<p>", "_", False),
      lambda: D.BPEDecoder(), lambda: D.BPEDecoder("@")]
PIECES = st.sampled_from(["##s", "##", "do", "not", " do", "n't", "'", "m", "s", ".", " ,", "!", "?", "<pad>", "<p>",
                          "|", "_", "@@x", "@", "a</w>", "</w>", "hello", "##é", "ve", "re"])


@settings(max_examples=200, deadline=None)
@given(tokens=st.lists(PIECES, max_size=12), which=st.integers(0, len(HF) - 1))
def test_decode_as_hf(tokens: list[str], which: int) -> None:
    hf = HF[which]()
    ours = decoder_from_json(json.loads(hf.__getstate__()))
    assert ours is not None and ours.to_json() == json.loads(hf.__getstate__())
    assert ours.decode(tokens) == hf.decode(tokens)
