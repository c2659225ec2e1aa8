"""Ids outside HF's unsigned 32-bit range on the HF face: ``OverflowError`` as HF ``tokenizers`` raises
(``TokenIdOverflowError``, also an ``InvalidTokenError``), in ``id_to_token`` and ``decode``."""

from __future__ import annotations

import pytest

import bytepair
from bytepair import InvalidTokenError, TokenIdOverflowError, Tokenizer, models

tokenizers = pytest.importorskip("tokenizers")

VOCAB = {"a": 0, "b": 1, "[UNK]": 2}


def pair():
    hf = tokenizers.Tokenizer(tokenizers.models.WordLevel(VOCAB, unk_token="[UNK]"))
    return Tokenizer.from_str(hf.to_str()), hf


@pytest.mark.parametrize("bad", [-1, -(2**40), 2**32, 2**64])
def test_out_of_range_ids_overflow_as_in_hf(bad: int) -> None:
    ours, hf = pair()
    with pytest.raises(OverflowError):
        hf.id_to_token(bad)
    with pytest.raises(OverflowError):
        hf.decode([0, bad])
    for call in (lambda: ours.id_to_token(bad), lambda: ours.decode([0, bad])):
        with pytest.raises(TokenIdOverflowError) as caught:
            call()
        assert isinstance(caught.value, OverflowError) and isinstance(caught.value, InvalidTokenError)


def test_in_range_ids_as_in_hf() -> None:
    ours, hf = pair()
    for token_id in (0, 2, 3, 2**32 - 1):
        assert ours.id_to_token(token_id) == hf.id_to_token(token_id)
    assert ours.decode([0, 2**32 - 1, 1]) == hf.decode([0, 2**32 - 1, 1])
    with pytest.raises(InvalidTokenError) as caught:  # not an integer: an InvalidTokenError, not an overflow
        ours.id_to_token("1")  # type: ignore[arg-type]
    assert not isinstance(caught.value, OverflowError)
    assert Tokenizer(models.WordLevel(VOCAB, unk_token="[UNK]")).id_to_token(1) == "b"
    assert issubclass(bytepair.TokenIdOverflowError, bytepair.BytepairError)
