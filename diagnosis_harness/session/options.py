"""What a server client may choose for one run: a declared model or dataset, lower budgets.

Nothing else (docs/design.md §14).

Studio and the SDK pass these as the run's (or the assistant's) ``context``. The server declares
the choice (``HARNESS_SERVE_MODELS``, ``HARNESS_SERVE_DATASETS``); a client names an entry, never
a file, a URL or a database. Budgets can only be lowered: a value above the server's is refused,
not clamped, so nobody believes a limit they do not have. Guards, thresholds, approval and stores
are not options at all. A refused option ends the turn as INVALID_INPUT, naming the option.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, PositiveFloat, PositiveInt, ValidationError

from diagnosis_harness.control.settings import Settings

BUDGETS = ("max_model_calls", "max_tool_calls", "max_tokens", "max_run_bytes", "deadline_s")
"""The budgets a client may lower for its run (docs/design.md §6)."""

DEFAULT_DATASET = "default"
"""The name of the dataset the server is configured with."""


class RunOptions(BaseModel):
    """A client's choices for one run; every field optional, no other keys."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str | None = None
    """One of the server's declared model specs."""
    dataset: str | None = None
    """``default`` or the name of one of the server's declared datasets."""
    max_model_calls: PositiveInt | None = None
    max_tool_calls: PositiveInt | None = None
    max_tokens: PositiveInt | None = None
    max_run_bytes: PositiveInt | None = None
    deadline_s: PositiveFloat | None = None

    def chosen(self) -> dict[str, Any]:
        """Only what the client set (what the run's lineage records)."""
        return self.model_dump(exclude_none=True)


def offered_models(settings: Settings) -> list[str]:
    """The model specs a client may pick: the configured one first, then the declared ones."""
    return list(dict.fromkeys([settings.model, *settings.serve_models]))


def read_options(raw: Any, settings: Settings) -> tuple[RunOptions, str | None]:
    """The client's options and, if they cannot be used, why (the run is then INVALID_INPUT)."""
    if raw is None or raw == {}:
        return RunOptions(), None
    if not isinstance(raw, dict):
        return RunOptions(), "the run's context must be an object of run options"
    try:
        options = RunOptions.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'context'}: {e['msg']}"
                             for e in exc.errors())
        return RunOptions(), f"run options refused — {problems}"
    if options.model is not None and options.model not in offered_models(settings):
        return RunOptions(), (f"model {options.model!r} is not offered by this server; pick one of "
                              f"{', '.join(offered_models(settings))}")
    datasets = [DEFAULT_DATASET, *settings.serve_datasets]
    if options.dataset is not None and options.dataset not in datasets:
        return RunOptions(), (f"dataset {options.dataset!r} is not offered by this server; pick one "
                              f"of {', '.join(datasets)}")
    for name in BUDGETS:
        asked, ceiling = getattr(options, name), getattr(settings, name)
        if asked is not None and asked > ceiling:
            return RunOptions(), (f"{name}={asked} would raise the server's budget ({ceiling}): "
                                  "a run may only lower it")
    return options, None


def run_settings(settings: Settings, options: RunOptions) -> Settings:
    """The settings of one run: the server's, with the budgets the client lowered."""
    lowered = {name: getattr(options, name) for name in BUDGETS if getattr(options, name) is not None}
    return settings.model_copy(update=lowered) if lowered else settings
