"""A local HTTP server for tests that stand in for a receiver: 127.0.0.1, a free port, a daemon thread."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class QuietHandler(BaseHTTPRequestHandler):
    """A request handler that keeps the stdlib's access log off the test's output."""

    def log_message(self, *args: Any) -> None:
        pass


class LocalServer:
    """Serve ``handler`` on 127.0.0.1 from a daemon thread until :meth:`close`; ``url`` is its base."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
