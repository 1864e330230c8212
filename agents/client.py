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
_SECRET_LIKE = re.compile(r"\b(sk|key|token)-[A-Za-z0-9_\-*]{6,}", re.I)


@dataclass(frozen=True)
class Reply(Generic[T]):
    """The outcome of asking a role: `ok` with a validated value, `failed` with a reason, or `skipped`."""

    status: Literal["ok", "failed", "skipped"]
    value: T | None = None
    reason: str | None = None
    call: LLMCall | None = None

    @property
    def ok(self) -> bool:
        """Whether the role answered with a valid value."""
        return self.status == "ok"


class CallFailed(Exception):
    """A request that could not be answered after its retries (message already free of secrets)."""


class Agents:
    """The four roles for one stage of one run, sharing a replay cache and a concurrency limit."""

    def __init__(self, config: AgentsConfig, llm_dir: Path, cycle_id: str, stage: str):
        self.config = config
        self.cycle_id = cycle_id
        self.stage = stage
        self.cache = ReplayCache(Path(llm_dir) / "cache")
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
        """Close the HTTP clients."""
        with self._lock:
            for client in self._clients.values():
                client.close()
            self._clients.clear()

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

    def ask(self, role: str, system: str, user: str, model: type[M], *, purpose: str, family: str,
            subject: str, check: Check | None = None) -> Reply[M]:
        """Ask a role for a `model`; the reply is validated (schema and `check`) and repaired if it fails.

        `purpose` names the step (see `taskforge.agents.steps`), `family` and `subject`
        (an episode or task id) say what the call was about, for accounting.
        """
        reason = self.skip_reason(role)
        if reason:
            return Reply(status="skipped", reason=reason)
        endpoint = self.config.roles[role]
        conversation = [{"role": "system", "content": f"{system}\n\n{schema_instruction(model)}"},
                        {"role": "user", "content": user}]
        started = time.perf_counter()
        tally = _Tally()
        status, value, problem = self._converse(endpoint, conversation, model, check, tally)
        call = self._record(endpoint, tally, status, problem, purpose, family, subject, started)
        if status == "ok":
            return Reply(status="ok", value=value, call=call)
        return Reply(status="failed", reason=f"{status}: {problem}", call=call)

    def _converse(self, endpoint: RoleEndpoint, conversation: list[dict[str, str]], model: type[M],
                  check: Check | None, tally: "_Tally") -> tuple[CallStatus, M | None, str | None]:
        """Request, validate, and send the problem back until a reply passes or the repairs run out."""
        problem: str | None = None
        for round_ in range(endpoint.repairs + 1):
            body = _body(endpoint, conversation, model)
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

        The concurrency slot is held only while a request is in flight, never
        while backing off.
        """
        client = self._client(endpoint)
        for attempt in range(endpoint.max_retries + 1):
            with self.limiter.slot():
                tally.requests += 1
                try:
                    completion = client.chat.completions.create(**body)
                except RETRYABLE as exc:
                    failure: openai.OpenAIError = exc
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
            error=problem if status != "ok" else None,
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


def _body(endpoint: RoleEndpoint, conversation: list[dict[str, str]], model: type[BaseModel]) -> dict[str, Any]:
    """The request body: everything that decides the answer, and nothing about the transport."""
    body: dict[str, Any] = {"model": endpoint.model, "messages": conversation, "temperature": endpoint.temperature}
    fmt = response_format(model, endpoint.response_format)
    if fmt is not None:
        body["response_format"] = fmt
    if endpoint.max_tokens is not None:
        body["max_tokens"] = endpoint.max_tokens
    return body


def _response_record(completion: Any) -> dict[str, Any]:
    """What the cache keeps of a completion: the content, why it stopped, the usage."""
    choice = completion.choices[0] if completion.choices else None
    usage = completion.usage
    return {
        "content": choice.message.content if choice else None,
        "finish_reason": choice.finish_reason if choice else None,
        "usage": {"prompt_tokens": usage.prompt_tokens if usage else 0,
                  "completion_tokens": usage.completion_tokens if usage else 0},
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
