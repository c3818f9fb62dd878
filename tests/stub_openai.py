"""A real OpenAI-compatible HTTP server on 127.0.0.1 for tests: scripted answers, counted requests.

Each request to ``/v1/chat/completions`` takes the next scripted behaviour (the last one repeats):
``{"status": 500}`` answers an HTTP error, ``{"delay": 2.0, ...}`` sleeps first, otherwise it
answers a chat completion with ``content``, optional ``tool_calls`` and ``usage``. Streaming
requests (``"stream": true``) get the same answer as server-sent events. With
``responder=fn`` the behaviour is ``fn(request_body)`` instead, so one stub can answer many
concurrent conversations by looking at what each request asks (it is called from the server's
request threads: keep it thread-safe).

``refuse={"json_schema": 500, ...}`` makes the stub a server that does not accept some kinds of
``response_format`` (:func:`format_kind`: ``json_schema``, ``json_object_schema``,
``json_object`` or ``none``): such a request is answered with that status, as llama.cpp's
server does, and consumes no scripted behaviour (it is still in ``requests``).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[dict[str, Any]], dict[str, Any]]


def format_kind(body: dict[str, Any]) -> str:
    """What kind of ``response_format`` a request asks for."""
    rf = body.get("response_format")
    if not isinstance(rf, dict):
        return "none"
    if rf.get("type") == "json_object":
        return "json_object_schema" if "schema" in rf else "json_object"
    return str(rf.get("type"))


class StubOpenAI:
    """Start with ``with StubOpenAI([...]) as stub:``; ``stub.base_url`` and ``stub.requests``."""

    def __init__(self, behaviours: list[dict[str, Any]] | None = None, *,
                 responder: Responder | None = None, refuse: dict[str, int] | None = None) -> None:
        self.behaviours = list(behaviours or [{"content": "ok"}])
        self.responder = responder
        self.refuse = dict(refuse or {})
        self.answered = 0
        """Requests answered from the script (refused ones are not counted)."""
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real servers do: clients reuse connections
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                with stub._lock:
                    stub.requests.append({"path": self.path, "body": body,
                                          "auth": self.headers.get("Authorization")})
                    refused = stub.refuse.get(format_kind(body))
                    if refused is None:
                        i = stub.answered
                        stub.answered += 1
                        b = stub.behaviours[min(i, len(stub.behaviours) - 1)]
                if refused is not None:
                    message = ("Input should be 'text' or 'json_object'" if refused >= 500
                               else "response_format is not supported")
                    self._send(refused, json.dumps({"error": {"message": message}}).encode())
                    return
                if stub.responder is not None:
                    b = stub.responder(body)
                if b.get("delay"):
                    time.sleep(b["delay"])
                if "status" in b:
                    payload = json.dumps({"error": {"message": b.get("message", "stub error"),
                                                    "type": "server_error",
                                                    "code": b.get("code")}})
                    self._send(b["status"], payload.encode())
                    return
                if body.get("stream"):
                    self._stream(b, body)
                else:
                    self._send(200, json.dumps(stub.completion(b, body)).encode())

            def _send(self, status: int, data: bytes, ctype: str = "application/json") -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", ctype)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test): nothing to answer

            def _stream(self, b: dict[str, Any], body: dict[str, Any]) -> None:
                full = stub.completion(b, body)
                msg = full["choices"][0]["message"]
                delta: dict[str, Any] = {"role": "assistant", "content": msg.get("content") or ""}
                if msg.get("tool_calls"):
                    delta["tool_calls"] = [dict(tc, index=k) for k, tc in enumerate(msg["tool_calls"])]
                chunks = [
                    {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                    {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
                    {"choices": [], "usage": full["usage"]},
                ]
                out = b"".join(
                    b"data: " + json.dumps(dict(c, id="chatcmpl-stub", object="chat.completion.chunk",
                                                created=0, model=full["model"])).encode() + b"\n\n"
                    for c in chunks
                ) + b"data: [DONE]\n\n"
                self._send(200, out, "text/event-stream")

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @staticmethod
    def completion(b: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        """The chat-completion JSON for behaviour ``b``."""
        usage = b.get("usage", {"prompt_tokens": 11, "completion_tokens": 7})
        usage = dict(usage, total_tokens=usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0))
        message: dict[str, Any] = {"role": "assistant", "content": b.get("content", "")}
        if b.get("tool_calls"):
            message["tool_calls"] = [
                {"id": tc.get("id", f"call_{k}"), "type": "function",
                 "function": {"name": tc["name"], "arguments": json.dumps(tc.get("args", {}))}}
                for k, tc in enumerate(b["tool_calls"])
            ]
        return {
            "id": "chatcmpl-stub", "object": "chat.completion", "created": 0,
            "model": body.get("model", "stub"),
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": usage,
        }

    @property
    def base_url(self) -> str:
        """The ``OPENAI_BASE_URL`` to point a client at."""
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> StubOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
