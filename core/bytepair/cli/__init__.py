"""Command line: ``bytepair count|encode|decode|inspect [FILE ...]``, ``bytepair count-chat FILE.json``,
``bytepair list``, ``bytepair train|train-classic FILE ...`` (``cli/train.py``), ``bytepair encode-corpus
INPUT... -o DIR`` (``cli/corpus.py``), and the
analysis commands ``bytepair manifest NAME|PATH``, ``bytepair diff A B``, ``bytepair analyze
--tokenizer NAME|PATH ... [--corpus FILE ...]`` (see ``analysis/``).

``--encoding``/``--model`` pick an OpenAI encoding; ``--tokenizer path/to/tokenizer.json`` any
Hugging Face BPE tokenizer (ids as ``Tokenizer.encode(text, add_special_tokens=False)`` gives them).

Why bytes: a count is exact only for the text as it is. Files and standard input are read as bytes
and decoded as UTF-8 exactly (CR, CRLF and a BOM are kept; text mode would turn CRLF into LF, and a
console's code page would garble the rest), a megabyte at a time, so ``count`` never holds a whole
file. Output is written as UTF-8 bytes whatever the console's encoding; ``decode`` writes the
tokens' bytes as they are.

Exit codes: 0 success, 1 the input was rejected (disallowed special token, invalid ids or UTF-8,
unreadable file), 2 bad usage (unknown encoding, model or tokenizer path, bad flags or training
options, empty corpus),
130 interrupted (Ctrl-C). ``diff`` exits 0 when the two tokenizers' ids are interchangeable, 1 when not.
A closed output pipe (``bytepair encode FILE | head``) ends quietly.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, BinaryIO

from .. import __version__
from ..encoding import Encoding
from ..errors import (BytepairError, DisallowedSpecialTokenError, EmptyCorpusError, InvalidInputError, TrainingError,
                     UnknownEncodingError, UnknownModelError)
from ..registry import encoding_for_model, get_encoding, list_encoding_names
from ..text.reading import read_utf8_chunks
from .counting import NotUtf8Output, count_encoding, decode_in_blocks, open_tokenizer, prepared_tokenizers

__all__ = ["main"]

DEFAULT_ENCODING = "o200k_base"
EXIT_OK, EXIT_INPUT, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
_MAX_ID_TEXT = 1 << 28  # 256 MB of id text is ~40 M ids: far beyond any real decode request
_IDS_FORMS = "give a JSON list, one JSON list per line (as encode writes them), or whitespace-separated integers"
_LISTED_SPECIAL = 12  # special tokens named in an error message before "and N more"


def _name(kind: str) -> Any:
    def check(value: str) -> str:
        if not value.strip():
            raise argparse.ArgumentTypeError(f"{kind} name must not be empty; see `bytepair list`")
        return value

    return check


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bytepair",
        description="Exact byte-level BPE token counts and ids (tiktoken-compatible), offline.",
    )
    parser.add_argument("--version", action="version", version=f"bytepair {__version__}")
    pick_parent = argparse.ArgumentParser(add_help=False)
    pick = pick_parent.add_mutually_exclusive_group()
    pick.add_argument("-e", "--encoding", type=_name("encoding"), help=f"encoding name (default {DEFAULT_ENCODING}); see `bytepair list`")
    pick.add_argument("-m", "--model", type=_name("model"), help="model name, e.g. gpt-4o (mapped to its encoding)")
    pick.add_argument(
        "-t", "--tokenizer", metavar="PATH|NAME", type=_name("tokenizer.json path"),
        help="a Hugging Face tokenizer.json (BPE) or a folder holding one: Llama 3, Qwen, DeepSeek, GPT-2, Llama 2 ...; "
             "with npx bytepair also the JavaScript API's names: llama3, qwen2_5, qwen3, deepseek_v3, gpt2, bert_minilm, unigram_botchan",
    )
    special_parent = argparse.ArgumentParser(add_help=False)
    special = special_parent.add_mutually_exclusive_group()
    special.add_argument(
        "--allow-special", action="append", metavar="TOKEN", default=[],
        help="encode this special token as its id (repeatable; 'all' for every one)",
    )
    special.add_argument(
        "--special-as-text", action="store_true",
        help="treat special-token text as ordinary text instead of rejecting it (what count does by default, with a note)",
    )
    special.add_argument(
        "--disallow-special", action="store_true",
        help="refuse special-token text (exit 1): count's strict check; encode and inspect refuse it by default",
    )
    files = argparse.ArgumentParser(add_help=False)
    files.add_argument("files", nargs="*", metavar="FILE", help="input files (default: standard input; '-' too)")
    text_errors = argparse.ArgumentParser(add_help=False)
    text_errors.add_argument(
        "--errors", choices=("strict", "replace"), default="strict",
        help="invalid UTF-8 in the input: fail naming the byte offset (strict, default) or use U+FFFD (replace)",
    )
    text_input = [pick_parent, special_parent, files, text_errors]

    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sub.add_parser("count", parents=text_input, help="print the number of tokens")
    p = sub.add_parser("encode", parents=text_input, help="print token ids (with several files, one JSON list per line)")
    p.add_argument(
        "--format", choices=("json", "lines", "space"), default="json",
        help="id output format (default json); with several files, each file's ids end a line (json, space) or "
             "are followed by an empty line (lines)",
    )
    p = sub.add_parser(
        "decode", parents=[pick_parent, files],
        help="turn ids (a JSON list, one JSON list per line as encode writes them, or whitespace-separated) into the tokens' bytes",
    )
    p.add_argument("--strict", action="store_true", help="fail on ids that do not form valid UTF-8")
    sub.add_parser("inspect", parents=text_input, help="show each token: id, bytes, [start, end) character offsets, text")
    sub.add_parser("list", help="list encodings")
    p = sub.add_parser("count-chat", help="prompt tokens of an OpenAI chat request (a JSON file: a message list, or {messages, tools, model})")
    p.add_argument("file", metavar="FILE.json", help="the request as JSON ('-': standard input)")
    p.add_argument("-m", "--model", type=_name("model"), default=None, help="model (default: the file's 'model', else gpt-4o)")
    p = sub.add_parser("manifest", help="print a tokenizer's manifest (JSON): sizes, special tokens, pattern, hashes")
    p.add_argument("spec", metavar="NAME|PATH", type=_name("encoding or tokenizer.json"), help="encoding name or tokenizer.json file/folder")
    p = sub.add_parser("diff", help="compare two tokenizers; exit 0 if their ids are interchangeable, 1 if not")
    p.add_argument("a", metavar="A", type=_name("encoding or tokenizer.json"), help="encoding name or tokenizer.json file/folder")
    p.add_argument("b", metavar="B", type=_name("encoding or tokenizer.json"), help="the other one")
    p.add_argument("--json", action="store_true", help="print the full report as JSON")
    p.add_argument("--corpus", nargs="+", action="extend", default=[], metavar="FILE",
                   help="also compare the ids of these texts (UTF-8, plain or .xz)")
    p = sub.add_parser("analyze", help="fertility per language and vocabulary reports, tokenizers side by side")
    p.add_argument("-t", "--tokenizer", nargs="+", action="extend", required=True, metavar="NAME|PATH",
                   type=_name("encoding or tokenizer.json"), help="encoding names or tokenizer.json files/folders")
    p.add_argument("--corpus", nargs="+", action="extend", default=None, metavar="FILE",
                   help="texts, one language per file (UTF-8, plain or .xz; the label is the file name)")
    p.add_argument("--format", choices=("md", "json"), default="md", help="output format (default md)")
    p.add_argument("--limit", type=int, default=20, help="examples listed per finding (default 20)")
    from .train import add_parsers as add_train_parsers

    add_train_parsers(sub)
    from .corpus import add_parsers as add_corpus_parsers

    add_corpus_parsers(sub)
    return parser


def _count_chat(args: argparse.Namespace, out: BinaryIO, stdin: BinaryIO) -> int:
    """``count-chat``: the file holds a message list or an object with ``messages`` (and ``tools``, ``model``)."""
    from ..llm.chat_count import count_chat

    source: str | BinaryIO = stdin if args.file == "-" else args.file
    try:
        request = json.loads(_read_all(source).decode("utf-8-sig"))  # a BOM is allowed, as JSON readers allow it
    except ValueError as exc:  # JSON and UTF-8 errors
        raise _InputError(f"{args.file}: not a JSON chat request ({exc})") from None
    if isinstance(request, dict):
        messages, tools, model = request.get("messages"), request.get("tools"), request.get("model")
    else:
        messages, tools, model = request, None, None
    n = count_chat(messages, args.model or model or "gpt-4o", tools=tools)
    out.write(f"{n}\n".encode())
    return EXIT_OK


def _run_analysis(args: argparse.Namespace, out: BinaryIO) -> int:
    from .. import analysis

    if args.command == "manifest":
        out.write((json.dumps(analysis.manifest(args.spec), ensure_ascii=False, indent=2) + "\n").encode("utf-8"))
        return EXIT_OK
    if args.command == "diff":
        texts = list(analysis.read_corpus(args.corpus).values()) if args.corpus else []
        report = analysis.compare_tokenizers(args.a, args.b, texts=texts)
        if args.json:
            text = json.dumps(report, ensure_ascii=False, indent=2, default=str)
        else:
            text = report["summary"]
        out.write((text + "\n").encode("utf-8", "backslashreplace"))
        return EXIT_OK if report["interchangeable"] else EXIT_INPUT
    corpus = analysis.read_corpus(args.corpus) if args.corpus is not None else None
    report = analysis.analyze(args.tokenizer, corpus=corpus, limit=max(0, args.limit))
    if args.format == "json":
        text = json.dumps(report, ensure_ascii=False, indent=2) + "\n"
    else:
        text = analysis.to_markdown(report)
    out.write(text.encode("utf-8", "backslashreplace"))
    return EXIT_OK


def _encoding(args: argparse.Namespace) -> Encoding:
    """The encoding -e/-m name (errors in command-line words), with --allow-special's names checked."""
    names = ", ".join(list_encoding_names())
    if args.model is not None:
        try:
            enc = encoding_for_model(args.model)
        except UnknownModelError:
            raise UnknownModelError(
                f"cannot map model {args.model!r} to an encoding (known: gpt-4o, gpt-4, gpt-3.5-turbo, o1, gpt-oss-120b "
                f"and more, by tiktoken's rules); or pick the encoding with -e: {names}"
            ) from None
    else:
        name = args.encoding if args.encoding is not None else DEFAULT_ENCODING
        try:
            enc = get_encoding(name)
        except UnknownEncodingError:
            raise UnknownEncodingError(f"unknown encoding {name!r}; known encodings: {names} (`bytepair list`), or give a model with -m") from None
    unknown = sorted(set(getattr(args, "allow_special", ())) - enc.special_tokens_set - {"all"})
    if unknown:
        known = sorted(enc.special_tokens_set)
        listed = ", ".join(known[:_LISTED_SPECIAL])
        if len(known) > _LISTED_SPECIAL:
            listed += f" and {len(known) - _LISTED_SPECIAL} more (`bytepair manifest {enc.name}` lists them)"
        raise _UsageError(f"--allow-special {unknown[0]!r}: {enc.name} has no such special token; its special tokens: {listed} (or 'all')")
    return enc


