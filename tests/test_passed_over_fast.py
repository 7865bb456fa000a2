"""The monthly job's "Not frozen" months (``monthly.passed_over``) without a list per month.

ops7, round 7, #2: on a store whose first frozen list came after 90 months, every
``arpad recalculate`` called ``list_frame`` (two DuckDB queries) on each earlier month
to tell an empty month from a passed-over one: 72 s of an 80 s run. Now one query per
system/pool (``lists.empty_lists``) decides it for all the months, with the same result
(docs/operations.md "The monthly job").

Empty months are made as an older arpad (or a forced FIDE run) wrote them: every row of
the period ``unrated``, or no row with a rating (tests/test_lists.py does the same)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from arpad.pipeline import catalog, lists, monthly, publish
from arpad.pipeline.cli import main
from arpad.pipeline.lists import EmptyListError, list_frame
from arpad.pipeline.store import Store
from tests.conftest import write_csv

LISTED = {"rated", "new", "provisional", "inactive"}  # docs/observations.md "Who is on a list"


def make_store(tmp_path: Path, months: int, frozen: int) -> Store:
    """One elo game a month in 2024 (months 1..``months``, all over), the list of month
    ``frozen`` frozen with ``arpad publish --period`` (the earlier ones never)."""
    rows = [f"2024-{m:02d}-10,X1,X2,{'1' if m % 2 else '0'}" for m in range(1, months + 1)]
    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result", rows)
    root = str(tmp_path / "S")
    assert main(["ingest", str(games), "--store", root, "--no-flow"]) == 0
    assert main(["rate", "--system", "elo", "--store", root, "--no-flow"]) == 0
    period = str(202400 + frozen)
    assert main(["publish", "--system", "elo", "--store", root, "--period", period]) == 0
    return Store(root)


def rewrite(store: Store, period: int, **columns) -> None:
    """Period ``period``'s ratings file with ``columns`` set to one value on every row."""
    path = store.rating_partition("elo", "standard", period) / "part-0.parquet"
    table = pq.read_table(path)
    for name, value in columns.items():
        i = table.schema.get_field_index(name)
        column = pa.array([value] * table.num_rows, type=table.schema.field(i).type)
        table = table.set_column(i, table.schema.field(i), column)
    pq.write_table(table, path)


def arguments(store: Store):
    day = publish.today()
    finished = [
        p for p in store.rating_periods("elo", "standard") if not publish.in_progress(p, day)
    ]
    return finished, store.published_periods("elo", "standard"), finished[-1]


def old_passed_over(store, system, pool, finished, done, period):
    """``passed_over`` before the fix: ``list_frame`` on each month."""
    out = []
    for p in finished:
        if not done or p in done or p > done[-1]:
            continue
        if p != period:
            try:
                list_frame(store, system, pool, p)
            except EmptyListError:
                continue
        out.append([p, next(d for d in done if d > p)])
    return out


def test_same_months_as_a_list_per_month(tmp_path, capsys):
    store = make_store(tmp_path, months=8, frozen=6)
    rewrite(store, 202401, status="unrated")  # nobody listed: no list
    rewrite(store, 202402, status="unrated")
    rewrite(store, 202404, rating_after=None)  # no rating: no list
    catalog.refresh(store)
    capsys.readouterr()
    finished, done, period = arguments(store)
    assert done == [202406] and period == 202408
    # expected, read from the files themselves: a month before 202406 with a listed row
    expected = []
    for p in finished:
        rows = pq.read_table(store.rating_partition("elo", "standard", p) / "part-0.parquet")
        listed = [
            s in LISTED and r is not None
            for s, r in zip(
                rows.column("status").to_pylist(),
                rows.column("rating_after").to_pylist(),
                strict=True,
            )
        ]
        if p < 202406 and any(listed):
            expected.append([p, 202406])
    assert expected == [[202403, 202406], [202405, 202406]]
    got = monthly.passed_over(store, "elo", "standard", finished, done, period)
    assert got == expected
    assert got == old_passed_over(store, "elo", "standard", finished, done, period)
    # and the report's line names the two (``_by_later``: one line per later frozen list)
    assert monthly._by_later(got) == [(202406, [202403, 202405])]


def queries(monkeypatch, store: Store) -> int:
    """DuckDB queries and ``list_frame`` calls ``passed_over`` makes on ``store``."""
    calls = []
    query, frame = catalog.query_arrow, lists.list_frame
    monkeypatch.setattr(catalog, "query_arrow", lambda *a, **k: calls.append(1) or query(*a, **k))
    monkeypatch.setattr(lists, "list_frame", lambda *a, **k: calls.append(1) or frame(*a, **k))
    finished, done, period = arguments(store)
    passed = monthly.passed_over(store, "elo", "standard", finished, done, period)
    monkeypatch.undo()
    assert passed == [[p, done[-1]] for p in finished if p < done[-1]]
    return len(calls)


@pytest.mark.parametrize("frozen", [3, 9])
def test_queries_do_not_grow_with_the_months_passed_over(tmp_path, monkeypatch, capsys, frozen):
    store = make_store(tmp_path, months=10, frozen=frozen)
    # one query for all the months (before: a list_frame call and a query per month: 4 and 16)
    assert (n := queries(monkeypatch, store)) == 1, n
