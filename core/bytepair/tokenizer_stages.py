"""``Tokenizer``'s stages as attributes HF code assigns (``tok.normalizer = ...``, ``tok.model = ...``),
a base class of :class:`bytepair.Tokenizer`.

Why a module of its own: an assignment must take effect everywhere or be refused, never be silently
ignored: the pipeline and its engine are rebuilt around the new stage (a BPE model follows a
pre-tokenizer that adds or drops the ByteLevel step, as HF's does since that step rewrites the text),
HF ``tokenizers``' objects are converted through their JSON state (``pipeline/stages.py``), and the
``tokenizer.json`` the tokenizer writes names the stage now in place.

>>> from bytepair import Tokenizer, models, pre_tokenizers
>>> tok = Tokenizer(models.BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")]))
>>> tok.pre_tokenizer = pre_tokenizers.Whitespace()
>>> tok.encode("ab a").ids, '"Whitespace"' in tok.to_str()
([2, 0], True)
"""

from __future__ import annotations

import json
from typing import Any

from .decoders import Decoder
from .errors import UnsavableError
from .normalizers import Normalizer
from .pipeline.stages import model_for, stage_value
from .pipeline.tokenizer_json import model_from_json
from .pipeline.tokenizer_pipeline import TokenizerPipeline
from .pre_tokenizers import PreTokenizer
from .processors import PostProcessor

__all__ = ["TokenizerStages"]


class TokenizerStages:
    """The five stages of a tokenizer, each read and assigned as in HF ``tokenizers``."""

    pipeline: TokenizerPipeline
    _source: dict[str, Any]
    _post_processor: PostProcessor | None
    _decoder: Decoder | None
    to_str: Any
    """Given by ``TokenizerFiles`` (the ``tokenizer.json`` text)."""

    @property
    def model(self) -> Any:
        return self.pipeline.model

    @model.setter
    def model(self, value: Any) -> None:
        model = model_for(value, self.pre_tokenizer, model_from_json)
        self.pipeline.set_stage(model=model)
        self._keep_stage_json("model", model)

    @property
    def normalizer(self) -> Normalizer | None:
        return self.pipeline.normalizer

    @normalizer.setter
    def normalizer(self, value: Any) -> None:
        normalizer = stage_value("normalizer", value)
        self.pipeline.set_stage(normalizer=normalizer)
        self._keep_stage_json("normalizer", normalizer)

    @property
    def pre_tokenizer(self) -> PreTokenizer | None:
        return self.pipeline.pre_tokenizer

    @pre_tokenizer.setter
    def pre_tokenizer(self, value: Any) -> None:
        pre_tokenizer = stage_value("pre_tokenizer", value)
        model = model_for(self.model, pre_tokenizer, model_from_json)
        if model is not self.model:
            self.pipeline.set_stage(pre_tokenizer=pre_tokenizer, model=model)
        else:
            self.pipeline.set_stage(pre_tokenizer=pre_tokenizer)
        self._keep_stage_json("pre_tokenizer", pre_tokenizer)

    @property
    def post_processor(self) -> PostProcessor | None:
        return self._post_processor

    @post_processor.setter
    def post_processor(self, value: Any) -> None:
        self._post_processor = stage_value("post_processor", value)
        self._keep_stage_json("post_processor", self._post_processor)

    @property
    def decoder(self) -> Decoder | None:
        return self._decoder

    @decoder.setter
    def decoder(self, value: Any) -> None:
        self._decoder = stage_value("decoder", value)
        self._keep_stage_json("decoder", self._decoder)

    def _keep_stage_json(self, stage: str, value: Any) -> None:
        """The ``tokenizer.json`` this tokenizer writes names the stage now in place (the model
        without its vocabulary, which ``to_str`` writes back from the model)."""
        if not self._source:
            if not hasattr(self.model, "vocabulary_json"):
                return  # a rank-table tokenizer writes its file from its ranks and pattern
            try:
                self._source = json.loads(self.to_str())
            except UnsavableError:  # a custom stage: to_str refuses it from the stages when asked
                return
        if value is None:
            self._source[stage] = None
        elif stage == "model":
            vocabulary = value.vocabulary_json()
            self._source["model"] = {k: v for k, v in value.to_json().items() if k not in vocabulary}
        else:  # a custom stage is kept as itself: to_str's json.dumps asks it for its JSON, and it refuses
            try:
                self._source[stage] = value.to_json() if getattr(value, "savable", True) else value
            except UnsavableError:
                self._source[stage] = value
