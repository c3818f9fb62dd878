"""What the TSDB holds, for the provenance checks of ``query_metrics`` (docs/design.md §17).

Two questions, each answered by Prometheus's read-only listing endpoints with the query's
timeout and the tool's byte cap (:mod:`diagnosis_harness.tools.promql_provenance` says why):

- :func:`refuse_unknown_names` — does every metric, label and matcher value the query names
  exist? (``/api/v1/label/__name__/values`` and ``/api/v1/label/<l>/values`` narrowed by
  ``match[]``, ``/api/v1/labels``)
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
    matcher_selector,
    unknown_names,
)

MAX_MATCHERS = 20
"""Label matchers a query may have (each with words is one listing request)."""
LISTING_BYTES = 1024 * 1024
"""Byte cap of one listing answer (at least; the tool's own cap when larger)."""


def _strings(data: Any) -> set[str]:
    return {v for v in data if isinstance(v, str)} if isinstance(data, list) else set()


def refuse_unknown_names(client: Prometheus, found: Provenance, timeout_s: float,
                         max_bytes: int) -> None:
    """PromqlRejected naming what the query names that this Prometheus does not have.

    Each listing is narrowed by ``match[]`` to what the query names, so its answer stays small
    however big the TSDB: the metric names among the query's, the values of a label that a
    matcher's value or regex selects.
    """
    if len(found.matchers) > MAX_MATCHERS:
        raise PromqlRejected(f"the query has {len(found.matchers)} label matchers; at most "
                             f"{MAX_MATCHERS}")
    if any(not label_name_ok(m.label) for m in found.matchers):
        raise PromqlRejected("a matcher's label is not a label name")
    budget = max(max_bytes, LISTING_BYTES)
    metrics: set[str] = set()
    if found.metrics:
        metrics = _strings(client.get_json(
            "names", [("match[]", f'{{__name__="{m}"}}') for m in sorted(found.metrics)],
            timeout_s=timeout_s, max_bytes=budget))
    labels = _strings(client.get_json("labels", {}, timeout_s=timeout_s, max_bytes=budget)) \
        if found.labels - {"__name__"} else set()
    values = {}
    for matcher in found.matchers:
        selector = matcher_selector(matcher)
        if selector is not None and matcher not in values:
            values[matcher] = _strings(client.get_json(
                "label_values", [("match[]", selector)], timeout_s=timeout_s,
                max_bytes=budget, name=matcher.label))
    problems = unknown_names(found, metrics, labels, values)
    if problems:
        raise PromqlRejected(
            "the query names what this Prometheus does not have: " + "; ".join(problems[:6])
            + " — a query may name only stored metrics, labels and label values (words that "
            "select nothing are the query's, not the data's)")


def _selector(labels: dict[str, str], narrow: str | None = None) -> str:
    def quoted(v: str) -> str:
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    exact = [f"{k}={quoted(v)}" for k, v in sorted(labels.items())]
    if narrow and "__name__" not in labels:
        exact.insert(0, f"__name__=~{quoted(narrow)}")
    return "{" + ",".join(exact) + "}"


def unbacked_labels(client: Prometheus, label_sets: Sequence[dict[str, str]], timeout_s: float,
                    max_bytes: int, metrics: set[str] | None = None) -> list[bool]:
    """Per label set: True when no stored series has all of its labels (an empty set: False).

    ``metrics``, the metrics the query reads (None: not known), narrows each lookup to their
    series, so an aggregate's ``{job="api"}`` does not list every series of that job.
    """
    narrow = "|".join(sorted(metrics)) if metrics else None
    distinct = sorted({_selector(s, narrow) for s in label_sets
                       if s and all(label_name_ok(k) for k in s)})
    stored: list[set[tuple[str, str]]] = []
    if distinct:
        try:
            data = client.get_json("series", [("match[]", d) for d in distinct],
                                   timeout_s=timeout_s, max_bytes=max(max_bytes, LISTING_BYTES))
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
