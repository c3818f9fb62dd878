"""Eval suites: what a team expects of the harness on its own past incidents (docs/eval.md).

A suite is a list of cases, each a question on a dataset and the outcome the team expects of
it. Three file forms are read, all into the same :class:`Suite`:

- YAML or JSON: ``{"name": …, "cases": [case, …]}`` (``.yaml``, ``.yml``, ``.json``);
- JSONL: one case object per line (``.jsonl``; the suite is named after the file);
- a truth file in the shape of ``tools/demo_data/truth.json`` (``incidents`` and optionally
  ``no_evidence``), with the dataset in the truth file's own folder: that is how the built-in
  ``demo`` suite and generated incident worlds are scored without writing a suite for them.

Paths in a suite (``dataset``, a ``replay:FILE`` model) are relative to the suite's folder. A
broken suite raises :class:`SuiteError` with one line naming the file, the case and the field,
before anything runs. The JSON Schema in ``docs/eval-suite.schema.json`` is generated from the
models here (:func:`json_schema`) and a test keeps the two equal.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from diagnosis_harness.control.contracts import FailureCode, FallbackType

DEMO_SUITE = "demo"
"""The built-in suite: the demo dataset's truth file (7 cases)."""

_ID = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,79}$"


class SuiteError(ValueError):
    """A suite that cannot be run as written: one line, naming the file, the case and the field."""


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


class RootCauseMatch(_Strict):
    """What a published root cause must contain (case-insensitive): all terms, any term, a regex."""

    all: tuple[str, ...] = ()
    """Every one of these terms must appear in the root cause."""
    any: tuple[str, ...] = ()
    """At least one of these terms must appear in the root cause."""
    regex: str | None = None
    """A Python regular expression the root cause must match (``re.search``, case-insensitive)."""

    @field_validator("regex")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"not a valid regular expression: {exc}") from None
        return value

    @model_validator(mode="after")
    def _something(self) -> RootCauseMatch:
        if not (self.all or self.any or self.regex):
            raise ValueError("give at least one of all, any, regex")
        if any(not t.strip() for t in (*self.all, *self.any)):
            raise ValueError("a term must not be blank")
        return self


class CitedEvidence(_Strict):
    """Evidence a right root cause must cite: a cited record whose text contains ``contains``."""

    contains: str = Field(min_length=1)
    """Text of the record (a log line, a table row as ``key=value, …``, a runbook passage), e.g.
    a change id ``CHG-2041`` or a log record's message."""
    tool: str | None = None
    """Only records of this evidence tool count (``query_logs``, ``query_mysql``, …)."""


class Expectation(_Strict):
    """The outcome a case must have, and for a SUCCESS what makes it the right one."""

    outcome: str
    """``SUCCESS``, ``FALLBACK``, ``FALLBACK/TYPE`` (e.g. ``FALLBACK/INSUFFICIENT_EVIDENCE``),
    ``FAILED`` or ``FAILED/CODE`` (e.g. ``FAILED/RUN_TIMED_OUT``)."""
    root_cause: RootCauseMatch | None = None
    """For SUCCESS (required there): what the published root cause must contain."""
    cites: tuple[CitedEvidence, ...] = ()
    """For SUCCESS: evidence the published claims must cite, each at least once."""

    @field_validator("outcome")
    @classmethod
    def _known(cls, value: str) -> str:
        head, _, detail = value.strip().partition("/")
        kinds = {"SUCCESS": (), "FALLBACK": tuple(FallbackType), "FAILED": tuple(FailureCode)}
        if head not in kinds or (detail and detail not in kinds[head]) or (head == "SUCCESS" and detail):
            raise ValueError(f"{value!r} is not SUCCESS, FALLBACK[/TYPE] or FAILED[/CODE]")
        return value.strip()

    @model_validator(mode="after")
    def _cause_for_success(self) -> Expectation:
        if self.release == "SUCCESS" and self.root_cause is None:
            raise ValueError("a SUCCESS needs root_cause (all, any or regex)")
        if self.release != "SUCCESS" and (self.root_cause is not None or self.cites):
            raise ValueError("root_cause and cites are only for an expected SUCCESS")
        return self

    @property
    def release(self) -> str:
        """The expected release outcome without its type or code."""
        return self.outcome.partition("/")[0]

    @property
    def detail(self) -> str | None:
        """The expected fallback type or failure code, if the expectation names one."""
        return self.outcome.partition("/")[2] or None


class Case(_Strict):
    """One incident question, its dataset and what the team expects."""

    id: str = Field(pattern=_ID)
    question: str = Field(min_length=1)
    dataset: str | None = None
    """The dataset folder, relative to the suite file (None: the built-in demo dataset)."""
    thread: tuple[str, ...] = ()
    """Earlier turns of the same thread, asked first, in order; the case scores ``question``."""
    model: str | None = None
    """This case's own model spec (e.g. ``replay:wrong-1.json``, relative to the suite);
    None: the eval's ``--model``."""
    deadline_s: float | None = Field(default=None, gt=0)
    """This case's run deadline (None: ``HARNESS_DEADLINE_S``)."""
    expect: Expectation
    tags: tuple[str, ...] = ()


