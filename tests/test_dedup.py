"""Nothing lost, nothing stored twice (issue 12 items 5, 7, 12).

* A source is its path relative to the working directory (or ``--source NAME``),
  never its base name: ``jan/results.csv`` and ``feb/results.csv`` are two sources.
* Re-sent games are recognised by what they say (date, players, result, round), not
  by their bytes: CRLF, another name, another column order, CSV vs PGN.
* Two players files that give one player different ratings are reported.

Every ingest checks the accounting: rows read = games stored + rows quarantined.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from arpad.pipeline.cli import main
from arpad.pipeline.store import Store

JAN = [
    "date,white_id,black_id,result",
    "2024-01-05,P1,P2,1-0",
    "2024-01-12,P2,P3,0-1",
    "2024-01-19,P3,P1,1/2-1/2",
]
FEB = ["date,white_id,black_id,result", "2024-02-02,P1,P3,1-0", "2024-02-09,P2,P1,0-1"]


def write(path, lines, newline="\n"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes((newline.join(lines) + newline).encode())
    return path


def ingest(store, *args) -> int:
    return main(["ingest", "--no-flow", "--store", str(store), *map(str, args)])


def stored(store) -> pa.Table:
    files = Store(store).game_files()
    return pq.read_table(files) if files else pa.table({"game_id": pa.array([], pa.string())})


def quarantined(store) -> list[dict]:
    return [
        row
        for f in sorted((Store(store).quarantine_dir).rglob("*.parquet"))
        for row in pq.read_table(f).to_pylist()
    ]


def summary_counts(out: str, name: str) -> tuple[int, int, int]:
    """(rows read, games stored, quarantined) from the summary line of ``name``."""
    line = next(x for x in out.splitlines() if name in x and "rows read" in x)
    parts = line.split(": ", 1)[1].split(", ")
    read, kept, quar = (int(p.split()[0]) for p in parts[:3])
    return read, kept, quar


@pytest.fixture
def cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


# -- item 5: which file is which ------------------------------------------------------
def test_same_base_name_in_two_folders_are_two_sources(cwd, capsys):
    store = cwd / "s"
    assert ingest(store, write(cwd / "jan" / "results.csv", JAN)) == 0
    capsys.readouterr()
    assert ingest(store, write(cwd / "feb" / "results.csv", FEB)) == 0
    out = capsys.readouterr().out
    assert "replaced" not in out and summary_counts(out, "feb/results.csv") == (2, 2, 0)
    assert stored(store).num_rows == 5  # January kept
    manifest = Store(store).read_manifest().to_pylist()
    assert sorted(m["source_key"] for m in manifest) == ["feb/results.csv", "jan/results.csv"]
    # The second file's rows carry its path: their derived ids do not collide.
    assert sorted(m["source"] for m in manifest) == ["feb/results.csv", "results.csv"]

    # A real correction of January (one game dropped, one result changed) says so.
    fixed = [JAN[0], JAN[1], JAN[2].replace("0-1", "1-0")]
    assert ingest(store, write(cwd / "jan" / "results.csv", fixed)) == 0
    out = capsys.readouterr().out
    assert (
        "replaced the earlier version of results.csv (2 games removed, 1 added, 0 changed)" in out
    )
    sources = stored(store).column("source").to_pylist()
    assert len(sources) == 4 and sum(s.startswith("feb/results.csv:") for s in sources) == 2


def test_correction_with_explicit_ids_counts_changed_games(cwd, capsys):
    store = cwd / "s"
    lines = ["game_id,date,white_id,black_id,result", *(f"g{i},{r}" for i, r in enumerate(JAN[1:]))]
    assert ingest(store, write(cwd / "a" / "r.csv", lines)) == 0
    fixed = [*lines[:2], lines[2].replace("0-1", "1-0"), "g9,2024-01-26,P1,P2,0-1"]
    capsys.readouterr()
    assert ingest(store, write(cwd / "a" / "r.csv", fixed)) == 0
    assert "(1 game removed, 1 added, 1 changed)" in capsys.readouterr().out
    assert sorted(stored(store).column("game_id").to_pylist()) == ["g0", "g1", "g9"]


def test_explicit_source_names_the_source_wherever_the_file_is(cwd, tmp_path, capsys):
    store = cwd / "s"
    assert ingest(store, "--source", "club-jan", write(cwd / "x" / "one.csv", JAN)) == 0
    fixed = JAN[:3]
    capsys.readouterr()
    assert ingest(store, "--source", "club-jan", write(cwd / "y" / "two.csv", fixed)) == 0
    out = capsys.readouterr().out
    assert "replaced the earlier version of club-jan (1 game removed, 0 added, 0 changed)" in out
    assert stored(store).num_rows == 2
    assert sorted(stored(store).column("source").to_pylist()) == ["club-jan:2", "club-jan:3"]
    # Without --source, the same file is a source of its own (its games are duplicates).
    assert ingest(store, write(cwd / "z" / "one.csv", JAN)) == 2
    assert stored(store).num_rows == 3
    assert main(["ingest", "--no-flow", "--store", str(store), "--source", "n", "a", "b"]) == 2


def test_files_ingested_before_identities_were_recorded(cwd, capsys):
    """A manifest row without source_key (written by an older arpad, by base name):
    a file in the working directory with that name still corrects it; a file in a
    folder with that base name is refused until --source says which it is."""
    store = cwd / "s"
    assert ingest(store, write(cwd / "results.csv", JAN)) == 0
    s = Store(store)  # the manifest as an older arpad wrote it
    pq.write_table(
        s.read_manifest().drop_columns(["source_key", "content_sha256"]), s.manifest_path
    )
    capsys.readouterr()
    assert ingest(store, write(cwd / "jan" / "results.csv", JAN[:3])) == 2
    err = capsys.readouterr().err
    assert "--source results.csv" in err and "--source jan/results.csv" in err
    assert stored(store).num_rows == 3  # nothing changed
    assert ingest(store, "--source", "results.csv", cwd / "jan" / "results.csv") == 0
    assert "replaced the earlier version of results.csv" in capsys.readouterr().out
    assert stored(store).num_rows == 2


# -- item 7: re-sent content ----------------------------------------------------------
def test_crlf_resend_under_another_name_is_quarantined_not_stored(cwd, capsys):
    store = cwd / "s"
    assert ingest(store, write(cwd / "a.csv", JAN)) == 0
    capsys.readouterr()
    assert ingest(store, write(cwd / "b.csv", JAN, newline="\r\n")) == 2
    out, err = capsys.readouterr()
    assert summary_counts(out, "b.csv") == (3, 0, 3)  # rows in = stored + quarantined
    assert "the same games as a.csv" in out
    assert "quarantined by reason: duplicate_game 3" in err
    assert "b.csv:2: duplicate_game: same game (date, players, result, round) already stored" in err
    assert stored(store).num_rows == 3
    assert [q["reason"] for q in quarantined(store)] == ["duplicate_game"] * 3


def test_renamed_identical_resend_is_skipped(cwd, capsys):
    store = cwd / "s"
    assert ingest(store, write(cwd / "a.csv", JAN)) == 0
    capsys.readouterr()
    assert ingest(store, write(cwd / "copy" / "renamed.csv", JAN)) == 0
    assert "skipped, identical content already ingested as a.csv" in capsys.readouterr().out
    assert stored(store).num_rows == 3 and quarantined(store) == []


def test_canonical_csv_without_game_id_resent_in_another_layout(cwd, capsys):
    store = cwd / "s"
    assert ingest(store, write(cwd / "a.csv", [*JAN, *FEB[1:]])) == 0
    # Same games, other column order, quoting, period given too, one new game.
    resent = ['"black_id","white_id","result","date"']
    for row in [*JAN[1:], *FEB[1:]]:
        date, white, black, result = row.split(",")
        resent.append(f'"{black}","{white}","{result}","{date}"')
    resent.append('"P1","P2","1-0","2024-02-23"')
    capsys.readouterr()
    assert ingest(store, write(cwd / "again" / "b.csv", resent)) == 2
    out, err = capsys.readouterr()
    assert summary_counts(out, "b.csv") == (6, 1, 5)
    assert "5 game(s) already stored from another file" in out
    assert "duplicate_game 5" in err
    assert stored(store).num_rows == 6


PGN_GAME = """[Event "Open"]
[Site "Leeds ENG"]
[Date "2024.03.{day:02d}"]
[Round "{rnd}"]
[White "{white}"]
[Black "{black}"]
[WhiteFideId "{wid}"]
[BlackFideId "{bid}"]
[Result "{result}"]

