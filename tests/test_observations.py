"""Ratings found in sources are dated observations (docs/observations.md, issue 14 item 1):
a system that seeds from published ratings uses the latest observation at or before the
period it rates, in the same pool; a player appears from his first game or observation on."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from arpad.pipeline import engine, observations
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store
from tests.conftest import results

GAME = """[Event "{event}"]
[Site "Somewhere"]
[Date "{date}"]
[Round "1"]
[White "{white}"]
[Black "{black}"]
[Result "{result}"]
{tags}
1. e4 e5 {result}
"""


def game(date, white, black, result, white_elo=None, black_elo=None, tc=None, event="Open"):
    tags = []
    if white_elo is not None:
        tags.append(f'[WhiteElo "{white_elo}"]')
    if black_elo is not None:
        tags.append(f'[BlackElo "{black_elo}"]')
    if tc is not None:
        tags.append(f'[TimeControl "{tc}"]')
    return GAME.format(
        event=event, date=date, white=white, black=black, result=result, tags="\n".join(tags)
    )


def run(*args: str) -> int:
    return main([*args, "--no-flow"])


def alpha_store(tmp_path: Path) -> Path:
    """Alpha: Elo tags 2400 (2001) and 2600 (2010) in standard games, 2700 in a 2003
    blitz game; games without tags in 1999, 2005 and 2011."""
    text = "\n".join(
        [
            game("1999.05.01", "Alpha", "Beta", "1-0", None, 2400),
            game("2001.03.10", "Alpha", "Beta", "1/2-1/2", 2400, 2400),
            game("2003.04.01", "Beta", "Alpha", "0-1", 2350, 2700, tc="180+0", event="Blitz"),
            game("2005.06.01", "Alpha", "Beta", "1-0"),
            game("2010.02.01", "Alpha", "Gamma", "1/2-1/2", 2600, 2600),
            game("2011.07.01", "Gamma", "Alpha", "1-0"),
        ]
    )
    path = tmp_path / "alpha.pgn"
    path.write_text(text)
    root = tmp_path / "s"
    assert run("ingest", str(path), "--store", str(root)) == 0
    return root


def rows(root: Path, system: str, period: int) -> dict[str, dict]:
    table = Store(root).read_ratings(system, "standard", period)
    return {r["player_id"]: r for r in table.to_pylist()}


ALPHA, BETA, GAMMA = "alpha.pgn:Alpha", "alpha.pgn:Beta", "alpha.pgn:Gamma"


def test_fide_seeds_from_the_latest_observation_at_or_before_the_period(tmp_path):
    root = alpha_store(tmp_path)
    assert run("rate", "--system", "fide", "--store", str(root)) == 0
    # 1999: Alpha has no published rating yet (his first tag is of 2001): no rating.
    first = rows(root, "fide", 199905)
    assert first[ALPHA]["rating_after"] is None and first[ALPHA]["status"] == "unrated"
    assert first[BETA]["rating_before"] == 2400  # Beta's tag of that very game
    assert GAMMA not in first  # Gamma's first game and observation are of 2010
    # 2001: seeded from the tag of 2001 (a draw between equals changes nothing).
    assert rows(root, "fide", 200103)[ALPHA]["rating_before"] == 2400
    # 2005: still 2400 — the 2003 blitz tag (2700) is another pool's.
    r2005 = rows(root, "fide", 200506)[ALPHA]
    assert r2005["rating_before"] == 2400 and r2005["change"] > 0
    # 2010: the newer published 2600 replaces the system's 2400 + change.
    assert rows(root, "fide", 201002)[ALPHA]["rating_before"] == 2600
    # 2011: from 2600 (the 2010 draw between equals changed nothing).
    assert rows(root, "fide", 201107)[ALPHA]["rating_before"] == 2600


def test_players_appear_from_their_first_game_or_observation_for_elo(tmp_path):
    root = alpha_store(tmp_path)
    assert run("rate", "--system", "elo", "--store", str(root)) == 0
    store = Store(root)
    periods = store.rating_periods("elo", "standard")
    assert periods == [199905, 200103, 200506, 201002, 201107]
    assert GAMMA not in rows(root, "elo", 199905) and GAMMA not in rows(root, "elo", 200506)
    # Elo rates from its games only: everybody starts at initial_rating, tags or not.
    first = rows(root, "elo", 199905)
    assert first[ALPHA]["rating_before"] == 1500 and first[BETA]["rating_before"] == 1500
    assert rows(root, "elo", 201002)[GAMMA]["rating_before"] == 1500


def test_harkness_and_ingo_seed_in_the_same_pool(tmp_path):
    root = alpha_store(tmp_path)
    for system in ("harkness", "ingo"):
        assert run("rate", "--system", system, "--store", str(root)) == 0
    assert rows(root, "harkness", 200506)[ALPHA]["rating_before"] == 2400
    assert rows(root, "harkness", 201107)[ALPHA]["rating_before"] == 2600
    assert rows(root, "ingo", 200506)[ALPHA]["rating_before"] == (2840 - 2400) / 8
    assert rows(root, "ingo", 201107)[ALPHA]["rating_before"] == (2840 - 2600) / 8


def test_a_run_from_a_checkpoint_equals_a_full_run(tmp_path):
    root = alpha_store(tmp_path)
    store = Store(root)
    engine.rate(store, "fide")
    full = {
        p: results(store.read_ratings("fide", "standard", p)) for p in store.periods("standard")
    }
    engine.rate(store, "fide", start=201002)
    for p in (201002, 201107):
        assert results(store.read_ratings("fide", "standard", p)).equals(full[p])


def test_observations_between_keep_the_latest_per_player():
    obs = observations.Observations(
        player=np.array([0, 1, 0, 0], np.int64),
        period=np.array([200101, 200101, 200301, 201001], np.int64),
        rating=np.array([2400.0, 2100.0, 2450.0, 2600.0]),
    )
    players, ratings = obs.between(None, 200512)
    assert players.tolist() == [0, 1] and ratings.tolist() == [2450.0, 2100.0]
    players, ratings = obs.between(200301, 201001)
    assert players.tolist() == [0] and ratings.tolist() == [2600.0]
    assert obs.between(201001, 202001)[0].size == 0
    assert obs.between(None, 199901)[0].size == 0


def test_pool_observations_take_the_first_rating_of_a_period(tmp_path):
    text = "\n".join(
        [
            game("2005.06.01", "Alpha", "Beta", "1-0", 2400, 2300),
            game("2005.06.20", "Beta", "Alpha", "1-0", 2310, 2420),
        ]
    )
    path = tmp_path / "t.pgn"
    path.write_text(text)
    root = tmp_path / "s"
    assert run("ingest", str(path), "--store", str(root)) == 0
    ids = pa.array(["t.pgn:Alpha", "t.pgn:Beta"])
    obs = observations.pool_observations(Store(root), "standard", ids)
    assert sorted(zip(obs.player.tolist(), obs.rating.tolist())) == [(0, 2400.0), (1, 2300.0)]
    assert observations.pool_observations(Store(root), "blitz", ids).size == 0


LINE = "001    {rank} m    {name:<33} {rating} GER      {fide} 1990/01/01  {pts}    {rank}     {opp} {colour} {res}"


def trf(title: str, date: str, a: tuple, b: tuple) -> str:
    """A one-round TRF: (name, rating, fide id) of players 1 and 2; 1 beats 2 with White."""
    rows = [
        LINE.format(rank=1, name=a[0], rating=a[1], fide=a[2], pts="1.0", opp=2, colour="w", res=1),
        LINE.format(rank=2, name=b[0], rating=b[1], fide=b[2], pts="0.0", opp=1, colour="b", res=0),
    ]
    return f"012 {title}\n042 {date}\n" + "\n".join(rows) + "\n"


def test_a_bullet_files_ratings_never_seed_an_earlier_standard_list(tmp_path):
    """The issue's TRF store: a 2020 bullet arena must not put its players on the 2005
    standard list (their ratings are dated 2020 and in the blitz pool)."""
    bullet = tmp_path / "arena.trf"
    bullet.write_text(
        trf(
            "Lichess Bullet Arena",
            "2020/05/01",
            ("Fast, Fay", 2900, 900001),
            ("Quick, Q", 2800, 900002),
        )
    )
    club = tmp_path / "club.trf"
    club.write_text(
        trf("Club Open", "2005/03/05", ("Aa, Anna", 2200, 100001), ("Bb, Bert", 2100, 100002))
    )
    root = tmp_path / "s"
    assert run("ingest", str(club), str(bullet), "--store", str(root)) == 0
    store = Store(root)
    assert store.periods("blitz") == [202005] and store.periods("standard") == [200503]
    assert run("rate", "--system", "fide", "--store", str(root)) == 0
    listed = {r["player_id"]: r for r in store.read_ratings("fide", "standard", 200503).to_pylist()}
    assert set(listed) == {"100001", "100002"}
    assert listed["100001"]["rating_before"] == 2200 and listed["100002"]["rating_before"] == 2100
    assert run("rate", "--system", "fide", "--pool", "blitz", "--store", str(root)) == 0
    blitz = {r["player_id"]: r for r in store.read_ratings("fide", "blitz", 202005).to_pylist()}
    assert set(blitz) == {"900001", "900002"} and blitz["900001"]["rating_before"] == 2900


def test_month_only_and_full_dates_keep_their_precision(tmp_path):
    text = "\n".join(
        [game("2024.02.??", "Alpha", "Beta", "1-0"), game("2024.02.11", "Beta", "Alpha", "1-0")]
    )
    path = tmp_path / "m.pgn"
    path.write_text(text)
    root = tmp_path / "s"
    assert run("ingest", str(path), "--store", str(root)) == 0
    store = Store(root)
    assert store.periods("standard") == [202402]
    from arpad.pipeline.precision import period_precision, precision_note

    counts = period_precision(store, "standard", 202402)
    assert counts == {"day": 1, "month": 1, "year": 0}
    assert precision_note(counts) == "dates: of 2 games, 1 known only to the month"
    assert precision_note({"day": 3, "month": 0, "year": 0}) is None


def test_a_players_file_with_dates_gives_dated_observations(tmp_path):
    """Rows with a date are observations at that date (their pool: ``pool``, default
    standard); a row without a date keeps today's meaning (as of the first period)."""
    players = tmp_path / "players.csv"
    players.write_text(
        "player_id,name,date,rating,pool\n"
        "A,Alpha,2001-01-15,2400,\n"
        "A,Alpha,2010-01,2600,standard\n"
        "A,Alpha,2003-01-01,2700,blitz\n"
        "B,Beta,2001-01-01,2400,\n"
        "C,Gamma,,2300,\n"
        "D,Delta,2001-13-01,2000,\n"
        "E,Eve,2001-01-01,2000,chess960\n"
        "F,Fay,2001-01-01,2100,Bullet\n"
        "G,Gus,2001-01-01,2150,classical\n"
    )
    games = tmp_path / "games.csv"
    games.write_text(
        "game_id,date,white_id,black_id,result\n"
        "g1,1999-05-01,A,B,1-0\n"
        "g2,2005-06-01,A,B,1-0\n"
        "g3,2011-07-01,B,A,1/2-1/2\n"
        "g4,2011-07-02,C,B,1/2-1/2\n"
    )
    root = tmp_path / "s"
    # exit 2: the bad date (D) and the unknown pool (E) are quarantined
    assert run("ingest", "--players", str(players), str(games), "--store", str(root)) == 2
    assert run("rate", "--system", "fide", "--store", str(root)) == 0
    first = rows(root, "fide", 199905)
    assert first["A"]["rating_after"] is None and first["B"]["rating_after"] is None
    assert first["C"]["rating_after"] == 2300  # undated: rated from the first period on
    r2005 = rows(root, "fide", 200506)
    assert r2005["A"]["rating_before"] == 2400 and r2005["B"]["rating_before"] == 2400
    r2011 = rows(root, "fide", 201107)
    assert r2011["A"]["rating_before"] == 2600  # the 2010 row; the blitz row is ignored
    assert r2005["B"]["change"] < 0 and r2011["B"]["rating_before"] == 2400 + r2005["B"]["change"]
    assert "D" not in r2011 and "E" not in r2011
    # the pool words a games file takes: bullet is blitz, classical is standard
    from tests.test_historian_attack import sql

    q = sql(root, "SELECT line, detail FROM quarantine ORDER BY line")
    assert q["line"].to_list() == [7, 8]
    assert q["detail"][1] == "pool chess960 is not one of standard, rapid, blitz"
    blitz = observations.file_observations(Store(root), "blitz").to_pydict()
    assert sorted(zip(blitz["player_id"], blitz["rating"])) == [("A", 2700), ("F", 2100)]
    standard = observations.file_observations(Store(root), "standard").to_pydict()
    assert ("G", 2150) in zip(standard["player_id"], standard["rating"])
    from arpad.pipeline import identity

    assert identity.conflicts(Store(root)).height == 0  # dated rows are not conflicts


