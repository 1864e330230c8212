"""The role client: structured calls to any OpenAI-compatible endpoint, cached, limited, retried, accounted.

One `Agents` serves one stage of one run (a Prefect task opens it, uses it,
and returns `take_calls()` for the flow to commit). A call asks a role for a
pydantic model; the reply is validated, repaired a bounded number of times
with the validation error, and every call — answered, invalid or failed — is
recorded as an `LLMCall`. Nothing secret (key, headers, endpoint URL) reaches
the records, the cache keys or the log lines.
"""

from __future__ import annotations

import logging
import random
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

import openai
from pydantic import BaseModel

from taskforge.agents.cache import ReplayCache, request_key
from taskforge.agents.config import AgentsConfig, RoleEndpoint
from taskforge.agents.context import Fit, messages_tokens, token_count
from taskforge.agents.limiter import SlotLimiter
from taskforge.agents.structured import Check, parse_reply, repair_message, response_format, schema_instruction
from taskforge.schemas import LLMCall
from taskforge.schemas.llm import CallStatus

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")
log = logging.getLogger("taskforge.agents")

RETRYABLE = (openai.RateLimitError, openai.InternalServerError, openai.APIConnectionError)
BACKOFF_BASE_S = 0.5
BACKOFF_CAP_S = 30.0
COMPLETIONS_PATH = "/chat/completions"
TOO_LONG = "too long for the window"
MAX_OVERFLOW_RETRIES = 2
OVERFLOW_SHRINK = 0.7
"""After a context overflow the next view aims at this share of the tokens just refused (when the server does
not say its window; when it does, at the share that fits less `OVERFLOW_MARGIN`)."""
OVERFLOW_MARGIN = 0.9
MAX_FIT_TRIES = 3
_SECRET_LIKE = re.compile(r"\b(sk|key|token)-[A-Za-z0-9_\-*]{6,}", re.I)
_WINDOW = re.compile(r"context length is (\d+)", re.I)
_ASKED = re.compile(r"(?:requested|resulted in|prompt has|input has) (\d+)", re.I)
_OVERFLOW = re.compile(r"context length|context window|context_length_exceeded|maximum context|too many tokens|"
                       r"prompt is too long|input is too long|reduce the length", re.I)


@dataclass(frozen=True)
class Reply(Generic[T]):
    """The outcome of asking a role: `ok` with a validated value, `failed` with a reason, or `skipped`."""

    status: Literal["ok", "failed", "skipped"]
    value: T | None = None
    reason: str | None = None
    call: LLMCall | None = None
    view: str | None = None
    """What was sent when the full input did not fit the role's window (None: the full input)."""

    @property
    def ok(self) -> bool:
        """Whether the role answered with a valid value."""
        return self.status == "ok"


class CallFailed(Exception):
    """A request that could not be answered after its retries (message already free of secrets)."""


class _Overflow(Exception):
    """The server refused a request as longer than its context window; `share` is the part of the request
    that would have fit, where the server said its window and the request's length."""

    def __init__(self, message: str, share: float | None):
        super().__init__(message)
        self.share = share


class _TooLong(Exception):
    """No view of the input fits the role's window."""


