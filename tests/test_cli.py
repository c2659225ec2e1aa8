"""The command line: outputs, inputs from files and stdin, messages and exit codes."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

import bytepair
from bytepair.cli import main

ENC = bytepair.get_encoding("o200k_base")


def run(args: list[str], stdin: str = "") -> tuple[int, str]:
    out = io.StringIO()
    code = main(args, stdout=out, stdin=io.StringIO(stdin))
    return code, out.getvalue()


def test_count_file_prints_the_count(tmp_path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("Hello world, 日本語 🙂\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "bytepair", "count", str(path), "--encoding", "o200k_base"],
        capture_output=True, text=True, check=True,
    )
    assert result.stdout == f"{ENC.count(path.read_text(encoding='utf-8'))}\n"


def test_encode_decode_round_trip_through_stdin() -> None:
    code, out = run(["encode", "-e", "cl100k_base"], "round trip ✓")
    assert code == 0
    ids = json.loads(out)
    assert ids == bytepair.get_encoding("cl100k_base").encode("round trip ✓")
    code, text = run(["decode", "-e", "cl100k_base"], out)
    assert (code, text) == (0, "round trip ✓")
    code, text = run(["decode", "-e", "cl100k_base"], " ".join(map(str, ids)))
    assert text == "round trip ✓"


def test_encode_formats_and_model() -> None:
    assert run(["encode", "-m", "gpt-4", "--format", "space"], "hello world")[1] == "15339 1917\n"
    assert run(["encode", "-m", "gpt-4", "--format", "lines"], "hello world")[1] == "15339\n1917\n"


def test_inspect_shows_ids_bytes_and_offsets() -> None:
    code, out = run(["inspect"], "hi 🫠")
    assert code == 0
    rows = [line.split("\t") for line in out.splitlines()]
    assert [int(r[0]) for r in rows] == ENC.encode("hi 🫠")
    assert rows[0][2] == "[0, 2)"


def test_special_tokens(capsys) -> None:
    code, _ = run(["count"], "x <|endoftext|>")
    assert code == 1
    assert "--allow-special" in capsys.readouterr().err
    assert run(["count", "--allow-special", "<|endoftext|>"], "x <|endoftext|>") == (0, "3\n")
    assert run(["count", "--allow-special", "all"], "x <|endoftext|>") == (0, "3\n")
    assert run(["count", "--special-as-text"], "x <|endoftext|>")[1] != "3\n"


def test_errors_and_exit_codes(tmp_path, capsys) -> None:
    assert run(["count", "-e", "nope"], "x")[0] == 2
    assert "known encodings" in capsys.readouterr().err
    assert run(["count", "-m", "no-such-model"], "x")[0] == 2
    assert run(["count", str(tmp_path / "missing.txt")])[0] == 1
    assert run(["decode"], "[1, -2]")[0] == 1
    assert "position 1" in capsys.readouterr().err
    assert run(["decode"], "1 two 3")[0] == 1
    assert run(["decode", "--strict"], json.dumps(ENC.encode("🫠")[:1]))[0] == 1
    with pytest.raises(SystemExit) as info:
        run(["frobnicate"])
    assert info.value.code == 2


def test_several_files_are_labelled(tmp_path) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("one", encoding="utf-8")
    b.write_text("two words", encoding="utf-8")
    code, out = run(["count", str(a), str(b)])
    assert out == f"1\t{a}\n2\t{b}\n"


def test_list() -> None:
    assert run(["list"])[1].split() == bytepair.list_encoding_names()
