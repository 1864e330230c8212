"""A local server speaking the OpenAI Chat Completions protocol, for tests of the real `openai` client.

It runs on loopback in a thread, answers from a script of canned replies (then
from a responder function), and measures what a real endpoint would see: every
request body, the Authorization headers, and the most requests in flight at once.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


@dataclass
class Canned:
    """One reply: a completion with `content`, or an HTTP error `status`; optionally after `delay_s`."""

    content: str | None = None
    status: int = 200
    delay_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    error: str = "error"


Responder = Callable[[dict[str, Any]], Canned]


def schema_name(body: dict[str, Any]) -> str | None:
    """The name of the reply schema a request asks for (the pydantic model's name)."""
    return body.get("response_format", {}).get("json_schema", {}).get("name")


def user_text(body: dict[str, Any]) -> str:
    """The first user turn of a request (what the role is shown)."""
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


class ChatServer:
    """`POST /v1/chat/completions` on 127.0.0.1; use as a context manager."""

    def __init__(self, responder: Responder | None = None):
        self.responder = responder
        self.script: list[Canned] = []
        self.requests: list[dict[str, Any]] = []
        self.authorizations: list[str] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        """The base URL a client is configured with."""
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> "ChatServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def queue(self, *replies: Canned | str) -> None:
        """Replies to give, in order, before falling back to the responder."""
        with self._lock:
            self.script += [r if isinstance(r, Canned) else Canned(content=r) for r in replies]

    def _next(self, body: dict[str, Any]) -> Canned:
        """Count a request in flight and choose its reply."""
        with self._lock:
            self.requests.append(body)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            if self.script:
                return self.script.pop(0)
        if self.responder is None:
            return Canned(status=500, error="the test server has no reply scripted")
        return self.responder(body)

    def _done(self) -> None:
        """A request has been answered."""
        with self._lock:
            self.in_flight -= 1


def _tokens(text: str) -> int:
    """A stand-in token count (about four characters a token)."""
    return len(text) // 4 + 1


def _completion(body: dict[str, Any], content: str) -> dict[str, Any]:
    """A Chat Completions response carrying `content` and its usage."""
    prompt = sum(_tokens(m.get("content") or "") for m in body.get("messages", []))
    return {
        "id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()), "model": body.get("model"),
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": _tokens(content),
                  "total_tokens": prompt + _tokens(content)},
    }


def _handler(server: ChatServer) -> type[BaseHTTPRequestHandler]:
    """The request handler class bound to one server's counters."""
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def log_message(self, *args: Any) -> None:
            """Quiet: tests read the counters instead."""

        def do_POST(self) -> None:
            """Answer a completion request with the next canned reply."""
            length = int(self.headers.get("content-length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            with server._lock:
                server.authorizations.append(self.headers.get("authorization", ""))
            reply = server._next(body)
            try:
                time.sleep(reply.delay_s)
                if not self.path.endswith("/chat/completions"):
                    reply = Canned(status=404, error=f"no route {self.path}")
                if reply.status == 200:
                    payload = _completion(body, reply.content or "")
                else:
                    payload = {"error": {"message": reply.error, "type": "test", "code": reply.status}}
                data = json.dumps(payload).encode()
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass
            finally:
                server._done()

    return Handler
