"""tiktoken's special-token policy: which special tokens a call allows, and which it refuses to see.

The rule, written once: ``allowed_special`` names the special tokens encoded as their single id
(``"all"`` for every one); ``disallowed_special`` those whose text raises
:class:`~bytepair.DisallowedSpecialTokenError` (``"all"``, the default, is every special token not
allowed; ``()`` or None turns the check off, so such text is encoded as ordinary text). The error
names the token and says how to allow it.

>>> from bytepair.added_tokens.scan import SpecialTokenScanner
>>> policy = SpecialTokenPolicy(SpecialTokenScanner({"<|endoftext|>": 100257}))
>>> sorted(policy.allowed("hi", "all", "all")), policy.allowed("<|endoftext|>", frozenset(), ())
(['<|endoftext|>'], frozenset())
>>> policy.allowed("<|endoftext|>", frozenset(), "all")
Traceback (most recent call last):
...
bytepair.errors.DisallowedSpecialTokenError: ...
"""

from __future__ import annotations

from collections.abc import Collection
from collections.abc import Set as AbstractSet
from typing import Literal

from ..errors import DisallowedSpecialTokenError, InvalidInputError
from .scan import SpecialTokenScanner

__all__ = ["AllowedSpecial", "DisallowedSpecial", "SpecialTokenPolicy"]

AllowedSpecial = Literal["all"] | AbstractSet[str]
DisallowedSpecial = Literal["all"] | Collection[str]


class SpecialTokenPolicy:
    """The allowed/disallowed rule over one encoding's special tokens (see the module docstring)."""

    def __init__(self, scanner: SpecialTokenScanner) -> None:
        self.scanner = scanner
        self.special_set = scanner.tokens

    def allowed(self, text: str, allowed_special: AllowedSpecial, disallowed_special: DisallowedSpecial) -> frozenset[str]:
        """Apply the policy to ``text`` (raising on a disallowed token it holds); return the allowed set."""
        if allowed_special == "all":
            allowed = self.special_set
        else:
            allowed = _token_names(allowed_special, "allowed_special")
        if disallowed_special == "all":
            disallowed = self.special_set - allowed
        elif not disallowed_special:  # (), an empty set, None: no check, as in tiktoken
            disallowed = frozenset()
        else:
            disallowed = _token_names(disallowed_special, "disallowed_special")
        if disallowed:
            found = self.scanner.find(text, disallowed)
            if found is not None:
                raise DisallowedSpecialTokenError(found)
        return allowed & self.special_set


def _token_names(value: object, option: str) -> frozenset[str]:
    """A special-token option other than ``"all"`` as a set of names; a single name given as a
    string (which tiktoken refuses too) would otherwise be read as a set of characters."""
    if isinstance(value, str):
        raise InvalidInputError(
            f'{option} must be "all" or a set of special-token strings, not the string {value!r}; '
            f"for that one token write {{{value!r}}}"
        )
    try:
        return frozenset(value)  # type: ignore[arg-type]
    except TypeError:
        raise InvalidInputError(f'{option} must be "all" or a set of special-token strings, not {type(value).__name__}') from None
