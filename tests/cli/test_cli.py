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


def run(args: list[str], stdin: str | bytes = "") -> tuple[int, str]:
    out = io.BytesIO()
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    code = main(args, stdout=out, stdin=io.BytesIO(data))
    return code, out.getvalue().decode("utf-8")


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
    # count: special-token text is counted as text (what an API request does with user text), with a note
    as_text = ENC.encode("x <|endoftext|>", disallowed_special=())
    assert run(["count"], "x <|endoftext|>") == (0, f"{len(as_text)}\n")
    assert "counted as ordinary text" in capsys.readouterr().err
    assert run(["count"], "x <|endoftext") == (0, "6\n") and capsys.readouterr().err == ""  # no note without one
    code, _ = run(["count", "--disallow-special"], "x <|endoftext|>")
    assert code == 1 and "--allow-special" in capsys.readouterr().err
    code, _ = run(["encode"], "x <|endoftext|>")  # encode keeps the strict default
    assert code == 1 and "--allow-special" in capsys.readouterr().err
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
    assert out == f"1\t{a}\n2\t{b}\n3\ttotal\n"  # as wc does


def test_list() -> None:
    assert run(["list"])[1].split() == bytepair.list_encoding_names()


# ---------------------------------------------------------------- the file's real bytes

CRLF = b"a\r\n\r\n  b\r\n\r\n\r\nend\r\n"