class Agents:
    """The four roles for one stage of one run, sharing a replay cache and a concurrency limit."""

    def __init__(self, config: AgentsConfig, llm_dir: Path, cycle_id: str, stage: str):
        self.config = config
        self.cycle_id = cycle_id
        self.stage = stage
        self.cache = ReplayCache.shared(Path(llm_dir) / "cache")
        self.limiter = SlotLimiter(Path(llm_dir) / "slots", config.concurrency)
        self._offline_reason: str | None = None
        self._calls: list[LLMCall] = []
        self._clients: dict[str, openai.OpenAI] = {}
        self._lock = threading.Lock()

    @classmethod
    def open(cls, llm_dir: str | Path, cycle_id: str, stage: str) -> "Agents":
        """The roles as the environment configures them, keeping cache and slots under `llm_dir`."""
        return cls(AgentsConfig.load(), Path(llm_dir), cycle_id, stage)

    @classmethod
    def offline(cls, reason: str) -> "Agents":
        """Roles that all report `skipped` with `reason` (they never touch the disk or the network)."""
        agents = cls(AgentsConfig.load({}), Path("."), "", "")
        agents._offline_reason = reason
        return agents

    def __enter__(self) -> "Agents":
        """Use as a context manager so the HTTP clients are closed."""
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Write the pending cache entries, close the HTTP clients and the concurrency slot files."""
        self.cache.flush()
        with self._lock:
            for client in self._clients.values():
                client.close()
            self._clients.clear()
        self.limiter.close()

    @property
    def concurrency(self) -> int:
        """The most requests in flight at once, across every process sharing the data dir."""
        return self.config.concurrency

    def skip_reason(self, role: str) -> str | None:
        """Why a role cannot be called in this stage (None when it can)."""
        return self._offline_reason or self.config.roles[role].skip_reason

    def take_calls(self) -> list[LLMCall]:
        """The calls recorded so far, handed over once (the caller commits them)."""
        with self._lock:
            calls, self._calls = self._calls, []
        return calls

    def ask(self, role: str, system: str, user: str | Fit, model: type[M], *, purpose: str, family: str,
            subject: str, check: Check | None = None) -> Reply[M]:
        """Ask a role for a `model`; the reply is validated (schema and `check`) and repaired if it fails.

        `user` is the input, or a `Fit` that may be cut to the role's context
        window: it is counted before sending, its view is sent when the full
        text does not fit or the server reports a context overflow, and a call
        whose input fits in no way is recorded as `too_long`, never sent.
        `purpose` names the step (see `taskforge.agents.steps`), `family` and
        `subject` (an episode or task id) say what the call was about, for accounting.
        """
        reason = self.skip_reason(role)
        if reason:
            return Reply(status="skipped", reason=reason)
        endpoint = self.config.roles[role]
        started = time.perf_counter()
        tally = _Tally()
        status, value, problem = self._converse(endpoint, f"{system}\n\n{schema_instruction(model)}", user, model,
                                                check, tally)
        call = self._record(endpoint, tally, status, problem, purpose, family, subject, started)
        if status == "ok":
            return Reply(status="ok", value=value, call=call, view=tally.view)
        return Reply(status="failed", reason=f"{status}: {problem}", call=call, view=tally.view)

    def ask_next(self, role: str, conversation: list[dict[str, str]], model: type[M], *, purpose: str, family: str,
                 subject: str, seed: int | None = None, check: Check | None = None) -> Reply[M]:
        """Ask a role for its next `model` in a running conversation: `conversation` is the system turn, then the
        user and assistant turns so far (an agent's actions and what they showed). The schema goes with the system
        turn; `seed` goes with the request (and so into its cache key: attempts with different seeds are
        separate samples, each replayed on a rerun). A conversation longer than the role's window is recorded
        as `too_long`, never sent (an agent's history has no view to cut to)."""
        reason = self.skip_reason(role)
        if reason:
            return Reply(status="skipped", reason=reason)
        endpoint = self.config.roles[role]
        started = time.perf_counter()
        tally = _Tally()
        first, *turns = conversation
        messages = [{"role": "system", "content": f"{first['content']}\n\n{schema_instruction(model)}"}, *turns]
        used = messages_tokens([m["content"] for m in messages], endpoint.input_budget)
        if used > endpoint.input_budget:
            status, value, problem = "too_long", None, (f"{TOO_LONG}: the conversation takes {used} tokens, the "
                                                        f"role's window leaves {endpoint.input_budget}")
        else:
            try:
                status, value, problem = self._rounds(endpoint, messages, model, check, tally, seed)
            except _Overflow as exc:
                status, value, problem = "too_long", None, f"{TOO_LONG}: the server refused the conversation ({exc})"
        call = self._record(endpoint, tally, status, problem, purpose, family, subject, started)
        if status == "ok":
            return Reply(status="ok", value=value, call=call)
        return Reply(status="failed", reason=f"{status}: {problem}", call=call)

    def _converse(self, endpoint: RoleEndpoint, system: str, user: str | Fit, model: type[M], check: Check | None,
                  tally: "_Tally") -> tuple[CallStatus, M | None, str | None]:
        """Fit the input, request, validate, and send the problem back until a reply passes or the repairs run
        out; a context overflow reported by the server is answered with a smaller view, if there is one."""
        target: int | None = None
        for _ in range(MAX_OVERFLOW_RETRIES + 1):
            try:
                text = _fitted(endpoint, system, user, target, tally)
            except _TooLong as exc:
                return "too_long", None, str(exc)
            conversation = [{"role": "system", "content": system}, {"role": "user", "content": text}]
            try:
                return self._rounds(endpoint, conversation, model, check, tally)
            except _Overflow as exc:
                if not isinstance(user, Fit):
                    return "too_long", None, f"{TOO_LONG}: the server refused the input ({exc})"
                share = exc.share * OVERFLOW_MARGIN if exc.share else OVERFLOW_SHRINK
                target = int(token_count(text) * share)
        return "too_long", None, f"{TOO_LONG}: the server refused every view down to about {target} tokens"

    def _rounds(self, endpoint: RoleEndpoint, conversation: list[dict[str, str]], model: type[M],
                check: Check | None, tally: "_Tally",
                seed: int | None = None) -> tuple[CallStatus, M | None, str | None]:
        """Request and validate, sending each problem back for another attempt, up to the role's repairs."""
        problem: str | None = None
        for round_ in range(endpoint.repairs + 1):
            body = _body(endpoint, conversation, model, seed)
            key = request_key(endpoint.role, body)
            tally.call_id = tally.call_id or key
            try:
                content = self._respond(endpoint, key, body, tally)
            except CallFailed as exc:
                return "error", None, str(exc)
            try:
                return "ok", parse_reply(content, model, check), None
            except ValueError as exc:
                problem = str(exc)
            if round_ < endpoint.repairs:
                tally.repairs += 1
                conversation = [*conversation, {"role": "assistant", "content": content or ""},
                                repair_message(problem)]
        return "invalid", None, problem

    def _respond(self, endpoint: RoleEndpoint, key: str, body: dict[str, Any], tally: "_Tally") -> str | None:
        """The content answering a request: replayed from the cache, else fetched and stored."""
        cached = self.cache.get(key)
        if cached is not None:
            tally.replayed += 1
            return cached["content"]
        response = self._send(endpoint, body, tally)
        tally.tokens_in += response["usage"]["prompt_tokens"]
        tally.tokens_out += response["usage"]["completion_tokens"]
        self.cache.put(key, body, response)
        return response["content"]

    def _send(self, endpoint: RoleEndpoint, body: dict[str, Any], tally: "_Tally") -> dict[str, Any]:
        """One request with retries and backoff on rate limits, 5xx, timeouts and dropped connections.

        The body goes out as it is (it is plain JSON already, so the typed
        `create` call's request transformation is skipped). The concurrency
        slot is held only while a request is in flight, never while backing off.
        """
        client = self._client(endpoint)
        for attempt in range(endpoint.max_retries + 1):
            with self.limiter.slot():
                tally.requests += 1
                try:
                    completion = client.post(COMPLETIONS_PATH, body=body, cast_to=object)
                except RETRYABLE as exc:
                    failure: openai.OpenAIError = exc
                except openai.BadRequestError as exc:
                    if _is_overflow(exc):
                        raise _Overflow(_describe(exc, endpoint), _fitting_share(str(exc))) from None
                    raise CallFailed(_describe(exc, endpoint)) from None
                except openai.OpenAIError as exc:
                    raise CallFailed(_describe(exc, endpoint)) from None
                else:
                    return _response_record(completion)
            if attempt < endpoint.max_retries:
                time.sleep(_backoff(attempt, failure))
        raise CallFailed(f"{_describe(failure, endpoint)} (after {endpoint.max_retries + 1} attempts)")

    def _client(self, endpoint: RoleEndpoint) -> openai.OpenAI:
        """The role's `openai` client (made once; retries are ours, so its own are off)."""
        with self._lock:
            if endpoint.role not in self._clients:
                self._clients[endpoint.role] = openai.OpenAI(
                    base_url=endpoint.base_url, api_key=endpoint.api_key or "unused",
                    timeout=endpoint.timeout_s, max_retries=0)
            return self._clients[endpoint.role]

    def _record(self, endpoint: RoleEndpoint, tally: "_Tally", status: CallStatus, problem: str | None, purpose: str,
                family: str, subject: str, started: float) -> LLMCall:
        """Turn what a call used into its `LLMCall` record, keep it, and log one line (no URL, no key)."""
        price = self.config.price(endpoint.model or "")
        billed = tally.tokens_in or tally.tokens_out
        cost = price.cost(tally.tokens_in, tally.tokens_out) if price else (0.0 if not billed else None)
        call = LLMCall(
            call_id=tally.call_id, cycle_id=self.cycle_id, stage=self.stage, family=family, subject=subject,
            purpose=purpose, role=endpoint.role, model=endpoint.model or "", status=status,
            requests=tally.requests, replayed=tally.replayed, repairs=tally.repairs, tokens_in=tally.tokens_in,
            tokens_out=tally.tokens_out, cost_usd=cost, duration_s=round(time.perf_counter() - started, 4),
            error=problem if status != "ok" else None, view=tally.view,
        )
        with self._lock:
            self._calls.append(call)
        log.info("%s %s %s: %s (requests %d, replayed %d, repairs %d, tokens %d/%d)", endpoint.role, purpose,
                 subject, status, call.requests, call.replayed, call.repairs, call.tokens_in, call.tokens_out)
        return call


@dataclass
class _Tally:
    """What one call has used so far."""

    call_id: str = ""
    requests: int = 0
    replayed: int = 0
    repairs: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    view: str | None = None


def _fitted(endpoint: RoleEndpoint, system: str, user: str | Fit, target: int | None, tally: _Tally) -> str:
    """The input text to send: the full text when it fits the role's window (and no smaller `target` is asked
    for after an overflow), else the `Fit`'s view cut until it fits; raises `_TooLong` when nothing fits."""
    budget = endpoint.input_budget
    full = user.full if isinstance(user, Fit) else user
    if target is None and messages_tokens([system, full], budget) <= budget:
        return full
    if not isinstance(user, Fit):
        raise _TooLong(f"{TOO_LONG}: the input takes {messages_tokens([system, full])} tokens, the role's window "
                       f"leaves {budget} (max_context_tokens {endpoint.max_context_tokens})")
    tally.view = user.view
    room = budget - messages_tokens([system, ""])
    limit = room if target is None else min(room, target)
    aim, used = limit, 0
    for _ in range(MAX_FIT_TRIES):
        text = user.cut(max(aim, 0))
        used = token_count(text)
        if used <= limit:
            return text
        aim = int(aim * limit / used * 0.95)
    raise _TooLong(f"{TOO_LONG}: even the view ({user.view}) takes {used} tokens, {limit} are left for it "
                   f"(max_context_tokens {endpoint.max_context_tokens})")


def _fitting_share(message: str) -> float | None:
    """The share of a refused request that fits, from an overflow message that states the window and the
    request's length ("maximum context length is 8192 tokens … you requested 9000 tokens"), else None."""
    window = _WINDOW.search(message)
    asked = _ASKED.search(message)
    if not window or not asked or int(asked.group(1)) <= 0:
        return None
    return min(int(window.group(1)) / int(asked.group(1)), 1.0)


def _is_overflow(exc: openai.BadRequestError) -> bool:
    """Whether a 400 reply says the request exceeds the model's context window."""
    return getattr(exc, "code", None) == "context_length_exceeded" or bool(_OVERFLOW.search(str(exc)))


def _body(endpoint: RoleEndpoint, conversation: list[dict[str, str]], model: type[BaseModel],
          seed: int | None = None) -> dict[str, Any]:
    """The request body: everything that decides the answer, and nothing about the transport."""
    body: dict[str, Any] = {"model": endpoint.model, "messages": conversation, "temperature": endpoint.temperature}
    if seed is not None:
        body["seed"] = seed
    fmt = response_format(model, endpoint.response_format)
    if fmt is not None:
        body["response_format"] = fmt
    if endpoint.max_tokens is not None:
        body["max_tokens"] = endpoint.max_tokens
    return body


def _response_record(completion: Any) -> dict[str, Any]:
    """What the cache keeps of a completion (the response's JSON): the content, why it stopped, the usage."""
    choices = completion.get("choices") if isinstance(completion, dict) else None
    choice = choices[0] if choices else {}
    usage = (completion.get("usage") if isinstance(completion, dict) else None) or {}
    return {
        "content": (choice.get("message") or {}).get("content"),
        "finish_reason": choice.get("finish_reason"),
        "usage": {"prompt_tokens": usage.get("prompt_tokens") or 0,
                  "completion_tokens": usage.get("completion_tokens") or 0},
    }


def _backoff(attempt: int, failure: openai.OpenAIError) -> float:
    """Seconds to wait before the next attempt: the server's Retry-After if it sent one, else exponential."""
    response = getattr(failure, "response", None)
    retry_after = response.headers.get("retry-after") if response is not None else None
    if retry_after is not None:
        try:
            return min(float(retry_after), BACKOFF_CAP_S)
        except ValueError:
            pass
    return min(BACKOFF_BASE_S * 2 ** attempt, BACKOFF_CAP_S) * random.uniform(0.5, 1.0)


def _describe(exc: openai.OpenAIError, endpoint: RoleEndpoint) -> str:
    """A one-line account of a failed request with anything key-like removed."""
    if isinstance(exc, openai.APITimeoutError):
        return f"timed out after {endpoint.timeout_s:g} s"
    status = getattr(exc, "status_code", None)
    text = str(exc).splitlines()[0][:300] if str(exc) else ""
    if endpoint.api_key:
        text = text.replace(endpoint.api_key, "[redacted]")
    text = _SECRET_LIKE.sub("[redacted]", text)
    return f"{type(exc).__name__}{f' (HTTP {status})' if status else ''}: {text}"