def _sources(paths: Sequence[str], stdin: BinaryIO) -> Iterator[tuple[str, str | BinaryIO]]:
    """(label, path or binary file) per input; files are opened only when read."""
    for path in paths or ["-"]:
        yield path, (stdin if path == "-" else path)


def _policy(args: argparse.Namespace) -> dict[str, Any]:
    if args.special_as_text:
        return {"disallowed_special": ()}
    if "all" in args.allow_special:
        return {"allowed_special": "all"}
    return {"allowed_special": set(args.allow_special)}


def _read_all(source: str | BinaryIO, limit: int | None = _MAX_ID_TEXT) -> bytes:
    size = -1 if limit is None else limit + 1
    if isinstance(source, str):
        with open(source, "rb") as f:
            data = f.read(size)
    else:
        data = source.read(size)
    if limit is not None and len(data) > limit:
        raise InvalidInputError(f"more than {limit >> 20} MB of token ids; split the input")
    return data


def parse_ids(text: str) -> list[int]:
    """Ids written as a JSON list or separated by whitespace or commas (all of them, when the text
    holds several lists: see ``parse_id_lists``).

    >>> parse_ids("[1, 2]"), parse_ids("3 4,5")
    ([1, 2], [3, 4, 5])
    """
    return [i for ids in parse_id_lists(text) for i in ids]


