"""A local server speaking the OpenAI Chat Completions protocol, for tests of the real `openai` client.

It runs on loopback in a thread, answers from a script of canned replies (then
from a responder function), and measures what a real endpoint would see: every
request body, the Authorization headers, and the most requests in flight at once.
Given a `context_window`, it refuses longer requests as a vLLM server does.

`RealModel` is a responder that answers the way real models write: reasoning
before the JSON, the JSON in a Markdown fence or after a `<think>` block,
numbers where the schema wants strings, and (optionally) a first reply that
fails validation, to be repaired. It takes one answer function per reply
schema (the schema's name is read from `response_format`, or from the schema
the system message states when the mode sends none).
"""

from __future__ import annotations

import itertools
import json
import re
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


_SCHEMA_IN_SYSTEM = re.compile(r"JSON schema:\n(\{.*\})\s*$", re.S)


def schema_name(body: dict[str, Any]) -> str | None:
    """The name of the reply schema a request asks for (the pydantic model's name), from `response_format` or,
    in the modes that send none, from the schema the system message states."""
    named = body.get("response_format", {}).get("json_schema", {}).get("name")
    if named:
        return named
    system = next((m["content"] for m in body.get("messages", []) if m["role"] == "system"), "")
    found = _SCHEMA_IN_SYSTEM.search(system)
    return json.loads(found.group(1)).get("title") if found else None


def user_text(body: dict[str, Any]) -> str:
    """The first user turn of a request (what the role is shown)."""
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


class ChatServer:
    """`POST /v1/chat/completions` on 127.0.0.1; use as a context manager."""

    def __init__(self, responder: Responder | None = None, context_window: int | None = None):
        self.responder = responder
        self.context_window = context_window
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
            prompt = prompt_tokens(body)
            if self.context_window is not None and prompt > self.context_window:
                return Canned(status=400, error=f"This model's maximum context length is {self.context_window} "
                                                f"tokens. However, you requested {prompt} tokens in the messages. "
                                                "Please reduce the length of the messages.")
            if self.script:
                return self.script.pop(0)
        if self.responder is None:
            return Canned(status=500, error="the test server has no reply scripted")
        return self.responder(body)

    def _done(self) -> None:
        """A request's reply is made: counted before its bytes are sent, as the client may start its next request
        (and a concurrency limit let it) as soon as they arrive, before this thread runs again."""
        with self._lock:
            self.in_flight -= 1


def _tokens(text: str) -> int:
    """A stand-in token count (about four characters a token)."""
    return len(text) // 4 + 1


def prompt_tokens(body: dict[str, Any]) -> int:
    """The stand-in token count of a request's messages."""
    return sum(_tokens(m.get("content") or "") for m in body.get("messages", []))


def _completion(body: dict[str, Any], content: str) -> dict[str, Any]:
    """A Chat Completions response carrying `content` and its usage."""
    prompt = prompt_tokens(body)
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
            finally:
                server._done()
            try:
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass

    return Handler


Answer = Callable[[dict[str, Any]], dict[str, Any]]
"""What a model answers a request with, as the JSON object (before it is written out in some style)."""
STYLES = ("reasoning", "think", "numbers", "plain")


def _numbers(value: Any) -> Any:
    """The value with every string that reads as a number written as that number (as a model might)."""
    if isinstance(value, dict):
        return {k: _numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_numbers(v) for v in value]
    if isinstance(value, str) and re.fullmatch(r"-?(0|[1-9]\d*)(\.\d+)?", value):
        return json.loads(value)
    return value


def styled(value: dict[str, Any], style: str) -> str:
    """A JSON answer written out as a real model writes it in one of `STYLES`."""
    if style == "reasoning":
        return ("Let me work through this before answering: I check each point against what I was shown "
                "(the {braces} here are prose, not JSON).\n\n```json\n" + json.dumps(value, indent=2) + "\n```")
    if style == "think":
        return "<think>\nThe request wants one JSON object; let me build it.\n</think>\n" + json.dumps(value)
    if style == "numbers":
        return json.dumps(_numbers(value))
    return json.dumps(value)


def _first_field_dropped(value: dict[str, Any]) -> str:
    """An answer that fails validation: the object without its first field."""
    return json.dumps(dict(list(value.items())[1:]))


class RealModel:
    """A responder answering each schema with `answers[name](body)`, written in the `styles` in turn; with
    `invalid_first`, every call's first reply leaves out a required field (the repair gets the real answer)."""

    def __init__(self, answers: dict[str, Answer], styles: tuple[str, ...] = STYLES, invalid_first: bool = False):
        self.answers = answers
        self.invalid_first = invalid_first
        self._styles = itertools.cycle(styles)
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Canned:
        name = schema_name(body)
        if name not in self.answers:
            return Canned(status=400, error=f"no answer scripted for schema {name}")
        value = self.answers[name](body)
        if self.invalid_first and not any(m["role"] == "assistant" for m in body["messages"]):
            return Canned(content=_first_field_dropped(value))
        with self._lock:
            style = next(self._styles)
        return Canned(content=styled(value, style))
