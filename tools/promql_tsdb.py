"""What the TSDB holds, for the provenance checks of ``query_metrics`` (docs/design.md §17).

Two questions, each answered by Prometheus's read-only listing endpoints with the query's
timeout and the tool's byte cap (:mod:`diagnosis_harness.tools.promql_provenance` says why):

- :func:`refuse_unknown_names` — does every metric, label and matcher value the query names
  exist? (``/api/v1/label/__name__/values``, ``/api/v1/labels``, ``/api/v1/label/<l>/values``)
- :func:`unbacked_labels` — which returned series carry a label set that no stored series has?
  One ``/api/v1/series`` request with the exact matchers of every returned set: a set is backed
  when a stored series has all of its labels; otherwise its labels were put together by the
  query and are kept out of the citable fact.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from diagnosis_harness.tools.backends.prometheus import Prometheus, PrometheusError
from diagnosis_harness.tools.promql_provenance import (
    PromqlRejected,
    Provenance,
    label_name_ok,
    unknown_names,
)

MAX_MATCHED_LABELS = 20
"""Distinct labels a query's matchers may use (each is one listing request)."""


def _strings(data: Any) -> set[str]:
    return {v for v in data if isinstance(v, str)} if isinstance(data, list) else set()


def refuse_unknown_names(client: Prometheus, found: Provenance, timeout_s: float,
                         max_bytes: int) -> None:
    """PromqlRejected naming what the query names that this Prometheus does not have."""
    used = sorted({m.label for m in found.matchers})
    if len(used) > MAX_MATCHED_LABELS:
        raise PromqlRejected(f"the query's matchers use {len(used)} labels; at most "
                             f"{MAX_MATCHED_LABELS}")
    if any(not label_name_ok(n) for n in used):
        raise PromqlRejected("a matcher's label is not a label name")
    metrics = _strings(client.get_json("names", {}, timeout_s=timeout_s, max_bytes=max_bytes))
    labels = _strings(client.get_json("labels", {}, timeout_s=timeout_s, max_bytes=max_bytes))
    values = {n: _strings(client.get_json("label_values", {}, timeout_s=timeout_s,
                                          max_bytes=max_bytes, name=n)) for n in used}
    values.setdefault("__name__", metrics)
    problems = unknown_names(found, metrics, labels, values)
    if problems:
        raise PromqlRejected(
            "the query names what this Prometheus does not have: " + "; ".join(problems[:6])
            + " — a query may name only stored metrics, labels and label values (words that "
            "select nothing are the query's, not the data's)")


def _selector(labels: dict[str, str]) -> str:
    def quoted(v: str) -> str:
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    return "{" + ",".join(f"{k}={quoted(v)}" for k, v in sorted(labels.items())) + "}"


def unbacked_labels(client: Prometheus, label_sets: Sequence[dict[str, str]], timeout_s: float,
                    max_bytes: int) -> list[bool]:
    """Per label set: True when no stored series has all of its labels (an empty set: False)."""
    distinct = sorted({_selector(s) for s in label_sets if s and all(label_name_ok(k) or
                                                                      k == "__name__" for k in s)})
    stored: list[set[tuple[str, str]]] = []
    if distinct:
        try:
            data = client.get_json("series", [("match[]", d) for d in distinct],
                                   timeout_s=timeout_s, max_bytes=max_bytes)
        except PrometheusError as exc:
            if exc.code != "result_too_large":
                raise
            data = []  # every set unconfirmed: its labels are not cited (fail closed)
        stored = [{(str(k), str(v)) for k, v in s.items()} for s in data or []
                  if isinstance(s, dict)]
    out = []
    for labels in label_sets:
        pairs = set(labels.items())
        out.append(bool(pairs) and not any(pairs <= s for s in stored))
    return out
