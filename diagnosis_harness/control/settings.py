"""Every budget, timeout and threshold of the design in one settings class.

Read from the environment (prefix ``HARNESS_``) and from a ``.env`` file in the working
directory. The model endpoint comes from the usual ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL``.
A malformed value is reported by :func:`load_settings` as a :class:`SettingsError` that names
the variable, never as a traceback.
"""

from __future__ import annotations

import re
from datetime import timedelta, timezone, tzinfo
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from diagnosis_harness.control.secrets import remember

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB
HOUR_S = 3600.0
DAY_S = 24 * HOUR_S
"""Every number has an upper bound as well as a lower one: a value past it is a typo or an
attack, never a setting (``HARNESS_SQL_TIMEOUT_S=1e308`` overflowed the first deadline sum).
Timeouts are at most an hour, a run's deadline a day, byte limits 1 GiB, counts generous but
finite; floats must be finite (no NaN, no inf). docs/configuration.md lists them."""
POSTGRES_SCHEMES = ("postgresql", "postgres", "postgresql+psycopg")
"""URL schemes HARNESS_DATABASE_URL accepts (psycopg 3 is the one driver the postgres extra brings)."""


class SettingsError(ValueError):
    """A settings value is malformed; the message names the variable and what is expected."""


class Settings(BaseSettings):
    """Run-control settings; each default is the design's documented default."""

    model_config = SettingsConfigDict(
        env_prefix="HARNESS_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        frozen=True,
    )

    # --- models ---------------------------------------------------------------------------
    model: str = "offline"
    """Model spec for every role: ``offline``, ``openai:NAME`` or ``replay:FILE``."""
    agent_protocol: Literal["tools", "json"] = "tools"
    """How the agent asks for tools: native tool calls, or one JSON envelope per turn."""
    openai_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("OPENAI_API_KEY", "HARNESS_OPENAI_API_KEY")
    )
    """API key for ``openai:`` models (``OPENAI_API_KEY``)."""
    openai_base_url: str | None = Field(
        default=None, validation_alias=AliasChoices("OPENAI_BASE_URL", "HARNESS_OPENAI_BASE_URL")
    )
    """Base URL of any OpenAI-compatible server (``OPENAI_BASE_URL``); None means OpenAI's."""
    structured_output: Literal["auto", "json_schema", "json_object_schema", "off"] = "off"
    """Schema-constrained answers from ``openai:`` servers: ``json_schema`` (strict, OpenAI,
    vLLM, Ollama), ``json_object_schema`` (llama.cpp), ``off`` (plain JSON mode), or ``auto``
    (probe the server once per process, when the model seam is built, before any run)."""
    structured_probe_timeout_s: float = Field(default=30.0, gt=0, le=HOUR_S, allow_inf_nan=False)
    """Timeout of one request of the ``auto`` probe (a one-token answer per candidate format)."""
    model_context_tokens: int | None = Field(default=None, gt=0, le=100_000_000)
    """The model's context window in tokens; when set, every call's prompt is estimated
    (conservatively) and a call that would not fit stops the run as BUDGET_EXHAUSTED first."""
    judge_model: str | None = None
    """Model spec of the semantic judge alone (``offline``, ``openai:NAME``, ``replay:FILE``);
    None: the run's model judges its own draft. A small local agent with a stronger judge is
    the usual reason: the judge is one call per run."""
    judge_base_url: str | None = None
    """OpenAI-compatible server of an ``openai:`` judge; None: ``OPENAI_BASE_URL``."""
    judge_api_key: SecretStr | None = None
    """API key of that server; None: ``OPENAI_API_KEY``."""
    judge_context_tokens: int | None = Field(default=None, gt=0, le=100_000_000)
    """The judge model's context window (as ``model_context_tokens``); only with ``judge_model``."""

    # --- data and persistence ---------------------------------------------------------------
    data_dir: Path | None = None
    """Incident dataset directory (docs/design.md §11); None means the built-in demo dataset."""
    home: Path = Path(".harness")
    """Where the embedded backends, the checkpointer and the run store keep their SQLite files."""
    database_url: SecretStr | None = None
    """A ``postgresql://`` URL for the run store and the checkpointer (a server several workers
    share); None keeps both in SQLite files under ``home``."""
    checkpoint_retention: Literal["latest", "all"] = "latest"
    """Checkpoints kept once a run ends: ``latest`` per thread (what a next turn needs), or ``all``."""
    timezone: str = "UTC"
    """Zone that times in questions are read in ("between 10:00 and 10:10"): IANA name or ±HH:MM."""
    lookback_minutes: int = Field(default=30, gt=0, le=30 * 24 * 60)
    """Time window used when the question names none, ending at the dataset's latest event
    (at most 30 days: a longer one is a typo, and overflowed date arithmetic later)."""

    # --- the final draft turn (docs/design.md §6) ------------------------------------------
    final_reserve_tokens: int = Field(default=6000, ge=0, le=1_000_000_000)
    """Tokens an investigation leaves, beyond the final turn's input, for the draft's answer and
    the judge's call: collection ends early enough for both."""

    # --- budgets (docs/design.md §6) --------------------------------------------------------
    max_model_calls: int = Field(default=16, gt=0, le=10_000)
    """Model calls per run, all roles together (router, agent, judge, repair)."""
    max_tool_calls: int = Field(default=10, gt=0, le=10_000)
    """Evidence tool invocations per run."""
    max_tokens: int = Field(default=120_000, gt=0, le=1_000_000_000)
    """Prompt + completion tokens per run, from the providers' usage metadata."""
    max_run_bytes: int = Field(default=1024 * KIB, gt=0, le=GIB)
    """Bytes per run: input, tool results and draft together."""
    deadline_s: float = Field(default=300.0, gt=0, le=DAY_S, allow_inf_nan=False)
    """Deadline of one run's run time (monotonic; a resumed run keeps what it already spent)."""
    lease_s: float = Field(default=30.0, gt=0, le=HOUR_S, allow_inf_nan=False)
    """How long a worker owns a running run without a heartbeat (renewed every third of it)."""

    # --- byte limits (docs/design.md §6) ----------------------------------------------------
    max_question_bytes: int = Field(default=4 * KIB, gt=0, le=GIB)
    """Largest question accepted (UTF-8 bytes)."""
    max_previous_turn_bytes: int = Field(default=8 * KIB, gt=0, le=GIB)
    """Largest previous-turn summary carried into the next turn."""
    max_agent_input_bytes: int = Field(default=16 * KIB, gt=0, le=GIB)
    """Largest first agent message (question + previous turn + instructions)."""
    max_draft_bytes: int = Field(default=32 * KIB, gt=0, le=GIB)
    """Largest final draft accepted from the agent."""
    max_observation_bytes: int = Field(default=16 * KIB, gt=0, le=GIB)
    """Largest observation shown to the model; larger ones are truncated and flagged."""
    max_tool_result_bytes: int = Field(default=256 * KIB, gt=0, le=GIB)
    """Largest raw tool result; larger ones become an ERROR record."""

    # --- progress (docs/design.md §7) -------------------------------------------------------
    saturation_threshold: int = Field(default=3, gt=0, le=1000)
    """Consecutive NO_GAIN observations that saturate evidence collection."""
    protocol_violation_threshold: int = Field(default=3, gt=0, le=1000)
    """Consecutive progress-protocol violations that stop collection."""
    required_context: Annotated[list[Literal["service", "merchant", "window"]], NoDecode] = [
        "service"
    ]
    """Context a diagnosis needs before any evidence call (comma-separated in the environment)."""

    # --- timeouts and retry (docs/design.md §6) ---------------------------------------------
    agent_call_timeout_s: float = Field(default=60.0, gt=0, le=HOUR_S, allow_inf_nan=False)
    """Timeout of one agent model call (never retried)."""
    router_attempts: int = Field(default=2, ge=1, le=10)
    """Router attempts."""
    router_attempt_timeout_s: float = Field(default=10.0, gt=0, le=HOUR_S, allow_inf_nan=False)
    """Router per-attempt timeout."""
    router_total_timeout_s: float = Field(default=25.0, gt=0, le=HOUR_S, allow_inf_nan=False)
    """Router total time over all attempts."""
    judge_attempts: int = Field(default=2, ge=1, le=10)
    """Semantic judge attempts."""
    judge_attempt_timeout_s: float = Field(default=20.0, gt=0, le=HOUR_S, allow_inf_nan=False)
    """Semantic judge per-attempt timeout."""
    judge_total_timeout_s: float = Field(default=45.0, gt=0, le=HOUR_S, allow_inf_nan=False)
    """Semantic judge total time over all attempts."""
    repair_attempts: int = Field(default=1, ge=1, le=10)
    """Evidence-repair attempts."""
    repair_attempt_timeout_s: float = Field(default=30.0, gt=0, le=HOUR_S, allow_inf_nan=False)
    """Evidence-repair per-attempt timeout."""
    repair_total_timeout_s: float = Field(default=30.0, gt=0, le=HOUR_S, allow_inf_nan=False)
    """Evidence-repair total time."""

    # --- tools ------------------------------------------------------------------------------
    max_log_window_minutes: int = Field(default=1440, gt=0, le=366 * 24 * 60)
    """Longest time window one query_logs call may cover; longer ones are an input error."""
    log_events_default_limit: int = Field(default=20, gt=0, le=200)
    """Events query_logs returns when the model gives no limit."""
    max_sql_rows: int = Field(default=100, gt=0, le=100_000)
    """Rows query_mysql returns at most; further rows are cut and the record flagged truncated."""
    sql_timeout_s: float = Field(default=2.0, gt=0, le=HOUR_S, allow_inf_nan=False)
    """Wall-clock limit of one query_mysql statement."""
    knowledge_top_k: int = Field(default=3, gt=0, le=10)
    """Passages lookup_knowledge returns when the model gives no top_k."""
    ops_db_url: SecretStr | None = None
    """SQLAlchemy URL of a real operational database for query_mysql; None uses the dataset's."""
    ops_tables: str | None = None
    """Comma-separated table allow-list for ops_db_url; None allows every table the URL can see."""

    # --- harness data import (docs/data.md) ----------------------------------------------
    import_max_line_bytes: int = Field(default=1024 * KIB, gt=0, le=1024 * MIB)
    """Longest line of an imported file (its line break not counted); a longer one is refused
    with its ``file:line`` after reading that many bytes, never read whole."""
    import_max_bytes: int = Field(default=4 * GIB, gt=0, le=1024 * GIB)
    """Decompressed bytes one import reads from all its sources together (gzip bombs)."""
    import_max_document_bytes: int = Field(default=64 * MIB, gt=0, le=4 * GIB)
    """Largest JSON document an import reads whole (one array or object, not JSON lines)."""

    # --- serving, Studio and approval (docs/design.md §14) -------------------------------
    approval: Literal["off", "before_publish"] = "off"
    """``before_publish``: a verified root cause waits for a human's decision before release."""
    serve_models: Annotated[list[str], NoDecode] = []
    """Model specs a server client may pick per run (comma-separated); ``model`` always counts."""
    serve_datasets: Annotated[dict[str, Path], NoDecode] = {}
    """Datasets a server client may pick per run, ``name=DIR`` comma-separated; the configured
    one is always available as ``default``."""

    @field_validator("serve_datasets", mode="before")
    @classmethod
    def _split_datasets(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        named: dict[str, str] = {}
        for part in _csv(value):
            name, sep, folder = part.partition("=")
            if not sep or not re.fullmatch(r"[A-Za-z0-9_.-]+", name.strip()) or not folder.strip():
                raise ValueError(f"{part!r} is not NAME=DIR (NAME: letters, digits, _ . -)")
            if name.strip() == "default":
                raise ValueError("'default' names the configured dataset; pick another name")
            named[name.strip()] = folder.strip()
        return named

    server_token: SecretStr | None = None
    """The one credential of every route of the served app (bearer token, or basic auth's
    password); unset: only loopback clients are served (docs/security.md)."""

    # --- alerts, notifications and live metrics (docs/alerts.md, docs/design.md §17) -------
    alerts_token: SecretStr | None = None
    """The secret of ``POST /alerts/*`` (bearer token, or basic auth's password); unset: 404."""
    alerts_max_body_bytes: int = Field(default=256 * KIB, gt=0, le=GIB)
    """Largest alert notification accepted (413 above)."""
    alerts_lookback_s: float = Field(default=900.0, ge=0, le=30 * DAY_S, allow_inf_nan=False)
    """How far before an alert's ``startsAt`` its investigation's window begins."""
    alerts_service_labels: Annotated[list[str], NoDecode] = ["service", "job", "app"]
    """Alert labels naming the service, first match wins (comma-separated)."""
    notify_url: SecretStr | None = None
    """Generic JSON webhooks (comma-separated) that get each alert run's outcome once."""
    slack_webhook_url: SecretStr | None = None
    """A Slack-compatible incoming webhook for each alert run's outcome."""
    github_repo: str | None = None
    """``owner/name`` whose issue (the alert's ``github_issue`` label/annotation) gets a comment."""
    github_token: SecretStr | None = None
    """The token of those comments."""
    github_api_url: str = "https://api.github.com"
    """GitHub's API base URL (a GitHub Enterprise server, or a local emulator in tests)."""
    notify_timeout_s: float = Field(default=10.0, gt=0, le=HOUR_S, allow_inf_nan=False)
    """Timeout of one post; a post that fails or hangs is retried with backoff."""
    public_url: str | None = None
    """Where people reach the served harness (``https://harness.example.com``): each post links
    the run at ``PUBLIC_URL/runs/RUN_ID``. Unset: the post says ``harness runs show RUN_ID``."""
    prometheus_url: str | None = None
    """Base URL of a Prometheus server whose HTTP API ``query_metrics`` reads (read endpoints only)."""
    prometheus_timeout_s: float = Field(default=10.0, gt=0, le=HOUR_S, allow_inf_nan=False)
    """Wall-clock limit of one ``query_metrics`` request; never past the run's deadline."""

    @field_validator("prometheus_url", mode="before")
    @classmethod
    def _prometheus_url(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip():
            return None
        if isinstance(value, str):
            parts = urlsplit(value.strip())
            if parts.scheme not in ("http", "https") or not parts.hostname \
                    or parts.query or parts.fragment:
                raise ValueError("HARNESS_PROMETHEUS_URL must be an http(s) URL with a host and "
                                 "no query string, e.g. http://127.0.0.1:9090")
            return value.strip().rstrip("/")
        return value

    @field_validator("public_url", mode="before")
    @classmethod
    def _public_url(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip():
            return None
        if not isinstance(value, str):
            return value
        text = value.strip()
        parts = urlsplit(text)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.query \
                or parts.fragment or _UNSAFE_IN_LINK.search(text):
            raise ValueError("HARNESS_PUBLIC_URL must be an http(s) URL with a host, no query "
                             "string and no spaces, e.g. https://harness.example.com")
        if parts.username is not None or parts.password is not None:
            # The link is posted to Slack and GitHub for people to read: no secret in it.
            raise ValueError("HARNESS_PUBLIC_URL must not carry credentials (user:password@): "
                             "it is posted in every message")
        return text.rstrip("/")

    # --- harness eval (docs/eval.md) ---------------------------------------------------------
    price_table: Path | None = None
    """JSON price table (``{"models": {NAME: {"input_per_million", "output_per_million"}}}``) whose
    models replace those of the built-in one (``diagnosis_harness/eval/prices.json``) by name."""

    # --- MCP servers (README: evidence tools from MCP servers) ------------------------------
    mcp_config: Path | None = None
    """JSON file of MCP servers (``{"mcpServers": {…}}``) whose allow-listed tools become evidence tools."""
    mcp_allow: str | None = None
    """Comma-separated ``server.tool`` names added to the config's ``allow`` lists."""
    mcp_allow_unmarked: str | None = None
    """Comma-separated ``server.tool`` names added to the config's ``allow_unmarked`` lists."""
    mcp_call_timeout_s: float = Field(default=30.0, gt=0, le=HOUR_S, allow_inf_nan=False)
    """Wall-clock limit of one MCP tool call (server start included); never past the run's deadline."""
    mcp_start_timeout_s: float = Field(default=30.0, gt=0, le=HOUR_S, allow_inf_nan=False)
    """Time to start the MCP servers and list their tools when the harness starts."""

    @field_validator("serve_models", "alerts_service_labels", "required_context", mode="before")
    @classmethod
    def _split_csv(cls, value: object) -> object:
        # The list settings are comma-separated in the environment (NoDecode: not JSON).
        return _csv(value) if isinstance(value, str) else value

    @field_validator("database_url")
    @classmethod
    def _postgres_url(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None or not value.get_secret_value().strip():
            return None
        text = value.get_secret_value().strip()
        scheme = text.split("://", 1)[0].lower() if "://" in text else ""
        if scheme not in POSTGRES_SCHEMES:
            raise ValueError("must be a postgresql:// or postgresql+psycopg:// URL "
                             "(leave it unset for SQLite files under HARNESS_HOME)")
        try:
            urlsplit(text).port  # noqa: B018 — parsing it is the check
        except ValueError:
            raise ValueError("has a port that is not a number (postgresql://user:password@host:5432/db)"
                             ) from None  # the URL itself is not shown: it may hold a password
        return SecretStr(text)

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        zone_of(value)
        return value

    @field_validator("model")
    @classmethod
    def _model_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must name a model: offline, openai:NAME or replay:FILE")
        return value.strip()

    @field_validator("judge_model", "judge_base_url")
    @classmethod
    def _blank_is_unset(cls, value: str | None) -> str | None:
        return value.strip() or None if value is not None else None

    def model_post_init(self, context: object, /) -> None:
        """Register this object's secrets for redaction (diagnosis_harness.control.secrets)."""
        remember(self)


def _csv(text: str) -> list[str]:
    """The non-blank parts of a comma-separated setting, stripped."""
    return [part.strip() for part in text.split(",") if part.strip()]


_UNSAFE_IN_LINK = re.compile(r"[\s<>|\"'`\\\x00-\x1f\x7f]")
"""Characters that would end or reshape a link in Slack or GitHub markup."""


def zone_of(name: str) -> tzinfo:
    """The tzinfo of an IANA zone name or a fixed ``±HH:MM`` offset; ValueError otherwise."""
    match = re.fullmatch(r"([+-])(\d{2}):?(\d{2})", name.strip())
    if match:
        sign = 1 if match.group(1) == "+" else -1
        return timezone(sign * timedelta(hours=int(match.group(2)), minutes=int(match.group(3))))
    try:
        return ZoneInfo(name.strip())
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {name!r}: use an IANA name (Europe/Berlin) or "
                         "an offset (+02:00)") from None


_SECRET_FIELDS = {"database_url", "ops_db_url", "openai_api_key", "OPENAI_API_KEY", "judge_api_key",
                  "alerts_token", "server_token", "notify_url", "slack_webhook_url", "github_token",
                  "public_url"}  # a refused public URL may carry a password: never echoed


def load_settings(**overrides: object) -> Settings:
    """Build settings from environment, ``.env`` and overrides; raise SettingsError if malformed."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            field = ".".join(str(p) for p in err["loc"]) or "settings"
            env = field if field.startswith("OPENAI_") else f"HARNESS_{field.upper()}"
            # A secret (a database URL with its password) is never echoed back.
            got = "***" if field in _SECRET_FIELDS else repr(err.get("input"))
            problems.append(f"{env}: {err['msg']} (got {got})")
        raise SettingsError("invalid settings — " + "; ".join(problems)) from None
