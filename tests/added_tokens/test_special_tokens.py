"""Special tokens: tiktoken's allowed/disallowed policy, leftmost-longest matching, atomic ids."""

from __future__ import annotations

import pytest

import bytepair
from bytepair import DisallowedSpecialTokenError
from bytepair.added_tokens.scan import SpecialTokenScanner, trie_pattern

CL = bytepair.get_encoding("cl100k_base")
EOT = "<|endoftext|>"


def test_default_rejects_special_text_with_a_helpful_error() -> None:
    with pytest.raises(DisallowedSpecialTokenError) as info:
        CL.encode(f"hello {EOT}")
    err = info.value
    assert isinstance(err, ValueError) and err.token == EOT
    message = str(err)
    assert "allowed_special" in message and "disallowed_special=()" in message


def test_allowed_gives_one_id() -> None:
    assert CL.encode(EOT, allowed_special={EOT}) == [100257]
    assert CL.encode(f"a{EOT}b", allowed_special="all") == [64, 100257, 65]


def test_check_off_encodes_as_text() -> None:
    assert CL.encode(EOT, disallowed_special=()) == CL.encode_ordinary(EOT)
    assert len(CL.encode(EOT, disallowed_special=())) > 1


def test_partly_allowed() -> None:
    text = f"{EOT}<|fim_prefix|>"
    with pytest.raises(DisallowedSpecialTokenError, match="fim_prefix"):
        CL.encode(text, allowed_special={EOT})
    ids = CL.encode(text, allowed_special={EOT}, disallowed_special=())
    assert ids[0] == 100257 and 100258 not in ids
    # Only the named token is checked.
    assert CL.encode(text, allowed_special=set(), disallowed_special={"<|endofprompt|>"}) == CL.encode_ordinary(text)


def test_count_and_limit_follow_the_same_policy() -> None:
    with pytest.raises(DisallowedSpecialTokenError):
        CL.count(EOT)
    with pytest.raises(DisallowedSpecialTokenError):
        CL.is_within_token_limit(EOT, 10)
    assert CL.count(EOT, allowed_special="all") == 1
    assert CL.is_within_token_limit(EOT + "hi", 2, allowed_special="all") == 2


def test_special_tokens_are_atomic_and_cut_pieces() -> None:
    # Text on either side is pretokenized separately, exactly as tiktoken does.
    ids = CL.encode(f"  {EOT}  ", allowed_special="all")
    assert ids.count(100257) == 1
    assert CL.decode(ids) == f"  {EOT}  "


def test_leftmost_longest() -> None:
    scan = SpecialTokenScanner({"<|end|>": 1, "<|endoftext|>": 2, "<|e": 3, "ab": 4, "abc": 5, "bcd": 6})
    assert list(scan.segments("<|endoftext|>")) == [("<|endoftext|>", 2)]
    assert list(scan.segments("<|end|>")) == [("<|end|>", 1)]
    assert list(scan.segments("<|endof")) == [("<|e", 3), ("ndof", None)]
    assert list(scan.segments("abcd")) == [("abc", 5), ("d", None)]  # leftmost beats the longer bcd
    assert list(scan.segments("xbcd", frozenset({"bcd"}))) == [("x", None), ("bcd", 6)]
    assert trie_pattern(["a", "ab"]) == "a(?:b|)"


def test_harmony_tokens_share_prefixes() -> None:
    harmony = bytepair.get_encoding("o200k_harmony")
    ids = harmony.encode("<|start|>user<|message|>hi<|end|><|endoftext|>", allowed_special="all")
    assert ids[0] == 200006 and 200008 in ids and ids[-2:] == [200007, 199999]
    assert harmony.decode(ids) == "<|start|>user<|message|>hi<|end|><|endoftext|>"


def test_encode_single_token_covers_specials_and_bytes() -> None:
    assert CL.encode_single_token(EOT) == 100257
    assert CL.encode_single_token(EOT.encode()) == 100257
    assert CL.encode_single_token(b"\xe6") == CL.encode_single_token(b"\xe6")
    assert CL.is_special_token(100257) and not CL.is_special_token(0)