1. e4 e5 {result}
"""


def pgn(*games) -> str:
    return "\n".join(
        PGN_GAME.format(day=d, rnd=r, white=f"W{w}", black=f"B{b}", wid=w, bid=b, result=res)
        for d, r, w, b, res in games
    )


@pytest.mark.parametrize("csv_first", [True, False], ids=["csv-then-pgn", "pgn-then-csv"])
def test_same_game_in_csv_and_pgn_is_stored_once(cwd, capsys, csv_first):
    store = cwd / "s"
    csv = write(
        cwd / "games.csv",
        [
            "game_id,date,white_id,black_id,result",
            "fed-1,2024-03-05,1503014,4100018,1-0",
            "fed-2,2024-03-06,4100018,1503014,1/2-1/2",
        ],
    )
    pgn_path = cwd / "open.pgn"
    pgn_path.write_text(pgn((5, "1", 1503014, 4100018, "1-0"), (7, "2", 1503014, 4100018, "0-1")))
    first, second = (csv, pgn_path) if csv_first else (pgn_path, csv)
    assert ingest(store, first) == 0
    capsys.readouterr()
    assert ingest(store, second) == 2
    out, err = capsys.readouterr()
    assert summary_counts(out, second.name) == (2, 1, 1)
    assert "duplicate_game 1" in err
    games = stored(store)
    assert games.num_rows == 3
    keys = {(str(r["date"]), r["white_id"], r["score"]) for r in games.to_pylist()}
    assert len(keys) == 3
    # Rated once: the FIDE run sees the 2024-03-05 game one time.
    capsys.readouterr()
    assert main(["rate", "--no-flow", "--store", str(store), "--system", "elo"]) == 0
    ratings = pq.read_table(Store(store).rating_partition("elo", "standard", 202403))
    assert sorted(ratings.column("games").to_pylist()) == [3, 3]


def test_double_round_robin_games_on_one_day(cwd, capsys):
    """Two games between the same players on the same day with the same result: in one
    file both are kept; re-sent, both are duplicates; a third on top is a new game."""
    store = cwd / "s"
    same_day = ["date,white_id,black_id,result", "2024-01-05,P1,P2,1-0", "2024-01-05,P1,P2,1-0"]
    assert ingest(store, write(cwd / "blitz.csv", same_day)) == 0
    assert stored(store).num_rows == 2
    capsys.readouterr()
    assert ingest(store, write(cwd / "resent.csv", same_day, newline="\r\n")) == 2
    assert summary_counts(capsys.readouterr().out, "resent.csv") == (2, 0, 2)
    assert ingest(store, write(cwd / "more.csv", [*same_day, same_day[1]])) == 2
    assert summary_counts(capsys.readouterr().out, "more.csv") == (3, 1, 2)
    assert stored(store).num_rows == 3
    # Games whose own ids differ are different games, whatever they say.
    ids = ["game_id,date,white_id,black_id,result", "r1,2024-01-06,P1,P2,1-0"]
    assert ingest(store, write(cwd / "ids-a.csv", ids)) == 0
    assert ingest(store, write(cwd / "ids-b.csv", [ids[0], "r2,2024-01-06,P1,P2,1-0"])) == 0
    assert stored(store).num_rows == 5
    # The PGN round tells rounds apart even when everything else is equal.
    pgn_path = cwd / "rr.pgn"
    pgn_path.write_text(pgn((9, "1", 11, 22, "1-0"), (9, "2", 11, 22, "1-0")))
    assert ingest(store, pgn_path) == 0
    again = cwd / "rr-final.pgn"
    again.write_text(pgn_path.read_text().replace("Open", "Open 2024"))
    capsys.readouterr()
    assert ingest(store, again) == 2
    assert summary_counts(capsys.readouterr().out, "rr-final.pgn") == (2, 0, 2)


# -- item 12: players files that disagree -------------------------------------------
def test_two_players_files_with_different_ratings_are_reported(cwd, capsys):
    store = cwd / "s"
    a = write(cwd / "fed" / "players.csv", ["player_id,name,rating", "P1,Ann,1800", "P2,Bob,1700"])
    b = write(cwd / "club" / "players.csv", ["player_id,name,rating", "P1,Ann,1850", "P2,Bob,1700"])
    assert main(["ingest", "--no-flow", "--store", str(store), "--players", str(a),
                 str(write(cwd / "g.csv", JAN))]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["ingest", "--no-flow", "--store", str(store), "--players", str(b),
                 str(write(cwd / "g2.csv", FEB))]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert (
        "note: 1 player(s) whose rating differs between sources (e.g. P1: 1850.0 in "
        "club/players.csv, 1800.0 in players.csv; the file ingested last wins" in out
    )
    assert main(["players", "--store", str(store), "--conflicts"]) == 0
    assert "1 player(s) with conflicting values across sources" in capsys.readouterr().out
    assert main(["players", "--store", str(store), "--conflicts", "--format", "csv"]) == 0
    rows = capsys.readouterr().out.strip().splitlines()
    assert rows[0].startswith("player_id,source,line,name,field,value")
    assert "P1,club/players.csv,2,Ann,rating,1850.0" in rows[1:]
    assert "P1,players.csv,2,Ann,rating,1800.0" in rows[1:]
    assert not any(r.startswith("P2,") for r in rows)
    players = {p["player_id"]: p for p in Store(store).read_players().to_pylist()}
    assert players["P1"]["rating"] == 1850.0


def test_monthly_inbox_identity_is_the_name_and_a_correction_says_what_it_removed(tmp_path):
    """The monthly job: a file's identity is its name in the inbox (the working
    directory plays no part); a file sent again under that name corrects it, and the
    summary's outcome says how many games that removed."""
    from arpad.pipeline import monthly

    store = Store(tmp_path / "s")
    first = write(tmp_path / "inbox-1" / "results.csv", JAN)
    again = write(tmp_path / "inbox-2" / "results.csv", JAN[:3])
    other = write(tmp_path / "inbox-2" / "feb.csv", FEB)
    assert monthly.ingest_inbox_file(store, first, None, None, None)["detail"] == ""
    result = monthly.ingest_inbox_file(store, again, None, None, None)
    assert result["detail"] == "corrects results.csv: 1 game removed, 0 added, 0 changed"
    assert monthly.ingest_inbox_file(store, other, None, None, None)["accepted"] == 2
    assert stored(store.root).num_rows == 4
    assert sorted(store.read_manifest().column("source_key").to_pylist()) == [
        "feb.csv",
        "results.csv",
    ]
