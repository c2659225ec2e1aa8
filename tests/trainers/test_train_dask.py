"""examples/dask_train.py on a two-worker LocalCluster gives the merges of a single-process run."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

import bytepair

from tests.conftest import corpus_texts

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dask_train.py"


def _example():
    spec = importlib.util.spec_from_file_location("dask_train_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("processes", [True, False])
def test_dask_two_workers_equal_single_process(tmp_path: Path, processes: bool) -> None:
    distributed = pytest.importorskip("dask.distributed")
    texts = corpus_texts()
    for name in ("en", "de", "ru", "zh"):
        (tmp_path / f"{name}.txt").write_text(texts[name], encoding="utf-8", newline="")
    example = _example()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=processes, dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        counts = example.count_with_dask(str(tmp_path / "*.txt"), "o200k_base", blocksize=4096)
    lines = [line for name in ("de", "en", "ru", "zh") for line in texts[name].splitlines(keepends=True)]
    assert counts == bytepair.count_pieces(lines, "o200k_base")
    via_dask = bytepair.train_from_counts(counts, 1000, pattern="o200k_base", show_progress=False)
    single = bytepair.train(lines, 1000, pattern="o200k_base", show_progress=False)
    assert json.loads(via_dask.to_str())["model"]["merges"] == json.loads(single.to_str())["model"]["merges"]
