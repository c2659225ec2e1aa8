"""The shards come out byte-identical after a real kill and a run again with the same arguments
(`bytepair encode-corpus` in a child process, cutting the corpus into small chunks, killed with
SIGKILL mid-run with its workers), and
when examples/dask_encode.py runs the chunks on a two-worker Dask LocalCluster."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import bytepair
from tests.corpus.conftest import shard_bytes

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "dask_encode.py"


CHILD = ("import sys; from bytepair.corpus import encode; encode.CHUNK_CHARS = 4096; "  # many chunks of a small corpus
         "from bytepair.cli import main; sys.exit(main(sys.argv[1:]))")


def _cli(paths: list[str], out: Path) -> list[str]:
    return [sys.executable, "-c", CHILD, "encode-corpus", *paths, "-o", str(out), "--encoding", "cl100k_base",
            "--processes", "2", "--shard-tokens", "3000"]


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="needs process groups")
def test_killed_and_run_again_ends_byte_identical(tmp_path: Path, corpus) -> None:
    paths, _ = corpus
    bytepair.encode_corpus(paths, tmp_path / "whole", encoding="cl100k_base", processes=1, shard_tokens=3000, progress=False)
    whole = shard_bytes(tmp_path / "whole")
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "core")}
    child = subprocess.Popen(_cli(paths, out), env=env, start_new_session=True, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and child.poll() is None:
        try:
            manifest = json.loads((out / "manifest.json").read_text())
        except (OSError, ValueError):
            manifest = {}
        if manifest.get("shards"):
            os.killpg(child.pid, signal.SIGKILL)  # the command and its workers, mid-run
            break
        time.sleep(0.005)
    child.wait(timeout=60)
    assert child.returncode == -signal.SIGKILL, child.stderr.read().decode() if child.stderr else ""
    killed = json.loads((out / "manifest.json").read_text())
    assert killed["complete"] is False and 0 < len(killed["shards"]) < len(json.loads((tmp_path / "whole" / "manifest.json").read_text())["shards"])
    again = subprocess.run(_cli(paths, out), env=env, capture_output=True, timeout=300)
    assert again.returncode == 0, again.stderr.decode()
    assert shard_bytes(out) == whole
    assert not (out / ".parts").exists()


def _example():
    spec = importlib.util.spec_from_file_location("dask_encode_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def test_dask_local_cluster_equals_one_process(tmp_path: Path, corpus, small_chunks: None) -> None:
    distributed = pytest.importorskip("dask.distributed")
    paths, _ = corpus
    bytepair.encode_corpus(paths, tmp_path / "one", encoding="cl100k_base", processes=1, shard_tokens=7000, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        manifest = _example().encode_with_dask(client, paths, str(tmp_path / "dask"), encoding="cl100k_base",
                                               shard_tokens=7000, progress=False)
    assert manifest["complete"] and len(manifest["shards"]) > 3
    assert shard_bytes(tmp_path / "dask") == shard_bytes(tmp_path / "one")


def test_dask_example_script_with_scheduler_equals_one_process(tmp_path: Path, corpus) -> None:
    """The script as a user runs it (its argparse defaults included, ``bytepair.corpus`` not imported
    beforehand) against a running scheduler's address."""
    distributed = pytest.importorskip("dask.distributed")
    paths, docs = corpus
    bytepair.encode_corpus(paths, tmp_path / "one", encoding="cl100k_base", processes=1, shard_tokens=7000, progress=False)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "core")}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        run = subprocess.run([sys.executable, str(EXAMPLE), *paths, "-o", str(tmp_path / "dask"), "--encoding", "cl100k_base",
                              "--shard-tokens", "7000", "--scheduler", cluster.scheduler_address],
                             env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "tokens in" in run.stdout
    manifest = json.loads((tmp_path / "dask" / "manifest.json").read_text())
    assert manifest["complete"] and len(manifest["shards"]) > 1
    assert sum(shard["documents"] for shard in manifest["shards"]) == len(docs)
    assert shard_bytes(tmp_path / "dask") == shard_bytes(tmp_path / "one")
