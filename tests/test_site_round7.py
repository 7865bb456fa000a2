"""The site's player pages (a new user's report, round 7; docs/site.md "The chart"
and "The card"). Each test failed before its fix:

* the chart's tooltips showed one decimal on a system that publishes whole numbers
  (USCF: list row and card 1747, tooltip ``1746.9``; FIDE ``2200.0``), though
  docs/lists.md writes an ``integer_ratings`` system as an integer in every format;
* the card's round column was headed ``Rd``, which on a Glicko page reads as the
  rating deviation: it is ``Rnd``.

USCF data of tests/test_lists_round6.py: Ann, Bob and Cid's ratings after August 2025
have decimals; Glickman's Glicko-2 example: P1 1464.1 after the period."""

from __future__ import annotations

import math
import re

import pytest

from arpad.pipeline.cli import main
from tests.test_lists_round6 import (
    GLICKMAN_GAMES,
    GLICKMAN_PLAYERS,
    USCF_GAMES,
    USCF_PLAYERS,
    _store,
)
from tests.test_site import Page

TOOLTIP = re.compile(r"<title>period (\d+): ([^<]*)</title>")


def _pages(out):
    return {
        re.search(r"<h1>([^<]*)</h1>", t).group(1): t
        for t in (p.read_text(encoding="utf-8") for p in (out / "players").glob("*.html"))
    }


@pytest.fixture(scope="module")
def uscf_site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("site-round7-uscf")
    store = _store(tmp, USCF_GAMES, USCF_PLAYERS)
    assert main(["rate", "--system", "uscf", "--store", str(store)]) == 0
    assert main(["publish", "--system", "uscf", "--store", str(store), "--period", "202508"]) == 0
    out = tmp / "site"
    assert main(["site", "--store", str(store), "--out", str(out)]) == 0
    return store, out


def _published_rating(text: str) -> str:
    """The rating of the page's one published list row."""
    page = Page()
    page.feed(text)
    (row,) = page.tables["published"]
    return row[2]


def test_a_whole_number_system_charts_whole_numbers_as_its_list(uscf_site):
    from arpad.pipeline.store import Store

    store, out = uscf_site
    raw = {
        r["player_id"]: r["rating_after"]
        for r in Store(store).read_ratings("uscf", "standard", 202508).to_pylist()
    }
    assert raw["B"] != round(raw["B"])  # the stored rating has decimals
    pages = _pages(out)
    for name, pid in (("Ann", "A"), ("Bob", "B"), ("Cid", "C")):
        text = pages[name]
        tips = dict(TOOLTIP.findall(text))
        listed = _published_rating(text)  # the list row's rating of period 202508
        whole = str(math.floor(raw[pid] + 0.5))  # half away from zero (positive ratings)
        assert tips["202508"] == listed == whole  # e.g. "1747", not "1746.9"
        assert re.search(rf"rating after {listed} \(", text)  # the card's line
        assert all("." not in v for v in tips.values())


def test_a_decimal_system_keeps_one_decimal_and_the_round_is_rnd(tmp_path):
    store = _store(tmp_path, GLICKMAN_GAMES, GLICKMAN_PLAYERS)
    assert main(["rate", "--system", "glicko2", "--store", str(store)]) == 0
    assert main(["publish", "--system", "glicko2", "--store", str(store),
                 "--period", "202510"]) == 0  # fmt: skip
    out = tmp_path / "site"
    assert main(["site", "--store", str(store), "--out", str(out)]) == 0
    text = _pages(out)["Glickman, Player"]
    assert dict(TOOLTIP.findall(text)) == {"202510": "1464.1"}  # Glickman: 1464.06
    head = re.search(r'<table class="card"><thead><tr>(.*?)</tr>', text).group(1)
    assert re.findall(r"<th[^>]*>([^<]*)</th>", head) == [
        "Period", "Rnd", "Col", "Opponent", "Opp. rating", "Event", "Result", "Change", "Game",
    ]  # fmt: skip