def parse_id_lists(text: str) -> list[list[int]]:
    """The id lists of a text: JSON lists one after another (``encode`` with several files writes
    one per line), or one list of integers separated by whitespace or commas. A leading BOM is
    skipped; digits are ASCII only.

    >>> parse_id_lists("[1, 2]\\n[3]\\n"), parse_id_lists("\\ufeff3 4,5"), parse_id_lists(" ")
    ([[1, 2], [3]], [[3, 4, 5]], [])
    """
    text = text.lstrip("\ufeff").strip()
    if not text:
        return []
    if text.startswith("["):
        lists, decoder, at = [], json.JSONDecoder(), 0
        while at < len(text):
            try:
                value, at = decoder.raw_decode(text, at)
            except RecursionError:
                raise ValueError("expected a flat JSON list of integers, got deeply nested lists") from None
            if not isinstance(value, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in value):
                raise ValueError("expected flat JSON lists of integers")
            lists.append(value)
            while at < len(text) and text[at].isspace():
                at += 1
        return lists
    words = text.replace(",", " ").split()
    for word in words:
        if not (word.isascii() and word.lstrip("+-").isdigit()):
            raise ValueError(f"not a number: {word!r}")
    return [[int(word) for word in words]]


def _write_ids(out: BinaryIO, blocks: Iterator[list[int]], fmt: str, *, several: bool = False) -> None:
    """Ids as they come, block by block; the JSON form is exactly ``json.dumps(ids)``, one line.
    Nothing is written before the first ids, so an input rejected at once (a special token, invalid
    UTF-8 near its start) leaves no output; one rejected later leaves its line ended, so that the
    next file's ids start a line of their own. ``lines`` writes an id per line (an empty input:
    nothing), and with ``several`` inputs an empty line after each."""
    sep = {"json": b", ", "lines": b"\n", "space": b" "}[fmt]
    started = False
    try:
        for ids in blocks:
            if ids:
                head = (b"[" if fmt == "json" else b"") if not started else sep
                out.write(head + sep.join(str(i).encode() for i in ids))
                started = True
    except BaseException:
        if started:
            out.write(b"\n")
        raise
    if fmt == "json":
        out.write(b"]\n" if started else b"[]\n")
    elif fmt == "space" or started:
        out.write(b"\n")
    if fmt == "lines" and several:
        out.write(b"\n")


