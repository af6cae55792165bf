"""The local explorer server: standard-library HTTP on 127.0.0.1, JSON requests, no file access.

Routes: ``GET /`` the page, ``GET /static/<asset>`` the shipped front end (a fixed
list, never a path from the request), ``POST /api`` one request
(:mod:`attnio.explorer.api`), answered ``200`` with the reply or ``400`` with
``{"schema": ..., "error": ...}`` (every reply carries ``"schema"``). Requests whose ``Host`` is not this server's loopback address
are refused (a web page elsewhere cannot reach it through DNS rebinding), and so are
posts from another origin or not typed ``application/json`` (a cross-site form cannot
make the server compute).

The server is meant for a page or notebook that fetches in parallel: it queues up to
:data:`BACKLOG` connections while its threads are busy (the standard library's default is
5, and a burst of 30 clients met resets), and a client that goes away before its reply is
written is dropped in silence, never with a traceback on the user's terminal.
"""

from __future__ import annotations

import json
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from attnio.bounds.schema import JSON_SCHEMA_VERSION
from attnio.pebble.errors import PebbleError

from .api import MAX_REQUEST_BYTES, answer
from .errors import ExplorerError
from .instance import Instance
from .page import ASSETS, asset, server_page

__all__ = ["BACKLOG", "HOST", "ExplorerServer", "serve"]

HOST = "127.0.0.1"
"""The only address the server binds."""

READ_TIMEOUT = 10.0
"""Seconds a connection may stay silent while the server reads a request; a client that
sends half a request and stops is disconnected after this, so it cannot hold a thread."""


BACKLOG = 128
"""Connections the listening socket queues before the server's threads accept them."""

_GONE = (ConnectionError, TimeoutError)
"""What reading from or writing to a client that went away raises (``BrokenPipeError``,
``ConnectionResetError``, ``ConnectionAbortedError``, a read timeout)."""


class ExplorerServer(ThreadingHTTPServer):
    """A threading HTTP server bound to 127.0.0.1 that serves one :class:`Instance`."""

    daemon_threads = True
    request_queue_size = BACKLOG

    def handle_error(self, request: object, client_address: tuple) -> None:
        """Drop a client that went away in silence; anything else is a bug: traceback."""
        if isinstance(sys.exc_info()[1], _GONE):
            return
        super().handle_error(request, client_address)

    def __init__(
        self,
        instance: Instance,
        M: int,
        variant: str,
        port: int = 0,
        read_timeout: float = READ_TIMEOUT,
    ) -> None:
        self.instance = instance
        self.read_timeout = read_timeout
        self.page = server_page(instance.describe(M, variant)).encode("utf-8")
        super().__init__((HOST, port), _Handler)

    @property
    def url(self) -> str:
        """The page's address, ``http://127.0.0.1:PORT/``."""
        return f"http://{HOST}:{self.server_address[1]}/"


class _Handler(BaseHTTPRequestHandler):
    server: ExplorerServer
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        # StreamRequestHandler applies ``timeout`` to the socket: every read of the request
        # line, the headers and the body waits at most this long.
        self.timeout = self.server.read_timeout
        super().setup()

    def log_message(self, format: str, *args: object) -> None:
        pass  # quiet: the command prints its URL and nothing per request

    def _allowed_host(self) -> bool:
        port = self.server.server_address[1]
        return self.headers.get("Host", "") in (f"{HOST}:{port}", f"localhost:{port}")

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        """Send the reply; a client that went away meanwhile is dropped, not an error."""
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            self.wfile.write(body)
        except _GONE:
            self.close_connection = True

    def _json(self, status: int, value: dict[str, object]) -> None:
        """Send ``value`` as JSON; every reply, refusals included, carries ``"schema"``."""
        body = {"schema": JSON_SCHEMA_VERSION, **value}
        self._send(status, json.dumps(body).encode("utf-8"), "application/json")

    def do_GET(self) -> None:
        if not self._allowed_host():
            return self._json(HTTPStatus.FORBIDDEN, {"error": "unexpected Host header"})
        path = self.path.split("?", 1)[0]
        if path in ("/", "/index.html"):
            return self._send(HTTPStatus.OK, self.server.page, "text/html; charset=utf-8")
        name = path.removeprefix("/static/")
        if path.startswith("/static/") and name in ASSETS:
            body = asset(name).encode("utf-8")
            return self._send(HTTPStatus.OK, body, f"{ASSETS[name]}; charset=utf-8")
        return self._json(HTTPStatus.NOT_FOUND, {"error": f"no such page {path!r}"})

    def do_POST(self) -> None:
        if not self._allowed_host():
            return self._json(HTTPStatus.FORBIDDEN, {"error": "unexpected Host header"})
        if self.path != "/api":
            return self._json(HTTPStatus.NOT_FOUND, {"error": f"no such endpoint {self.path!r}"})
        origin = self.headers.get("Origin")
        if origin is not None and origin.rstrip("/") + "/" != self.server.url:
            return self._json(HTTPStatus.FORBIDDEN, {"error": f"requests from {origin!r} refused"})
        if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/json":
            return self._json(
                HTTPStatus.UNSUPPORTED_MEDIA_TYPE, {"error": "requests must be application/json"}
            )
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            return self._json(HTTPStatus.LENGTH_REQUIRED, {"error": "Content-Length required"})
        if not 0 <= length <= MAX_REQUEST_BYTES:
            self.close_connection = True
            return self._json(
                HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                {"error": f"request of {length} bytes; at most {MAX_REQUEST_BYTES}"},
            )
        try:
            raw = self.rfile.read(length)
        except TimeoutError:
            self.close_connection = True  # the client stopped sending: drop it, answer nothing
            return None
        if len(raw) < length:
            self.close_connection = True
            return self._json(
                HTTPStatus.BAD_REQUEST,
                {"error": f"request body ended after {len(raw)} of {length} bytes"},
            )
        try:
            request = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            return self._json(HTTPStatus.BAD_REQUEST, {"error": "request body is not JSON"})
        except RecursionError:
            return self._json(
                HTTPStatus.BAD_REQUEST, {"error": "request body is nested too deeply"}
            )
        try:
            reply = answer(self.server.instance, request)
        except (ExplorerError, PebbleError) as error:
            return self._json(HTTPStatus.BAD_REQUEST, {"error": str(error)})
        return self._json(HTTPStatus.OK, reply)


def serve(server: ExplorerServer, *, ready: threading.Event | None = None) -> None:
    """Serve until interrupted (Ctrl-C raises ``KeyboardInterrupt`` out of here)."""
    if ready is not None:
        ready.set()
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