class Suite(_Strict):
    """A named list of cases with unique ids; ``root`` is the folder paths are relative to."""

    name: str = Field(min_length=1)
    description: str | None = None
    cases: tuple[Case, ...] = Field(min_length=1)
    root: str = Field(default=".", exclude=True)

    @model_validator(mode="after")
    def _unique(self) -> Suite:
        seen: set[str] = set()
        for case in self.cases:
            if case.id in seen:
                raise ValueError(f"case {case.id}: id: used by two cases")
            seen.add(case.id)
        return self

    def dataset_dir(self, case: Case) -> Path | None:
        """The case's dataset folder, resolved (None: the demo dataset)."""
        return None if case.dataset is None else (Path(self.root) / case.dataset).resolve()

    def model_spec(self, case: Case, default: str) -> str:
        """The case's model spec with a ``replay:`` file resolved against the suite's folder."""
        spec = case.model or default
        if case.model and spec.startswith("replay:"):
            return "replay:" + str((Path(self.root) / spec.removeprefix("replay:")).resolve())
        return spec

    def case_digest(self, case: Case) -> str:
        """A digest of what the case asks (for ``--resume``: an edited case runs again)."""
        text = json.dumps(case.model_dump(mode="json"), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a YAML/JSON suite file (docs/eval-suite.schema.json)."""
    schema = Suite.model_json_schema(mode="validation")
    schema["properties"].pop("root", None)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "harness eval suite"
    return schema


def load_suite(source: str | Path) -> Suite:
    """Read a suite file (YAML, JSON, JSONL or a truth file) or the built-in ``demo``."""
    if str(source) == DEMO_SUITE:
        from diagnosis_harness.tools.dataset.layout import demo_dataset_dir

        return _from_truth(_read_json(demo_dataset_dir() / "truth.json"), DEMO_SUITE,
                           demo_dataset_dir(), demo=True)
    path = Path(source)
    if not path.is_file():
        raise SuiteError(f"suite {path}: no such file (or use the built-in suite 'demo')")
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        cases = [_json_line(path, n, line) for n, line in
                 enumerate(_read_text(path).splitlines(), start=1) if line.strip()]
        return _validated({"name": path.stem, "cases": cases}, path)
    if suffix in (".yaml", ".yml"):
        data = _read_yaml(path)
    elif suffix == ".json":
        data = _read_json(path)
    else:
        raise SuiteError(f"suite {path}: unknown kind of file; use .yaml, .yml, .json or .jsonl")
    if isinstance(data, dict) and "incidents" in data and "cases" not in data:
        return _from_truth(data, path.stem, path.parent, demo=False, where=path)
    if isinstance(data, dict):
        data.setdefault("name", path.stem)
    return _validated(data, path)


def _validated(data: object, path: Path) -> Suite:
    if not isinstance(data, dict):
        raise SuiteError(f"suite {path}: must hold one object with name and cases")
    try:
        return Suite.model_validate({**data, "root": str(path.parent.resolve())})
    except ValidationError as exc:
        raise SuiteError(f"suite {path}: {_where(exc, data)}") from None


def _where(exc: ValidationError, data: dict[str, Any]) -> str:
    """The first problem as ``case ID: field.path: message``."""
    err = exc.errors()[0]
    loc = list(err["loc"])
    head = ""
    if len(loc) >= 2 and loc[0] == "cases" and isinstance(loc[1], int):
        case = (data.get("cases") or [])[loc[1]]
        name = case.get("id") if isinstance(case, dict) else None
        head = f"case {name if isinstance(name, str) and name else '#' + str(loc[1] + 1)}: "
        loc = loc[2:]
    field = ".".join(str(p) for p in loc) or "case"
    message = err["msg"].removeprefix("Value error, ")
    return f"{head}{field}: {message}"


def _from_truth(data: object, name: str, root: Path, *, demo: bool, where: Path | None = None) -> Suite:
    """A truth file as a suite: each incident's expected outcome; its key terms, all required."""
    shown = where or root / "truth.json"
    if not isinstance(data, dict) or not isinstance(data.get("incidents"), list):
        raise SuiteError(f"suite {shown}: a truth file needs a list of incidents")
    cases = []
    for item in [*data["incidents"], *(data.get("no_evidence") or [])]:
        if not isinstance(item, dict):
            raise SuiteError(f"suite {shown}: every incident must be an object")
        outcome = item.get("expected_outcome")
        if outcome == "FALLBACK" and item.get("fallback_type"):
            outcome = f"FALLBACK/{item['fallback_type']}"
        expect: dict[str, Any] = {"outcome": outcome}
        if outcome == "SUCCESS":
            expect["root_cause"] = {"all": item.get("key_terms") or []}
        cases.append({"id": item.get("id"), "question": item.get("question"), "expect": expect,
                      "dataset": None if demo else ".",
                      "tags": [t for t in ("runbook" if item.get("has_runbook") else "no-runbook",
                                           item.get("service"),
                                           item.get("cause_service")
                                           and f"cause:{item['cause_service']}") if t]})
    return _validated({"name": name, "description": f"the incidents of {shown.name}",
                       "cases": cases}, shown)


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteError(f"suite {path}: cannot be read: {exc}") from None


def _read_json(path: Path) -> object:
    try:
        return json.loads(_read_text(path))
    except (json.JSONDecodeError, RecursionError) as exc:
        raise SuiteError(f"suite {path}: not valid JSON: {exc}") from None


def _read_yaml(path: Path) -> object:
    import yaml

    try:
        return yaml.safe_load(_read_text(path))
    except yaml.YAMLError as exc:
        raise SuiteError(f"suite {path}: not valid YAML: {' '.join(str(exc).split())}") from None


def _json_line(path: Path, number: int, line: str) -> object:
    try:
        return json.loads(line)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise SuiteError(f"suite {path}: line {number}: not valid JSON: {exc}") from None