def _inspect(out: BinaryIO, enc: Encoding, source: str | BinaryIO, args: argparse.Namespace) -> None:
    base = 0
    for block in enc.stream_blocks(read_utf8_chunks(source, errors=args.errors)):
        ids, spans = enc.encode_with_offsets(block, **_policy(args))
        lines = (
            f"{token}\t{raw!r}\t[{base + start}, {base + end})\t{block[start:end]!r}\n"
            for token, raw, (start, end) in zip(ids, enc.decode_tokens_bytes(ids), spans)
        )
        out.write("".join(lines).encode("utf-8", "surrogatepass"))
        base += len(block)


def _run_tokenizer(args: argparse.Namespace, out: BinaryIO, stdin: BinaryIO) -> int:
    """The commands with a tokenizer.json. The file is read in blocks where the pipeline keeps piece
    boundaries at the cut points (``pipeline/stream_cuts.py``: Llama 3, Qwen, DeepSeek V3, GPT-2, gpt-4o),
    whole otherwise (Llama 2, Gemma). Added tokens are matched as HF matches them;
    ``--special-as-text`` leaves the special ones in the text (HF's ``encode_special_tokens``);
    ``--allow-special`` has no meaning here and is refused."""
    if getattr(args, "allow_special", None):
        raise _UsageError(
            "--allow-special is for the OpenAI encodings (-e/-m): a tokenizer.json's added tokens are always "
            "matched, as Hugging Face does; pass --special-as-text to count the special ones as text"
        )
    try:
        tok = open_tokenizer(args.tokenizer, prepared_tokenizers(os.environ.get("BYTEPAIR_PREPARED_TOKENIZERS")))
    except InvalidInputError as exc:
        raise _UsageError(str(exc)) from None
    tok.encode_special_tokens = bool(getattr(args, "special_as_text", False))
    multi = len(args.files) > 1
    total = []

    def one(label: str, source: str | BinaryIO) -> None:
        if args.command == "decode":
            try:
                id_lists = parse_id_lists(_read_all(source, limit=None).decode("utf-8"))
            except ValueError as exc:
                raise _InputError(f"{label}: cannot read token ids ({exc}); {_IDS_FORMS}") from None
            text = "".join(tok.decode(ids, skip_special_tokens=False) for ids in id_lists)
            if args.strict and "\ufffd" in text:
                # A tokenizer.json's decoder writes text, with U+FFFD where the bytes are not UTF-8.
                raise _InputError(
                    f"{label}: the decoded text holds U+FFFD at character {text.index(chr(0xFFFD))} (the decoder's mark for "
                    "bytes that are not UTF-8, or the character itself); drop --strict to write it"
                )
            out.write(text.encode("utf-8", "surrogatepass"))
            return
        chunks = read_utf8_chunks(source, errors=args.errors)
        if args.command == "count":
            n = tok.count_stream(chunks)
            total.append(n)
            out.write((f"{n}\t{label}\n" if multi else f"{n}\n").encode("utf-8", "surrogateescape"))
        elif args.command == "encode":
            _write_ids(out, tok.encode_stream(chunks), args.format, several=multi)
        elif args.command == "inspect":
            base = 0  # offsets count from the start of the input
            for block in tok.stream_blocks(chunks):
                encoded = tok.encode(block, add_special_tokens=False)
                rows = (
                    f"{token_id}\t{token!r}\t[{base + start}, {base + end})\t{block[start:end]!r}\n"
                    for token_id, token, (start, end) in zip(encoded.ids, encoded.tokens, encoded.offsets)
                )
                out.write("".join(rows).encode("utf-8", "surrogatepass"))
                base += len(block)

    return _each_source(args, stdin, one, out, total)


