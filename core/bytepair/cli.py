"""Command line: ``bytepair count|encode|decode|inspect [FILE ...]``.

Exit codes: 0 success, 1 the input was rejected (disallowed special token, invalid ids, unreadable
file), 2 bad usage (unknown encoding or model, bad flags).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from .encoding import Encoding
from .errors import BytepairError, DisallowedSpecialTokenError, UnknownEncodingError, UnknownModelError
from .registry import encoding_for_model, get_encoding, list_encoding_names

__all__ = ["main"]

DEFAULT_ENCODING = "o200k_base"
EXIT_OK, EXIT_INPUT, EXIT_USAGE = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bytepair",
        description="Exact byte-level BPE token counts and ids (tiktoken-compatible), offline.",
    )
    common = argparse.ArgumentParser(add_help=False)
    pick = common.add_mutually_exclusive_group()
    pick.add_argument("-e", "--encoding", help=f"encoding name (default {DEFAULT_ENCODING}); see `bytepair list`")
    pick.add_argument("-m", "--model", help="model name, e.g. gpt-4o (mapped to its encoding)")
    special = common.add_mutually_exclusive_group()
    special.add_argument(
        "--allow-special", action="append", metavar="TOKEN", default=[],
        help="encode this special token as its id (repeatable; 'all' for every one)",
    )
    special.add_argument(
        "--special-as-text", action="store_true",
        help="treat special-token text as ordinary text instead of rejecting it",
    )
    files = argparse.ArgumentParser(add_help=False)
    files.add_argument("files", nargs="*", metavar="FILE", help="input files (default: standard input; '-' too)")

    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sub.add_parser("count", parents=[common, files], help="print the number of tokens")
    p = sub.add_parser("encode", parents=[common, files], help="print token ids")
    p.add_argument("--format", choices=("json", "lines", "space"), default="json", help="id output format (default json)")
    p = sub.add_parser("decode", parents=[common, files], help="turn ids (JSON list or whitespace-separated) into text")
    p.add_argument("--strict", action="store_true", help="fail on ids that do not form valid UTF-8")
    sub.add_parser("inspect", parents=[common, files], help="show each token: id, bytes, [start, end) offsets")
    sub.add_parser("list", help="list encodings")
    return parser


def _encoding(args: argparse.Namespace) -> Encoding:
    if args.model:
        return encoding_for_model(args.model)
    return get_encoding(args.encoding or DEFAULT_ENCODING)


def _read_inputs(paths: Sequence[str], stdin: TextIO) -> list[tuple[str, str]]:
    if not paths:
        return [("-", stdin.read())]
    out = []
    for path in paths:
        if path == "-":
            out.append((path, stdin.read()))
        else:
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                out.append((path, f.read()))
    return out


def _policy(args: argparse.Namespace) -> dict[str, Any]:
    if args.special_as_text:
        return {"disallowed_special": ()}
    if "all" in args.allow_special:
        return {"allowed_special": "all"}
    return {"allowed_special": set(args.allow_special)}


def _parse_ids(text: str) -> list[int]:
    text = text.strip()
    if not text:
        return []
    if text.startswith("["):
        value = json.loads(text)
        if not isinstance(value, list):
            raise ValueError("expected a JSON list of integers")
        return value
    return [int(tok) for tok in text.replace(",", " ").split()]


def _run(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    if args.command == "list":
        for name in list_encoding_names():
            out.write(name + "\n")
        return EXIT_OK
    enc = _encoding(args)
    inputs = _read_inputs(args.files, stdin)
    multi = len(inputs) > 1
    for path, text in inputs:
        if args.command == "count":
            n = enc.count(text, **_policy(args))
            out.write(f"{n}\t{path}\n" if multi else f"{n}\n")
        elif args.command == "encode":
            ids = enc.encode(text, **_policy(args))
            if args.format == "json":
                out.write(json.dumps(ids) + "\n")
            else:
                out.write(("\n" if args.format == "lines" else " ").join(map(str, ids)) + "\n")
        elif args.command == "decode":
            try:
                ids = _parse_ids(text)
            except ValueError as exc:
                raise _InputError(f"{path}: cannot read token ids ({exc}); give a JSON list or whitespace-separated integers") from None
            out.write(enc.decode(ids, errors="strict" if args.strict else "replace"))
        elif args.command == "inspect":
            ids, spans = enc.encode_with_offsets(text, **_policy(args))
            for token, (start, end) in zip(ids, spans):
                raw = enc.decode_single_token_bytes(token)
                out.write(f"{token}\t{raw!r}\t[{start}, {end})\t{text[start:end]!r}\n")
    return EXIT_OK


class _InputError(Exception):
    pass


def main(argv: Sequence[str] | None = None, *, stdout: TextIO | None = None, stdin: TextIO | None = None) -> int:
    """Run the command line; returns the exit code."""
    out = stdout or sys.stdout
    args = _parser().parse_args(argv)
    try:
        return _run(args, out, stdin or sys.stdin)
    except (UnknownEncodingError, UnknownModelError) as exc:
        print(f"bytepair: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except DisallowedSpecialTokenError as exc:
        print(
            f"bytepair: the input contains the special token {exc.token!r}. Pass --allow-special "
            f"'{exc.token}' (or --allow-special all) to encode it as its id, or --special-as-text "
            "to encode it as ordinary text.",
            file=sys.stderr,
        )
        return EXIT_INPUT
    except (BytepairError, _InputError, OSError, UnicodeDecodeError) as exc:
        print(f"bytepair: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:  # pragma: no cover - e.g. `bytepair encode | head`
        return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
