"""ECF seasons of games dated only to the year (historian, round 12, finding 1;
docs/legacy-systems.md "Games dated only to the year").

A club season "1962-63" whose PGN gives only years (games 1962.??.?? and 1963.??.??)
was graded in two ECF seasons: year-only games are stored in December, and December
1963 opens the 1963/64 season, which the club never played. An ECF season runs 1 June
to 31 May (docs/legacy-systems.md "Cycles"), so January–May 1963 is the 1962/63 season:
the 1963 games of an event that fits in that season are graded there, with a note;
other year-only games are graded in the season of their December, with a note that
this is a guess.

Expected by hand (docs/legacy-systems.md "Legacy ECF grading": 40-point rule, pre-2011
padding to 30 games at the previous grade), all six games in 1962/63, grades Alder 160,
Birch 140, Cedar 100, Dogwood 150:
  Alder: beat Birch 140 + 50 = 190, beat Cedar (100 → 120) 170, beat Dogwood 200;
         (190 + 170 + 200 + 27·160)/30 = 162.67 → 163
  Birch: lost to Alder 160 − 50 = 110, drew Dogwood 150, beat Cedar (100, 40 below) 150;
         (410 + 27·140)/30 = 139.67 → 140
  Cedar: lost to Alder (160 → 140) 90, to Birch 90, to Dogwood (150 → 140) 90;
         (270 + 27·100)/30 = 99
  Dogwood: drew Birch 140, lost to Alder 110, beat Cedar (100 → 110) 160;
         (410 + 27·150)/30 = 148.67 → 149
"""

from __future__ import annotations

import warnings

import arpad
from arpad.pipeline.cli import main
from arpad.pipeline.engine import rate
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.store import Store

EVENT = "Hastings Club Championship 1962-63"
# (date, white, black, result): the historian's club6263.pgn
CLUB = [
    ("1962.??.??", "Alder", "Birch", "1-0"),
    ("1962.??.??", "Cedar", "Alder", "0-1"),
    ("1962.??.??", "Birch", "Dogwood", "1/2-1/2"),
    ("1963.??.??", "Dogwood", "Alder", "0-1"),
    ("1963.??.??", "Birch", "Cedar", "1-0"),
    ("1963.??.??", "Cedar", "Dogwood", "0-1"),
]
GRADES = {"Alder": 160, "Birch": 140, "Cedar": 100, "Dogwood": 150}
SEASON = {"Alder": 163, "Birch": 140, "Cedar": 99, "Dogwood": 149}  # worked above

PLACED_NOTE = (
    "3 game(s) dated only to the year were graded in the season their event began in, "
    "not in the season their year's December opens: 3 of 1963 in 1962/63 (listed at "
    "196305; 'Hastings Club Championship 1962-63'). Games of Jan-May 1963 belong to "
    "1962/63, and an event of one file whose other games all lie in that season is "
    'taken to have been played in it (docs/legacy-systems.md "Games dated only to the '
    'year"; --set year_only_events=false grades them by their December)'
)
GUESSED_NOTE = (
    "3 game(s) dated only to the year were graded in the season holding their year's "
    "December: 3 of 1962 in 1962/63 (listed at 196305). A game of Jan-May 1962 belongs "
    'to 1961/62: the season of such a game is a guess (docs/legacy-systems.md "Games '
    'dated only to the year")'
)


def pgn_text(games, event: str = EVENT, ids: bool = False) -> str:
    out = []
    for i, (date, white, black, result) in enumerate(games, 1):
        tags = [f'[Event "{event}"]', '[Site "Hastings"]', f'[Date "{date}"]']
        tags += [f'[Round "{i}"]', f'[White "{white}"]', f'[Black "{black}"]']
        if ids:  # FIDE ids: the same players in two files
            tags += [f'[WhiteFideId "{list(GRADES).index(white) + 1}"]']
            tags += [f'[BlackFideId "{list(GRADES).index(black) + 1}"]']
        tags.append(f'[Result "{result}"]')
        out.append("\n".join(tags) + f"\n\n1. e4 e5 2. Nf3 Nc6 {result}\n")
    return "\n".join(out)


