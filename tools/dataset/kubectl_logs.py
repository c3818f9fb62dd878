"""``kubectl logs --timestamps``: the RFC 3339 time kubectl puts before each line, then the line.

The prefix (nanoseconds, the time the container runtime received the line) is the event's time;
what follows is read in its own format, detected from the file's first lines: JSON records keep
their level, message and fields, a text log line its level and message (its own time kept as
``logged_at``), a plain line its text, with stack-trace lines joined to the line they follow.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from diagnosis_harness.tools.dataset.json_logs import records
from diagnosis_harness.tools.dataset.records import RecordError
from diagnosis_harness.tools.dataset.sniff import JSON_FORMATS, KUBECTL_PREFIX, detect_format
from diagnosis_harness.tools.dataset.text_logs import Parsed, join_events

NOTE = "times from the kubectl --timestamps prefix; each line read as {inner}"


def inner_format(sample: list[str]) -> str:
    """The format of the lines after kubectl's times (``plain`` if they have none)."""
    rests = [m.group(2) for m in map(KUBECTL_PREFIX.match, sample) if m and m.group(2).strip()]
    found = detect_format(rests) if rests else None
    return found if found not in (None, "kubectl") else "plain"


def kubectl_events(lines: Iterator[tuple[int, str]], inner: str
                   ) -> Iterator[tuple[int, Parsed | RecordError, int]]:
    """``(first line, record or error, lines joined)`` for every event of a kubectl logs file."""
    times: dict[int, str] = {}

    def rests() -> Iterator[tuple[int, str]]:
        for lineno, line in lines:
            match = KUBECTL_PREFIX.match(line)
            if match is None:
                yield lineno, line  # an error unless it continues the event before it
                continue
            times[lineno] = match.group(1)
            yield lineno, match.group(2)

    if inner in JSON_FORMATS:
        for lineno, rest in rests():
            if not rest.strip():
                continue
            if lineno not in times:
                yield lineno, RecordError(f"no kubectl --timestamps time: {rest[:80]!r}"), 0
                continue
            try:
                for fields, _ts, message in records(json.loads(rest), inner):
                    yield lineno, (fields, times[lineno], message), 0
            except (json.JSONDecodeError, ValueError, AttributeError, TypeError) as exc:
                yield lineno, RecordError(f"not a {inner} JSON record after the time: {exc}"), 0
            except RecursionError:
                yield lineno, RecordError(f"not a {inner} JSON record after the time: nested "
                                          "too deeply"), 0
        return
    for first, parsed, joined in join_events(rests(), inner):
        if isinstance(parsed, RecordError):
            yield first, parsed, joined
        elif first not in times:
            yield first, RecordError("no kubectl --timestamps time at the start of the line"), 0
        else:
            fields, own_time, message = parsed
            if own_time is not None:
                fields = {**fields, "logged_at": own_time}
            yield first, (fields, times[first], message), joined
