"""Reading timestamps of real data: every common form to one UTC spelling, assumptions counted,
ambiguous day/month order never guessed silently."""

from __future__ import annotations

from datetime import timedelta, timezone

import pytest

from diagnosis_harness.tools.timeutil import TimeReader, TimestampError, format_utc, looks_like_time, parse_ts

CET = timezone(timedelta(hours=1))


@pytest.mark.parametrize(("value", "expected"), [
    ("2026-03-14T09:49:00Z", "2026-03-14T09:49:00Z"),
    ("2026-03-14T10:49:00+01:00", "2026-03-14T09:49:00Z"),
    ("2026-03-14 09:49:00", "2026-03-14T09:49:00Z"),               # no zone: the reader's zone
    ("2026-03-14 09:49:00,250", "2026-03-14T09:49:00.250Z"),        # log4j's decimal comma
    ("2026-03-14T09:49:00.123456789Z", "2026-03-14T09:49:00.123Z"),  # nanoseconds (Loki, OTel)
    ("14/03/2026 09:49", "2026-03-14T09:49:00Z"),                   # day-first, unambiguous
    ("3/14/2026 9:49 PM", "2026-03-14T21:49:00Z"),                  # month-first, 12-hour clock
    ("14.03.2026 09:49", "2026-03-14T09:49:00Z"),
    ("2026/03/14 09:49:00", "2026-03-14T09:49:00Z"),                # nginx error log
    ("14/Mar/2026:10:49:00 +0100", "2026-03-14T09:49:00Z"),         # access log
    ("Sat, 14 Mar 2026 09:49:00 +0000", "2026-03-14T09:49:00Z"),    # RFC 2822
    ("Sat Mar 14 09:49:00.5 2026", "2026-03-14T09:49:00.500Z"),     # Apache error log
    (1773481740, "2026-03-14T09:49:00Z"),                           # epoch seconds
    ("1773481740", "2026-03-14T09:49:00Z"),
    (1773481740.25, "2026-03-14T09:49:00.250Z"),                    # zap
    (1773481740250, "2026-03-14T09:49:00.250Z"),                    # pino: ms
    ("1773481740250000", "2026-03-14T09:49:00.250Z"),               # µs (journald)
    ("1773481740250000000", "2026-03-14T09:49:00.250Z"),            # ns (OTel, Loki)
])
def test_every_common_form_reads_as_one_utc_spelling(value, expected):
    assert format_utc(TimeReader().read(value)) == expected


def test_times_without_a_zone_or_year_use_and_count_the_stated_assumption():
    reader = TimeReader(tz=CET, year=2026)
    assert format_utc(reader.read("2026-03-14 10:49:00")) == "2026-03-14T09:49:00Z"
    assert format_utc(reader.read("Mar 14 10:49:00")) == "2026-03-14T09:49:00Z"  # syslog
    assert format_utc(reader.read("2026-03-14T09:49:00Z")) == "2026-03-14T09:49:00Z"
    assert (reader.assumed_zone, reader.assumed_year) == (2, 1)
    with pytest.raises(TimestampError, match="no year"):
        TimeReader().read("Mar 14 10:49:00")


def test_ambiguous_day_month_order_is_settled_by_the_data_or_left_unresolved():
    reader = TimeReader()
    reader.read("03/04/2026 10:00")
    assert reader.unresolved and not reader.needs_rerun
    reader.read("14/04/2026 10:00")  # day-first after all: the caller must re-read
    assert reader.needs_rerun and reader.inferred is True
    with pytest.raises(TimestampError, match="mix day-first and month-first"):
        reader.read("04/14/2026 10:00")
    declared = TimeReader(dayfirst=True)
    assert format_utc(declared.read("03/04/2026 10:00")) == "2026-04-03T10:00:00Z"
    with pytest.raises(TimestampError, match="declared day-first"):
        declared.read("04/14/2026 10:00")


@pytest.mark.parametrize("value", ["soon", "5", 12, "31/02/2026", "2026-03-14 09:50 CEST",
                                   True, None, "1e30"])
def test_what_is_not_a_time_is_an_error_not_a_guess(value):
    with pytest.raises(TimestampError):
        TimeReader().read(value)


def test_looks_like_time_needs_the_whole_value_to_be_a_time():
    assert looks_like_time("2026-03-14 09:50:00") and looks_like_time("14/03/2026 09:49")
    assert looks_like_time("March 14, 2026 9:50 PM")
    assert not looks_like_time("rollback of DEP-311 on 2026-03-14")
    assert not looks_like_time("serial 3F:A2 (exp 2026-11-05)")


def test_tool_arguments_stay_strict():
    with pytest.raises(TimestampError, match="no UTC offset"):
        parse_ts("2026-03-14 09:49:00")