def _each_source(args: argparse.Namespace, stdin: BinaryIO, one: Callable[[str, str | BinaryIO], None], out: BinaryIO,
                 counts: list[int]) -> int:
    """Run ``one(label, source)`` on every input; with several files, one that fails (missing,
    invalid UTF-8, a special token) is reported and the others still run, as ``wc`` does: exit 1;
    ``count`` then ends with the total of the ``counts`` made."""
    status = EXIT_OK
    multi = len(args.files) > 1
    for label, source in _sources(args.files, stdin):
        try:
            one(label, source)
        except (OSError, BytepairError, _InputError) as exc:
            if isinstance(exc, DisallowedSpecialTokenError) and label != "-":  # the others name their input already
                exc = _InputError(f"{label}: {_message(exc)}")
            if not multi or isinstance(exc, (UnknownEncodingError, UnknownModelError)):
                raise exc from None
            _report(_message(exc))
            status = EXIT_INPUT
    if multi and args.command == "count":
        out.write(f"{sum(counts)}\ttotal\n".encode())
    return status


def _run(args: argparse.Namespace, out: BinaryIO, stdin: BinaryIO) -> int:
    if args.command in ("train", "train-classic"):
        from .train import run as run_training

        return run_training(args)
    if args.command == "encode-corpus":
        from .corpus import run as run_corpus

        return run_corpus(args, out)
    if args.command == "list":
        out.write("".join(name + "\n" for name in list_encoding_names()).encode())
        return EXIT_OK
    if args.command == "count-chat":
        return _count_chat(args, out, stdin)
    if args.command in ("manifest", "diff", "analyze"):
        return _run_analysis(args, out)
    if args.tokenizer is not None:
        return _run_tokenizer(args, out, stdin)
    enc = _encoding(args)
    multi = len(args.files) > 1
    total = []

    def one(label: str, source: str | BinaryIO) -> None:
        if args.command == "count":
            n = count_encoding(enc, source, label, args, note=lambda text: _report(text))
            total.append(n)
            out.write((f"{n}\t{label}\n" if multi else f"{n}\n").encode("utf-8", "surrogateescape"))
        elif args.command == "encode":
            chunks = read_utf8_chunks(source, errors=args.errors)
            _write_ids(out, enc.encode_stream(chunks, **_policy(args)), args.format, several=multi)
        elif args.command == "decode":  # in blocks: bounded memory (cli/counting.py)
            try:
                decode_in_blocks(enc, source, out, strict=args.strict)
            except NotUtf8Output as exc:
                raise _InputError(
                    f"{label}: the ids do not form valid UTF-8 (byte {exc.offset} of the output); "
                    "drop --strict to write the bytes as they are"
                ) from None
            except ValueError as exc:  # UnicodeDecodeError included
                raise _InputError(f"{label}: cannot read token ids ({exc}); {_IDS_FORMS}") from None
        elif args.command == "inspect":
            _inspect(out, enc, source, args)

    return _each_source(args, stdin, one, out, total)