def test_a_corrected_tag_recomputes_incrementally_like_a_full_run(tmp_path):
    """A corrected PGN changes Alpha's 2010 tag: the incremental ``rate`` (from the
    earliest stale period) equals a full rating of a store holding the corrected file."""
    root = alpha_store(tmp_path)
    assert run("rate", "--system", "fide", "--store", str(root)) == 0
    path = tmp_path / "alpha.pgn"
    path.write_text(path.read_text().replace('[WhiteElo "2600"]', '[WhiteElo "2650"]'))
    assert run("ingest", str(path), "--store", str(root)) == 0
    assert run("rate", "--system", "fide", "--store", str(root)) == 0
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    (fresh / "alpha.pgn").write_text(path.read_text())
    other = fresh / "s"
    assert run("ingest", str(fresh / "alpha.pgn"), "--store", str(other)) == 0
    assert run("rate", "--system", "fide", "--store", str(other)) == 0
    a, b = Store(root), Store(other)
    assert a.rating_periods("fide", "standard") == b.rating_periods("fide", "standard")
    for p in a.rating_periods("fide", "standard"):
        assert results(a.read_ratings("fide", "standard", p)).equals(
            results(b.read_ratings("fide", "standard", p))
        ), p
    r2010 = rows(root, "fide", 201002)[ALPHA]
    assert r2010["rating_before"] == 2650 and r2010["change"] < 0  # a draw against 2600
    assert rows(root, "fide", 201107)[ALPHA]["rating_before"] == 2650 + r2010["change"]


