"""The site's list pages show a system's own list columns, as `arpad list` does
(docs/site.md "A system's own columns"; ``RatingSystem.list_columns``): Glicko-2's
``rd`` and ``volatility`` right after the rating; an Elo page has FIDE's columns
only. Before, every page had FIDE's columns only: a Glicko list page had no RD.

Glickman's Glicko-2 example (tests/test_lists_round6.py): P1 rated 1464.1, RD 151.5,
volatility 0.059996 after the period."""

from __future__ import annotations

import re

import pytest

from arpad.pipeline.cli import main
from tests.test_lists_round6 import GLICKMAN_GAMES, GLICKMAN_PLAYERS, _csv, _run, _store
from tests.test_site import parse

FIDE_HEADERS = ["Rank", "ID", "Name", "Fed", "Sex", "Tit", "WTit", "Rating", "Gms", "K",
                "B-day", "Flag"]  # fmt: skip


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("site-columns")
    store = _store(tmp, GLICKMAN_GAMES, GLICKMAN_PLAYERS)
    for system in ("glicko2", "elo"):
        assert main(["rate", "--system", system, "--store", str(store)]) == 0
        assert main(["publish", "--system", system, "--store", str(store),
                     "--period", "202510"]) == 0  # fmt: skip
    out = tmp / "site"
    assert main(["site", "--out", str(out), "--store", str(store)]) == 0
    return store, out


def _page(out, system: str) -> tuple[list[str], list[dict[str, str]]]:
    path = out / "lists" / f"{system}-standard-202510.html"
    text = path.read_text(encoding="utf-8")
    headers = re.findall(r'<th[^>]*data-type="(?:num|text)">([^<]*)</th>', text)
    return headers, [dict(zip(headers, cells)) for cells in parse(path).tables["list"]]


def test_a_glicko2_page_shows_rd_and_volatility_as_arpad_list(site, capsys):
    store, out = site
    headers, rows = _page(out, "glicko2")
    assert headers == [*FIDE_HEADERS[:8], "rd", "volatility", *FIDE_HEADERS[8:]]
    by_id = {r["ID"]: r for r in rows}
    assert (by_id["P1"]["Rating"], by_id["P1"]["rd"], by_id["P1"]["volatility"]) == (
        "1464.1",
        "151.5",
        "0.059996",
    )
    listed = _csv(_run(capsys, "list", "--system", "glicko2", "--store", str(store),
                       "--format", "csv"))  # fmt: skip
    assert len(listed) == len(rows) == 4
    for want in listed:  # every player's rd and volatility as `arpad list` shows them
        got = by_id[want["player_id"]]
        assert (got["rd"], got["volatility"]) == (want["rd"], want["volatility"])


def test_an_elo_page_has_no_rd_column(site):
    _, out = site
    headers, rows = _page(out, "elo")
    assert headers == FIDE_HEADERS
    assert all(len(r) == len(FIDE_HEADERS) for r in rows) and len(rows) == 4
