"""Where each role's endpoint, model, limits and prices come from: the environment and an optional TOML file.

Every role (`builder`, `reviewer`, `judge`, `diagnoser`, `solver`) resolves each
setting from, in order: `TASKFORGE_<ROLE>_<SETTING>`, the file's
`[llm.roles.<role>]` table, the generic environment variable (`OPENAI_BASE_URL`,
`OPENAI_API_KEY`, `TASKFORGE_LLM_<SETTING>`), the file's `[llm]` table, the
role's default, the default. The solver (the solver gate's agent, ideally the
model being trained) costs k attempts × many turns per task, so it runs only
when its model is named for it (`TASKFORGE_SOLVER_MODEL` or
`[llm.roles.solver] model`), never on the generic model; it samples at
temperature 1.0 unless told otherwise, so its k attempts differ. The file
(`TASKFORGE_LLM_CONFIG`) never holds a key: it names the environment variable
that does (`api_key_env`). Prices are USD per million tokens per model
(`[llm.prices."<model>"]`, `input_per_mtok` / `output_per_mtok`).

`max_context_tokens` is a role's context window: every request is counted
against it before it is sent (see `taskforge.agents.context`). When the builder
and a certifying role (reviewer, judge) resolve to the same model, a warning is
logged; `TASKFORGE_LLM_REQUIRE_SEPARATE_MODELS=1` (or `require_separate_models
= true` in `[llm]`) makes it a configuration error instead.
"""

from __future__ import annotations

import logging
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Mapping

from taskforge.schemas import TaskforgeError

ROLES: tuple[str, ...] = ("builder", "reviewer", "judge", "diagnoser", "solver")
RESPONSE_FORMATS = ("json_schema", "json_object", "none")
DIAGNOSIS_SCOPES = ("unexplained", "all")
CONFIG_ENV = "TASKFORGE_LLM_CONFIG"
NO_ENDPOINT = "no endpoint configured"

CERTIFYING = ("reviewer", "judge")
_GENERIC_ENV = {"base_url": "OPENAI_BASE_URL", "api_key": "OPENAI_API_KEY"}
_DEFAULTS: dict[str, Any] = {
    "timeout_s": 120.0, "max_retries": 4, "repairs": 2, "concurrency": 8, "response_format": "json_schema",
    "temperature": 0.0, "max_tokens": None, "diagnosis": "unexplained", "max_context_tokens": 131072,
    "require_separate_models": False,
}
_ROLE_DEFAULTS: dict[str, dict[str, Any]] = {"solver": {"temperature": 1.0}}
OWN_MODEL_ROLES = ("solver",)
"""Roles that never take the generic model: their model must be named for them."""
REPLY_RESERVE_TOKENS = 8192
"""Tokens kept free for the reply when a role sets no `max_tokens` (at most a quarter of its window)."""
MIN_INPUT_TOKENS = 1024
_TRUE = ("1", "true", "yes", "on")
log = logging.getLogger("taskforge.agents")


class ConfigError(TaskforgeError):
    """The LLM configuration (environment or file) is malformed."""


@dataclass(frozen=True)
class Price:
    """USD per million input and output tokens of one model."""

    input_per_mtok: float
    output_per_mtok: float

    def cost(self, tokens_in: int, tokens_out: int) -> float:
        """The cost of a call that billed these tokens."""
        return round((tokens_in * self.input_per_mtok + tokens_out * self.output_per_mtok) / 1e6, 8)


