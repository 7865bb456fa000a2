"""Rating periods: ``YYYYMM`` months for dated games, or a source's own period numbers.

A period ``p`` with 1900 ≤ p // 100 ≤ 2999 and 1 ≤ p % 100 ≤ 12 is a calendar
month; any other positive integer is an abstract period number (Kaggle's month
1..100, Deloitte's 133..135), where one period counts as one month.
"""

from __future__ import annotations

import datetime as dt


def is_calendar(period: int) -> bool:
    return 1900 <= period // 100 <= 2999 and 1 <= period % 100 <= 12


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
    """'2024-03', '202403' or '133' → int period."""
    text = str(text).strip()
    if len(text) == 7 and text[4] == "-":
        return int(text[:4]) * 100 + int(text[5:])
    return int(text)
