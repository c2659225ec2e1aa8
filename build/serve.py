"""A static file server for dist/ (and the playground) on 127.0.0.1, with the MIME types modules need.

Why not plain ``python -m http.server``: ES modules and workers need a JavaScript MIME type for
``.mjs`` (older Pythons guess wrong), and every response says ``Cache-Control: no-cache`` so a rebuilt
bundle is never mixed with stale cached files (the browser revalidates; unchanged files cost a 304).

Precompressed files (``x.br``, ``x.gz`` beside ``x``, as ``make bundle`` writes them) are served in
place of ``x`` to a client whose ``Accept-Encoding`` takes them (Brotli first), with ``Content-Encoding``
and ``Vary: Accept-Encoding``, as static hosts do; conditional requests still answer 304.

With ``--cors`` every response also says ``Access-Control-Allow-Origin: *`` (and
``Cross-Origin-Resource-Policy: cross-origin``): what a host of dist/ must send so that pages on
other origins can embed bytepair (the worker, Pyodide's modules and the assets are then CORS fetches).

Usage:  python build/serve.py DIRECTORY [--port 8000] [--cors]   (the next free port if that one is busy)
"""

from __future__ import annotations

import argparse
import datetime
import email.utils
import errno
import functools
import http.server
import os
import sys
import threading
from http import HTTPStatus
from pathlib import Path

MIME_TYPES = {
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".wasm": "application/wasm",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
    ".zip": "application/zip",
    ".whl": "application/zip",
    ".bpr": "application/octet-stream",
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".ts": "text/plain; charset=utf-8",
}


# Content-Encoding -> the suffix of its precompressed file, in order of preference.
PRECOMPRESSED = (("br", ".br"), ("gzip", ".gz"))


def accepted_encodings(header: str | None) -> set[str]:
    """The codings an ``Accept-Encoding`` header accepts (``q=0`` refuses one).

    >>> sorted(accepted_encodings("gzip, deflate, br;q=0.5, zstd;q=0"))
    ['br', 'deflate', 'gzip']
    """
    accepted = set()
    for item in (header or "").split(","):
        name, _, params = item.strip().partition(";")
        q = params.strip().removeprefix("q=").strip() if params.strip().startswith("q=") else "1"
        try:
            if float(q) > 0 and name:
                accepted.add(name.strip().lower())
        except ValueError:
            continue
    return accepted


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MIME_TYPES}

    def send_head(self):  # type: ignore[no-untyped-def] - the stdlib's signature
        path = self.translate_path(self.path)
        variants = [(coding, path + suffix) for coding, suffix in PRECOMPRESSED if os.path.isfile(path + suffix)]
        if not os.path.isfile(path) or not variants:
            return super().send_head()
        self._vary = True
        accepted = accepted_encodings(self.headers.get("Accept-Encoding"))
        chosen = next(((coding, file) for coding, file in variants if coding in accepted), None)
        if chosen is None:
            return super().send_head()
        coding, file = chosen
        f = open(file, "rb")  # noqa: SIM115 - the caller copies and closes it, as for send_head
        try:
            stat = os.fstat(f.fileno())
            if self._not_modified_since(os.stat(path).st_mtime):
                self.send_response(HTTPStatus.NOT_MODIFIED)
                self.end_headers()
                f.close()
                return None
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", self.guess_type(path))
            self.send_header("Content-Encoding", coding)
            self.send_header("Content-Length", str(stat.st_size))
            self.send_header("Last-Modified", self.date_time_string(os.stat(path).st_mtime))
            self.end_headers()
            return f
        except BaseException:
            f.close()
            raise

    def _not_modified_since(self, mtime: float) -> bool:
        header = self.headers.get("If-Modified-Since")
        if not header or "If-None-Match" in self.headers:
            return False
        try:
            since = email.utils.parsedate_to_datetime(header)
        except (TypeError, IndexError, OverflowError, ValueError):
            return False
        if since.tzinfo is None:
            since = since.replace(tzinfo=datetime.timezone.utc)
        return datetime.datetime.fromtimestamp(mtime, datetime.timezone.utc).replace(microsecond=0) <= since

    def end_headers(self) -> None:
        if getattr(self, "_vary", False):
            self.send_header("Vary", "Accept-Encoding")
            self._vary = False
        self.send_header("Cache-Control", "no-cache")
        if getattr(self.server, "cors", False):
            self.send_header("Access-Control-Allow-Origin", "*")
            self.send_header("Cross-Origin-Resource-Policy", "cross-origin")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        if getattr(self.server, "quiet", False):
            return
        super().log_message(format, *args)


def make_server(directory: str | Path, port: int = 0, *, quiet: bool = True, cors: bool = False) -> http.server.ThreadingHTTPServer:
    """A server for ``directory`` on 127.0.0.1 (``port=0`` picks a free port: see ``server_address``)."""
    handler = functools.partial(_Handler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.quiet = quiet  # type: ignore[attr-defined]
    server.cors = cors  # type: ignore[attr-defined]
    return server


def serve_in_background(directory: str | Path, port: int = 0, *, cors: bool = False) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Start a quiet server in a daemon thread; return it and its base URL."""
    server = make_server(directory, port, cors=cors)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def _listen(directory: str, port: int, tries: int = 20, cors: bool = False) -> http.server.ThreadingHTTPServer:
    """A server on ``port``, or on the next free one if it is taken (saying so)."""
    for candidate in range(port, port + tries):
        try:
            server = make_server(directory, candidate, quiet=False, cors=cors)
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                raise
            print(f"port {candidate} is busy (another server is running there); trying {candidate + 1}", file=sys.stderr)
            continue
        return server
    raise SystemExit(f"ports {port}..{port + tries - 1} are all busy; pick another with PORT=... (make demo PORT=9000)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--cors", action="store_true", help="let pages on other origins use these files")
    args = parser.parse_args()
    server = _listen(args.directory, args.port, cors=args.cors)
    print(f"serving {args.directory} on http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