def test_fide_rates_a_csv_store_whose_only_ratings_are_the_games(tmp_path):
    """No players file: the games' white_rating/black_rating are enough published
    ratings for FIDE (the job used to refuse the store)."""
    games = tmp_path / "games.csv"
    games.write_text(
        "game_id,date,white_id,black_id,result,white_rating,black_rating\n"
        "g1,2005-01-10,A,B,1-0,2400,2300\n"
        "g2,2005-02-10,B,A,1-0,,\n"
    )
    root = tmp_path / "s"
    assert run("ingest", str(games), "--store", str(root)) == 0
    assert run("rate", "--system", "fide", "--store", str(root)) == 0
    jan, feb = rows(root, "fide", 200501), rows(root, "fide", 200502)
    assert jan["A"]["rating_before"] == 2400 and jan["B"]["rating_before"] == 2300
    assert feb["A"]["rating_before"] == jan["A"]["rating_after"]  # not re-seeded (no tag)


def test_undated_ratings_equal_a_naive_set_of_the_players_files_ids(tmp_path):
    # observations.undated_ratings looks the observations' ids up in the run's string
    # index (the engine shares it with the player keys): the same answer as a Python
    # set of the ids whose row has a rating and no period — duplicates, nulls, ids of
    # no player and dated rows included — with or without an index passed in.
    import pyarrow.parquet as pq

    from arpad.pipeline.keys import StringIndex

    store = Store(tmp_path / "S")
    path = observations.observations_path(store)
    path.parent.mkdir(parents=True)
    rng = np.random.default_rng(7)
    players = [f"P{i:04d}" for i in range(3000)]
    rows = 5000
    ids = [players[i] if i < 3000 else f"X{i}" for i in rng.integers(0, 3400, rows)]
    ids[5] = None
    rating = [float(r) if r % 7 else None for r in rng.integers(1000, 2800, rows)]
    period = [int(p) if p % 3 == 0 else None for p in rng.integers(0, 60, rows)]
    table = pa.table(
        {
            "player_id": pa.array(ids, pa.large_string()),
            "rating": pa.array(rating, pa.float64()),
            "period": pa.array(period, pa.int32()),
        }
    )
    pq.write_table(table, path)
    given = {
        i for i, r, p in zip(ids, rating, period) if i is not None and r is not None and p is None
    }
    start = np.arange(3000, dtype=np.float64) + 1000.0
    want = np.array([s if pid in given else np.nan for pid, s in zip(players, start)])
    ids_arrow = pa.array(players, pa.string())
    with_index = observations.undated_ratings(store, ids_arrow, start, StringIndex(ids_arrow))
    without = observations.undated_ratings(store, np.array(players, dtype=object), start)
    assert 0 < np.isnan(want).sum() < 3000
    np.testing.assert_array_equal(with_index, want)
    np.testing.assert_array_equal(without, want)
