"""Saves of several files are all-or-nothing as a set: a process killed at any point of a save leaves
the old files or the new ones loadable, never one old beside one new; its leftovers go at the next save.

The kill is real: a child process saves with ``formats.atomic``'s moves (or its writing) stopped by
``os._exit`` after a given number of them, then this process loads what is on disk.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import bytepair
from bytepair.formats.atomic import JOURNAL

ROOT = Path(__file__).resolve().parents[2]
TEXT = "hello world, the lowest newest widest words 1234"

CHILD = r"""
import os, sys
import bytepair
import bytepair.formats.atomic as atomic
kind, folder, vocab_size, stop_after, stage = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
calls = [0]
def stopping(real):
    def step(*args):
        if calls[0] == stop_after:
            os._exit(9)
        calls[0] += 1
        return real(*args)
    return step
if stage == "move":
    atomic._move = stopping(atomic._move)
else:
    atomic._write_all = stopping(atomic._write_all)
if kind in ("gpt2", "pretrained"):
    tok = bytepair.train(["the lowest newest widest words hello world 1234"] * 20, vocab_size, pattern="gpt2", show_progress=False)
    if kind == "gpt2":
        tok.save_model(folder)
    else:
        tok.chat_template = "{% for m in messages %}" + str(vocab_size) + "{{ m.content }}{% endfor %}"
        tok.save_pretrained(folder)
else:  # minbpe's layout: byte b is token b, merges after
    merged = [b"he", b"ll", b"hel", b"hell", b"hello", b"wo", b"wor", b"worl", b"world", b"ne", b"new", b"lo"]
    ranks = {bytes([b]): b for b in range(256)} | {t: 256 + i for i, t in enumerate(merged[: vocab_size - 256])}
    enc = bytepair.Encoding("toy", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    enc.save_minbpe(os.path.join(folder, "toy"))
print("saved")
"""


def _save(kind: str, folder: Path, vocab_size: int, *, stop_after: int = 1 << 30, stage: str = "move") -> int:
    run = subprocess.run([sys.executable, "-c", CHILD, kind, str(folder), str(vocab_size), str(stop_after), stage],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    return run.returncode


def _load(kind: str, folder: Path) -> list[int]:
    if kind == "gpt2":
        tok = bytepair.Tokenizer.from_gpt2_files(folder / "vocab.json", folder / "merges.txt")
        return tok.encode(TEXT).ids
    if kind == "pretrained":  # the ids, and the template's mark of which save it came from
        tok = bytepair.Tokenizer.from_pretrained(folder)
        return [*tok.encode(TEXT).ids, -int(tok.apply_chat_template([{"role": "user", "content": ""}], tokenize=False))]
    return bytepair.load_minbpe(folder / "toy.model").encode(TEXT)


@pytest.mark.parametrize("kind", ["gpt2", "minbpe", "pretrained"])
def test_a_kill_between_any_two_moves_leaves_the_old_set_or_the_new(kind: str, tmp_path: Path) -> None:
    reference = tmp_path / "reference"
    reference.mkdir()
    assert _save(kind, reference, 270) == 0
    new_ids = _load(kind, reference)
    assert _save(kind, reference, 262) == 0
    old_ids = _load(kind, reference)
    assert old_ids != new_ids  # two different sets, told apart by their ids
    # Three writes (the two files, then the journal), two moves: a kill before each of them.
    for stage, stops in (("write", range(3)), ("move", range(2))):
        for stop in stops:
            folder = tmp_path / f"{stage}-{stop}"
            folder.mkdir()
            assert _save(kind, folder, 262) == 0  # the old set
            assert _save(kind, folder, 270, stop_after=stop, stage=stage) == 9  # killed
            got = _load(kind, folder)
            assert got in (old_ids, new_ids), f"{stage} {stop}: a mix of the two sets"
            if stage == "write":
                assert got == old_ids  # nothing had moved yet
            assert not (folder / JOURNAL).exists()  # the load completed an interrupted save


def test_a_kill_while_writing_leaves_a_temporary_that_the_next_save_removes(tmp_path: Path) -> None:
    assert _save("gpt2", tmp_path, 262) == 0
    assert _save("gpt2", tmp_path, 270, stop_after=0, stage="write") == 9
    leftovers = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert leftovers  # the child died with its temporary file half written
    old = time.time() - 120
    for path in leftovers:
        os.utime(path, (old, old))
    fresh = tmp_path / ".merges.txt.abcd1234.tmp"  # another save's, in progress: kept
    fresh.write_bytes(b"x")
    assert _save("gpt2", tmp_path, 270) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([fresh.name, "merges.txt", "vocab.json"])


def test_a_save_of_several_files_keeps_to_one_folder(tmp_path: Path) -> None:
    from bytepair.formats.atomic import write_files

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with pytest.raises(ValueError, match="one folder"):
        write_files({tmp_path / "a" / "x": b"1", tmp_path / "b" / "y": b"2"})
    assert not list((tmp_path / "a").iterdir()) and not list((tmp_path / "b").iterdir())