class _InputError(Exception):
    pass


class _UsageError(Exception):
    """Options that do not go together (exit code 2)."""


def _message(exc: BaseException) -> str:
    """What to tell a command-line user about a rejected input."""
    if isinstance(exc, DisallowedSpecialTokenError):
        return (
            f"the input contains the special token {exc.token!r}. Pass --allow-special "
            f"'{exc.token}' (or --allow-special all) to encode it as its id, or --special-as-text "
            "to encode it as ordinary text."
        )
    if isinstance(exc, OSError):
        return f"{exc.filename or 'input'}: {exc.strerror or exc}"
    return str(exc)


def _report(message: str) -> None:
    sys.stderr.write(f"bytepair: {message}\n")
    sys.stderr.flush()


def main(argv: Sequence[str] | None = None, *, stdout: BinaryIO | None = None, stdin: BinaryIO | None = None) -> int:
    """Run the command line; returns the exit code. ``stdout``/``stdin`` are binary streams."""
    out = stdout or sys.stdout.buffer
    try:
        args = _parser().parse_args(argv)
        return _run(args, out, stdin or sys.stdin.buffer)
    except KeyboardInterrupt:
        sys.stderr.write("\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_OK
    except (UnknownEncodingError, UnknownModelError, EmptyCorpusError, TrainingError, _UsageError) as exc:
        _report(str(exc))  # a TrainingError is about the options given (vocab size, pattern, specials) or an empty corpus
        return EXIT_USAGE
    except (OSError, BytepairError, _InputError) as exc:
        _report(_message(exc))
        return EXIT_INPUT
    finally:
        try:
            out.flush()
        except BrokenPipeError:
            _silence_stdout()


def _silence_stdout() -> None:
    """The reader went away: point stdout at /dev/null so the interpreter's final flush is quiet."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - stdout without a file descriptor
        pass


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
