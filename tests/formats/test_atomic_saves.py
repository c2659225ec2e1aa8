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
from bytepair.models import BPE

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
counted = {"write": [0], "move": [0]}
def counting(real, stage):
    def step(*args):
        counted[stage][0] += 1
        return real(*args)
    return step
atomic._move, atomic._write_all = counting(atomic._move, "move"), counting(atomic._write_all, "write")
if kind in ("gpt2", "pretrained", "bpe_model"):
    tok = bytepair.train(["the lowest newest widest words hello world 1234"] * 20, vocab_size, pattern="gpt2", show_progress=False)
    if kind == "gpt2":
        tok.save_model(folder)
    elif kind == "bpe_model":  # models.BPE's own save, read back by models.BPE.from_file
        tok.model.save(folder)
    else:
        tok.chat_template = "{% for m in messages %}" + str(vocab_size) + "{{ m.content }}{% endfor %}"
        tok.save_pretrained(folder)
else:  # minbpe's layout: byte b is token b, merges after
    merged = [b"he", b"ll", b"hel", b"hell", b"hello", b"wo", b"wor", b"worl", b"world", b"ne", b"new", b"lo"]
    ranks = {bytes([b]): b for b in range(256)} | {t: 256 + i for i, t in enumerate(merged[: vocab_size - 256])}
    enc = bytepair.Encoding("toy", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    enc.save_minbpe(os.path.join(folder, "toy"))
print("saved", counted["write"][0], counted["move"][0])
"""


def _save(kind: str, folder: Path, vocab_size: int, *, stop_after: int = 1 << 30, stage: str = "move") -> int:
    return _run_save(kind, folder, vocab_size, stop_after=stop_after, stage=stage)[0]


def _run_save(kind: str, folder: Path, vocab_size: int, *, stop_after: int = 1 << 30,
              stage: str = "move") -> tuple[int, str]:
    run = subprocess.run([sys.executable, "-c", CHILD, kind, str(folder), str(vocab_size), str(stop_after), stage],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    return run.returncode, run.stdout


def _load(kind: str, folder: Path) -> list[int]:
    if kind == "gpt2":
        tok = bytepair.Tokenizer.from_gpt2_files(folder / "vocab.json", folder / "merges.txt")
        return tok.encode(TEXT).ids
    if kind == "bpe_model":  # the sizes of the two files read: a mix is a new vocab beside old merges
        vocab, merges = BPE.read_file(folder / "vocab.json", folder / "merges.txt")
        model = BPE.from_file(folder / "vocab.json", folder / "merges.txt")
        return [len(vocab), len(merges), len(model.get_vocab()), *(t.id for t in model.tokenize("hello"))]
    if kind == "pretrained":  # the ids, and the template's mark of which save it came from
        tok = bytepair.Tokenizer.from_pretrained(folder)
        return [*tok.encode(TEXT).ids, -int(tok.apply_chat_template([{"role": "user", "content": ""}], tokenize=False))]
    return bytepair.load_minbpe(folder / "toy.model").encode(TEXT)


SET_FILES = {"gpt2": 2, "minbpe": 2, "pretrained": 3, "bpe_model": 2}
"""How many files each kind of save writes (tokenizer.json, tokenizer_config.json and
special_tokens_map.json for save_pretrained); a save of n files makes n + 1 writes (the journal
last) and n moves. bench/hostile.py kills at the same points."""


def kill_points(kind: str) -> list[tuple[str, int]]:
    """Every (stage, how many steps of it went before the kill) of one save of ``kind``."""
    n = SET_FILES[kind]
    return [("write", stop) for stop in range(n + 1)] + [("move", stop) for stop in range(n)]


@pytest.mark.parametrize("kind, n_files", SET_FILES.items())
def test_a_kill_between_any_two_moves_leaves_the_old_set_or_the_new(kind: str, n_files: int, tmp_path: Path) -> None:
    reference = tmp_path / "reference"
    reference.mkdir()
    code, out = _run_save(kind, reference, 270)
    assert code == 0
    assert len(list(reference.iterdir())) == n_files  # no journal or temporary left
    new_ids = _load(kind, reference)
    assert _save(kind, reference, 262) == 0
    old_ids = _load(kind, reference)
    assert old_ids != new_ids  # two different sets, told apart by their ids
    # n + 1 writes (the n files, then the journal), n moves: a kill before each one of them, so a
    # kill before every move of save_pretrained's three and during its journal's write too.
    assert out.split() == ["saved", str(n_files + 1), str(n_files)]  # the save does exactly that many
    for stage, stop in kill_points(kind):
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