def club_files(tmp_path, games=CLUB, name: str = "club6263.pgn"):
    pgn = tmp_path / name
    pgn.write_text(pgn_text(games))
    players = tmp_path / "club_players.csv"
    rows = [f"{name}:{p},{p},{g}" for p, g in GRADES.items()]
    players.write_text("player_id,name,grade\n" + "\n".join(rows) + "\n")
    return pgn, players


def grades(store: Store, period: int) -> dict[str, tuple[str, float, int]]:
    table = store.read_ratings("ecf", "standard", period)
    return {
        pid.split(":")[-1]: (status, rating, games)
        for pid, status, rating, games in zip(
            table.column("player_id").to_pylist(),
            table.column("status").to_pylist(),
            table.column("rating_after").to_pylist(),
            table.column("games").to_pylist(),
            strict=True,
        )
    }


def season(status: str = "rated", games: int = 3) -> dict:
    return {p: (status, g, games) for p, g in SEASON.items()}


def test_a_club_season_over_the_new_year_is_graded_in_one_season_with_notes(tmp_path, capsys):
    pgn, players = club_files(tmp_path)
    s = str(tmp_path / "S8")
    assert main(["ingest", str(pgn), "--players", str(players), "--store", s, "--no-flow"]) == 0
    capsys.readouterr()
    assert main(["rate", "--system", "ecf", "--store", s, "--no-flow"]) == 0
    out, err = capsys.readouterr()
    assert "rated 2 periods (196212..196305), 6 games" in out
    notes = [line for line in err.splitlines() if line.startswith("arpad: note: ecf/")]
    assert notes == [
        f"arpad: note: ecf/standard: {PLACED_NOTE}",
        f"arpad: note: ecf/standard: {GUESSED_NOTE}",
    ]
    store = Store(s)
    # no 1963/64 season: nothing rated after the 1962/63 list
    assert store.rating_periods("ecf", "standard") == [196212, 196305]
    assert grades(store, 196305) == season()
    assert (
        main(["list", "--system", "ecf", "--store", s, "--period", "196305", "--format", "csv"])
        == 0
    )
    listed = [line.split(",") for line in capsys.readouterr().out.splitlines()]
    at = listed[0].index("rating")
    assert [[row[1], row[at]] for row in listed[1:]] == [
        ["club6263.pgn:Alder", "163"],
        ["club6263.pgn:Dogwood", "149"],
        ["club6263.pgn:Birch", "140"],
        ["club6263.pgn:Cedar", "99"],
    ]


def test_year_only_games_are_graded_as_the_fully_dated_season(tmp_path, capsys):
    """The same season dated day by day (October 1962 to April 1963) gives the same
    1962/63 list, without a note; the year-only copy now gives it too."""
    dated = ["1962.10.05", "1962.11.09", "1962.12.07", "1963.02.08", "1963.03.08", "1963.04.05"]
    games = [(d, *g[1:]) for d, g in zip(dated, CLUB, strict=True)]
    (tmp_path / "dated").mkdir()
    pgn, players = club_files(tmp_path / "dated", games)
    s = str(tmp_path / "S")
    assert main(["ingest", str(pgn), "--players", str(players), "--store", s, "--no-flow"]) == 0
    capsys.readouterr()
    assert main(["rate", "--system", "ecf", "--store", s, "--no-flow"]) == 0
    out, err = capsys.readouterr()
    assert "rated 7 periods (196210..196305)" in out
    assert "dated only to the year" not in err
    dated_list = grades(Store(s), 196305)
    assert dated_list == season()
    pgn, players = club_files(tmp_path)
    year_only = Store(tmp_path / "Y")
    ingest_files(year_only, [pgn], players=[players])
    rate(year_only, "ecf")
    assert grades(year_only, 196305) == dated_list


