"""A static file server for dist/ (and the playground) on 127.0.0.1, with the MIME types modules need.

Why not plain ``python -m http.server``: ES modules and workers need a JavaScript MIME type for
``.mjs`` (older Pythons guess wrong), and every response says ``Cache-Control: no-cache`` so a rebuilt
bundle is never mixed with stale cached files (the browser revalidates; unchanged files cost a 304).

Usage:  python build/serve.py DIRECTORY [--port 8000]   (the next free port if that one is busy)
"""

from __future__ import annotations

import argparse
import errno
import functools
import http.server
import sys
import threading
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


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MIME_TYPES}

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        if getattr(self.server, "quiet", False):
            return
        super().log_message(format, *args)


def make_server(directory: str | Path, port: int = 0, *, quiet: bool = True) -> http.server.ThreadingHTTPServer:
    """A server for ``directory`` on 127.0.0.1 (``port=0`` picks a free port: see ``server_address``)."""
    handler = functools.partial(_Handler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.quiet = quiet  # type: ignore[attr-defined]
    return server


def serve_in_background(directory: str | Path, port: int = 0) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Start a quiet server in a daemon thread; return it and its base URL."""
    server = make_server(directory, port)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def _listen(directory: str, port: int, tries: int = 20) -> http.server.ThreadingHTTPServer:
    """A server on ``port``, or on the next free one if it is taken (saying so)."""
    for candidate in range(port, port + tries):
        try:
            server = make_server(directory, candidate, quiet=False)
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
    args = parser.parse_args()
    server = _listen(args.directory, args.port)
    print(f"serving {args.directory} on http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
