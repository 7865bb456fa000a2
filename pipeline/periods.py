"""Rating periods: ``YYYYMM`` months for dated games, or a source's own period numbers.

A period ``p`` with 1800 ≤ p // 100 ≤ 2999 and 1 ≤ p % 100 ≤ 12 is a calendar
month; any other positive integer is an abstract period number (Kaggle's month
1..100, Deloitte's 133..135), where one period counts as one month.

Valid periods (docs/ingest.md, "Valid periods"): a calendar month from
``FIRST_MONTH`` (1800-01) to the month after today's UTC date, or an abstract
period number 1..``MAX_PERIOD_NUMBER`` (99999). A number of six or more digits
(or ``YYYY-MM`` text) is always read as a month, so ``202413``, ``2024-13``,
``299901`` and ``000101`` are impossible periods, never period numbers.
Ingest quarantines rows outside this range (``period_out_of_range``,
pipeline/validate.py); ``parse_period`` refuses them on the command line.
"""

from __future__ import annotations

import argparse
import datetime as dt
import re

FIRST_MONTH = 180001  # January 1800: the earliest rated chess we expect (historians)
MAX_PERIOD_NUMBER = 99_999  # abstract period numbers have at most five digits


class PeriodError(ValueError, argparse.ArgumentTypeError):
    """An impossible period. A ValueError (exit 2); argparse shows its message as is
    when ``parse_period`` is an option's type."""


def last_month(today: dt.date | None = None) -> int:
    """The latest valid calendar period: the month after ``today`` (UTC by default), so a
    list can be prepared for next month but no game can be dated further ahead."""
    today = today or dt.datetime.now(dt.timezone.utc).date()
    year, month = (today.year + 1, 1) if today.month == 12 else (today.year, today.month + 1)
    return year * 100 + month


def latest_game_date(today: dt.date | None = None) -> tuple[dt.date, dt.date]:
    """(today, the latest possible game date): today's UTC date and the day after it
    (a game played on the 2nd east of UTC may still be the 1st in UTC). A game dated
    later has not been played; its period may still be valid (``last_month``)."""
    today = today or dt.datetime.now(dt.timezone.utc).date()
    return today, today + dt.timedelta(days=1)


def valid_months_text(today: dt.date | None = None) -> str:
    last = last_month(today)
    return f"months {FIRST_MONTH // 100}-{FIRST_MONTH % 100:02d}..{last // 100}-{last % 100:02d}"


def valid_range_text(today: dt.date | None = None) -> str:
    return f"{valid_months_text(today)} or period numbers 1..{MAX_PERIOD_NUMBER}"


def is_valid(period: int, today: dt.date | None = None) -> bool:
    """True for a possible period (see the module docstring)."""
    if 1 <= period <= MAX_PERIOD_NUMBER:
        return True
    return 1 <= period % 100 <= 12 and FIRST_MONTH <= period <= last_month(today)


def is_calendar(period: int) -> bool:
    return FIRST_MONTH // 100 <= period // 100 <= 2999 and 1 <= period % 100 <= 12


def month_index(period: int) -> int:
    """A month count that increases by one per period (calendar or abstract)."""
    if is_calendar(period):
        return (period // 100) * 12 + period % 100 - 1
    return int(period)


def months_between(earlier: int, later: int) -> int:
    return month_index(later) - month_index(earlier)


def period_of_date(date: dt.date) -> int:
    return date.year * 100 + date.month


def first_day(period: int) -> dt.date | None:
    """First day of a calendar period; None for abstract periods."""
    if not is_calendar(period):
        return None
    return dt.date(period // 100, period % 100, 1)


def year_of(period: int) -> int | None:
    return period // 100 if is_calendar(period) else None


def parse_period(text: str) -> int:
    """'2024-03', '202403' or '133' → int period; ValueError (one line) for anything
    else, including impossible periods such as '2024-13', '202413' or '2999-01'."""
    raw = str(text).strip()
    if m := re.fullmatch(r"(\d{4})-(\d{2})", raw):
        period, month_shaped = int(m[1]) * 100 + int(m[2]), True
    elif re.fullmatch(r"\d{1,9}", raw):
        period, month_shaped = int(raw), len(raw) >= 6
    else:
        raise PeriodError(f"period {text!r} is not YYYY-MM, YYYYMM or a period number")
    if (month_shaped and period <= MAX_PERIOD_NUMBER) or period < 1 or not is_valid(period):
        raise PeriodError(f"period {text!r} is out of range: valid are {valid_range_text()}")
    return period


# -- lists as they stood on a date (docs/lists.md "A list on a date") -----------------------
def parse_list_date(text: str) -> dt.date:
    """'1886', '1886-03' or '1886-03-15' → the last day it names (31 December 1886,
    31 March 1886, 15 March 1886): the list "as it stood" in a year or month is the one
    after all of its games. ValueError (one line) for anything else."""
    raw = str(text).strip()
    try:
        if m := re.fullmatch(r"(\d{4})", raw):
            return dt.date(int(m[1]), 12, 31)
        if m := re.fullmatch(r"(\d{4})-(\d{1,2})", raw):
            year, month = int(m[1]), int(m[2])
            after = dt.date(year + 1, 1, 1) if month == 12 else dt.date(year, month + 1, 1)
            return after - dt.timedelta(days=1)
        if m := re.fullmatch(r"(\d{4})-(\d{1,2})-(\d{1,2})", raw):
            return dt.date(int(m[1]), int(m[2]), int(m[3]))
    except ValueError:
        pass
    raise PeriodError(f"date {text!r} is not a date: give YYYY, YYYY-MM or YYYY-MM-DD")


def period_at(text: str, rated: list[int], what: str = "the list") -> int:
    """The period whose list stood on the date ``text`` (``parse_list_date``): the latest
    of ``rated`` that began on or before that day, i.e. the period containing the date,
    else the latest one before it. Goes through ``first_day`` only, so it serves any
    period kind that has a first day; ValueError (one line) when ``rated`` has no dated
    period or the date is before the first one."""
    day = parse_list_date(text)
    dated = sorted((first_day(p), p) for p in rated if first_day(p) is not None)
    if not dated:
        raise PeriodError(
            f"{what} has no dated periods (period numbers only): give --period, not --date"
        )
    if day < dated[0][0]:
        raise PeriodError(
            f"date {text} is before {what}'s first rated period "
            f"{period_label(dated[0][1])} (starting {dated[0][0].isoformat()})"
        )
    return max(p for start, p in dated if start <= day)


def period_label(period: int) -> str:
    """'1886-03' for a calendar month, the number itself for an abstract period."""
    if is_calendar(period):
        return f"{period // 100}-{period % 100:02d}"
    return str(period)