@dataclass(frozen=True)
class RoleEndpoint:
    """One role's endpoint, model and call limits; the key is kept out of repr and never serialised."""

    role: str
    base_url: str | None
    model: str | None
    timeout_s: float
    max_retries: int
    repairs: int
    response_format: Literal["json_schema", "json_object", "none"]
    temperature: float
    max_tokens: int | None
    max_context_tokens: int = _DEFAULTS["max_context_tokens"]
    api_key: str | None = field(default=None, repr=False)

    @property
    def input_budget(self) -> int:
        """The tokens a request's messages may take: the window less what is kept for the reply."""
        reserve = self.max_tokens if self.max_tokens is not None else min(REPLY_RESERVE_TOKENS,
                                                                          self.max_context_tokens // 4)
        return self.max_context_tokens - reserve

    @property
    def skip_reason(self) -> str | None:
        """Why this role cannot run (None when it can)."""
        if not self.base_url and not self.api_key:
            return NO_ENDPOINT
        if not self.model and self.role in OWN_MODEL_ROLES:
            return (f"no {self.role} model named (TASKFORGE_{self.role.upper()}_MODEL or "
                    f"[llm.roles.{self.role}] model; the generic model is not used for it)")
        if not self.model:
            return f"no model configured (TASKFORGE_{self.role.upper()}_MODEL or TASKFORGE_LLM_MODEL)"
        return None


@dataclass(frozen=True)
class AgentsConfig:
    """Every role's endpoint, the price table, the shared concurrency limit and the diagnosis scope."""

    roles: dict[str, RoleEndpoint]
    prices: dict[str, Price] = field(default_factory=dict)
    concurrency: int = _DEFAULTS["concurrency"]
    diagnosis: Literal["unexplained", "all"] = "unexplained"

    @classmethod
    def load(cls, environ: Mapping[str, str] | None = None) -> "AgentsConfig":
        """Read the configuration from the environment and the file `TASKFORGE_LLM_CONFIG` names."""
        env = os.environ if environ is None else environ
        file = _read_file(env.get(CONFIG_ENV))
        look = _Lookup(env, file)
        roles = {role: _endpoint(role, look) for role in ROLES}
        prices = {model: _price(model, spec) for model, spec in file.get("prices", {}).items()}
        concurrency = int(look.get("concurrency"))
        diagnosis = look.get("diagnosis")
        if concurrency < 1:
            raise ConfigError(f"LLM concurrency must be at least 1, got {concurrency}")
        if diagnosis not in DIAGNOSIS_SCOPES:
            raise ConfigError(f"TASKFORGE_LLM_DIAGNOSIS must be one of {', '.join(DIAGNOSIS_SCOPES)}, "
                              f"got {diagnosis!r}")
        config = cls(roles=roles, prices=prices, concurrency=concurrency, diagnosis=diagnosis)
        _check_separation(config, str(look.get("require_separate_models")).lower() in _TRUE)
        return config

    def shared_models(self) -> list[str]:
        """Each certifying role that resolves to the builder's model, as "builder and reviewer use m"."""
        builder = self.roles["builder"]
        if builder.skip_reason:
            return []
        return [f"builder and {role} use {builder.model}" for role in CERTIFYING
                if self.roles[role].skip_reason is None and self.roles[role].model == builder.model]

    def price(self, model: str) -> Price | None:
        """The price of a model, None when the table has none (cost is then unknown, not zero)."""
        return self.prices.get(model)

    def fingerprint(self) -> dict[str, Any]:
        """What the configuration changes about a run's results (models and scope; no URL, no key)."""
        return {"models": {role: (e.model if e.skip_reason is None else None) for role, e in self.roles.items()},
                "diagnosis": self.diagnosis}


class _Lookup:
    """Resolves a setting for a role in the documented order of precedence."""

    def __init__(self, env: Mapping[str, str], file: dict[str, Any]):
        self.env = env
        self.file = file

    def get(self, name: str, role: str | None = None) -> Any:
        """A setting for a role (or the generic one when `role` is None); empty values count as unset."""
        candidates: list[Any] = []
        if role:
            candidates += [self.env.get(f"TASKFORGE_{role.upper()}_{name.upper()}"),
                           self.file.get("roles", {}).get(role, {}).get(name)]
        if not (name == "model" and role in OWN_MODEL_ROLES):
            candidates += [self.env.get(_GENERIC_ENV.get(name, f"TASKFORGE_LLM_{name.upper()}")), self.file.get(name)]
        candidates.append(_ROLE_DEFAULTS.get(role or "", {}).get(name))
        return next((c for c in candidates if c not in (None, "")), _DEFAULTS.get(name))

    def api_key(self, role: str) -> str | None:
        """The key from the role's or the generic variable, or from the variable the file names."""
        direct = self.env.get(f"TASKFORGE_{role.upper()}_API_KEY")
        if direct:
            return direct
        named = self.file.get("roles", {}).get(role, {}).get("api_key_env")
        if named:
            return self.env.get(named) or None
        return self.env.get("OPENAI_API_KEY") or self.env.get(self.file.get("api_key_env", "")) or None


_warned: set[str] = set()


def _check_separation(config: AgentsConfig, required: bool) -> None:
    """Warn (once per process) when the builder's model also certifies; refuse it when separation is required."""
    shared = config.shared_models()
    if shared and required:
        raise ConfigError(f"separate models are required but {'; '.join(shared)} (set TASKFORGE_REVIEWER_MODEL / "
                          "TASKFORGE_JUDGE_MODEL to another model)")
    for pair in shared:
        if pair not in _warned:
            _warned.add(pair)
            log.warning("%s: the model that builds tasks also certifies them (set another model for the "
                        "certifying role, or TASKFORGE_LLM_REQUIRE_SEPARATE_MODELS=1 to refuse this)", pair)


def _endpoint(role: str, look: _Lookup) -> RoleEndpoint:
    """One role's resolved endpoint, with its settings checked."""
    response_format = look.get("response_format", role)
    if response_format not in RESPONSE_FORMATS:
        raise ConfigError(f"response_format of role {role} must be one of {', '.join(RESPONSE_FORMATS)}, "
                          f"got {response_format!r}")
    try:
        max_tokens = look.get("max_tokens", role)
        endpoint = RoleEndpoint(
            role=role, base_url=look.get("base_url", role), model=look.get("model", role),
            timeout_s=float(look.get("timeout_s", role)), max_retries=int(look.get("max_retries", role)),
            repairs=int(look.get("repairs", role)), response_format=response_format,
            temperature=float(look.get("temperature", role)),
            max_tokens=int(max_tokens) if max_tokens is not None else None,
            max_context_tokens=int(look.get("max_context_tokens", role)), api_key=look.api_key(role),
        )
    except ValueError as exc:
        raise ConfigError(f"LLM setting of role {role} is not a number: {exc}") from None
    if endpoint.input_budget < MIN_INPUT_TOKENS:
        raise ConfigError(f"role {role}: max_context_tokens {endpoint.max_context_tokens} leaves "
                          f"{endpoint.input_budget} tokens for the input after the reply's; at least "
                          f"{MIN_INPUT_TOKENS} are needed")
    return endpoint


def _price(model: str, spec: dict[str, Any]) -> Price:
    """One entry of the price table, checked."""
    try:
        return Price(float(spec["input_per_mtok"]), float(spec["output_per_mtok"]))
    except (KeyError, TypeError, ValueError):
        raise ConfigError(f"price of model {model!r} needs numeric input_per_mtok and output_per_mtok") from None


def _read_file(path: str | None) -> dict[str, Any]:
    """The `[llm]` table of the configuration file, or nothing when no file is named."""
    if not path:
        return {}
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{CONFIG_ENV} names {Path(path).name}, which does not exist") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{Path(path).name}: not valid TOML ({exc})") from None
    if "api_key" in data.get("llm", {}) or any("api_key" in r for r in data.get("llm", {}).get("roles", {}).values()):
        raise ConfigError(f"{Path(path).name}: keys do not belong in the file; name their variable with api_key_env")
    return data.get("llm", {})
