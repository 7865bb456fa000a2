"""The officer's report, items 3 and 4 (round of 2026-12-04):

3. ``arpad list --in-force D`` is FIDE's "list in force on D": when that period was
   published, the list in force was the frozen one (STORE/published/), not the current
   ratings of a period revised since; a note names ``arpad diff --published P`` when
   they differ (docs/lists.md "Which month a list is").
4. the FIDE card names where the rating at the start came from when it is not the
   player's previous rating: a rating a later-ingested file stated for the period
   re-seeded him (docs/observations.md; docs/cli.md "card").

Expected values worked by hand from FIDE B.02 (docs/rules.md): K 20 (100 rated games,
peak below 2400, adults); D = ±90 → PD 0.62 / 0.38 (table 8.1.2, 84–91); change
K·ΣΔR rounded half away from zero (§8.3.4).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json

import pytest

from arpad.pipeline import fide_card
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store
from tests.conftest import write_csv
from tests.test_lists_attack import pin_today

PLAYERS_HEADER = "player_id,name,federation,birth_year,rating,rated_games,peak_rating"
PLAYERS = [
    '5100010,"Aalto, Anna",FIN,1980,2310,100,2350',
    '5100028,"Berg, Bo",SWE,1975,2220,100,2300',
]
GAMES_HEADER = "date,white_id,black_id,score"


def run(*args: str) -> int:
    return main([*args, "--no-flow"])


@pytest.fixture
def revised(tmp_path, monkeypatch, capsys):
    """October: Aalto (2310) loses to Berg (2220): −12.4 → −12 and +12.4 → +12, so the
    published list of 202610 has 2298 and 2232. Then the arbiter corrects the game to a
    draw: 0.5 − 0.62 = −0.12 → −2.4 → −2 (2308), 0.5 − 0.38 = +0.12 → +2 (2222)."""
    pin_today(monkeypatch, dt.date(2026, 12, 5))
    root = tmp_path / "S"
    store = ["--store", str(root)]
    players = write_csv(tmp_path / "players.csv", PLAYERS_HEADER, PLAYERS)
    october = tmp_path / "oct.csv"
    write_csv(october, GAMES_HEADER, ["2026-10-10,5100010,5100028,0"])
    assert run("ingest", *store, "--players", str(players), str(october)) == 0
    assert run("rate", *store, "--system", "fide") == 0
    assert main(["publish", *store, "--period", "202610"]) == 0
    write_csv(october, GAMES_HEADER, ["2026-10-10,5100010,5100028,0.5"])  # the correction
    assert run("ingest", *store, str(october)) == 0
    assert run("rate", *store, "--system", "fide") == 0
    capsys.readouterr()
    return root


def ratings(csv_text: str, column: str = "rating") -> dict[str, int]:
    """player_id -> rating of a list written as CSV."""
    rows = csv.DictReader(io.StringIO(csv_text))
    return {row["player_id"]: int(row[column]) for row in rows}


NOTE = (
    "arpad: note: this is the fide/standard list of period 202610 as published (frozen); "
    "the ratings of 2 player(s) changed since: arpad diff --published 202610 shows them, "
    "arpad list --period 202610 the current list"
)


def test_in_force_shows_the_published_list_with_a_note(revised, capsys):
    argv = ["list", "--store", str(revised), "--in-force", "2026-11-15"]
    assert main([*argv, "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    assert ratings(out) == {"5100010": 2298, "5100028": 2232}  # the frozen list
    assert err.splitlines() == [
        NOTE,
        "fide / standard / list in force on 2026-11-15 = period 2026-10 (latest rated period "
        "closed by then; in force from 2026-11-01)",
    ]
    frozen = Store(revised).published_partition("fide", "standard", 202610) / "list.csv"
    assert out == frozen.read_text()  # byte for byte what was published
    # --period keeps showing the current (revised) ratings
    assert main(["list", "--store", str(revised), "--period", "202610", "--format", "csv"]) == 0
    assert ratings(capsys.readouterr().out) == {"5100010": 2308, "5100028": 2222}
    # the table: the same header as before, the frozen ratings, the note on stderr
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == (
        "fide / standard / list in force on 2026-11-15 = period 2026-10 (latest rated period "
        "closed by then; in force from 2026-11-01): 2 players"
    )
    assert "2298" in out and "2308" not in out
    assert err.strip() == NOTE
    # --top and --min-games apply to the frozen list
    assert main([*argv, "--format", "json", "--top", "1", "--min-games", "1"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["rank"], r["player_id"], r["rating"]) for r in rows] == [(1, "5100010", 2298)]


def test_in_force_of_all_pools_is_the_published_list_too(revised, capsys):
    argv = ["list", "--store", str(revised), "--pool", "all", "--in-force", "2026-11-01"]
    assert main([*argv, "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    assert ratings(out, "standard_rating") == {"5100010": 2298, "5100028": 2232}
    assert err.splitlines()[0] == NOTE


def test_in_force_of_a_period_never_published_shows_the_current_ratings(revised, tmp_path, capsys):
    """November is rated but not published: the current ratings, and no note. Aalto
    (2308) beats Berg (2222): D = 86 → PD 0.62, +0.38 × 20 = +7.6 → +8 (2316); Berg
    −7.6 → −8 (2214)."""
    november = write_csv(tmp_path / "nov.csv", GAMES_HEADER, ["2026-11-10,5100010,5100028,1"])
    assert run("ingest", "--store", str(revised), str(november)) == 0
    assert run("rate", "--store", str(revised), "--system", "fide") == 0
    capsys.readouterr()
    argv = ["list", "--store", str(revised), "--in-force", "2026-12-01", "--format", "csv"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert ratings(out) == {"5100010": 2316, "5100028": 2214}
    assert "note" not in err


def test_in_force_of_a_published_list_without_revision_has_no_note(tmp_path, monkeypatch, capsys):
    pin_today(monkeypatch, dt.date(2026, 12, 5))
    root = tmp_path / "S"
    players = write_csv(tmp_path / "players.csv", PLAYERS_HEADER, PLAYERS)
    games = write_csv(tmp_path / "oct.csv", GAMES_HEADER, ["2026-10-10,5100010,5100028,0"])
    assert run("ingest", "--store", str(root), "--players", str(players), str(games)) == 0
    assert run("rate", "--store", str(root), "--system", "fide") == 0
    assert main(["publish", "--store", str(root), "--period", "202610"]) == 0
    capsys.readouterr()
    argv = ["list", "--store", str(root), "--in-force", "2026-11", "--format", "csv"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert ratings(out) == {"5100010": 2298, "5100028": 2232}
    assert "note" not in err


def test_in_force_refuses_a_published_list_edited_by_hand(revised, capsys):
    frozen = Store(revised).published_partition("fide", "standard", 202610) / "list.parquet"
    frozen.write_bytes(frozen.read_bytes() + b"x")
    assert main(["list", "--store", str(revised), "--in-force", "2026-11-01"]) == 2
    err = capsys.readouterr().err
    assert "list.parquet" in err and "edited since it was published" in err


# -- 4. the card names a re-seeded start -------------------------------------------------
@pytest.fixture
def reseeded(tmp_path, monkeypatch, capsys):
    """October as above: Aalto ends at 2298, Berg at 2232. A November file states the
    players' old ratings (2310, 2220): FIDE takes a stated rating as published
    (docs/observations.md), so November starts from them, not from October's list. The
    November draw: Aalto 0.5 - 0.62 = -0.12 -> -2.4 -> -2 (2308); December states no
    rating."""
    pin_today(monkeypatch, dt.date(2026, 12, 5))
    root = tmp_path / "S"
    store = ["--store", str(root)]
    players = write_csv(tmp_path / "players.csv", PLAYERS_HEADER, PLAYERS)
    october = write_csv(tmp_path / "oct.csv", GAMES_HEADER, ["2026-10-10,5100010,5100028,0"])
    november = write_csv(
        tmp_path / "cup.csv",
        "date,white_id,black_id,score,white_rating,black_rating",
        ["2026-11-10,5100028,5100010,0.5,2220,2310"],
    )
    december = write_csv(tmp_path / "dec.csv", GAMES_HEADER, ["2026-12-01,5100010,5100028,1"])
    files = [str(october), str(november), str(december)]
    assert run("ingest", *store, "--players", str(players), *files) == 0
    assert run("rate", *store, "--system", "fide") == 0
    capsys.readouterr()
    return root


def test_card_names_the_stated_rating_that_seeded_the_period(reseeded, capsys):
    assert main(["card", "5100010", "--period", "202611", "--store", str(reseeded)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2] == (
        "rating at the start: 2310 (stated in cup.csv for this period; the list of period "
        "202610 had 2298)"
    )
    card = fide_card.rating_card(Store(reseeded), "5100028", 202611)
    assert card.rating_before == 2220
    assert (
        card.start_source == "stated in cup.csv for this period; the list of period 202610 had 2232"
    )


def test_card_of_a_start_from_the_previous_list_says_nothing_more(reseeded, capsys):
    assert main(["card", "5100010", "--period", "202612", "--store", str(reseeded)]) == 0
    assert capsys.readouterr().out.splitlines()[2] == "rating at the start: 2308"
    store = Store(reseeded)
    assert fide_card.rating_card(store, "5100010", 202612).start_source is None
    card = fide_card.rating_card(store, "5100010", 202610)
    assert (card.rating_before, card.start_source) == (2310, None)  # the players file's
