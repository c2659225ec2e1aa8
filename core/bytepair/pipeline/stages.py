"""Assigning a stage to a :class:`bytepair.Tokenizer`: bytepair's component, HF ``tokenizers``' own
object (converted through its JSON state), or a clear refusal.

Why: HF code sets stages by assignment (``tok.pre_tokenizer = pre_tokenizers.Whitespace()``,
``tok.normalizer = normalizers.Sequence([...])``). An assignment that kept the old stage in place, or
accepted an object the pipeline cannot run and failed later deep inside ``encode``, would give other
ids without a word. Here every assignment either takes effect (the pipeline and its engine are
rebuilt around the new stage) or raises :class:`~bytepair.errors.InvalidInputError` saying what the
stage takes. An HF object is read by the same JSON factory a ``tokenizer.json`` is, so it behaves
exactly as it would in a file.

>>> from bytepair import pre_tokenizers
>>> type(stage_value("pre_tokenizer", pre_tokenizers.Whitespace())).__name__
'Whitespace'
>>> stage_value("normalizer", "lowercase")
Traceback (most recent call last):
...
bytepair.errors.InvalidInputError: normalizer must be a normalizer (bytepair.normalizers or tokenizers.normalizers), or None; got str
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..decoders import decoder_from_json
from ..decoders.base import Decoder
from ..errors import InvalidInputError
from ..normalizers import normalizer_from_json
from ..normalizers.base import Normalizer
from ..pre_tokenizers import pre_tokenizer_from_json
from ..pre_tokenizers.base import PreTokenizer
from ..processors import post_processor_from_json
from ..processors.base import PostProcessor

__all__ = ["STAGES", "model_for", "stage_value"]

STAGES: dict[str, tuple[type, Callable[[dict[str, Any]], Any], str]] = {
    "normalizer": (Normalizer, normalizer_from_json, "a normalizer (bytepair.normalizers or tokenizers.normalizers)"),
    "pre_tokenizer": (PreTokenizer, pre_tokenizer_from_json, "a pre-tokenizer (bytepair.pre_tokenizers or tokenizers.pre_tokenizers)"),
    "post_processor": (PostProcessor, post_processor_from_json, "a post-processor (bytepair.processors or tokenizers.processors)"),
    "decoder": (Decoder, decoder_from_json, "a decoder (bytepair.decoders or tokenizers.decoders)"),
}
"""Stage name -> (bytepair's base class, the JSON factory, what to call it in an error)."""


def hf_state(value: Any) -> dict[str, Any] | None:
    """The JSON state of an HF ``tokenizers`` object (``__getstate__``), or None if ``value`` is not one."""
    if not type(value).__module__.startswith("tokenizers") or not hasattr(value, "__getstate__"):
        return None
    try:
        state = json.loads(value.__getstate__())
    except (TypeError, ValueError):
        return None
    except Exception as exc:  # (HF's custom components: "Custom Normalizer cannot be serialized")
        raise InvalidInputError(
            f"this {type(value).__name__} of HF's tokenizers cannot be read ({exc}); for your own component, use "
            "bytepair's .custom(obj) on the same object: normalizers.Normalizer.custom, pre_tokenizers.PreTokenizer.custom "
            "or decoders.Decoder.custom") from exc
    return state if isinstance(state, dict) else None


def stage_value(stage: str, value: Any, model_from_json: Callable[[dict[str, Any]], Any] | None = None) -> Any:
    """What the ``stage`` of a tokenizer becomes when ``value`` is assigned to it (``model`` needs
    ``model_from_json``, the reader a ``tokenizer.json``'s model goes through)."""
    if stage == "model":
        if value is None:
            raise InvalidInputError("model cannot be None: a tokenizer needs a model (bytepair.models or tokenizers.models)")
        if hasattr(value, "encode_piece"):
            return value
        state = hf_state(value)
        if state is None or model_from_json is None:
            raise InvalidInputError(f"model must be a model (bytepair.models or tokenizers.models); got {type(value).__name__}")
        return model_from_json(state)
    base, factory, what = STAGES[stage]
    if value is None or isinstance(value, base):
        return value
    state = hf_state(value)
    if state is None:
        raise InvalidInputError(f"{stage} must be {what}, or None; got {type(value).__name__}")
    return factory(state)  # a component bytepair does not run raises as it would in a tokenizer.json


def model_for(model: Any, pre_tokenizer: Any, model_from_json: Callable[..., Any]) -> Any:
    """``model`` (a model object, or HF's, converted) as it must run behind ``pre_tokenizer``: a BPE
    model sees pieces as bytes in GPT-2's visible form exactly when a ByteLevel step comes before it
    (as in HF, where that step rewrites the text), so one built for the other case is rebuilt from
    its JSON. ``model_from_json(obj, byte_level=...)`` is the ``tokenizer.json`` model reader."""
    byte_level = bool(getattr(pre_tokenizer, "byte_level", False))
    model = stage_value("model", model, lambda obj: model_from_json(obj, byte_level=byte_level))
    if getattr(model, "byte_level", byte_level) != byte_level and hasattr(model, "to_json"):
        model = model_from_json(model.to_json(), byte_level=byte_level)
    return model