def test_year_only_events_false_grades_them_by_their_december(tmp_path):
    """The old placement on request: the 1963 games open 1963/64 (the historian's 161,
    139, 100, 150 at 196305: Alder (190 + 170 + 28·160)/30 = 161, Birch (110 + 150 +
    28·140)/30 = 139.33, Cedar (90 + 29·100)/30 = 99.67 → 100, Dogwood (150 + 29·150)/30)."""
    pgn, players = club_files(tmp_path)
    store = Store(tmp_path / "S")
    ingest_files(store, [pgn], players=[players])
    summary = rate(store, "ecf", overrides={"year_only_events": "false"})
    assert summary.periods == [196212, 196305, 196312, 196405]
    assert grades(store, 196305) == {
        "Alder": ("rated", 161, 2),
        "Birch": ("rated", 139, 2),
        "Cedar": ("rated", 100, 1),
        "Dogwood": ("rated", 150, 1),
    }
    assert summary.notes == [
        "6 game(s) dated only to the year were graded in the season holding their year's "
        "December: 3 of 1962 in 1962/63 (listed at 196305); 3 of 1963 in 1963/64 (listed "
        "at 196405). A game of Jan-May 1962 belongs to 1961/62: the season of such a game "
        'is a guess (docs/legacy-systems.md "Games dated only to the year")'
    ]


def test_an_event_reaching_into_an_earlier_season_is_not_moved(tmp_path):
    """An event with a game of March 1962 (season 1961/62) does not fit in one season:
    its 1963 games stay in December (1963/64), said in the note."""
    games = [("1962.03.??", *CLUB[0][1:]), *CLUB[1:]]
    pgn, players = club_files(tmp_path, games)
    store = Store(tmp_path / "S")
    ingest_files(store, [pgn], players=[players])
    summary = rate(store, "ecf")
    assert summary.periods == [196203, 196205, 196212, 196305, 196312, 196405]
    # 1961/62: Alder beat Birch: (190 + 29·160)/30 = 161, Birch (110 + 29·140)/30 = 139
    assert grades(store, 196205)["Alder"] == ("rated", 161, 1)
    assert grades(store, 196205)["Birch"] == ("rated", 139, 1)
    assert summary.notes == [
        "5 game(s) dated only to the year were graded in the season holding their year's "
        "December: 2 of 1962 in 1962/63 (listed at 196305); 3 of 1963 in 1963/64 (listed "
        "at 196405). A game of Jan-May 1962 belongs to 1961/62: the season of such a game "
        'is a guess (docs/legacy-systems.md "Games dated only to the year")'
    ]


def test_the_1963_games_ingested_later_regrade_the_1962_63_season(tmp_path):
    """The club's file sent again with its 1963 games (a new version of the source, stale
    from 196212): the next `arpad rate` grades them in 1962/63, as a full run does (an
    ECF run that would start later rates from the first period, round 13)."""
    club = tmp_path / "a.pgn"
    club.write_text(pgn_text(CLUB[:3], ids=True))
    players = tmp_path / "players.csv"
    rows = [f"{i},{p},{g}" for i, (p, g) in enumerate(GRADES.items(), 1)]
    players.write_text("player_id,name,grade\n" + "\n".join(rows) + "\n")
    s = str(tmp_path / "S")
    assert main(["ingest", str(club), "--players", str(players), "--store", s, "--no-flow"]) == 0
    assert main(["rate", "--system", "ecf", "--store", s, "--no-flow"]) == 0
    club.write_text(pgn_text(CLUB, ids=True))
    assert main(["ingest", str(club), "--store", s, "--no-flow"]) == 0
    assert main(["rate", "--system", "ecf", "--store", s, "--no-flow"]) == 0
    store = Store(s)
    assert store.rating_periods("ecf", "standard") == [196212, 196305]
    names = dict(zip("1234", GRADES, strict=True))
    table = store.read_ratings("ecf", "standard", 196305)
    got = {
        names[pid]: (status, rating, games)
        for pid, status, rating, games in zip(
            *(
                table.column(c).to_pylist()
                for c in ("player_id", "status", "rating_after", "games")
            ),
            strict=True,
        )
    }
    assert got == season()


def test_arpad_rate_in_memory_places_them_alike_and_warns(tmp_path):
    pgn, players = club_files(tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = arpad.rate(str(pgn), system="ecf", players=str(players))
    assert sorted(set(result["period"].to_list())) == [196212, 196305]
    closing = result.filter(result["period"] == 196305)
    got = {
        pid.split(":")[-1]: (status, rating, games)
        for pid, status, rating, games in closing.select(
            "player_id", "status", "rating_after", "games"
        ).iter_rows()
    }
    assert got == season()
    said = [str(w.message) for w in caught if "dated only to the year" in str(w.message)]
    assert said == [f"ecf/standard: {PLACED_NOTE}", f"ecf/standard: {GUESSED_NOTE}"]
