"""``collate``: token id sequences of different lengths -> one padded batch with attention masks.

Why: a model takes a rectangle of ids; a batch of texts gives rows of different lengths. ``collate``
pads them (right or left, to the longest row, to ``max_length``, rounded up to a multiple), builds
the attention mask, pads ``token_type_ids`` when the rows carry them, and can add ``labels`` for
causal language modelling (-100 on padding, the value PyTorch's cross-entropy ignores). It returns
plain lists, or numpy arrays with ``return_tensors="np"`` when numpy is installed (it is optional).

Rows may be lists of ids, ``Encoded`` results of ``Tokenizer.encode`` (their masks and type ids are
kept), or dicts with ``input_ids`` (and optionally ``attention_mask``, ``token_type_ids``,
``labels``), as Hugging Face's ``tokenizer.pad`` takes them. The padding matches ``tokenizer.pad``
and ``DataCollatorWithPadding`` (tests compare them). One difference: with ``labels=True`` only the
padding positions get -100, by the attention mask, where ``DataCollatorForLanguageModeling`` masks
every id equal to the pad id (so also a real end-of-text token when it doubles as the pad token).

>>> batch = collate([[5, 6, 7], [8]], pad_id=0)
>>> batch["input_ids"], batch["attention_mask"]
([[5, 6, 7], [8, 0, 0]], [[1, 1, 1], [1, 0, 0]])
>>> collate([[5, 6, 7], [8]], pad_id=0, padding_side="left", pad_to_multiple_of=4, labels=True)["labels"]
[[-100, 5, 6, 7], [-100, -100, -100, 8]]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import InvalidInputError
from ..errors import MissingDependencyError

__all__ = ["IGNORE_INDEX", "collate"]

IGNORE_INDEX = -100
"""The label of a padding position (``torch.nn.CrossEntropyLoss``'s default ``ignore_index``)."""


def collate(
    batch: Sequence[Any],
    *,
    pad_id: int,
    padding_side: str = "right",
    pad_to_multiple_of: int | None = None,
    max_length: int | None = None,
    truncation: bool = False,
    labels: bool = False,
    pad_type_id: int = 0,
    return_tensors: str | None = None,
) -> dict[str, Any]:
    """Pad ``batch`` into ``{"input_ids", "attention_mask"}`` (+ ``token_type_ids``, ``labels``).

    - ``max_length``: pad every row to this length (HF's ``padding="max_length"``) instead of the
      longest row's; a longer row raises, unless ``truncation=True``, which cuts it to ``max_length``
      (keeping its start when padding on the right, its end when padding on the left).
    - ``pad_to_multiple_of``: round the target length up to a multiple (tensor-core friendly).
    - ``labels``: add ``labels``: the ids, -100 on padding; rows given as dicts with their own
      ``labels`` keep them (padded with -100).
    - ``return_tensors``: None for lists, ``"np"`` for numpy ``int64`` arrays.
    """
    _check_options(pad_id, padding_side, pad_to_multiple_of, max_length, return_tensors)
    rows = [_row(item, index) for index, item in enumerate(batch)]
    longest = max((len(r["input_ids"]) for r in rows), default=0)
    target = longest if max_length is None else max_length
    if max_length is not None and longest > max_length:
        if not truncation:
            raise InvalidInputError(
                f"a row has {longest} ids, more than max_length={max_length}; pass truncation=True to cut rows "
                "(or truncate when encoding: Tokenizer.enable_truncation)"
            )
        rows = [{k: _cut(v, max_length, padding_side) for k, v in r.items()} for r in rows]
    if pad_to_multiple_of and target % pad_to_multiple_of:
        target += pad_to_multiple_of - target % pad_to_multiple_of
    fills = {"input_ids": pad_id, "attention_mask": 0, "token_type_ids": pad_type_id, "labels": IGNORE_INDEX}
    keys = ["input_ids", "attention_mask"]
    keys += [k for k in ("token_type_ids", "labels") if any(k in r for r in rows)]
    if labels and "labels" not in keys:
        keys.append("labels")
        for r in rows:
            r["labels"] = [i if m else IGNORE_INDEX for i, m in zip(r["input_ids"], r["attention_mask"])]
    out: dict[str, Any] = {}
    for key in keys:
        column = []
        for index, r in enumerate(rows):
            if key not in r:
                raise InvalidInputError(f"row {index} has no {key!r} while other rows have it; give every row the same fields")
            values = r[key]
            extra = [fills[key]] * (target - len(values))
            column.append(values + extra if padding_side == "right" else extra + values)
        out[key] = column
    if return_tensors == "np":
        return _to_numpy(out, target)
    return out


def _check_options(pad_id: Any, side: str, multiple: Any, max_length: Any, tensors: Any) -> None:
    if isinstance(pad_id, bool) or not isinstance(pad_id, int):
        raise InvalidInputError(f"pad_id must be an int (the tokenizer's padding token id), not {pad_id!r}")
    if side not in ("right", "left"):
        raise InvalidInputError(f"padding_side must be 'right' or 'left', not {side!r}")
    for name, value in (("pad_to_multiple_of", multiple), ("max_length", max_length)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < (1 if name == "pad_to_multiple_of" else 0)):
            raise InvalidInputError(f"{name} must be None or a positive int, not {value!r}")
    if tensors not in (None, "np"):
        raise InvalidInputError(f"return_tensors must be None (lists) or 'np' (numpy arrays), not {tensors!r}")


def _ids(values: Any, what: str) -> list[int]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) and not hasattr(values, "tolist"):
        raise InvalidInputError(f"{what} must be a sequence of ints, not {type(values).__name__}")
    values = values.tolist() if hasattr(values, "tolist") else list(values)
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int):
            raise InvalidInputError(f"{what} must hold ints only; found {v!r}")
    return values


def _row(item: Any, index: int) -> dict[str, list[int]]:
    """One row as a dict of lists (copied: the caller's rows are never changed)."""
    where = f"row {index}"
    if isinstance(item, Mapping):
        if "input_ids" not in item:
            raise InvalidInputError(f"{where} is a dict without 'input_ids'")
        row = {k: _ids(item[k], f"{where}[{k!r}]") for k in ("input_ids", "attention_mask", "token_type_ids", "labels") if k in item}
    elif hasattr(item, "ids") and hasattr(item, "attention_mask"):  # an Encoded (or HF Encoding)
        row = {"input_ids": _ids(item.ids, f"{where}.ids"), "attention_mask": _ids(item.attention_mask, f"{where}.attention_mask"),
               "token_type_ids": _ids(item.type_ids, f"{where}.type_ids")}
    else:
        row = {"input_ids": _ids(item, where)}
    n = len(row["input_ids"])
    row.setdefault("attention_mask", [1] * n)
    for key, values in row.items():
        if len(values) != n:
            raise InvalidInputError(f"{where}: {key} has {len(values)} entries but input_ids has {n}")
    return row


def _cut(values: list[int], length: int, side: str) -> list[int]:
    return values[:length] if side == "right" else values[len(values) - length:]


def _to_numpy(out: dict[str, Any], width: int) -> dict[str, Any]:
    try:
        import numpy
    except ImportError:
        raise MissingDependencyError(
            "collate(return_tensors='np') needs numpy, which is not installed: `pip install numpy`, "
            "or leave return_tensors=None for plain lists",
            name="numpy",
        ) from None
    return {k: numpy.array(v, dtype=numpy.int64).reshape(len(v), width) for k, v in out.items()}