def cli(*args: str, stdin: bytes | None = None, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    import os

    return subprocess.run(
        [sys.executable, "-m", "bytepair", *args],
        input=stdin, capture_output=True, env={**os.environ, **(env or {})}, **kw,
    )


def test_crlf_file_is_tokenized_as_it_is(tmp_path, tiktoken_ref) -> None:
    path = tmp_path / "crlf.txt"
    path.write_bytes(CRLF)
    expected = tiktoken_ref("cl100k_base").encode(CRLF.decode("utf-8"))
    assert expected == [64, 881, 220, 293, 8731, 408, 319]  # the issue's figures
    result = cli("encode", "-e", "cl100k_base", str(path))
    assert json.loads(result.stdout) == expected
    assert cli("count", "-e", "cl100k_base", str(path)).stdout == b"7\n"
    assert cli("count", "-e", "cl100k_base", stdin=CRLF).stdout == b"7\n"
    # A lone CR and a BOM are kept too.
    path.write_bytes(b"\xef\xbb\xbfx\ry")
    assert json.loads(cli("encode", "-e", "cl100k_base", str(path)).stdout) == tiktoken_ref("cl100k_base").encode("\ufeffx\ry")


def test_console_encoding_does_not_change_input_or_output(tiktoken_ref) -> None:
    text = "naïve café — 日本語 🙂\r\n"
    latin = {"PYTHONIOENCODING": "latin-1"}
    result = cli("encode", stdin=text.encode("utf-8"), env=latin)
    assert json.loads(result.stdout) == tiktoken_ref("o200k_base").encode(text)
    decoded = cli("decode", stdin=result.stdout, env=latin)
    assert decoded.returncode == 0 and decoded.stdout == text.encode("utf-8")
    shown = cli("inspect", stdin=text.encode("utf-8"), env=latin)
    assert shown.returncode == 0 and "🙂".encode() in shown.stdout


def test_invalid_utf8_names_the_byte_offset(tmp_path) -> None:
    path = tmp_path / "bad.txt"
    path.write_bytes(b"ok " * 1000 + b"\xff rest")
    result = cli("count", str(path))
    assert result.returncode == 1
    assert b"invalid UTF-8 at byte 3000" in result.stderr and b"--errors replace" in result.stderr
    assert b"Traceback" not in result.stderr
    replaced = cli("count", "--errors", "replace", str(path))
    assert replaced.returncode == 0
    assert int(replaced.stdout) == ENC.count(path.read_bytes().decode("utf-8", "replace"))


def test_decode_writes_the_tokens_bytes() -> None:
    ids = ENC.encode("🫠")
    partial = json.dumps(ids[:1]).encode()
    result = cli("decode", stdin=partial)
    assert result.returncode == 0 and result.stdout == ENC.decode_bytes(ids[:1])
    assert cli("decode", "--strict", stdin=partial).returncode == 1


@pytest.mark.parametrize(
    ("ids", "fragment"),
    [("[" * 100_000 + "]" * 100_000, "nested"), ("[1, [2]]", "flat"), ("[true]", "flat"), ("1 two", "not a number")],
)
def test_decode_rejects_malformed_ids(ids: str, fragment: str, capsys) -> None:
    assert run(["decode"], ids)[0] == 1
    err = capsys.readouterr().err
    assert fragment in err and "Traceback" not in err


@pytest.mark.parametrize("flag", ["-e", "-m"])
def test_empty_names_are_usage_errors(flag: str) -> None:
    result = cli("count", flag, "", stdin=b"x")
    assert result.returncode == 2 and b"must not be empty" in result.stderr


def test_version() -> None:
    result = cli("--version")
    assert result.returncode == 0 and result.stdout.decode().strip() == f"bytepair {bytepair.__version__}"


def test_ctrl_c_exits_130_without_traceback() -> None:
    import signal
    import time

    # A job started in the background (`make test &`) inherits SIGINT ignored, and Python then sets
    # no KeyboardInterrupt handler: the child gets back the default disposition a terminal gives.
    proc = subprocess.Popen(
        [sys.executable, "-m", "bytepair", "count"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    proc.stdin.write(b"waiting for more input ")
    proc.stdin.flush()
    _wait_until_reading_stdin(proc.pid)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert b"Traceback" not in err


def _wait_until_reading_stdin(pid: int, limit: float = 60.0) -> None:
    """Until the process blocks in read(0, ...) (Linux's /proc/PID/syscall: "0 0x0 ..."), so that the
    signal finds the command running, not the interpreter still starting (slow on a loaded machine)."""
    import time

    deadline = time.monotonic() + limit
    path = f"/proc/{pid}/syscall"
    while time.monotonic() < deadline:
        try:
            with open(path) as f:
                if f.read().startswith("0 0x0 "):
                    time.sleep(0.2)
                    return
        except OSError:  # no /proc (not Linux) or not readable: wait a fixed while instead
            time.sleep(1.5)
            return
        time.sleep(0.05)


def test_closed_pipe_ends_quietly(tmp_path) -> None:
    path = tmp_path / "big.txt"
    path.write_text("word " * 400_000, encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "bytepair", "encode", "--format", "lines", str(path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.read(100)
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 0
    assert err == b""


def test_streamed_encode_output_equals_one_shot(tmp_path) -> None:
    text = "".join(f"{i},name_{i},\"q\"\r\n" for i in range(30_000))  # several blocks
    path = tmp_path / "data.csv"
    path.write_bytes(text.encode())
    for fmt, parse in [("json", json.loads), ("space", lambda s: list(map(int, s.split()))),
                       ("lines", lambda s: list(map(int, s.split())))]:
        assert parse(cli("encode", "--format", fmt, str(path)).stdout.decode()) == ENC.encode(text), fmt
    rows = cli("inspect", str(path)).stdout.decode().splitlines()
    assert [int(r.split("\t")[0]) for r in rows] == ENC.encode(text)
    ids, spans = ENC.encode_with_offsets(text)
    assert [r.split("\t")[2] for r in rows[-3:]] == [f"[{s}, {e})" for s, e in spans[-3:]]


def test_several_files_go_on_past_a_bad_one(tmp_path, capsys) -> None:
    """As wc does: a missing or non-UTF-8 file is reported by name, the others are still counted,
    and the exit code says something failed."""
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_bytes(b"hello world\n")
    bad.write_bytes(b"bye\xff\n")
    missing = tmp_path / "missing.txt"
    code, out = run(["count", str(good), str(missing), str(bad), str(good)])
    err = capsys.readouterr().err
    assert code == 1 and out == f"3\t{good}\n3\t{good}\n6\ttotal\n"  # the total of those counted
    assert f"{missing}: No such file" in err and f"{bad}: invalid UTF-8 at byte 3" in err and "Traceback" not in err
    assert run(["count", str(bad)])[0] == 1  # one file: the same message, no output
    assert f"{bad}: invalid UTF-8" in capsys.readouterr().err


def test_usage_messages_speak_command_line(tmp_path, capsys) -> None:
    assert run(["count", "-e", "foo"], "x")[0] == 2
    assert "`bytepair list`" in capsys.readouterr().err
    assert run(["count", "-m", "gpt-9"], "x")[0] == 2
    err = capsys.readouterr().err
    assert "with -e" in err and "get_encoding" not in err
    assert run(["count", "--allow-special", "<|bogus|>"], "x")[0] == 2
    assert "o200k_base has no such special token" in capsys.readouterr().err
    assert run(["count", "--allow-special", "<|endoftext|>"], "x <|endoftext|>") == (0, "3\n")


def test_count_chat_takes_a_bom_and_analyze_refuses_invalid_utf8(tmp_path, capsys) -> None:
    request = tmp_path / "chat.json"
    request.write_bytes(b"\xef\xbb\xbf" + json.dumps([{"role": "user", "content": "Hello!"}]).encode())
    assert run(["count-chat", str(request)]) == (0, "9\n")
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(b"fine text\xff")
    assert run(["analyze", "-t", "cl100k_base", "--corpus", str(corpus)])[0] == 1
    assert "invalid UTF-8 at byte 9" in capsys.readouterr().err


def test_train_names_the_output_it_cannot_write(tmp_path, capsys) -> None:
    text = tmp_path / "t.txt"
    text.write_text("hello world hello there\n", encoding="utf-8")
    target = tmp_path / "no-such-folder" / "tok.json"
    assert run(["train", str(text), "--vocab-size", "260", "-o", str(target)])[0] == 1
    err = capsys.readouterr().err
    assert f"{target}: No such file or directory" in err and ".tmp" not in err


# ---------------------------------------------------------------- several files, and what decode reads

def test_a_rejected_file_leaves_no_broken_json(tmp_path, capsys) -> None:
    """An input rejected at once writes nothing; one rejected after its first blocks ends the line
    it started; the next file's ids are a JSON line of their own either way."""
    special, late, good = tmp_path / "special.txt", tmp_path / "late.txt", tmp_path / "good.txt"
    special.write_bytes(b"Hello <|endoftext|> world\n")
    late.write_bytes(b"word " * 400_000 + b"\xff")  # 2 MB: blocks are written before the bad byte is read
    good.write_bytes(b"a\r\nb\r\n")
    assert run(["encode", str(special)]) == (1, "")
    code, out = run(["encode", str(special), str(late), str(good)])
    assert code == 1
    lines = out.split("\n")
    assert lines[0].startswith("[") and not lines[0].endswith("]")  # late.txt, cut short by its error
    assert json.loads(lines[1]) == ENC.encode("a\r\nb\r\n") and lines[2:] == [""]
    err = capsys.readouterr().err
    assert f"{special}: the input contains the special token '<|endoftext|>'" in err and f"{late}: invalid UTF-8" in err


def test_decode_reads_what_encode_writes_for_several_files(tmp_path) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes("one ✓\r\n".encode())
    b.write_bytes(b"two\n")
    code, ids = run(["encode", "-e", "cl100k_base", str(a), str(b)])
    assert code == 0 and len(ids.splitlines()) == 2
    assert run(["decode", "-e", "cl100k_base"], ids) == (0, "one ✓\r\ntwo\n")
    assert run(["decode", "-e", "cl100k_base"], "\ufeff" + ids) == (0, "one ✓\r\ntwo\n")  # a BOM, as editors write


def test_decode_takes_ascii_digits_only_and_has_no_text_options(capsys) -> None:
    assert run(["decode"], "+5 \u0663")[0] == 1  # ARABIC-INDIC DIGIT THREE: not an id
    assert "not a number: '\u0663'" in capsys.readouterr().err
    assert run(["decode", "-e", "cl100k_base"], "+5 0")[1] == bytepair.get_encoding("cl100k_base").decode([5, 0])
    help_text = cli("decode", "--help").stdout.decode()
    assert "--allow-special" not in help_text and "--special-as-text" not in help_text and "--errors" not in help_text


def test_lines_format_with_empty_and_several_files(tmp_path) -> None:
    empty, one = tmp_path / "empty.txt", tmp_path / "one.txt"
    empty.write_bytes(b"")
    one.write_bytes(b"hello world")
    assert run(["encode", "--format", "lines", str(empty)]) == (0, "")
    assert run(["encode", "--format", "json", str(empty)]) == (0, "[]\n")
    assert run(["encode", "--format", "space", str(empty)]) == (0, "\n")
    ids = ENC.encode("hello world")
    expected = "\n" + "".join(f"{i}\n" for i in ids) + "\n"  # each file's ids, then an empty line
    assert run(["encode", "--format", "lines", str(empty), str(one)]) == (0, expected)


def test_an_unknown_special_token_lists_a_dozen_names(capsys) -> None:
    assert run(["encode", "-m", "gpt-oss-20b", "--allow-special", "<|bogus|>"], "x")[0] == 2
    err = capsys.readouterr().err
    assert "has no such special token" in err and "more (`bytepair manifest o200k_harmony` lists them)" in err
    assert len(err) < 1000


def test_count_chat_takes_fine_tuned_models(tmp_path, capsys) -> None:
    request = {"model": "ft:gpt-4o-2024-08-06:org::abc", "messages": [{"role": "user", "content": "Hello!"}]}
    assert run(["count-chat", "-"], json.dumps(request)) == (0, "9\n")
    assert run(["count-chat", "-"], json.dumps([{"role": "user", "content": 5}]))[0] == 1
    assert "field 'content' is a number" in capsys.readouterr().err
