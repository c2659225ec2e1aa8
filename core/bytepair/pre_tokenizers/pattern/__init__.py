"""Pretokenization stage: pattern translation, pinned Unicode classes, and the splitter."""

from .splitter import Pretokenizer
from .unicode_classes import UNICODE_VERSION

__all__ = ["UNICODE_VERSION", "Pretokenizer"]
