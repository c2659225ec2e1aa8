"""`make demo`'s server: a busy port is said out loud and the next free one is used."""

from __future__ import annotations

from tests.browser import serve


def test_busy_port_moves_to_the_next_free_one(tmp_path, capsys) -> None:
    first = serve.make_server(tmp_path, 0)
    try:
        port = first.server_address[1]
        second = serve._listen(str(tmp_path), port)
        try:
            assert second.server_address[1] > port
            assert f"port {port} is busy" in capsys.readouterr().err
        finally:
            second.server_close()
    finally:
        first.server_close()


def _get(base: str, path: str, encoding: str | None, since: str | None = None):
    import urllib.error
    import urllib.request

    headers = {"Accept-Encoding": encoding} if encoding is not None else {}
    if since:
        headers["If-Modified-Since"] = since
    try:
        with urllib.request.urlopen(urllib.request.Request(base + path, headers=headers)) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), b""


def test_precompressed_files_are_served_by_accept_encoding(tmp_path) -> None:
    import gzip

    (tmp_path / "app.mjs").write_bytes(b"export const x = 1;\n" * 50)
    (tmp_path / "app.mjs.br").write_bytes(b"pretend brotli")  # the server never decodes: any bytes do
    (tmp_path / "app.mjs.gz").write_bytes(gzip.compress((tmp_path / "app.mjs").read_bytes()))
    (tmp_path / "plain.json").write_bytes(b"{}")
    server, base = serve.serve_in_background(tmp_path)
    try:
        status, headers, body = _get(base, "app.mjs", "gzip, deflate, br, zstd")
        assert (status, headers["Content-Encoding"], body) == (200, "br", b"pretend brotli")
        assert headers["Content-Type"] == "text/javascript" and headers["Vary"] == "Accept-Encoding"
        assert headers["Content-Length"] == str(len(b"pretend brotli"))

        status, headers, body = _get(base, "app.mjs", "gzip, br;q=0")
        assert headers["Content-Encoding"] == "gzip" and gzip.decompress(body) == (tmp_path / "app.mjs").read_bytes()

        status, headers, body = _get(base, "app.mjs", "identity")
        assert "Content-Encoding" not in headers and body == (tmp_path / "app.mjs").read_bytes()
        assert headers["Vary"] == "Accept-Encoding"  # a cache must key this answer by the header too

        status, headers, body = _get(base, "app.mjs", "br", since=headers["Last-Modified"])
        assert status == 304 and body == b""

        status, headers, body = _get(base, "plain.json", "br")  # no precompressed copy: as is
        assert (status, body) == (200, b"{}") and "Content-Encoding" not in headers and "Vary" not in headers
        assert _get(base, "missing.js", "br")[0] == 404
    finally:
        server.shutdown()
