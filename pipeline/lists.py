"""Rating lists read from the catalog (``arpad list``, the API's ``Store.list``, the demo)."""

from __future__ import annotations

from arpad.pipeline import catalog


def rating_list(store, system: str, pool: str, period: int | None, top: int | None):
    con = catalog.connect(store)
    try:
        if period is None:
            period = (
                catalog.query_arrow(
                    con,
                    "SELECT max(period) AS p FROM ratings WHERE system = ? AND pool = ?",
                    [system, pool],
                )
                .column("p")[0]
                .as_py()
            )
            if period is None:
                raise ValueError(
                    f"no ratings for system {system} pool {pool}; run arpad rate first"
                )
        sql = (
            "SELECT rank, player_id, name, federation, title, rating, games, status "
            "FROM rating_list WHERE system = ? AND pool = ? AND period = ? "
            "ORDER BY rank, player_id"
        )
        params: list = [system, pool, period]
        if top:
            sql += " LIMIT ?"
            params.append(top)
        return catalog.query_frame(con, sql, params), period
    finally:
        con.close()
