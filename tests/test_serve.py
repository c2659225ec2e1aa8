"""`make demo`'s server: a busy port is said out loud and the next free one is used."""

from __future__ import annotations

from .browser import serve


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
