"""A rating officer's monthly workflow, attacked the way a hurried officer does
(docs/operations.md "The officer's month: what was tried"): each test is a defect
found that way, and failed before its fix."""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from arpad.pipeline import store as store_module
from arpad.pipeline.cli import main
from arpad.pipeline.readers import read_any
from arpad.pipeline.store import Store

PLAYERS = "player_id,name,rating\n1001,Alpha,2200\n1002,Bravo,2100\n1003,Charlie,2000\n"
PLAYERS += "1004,Delta,1900\n"
GAMES = (
    "game_id,date,white_id,black_id,result\n"
    "g1,2024-01-10,1001,1002,1/2-1/2\n"
    "g2,2024-01-11,1003,1004,1-0\n"
    "g3,2024-01-12,1002,1003,0-1\n"
    "g4,2024-01-13,1004,1001,1/2-1/2\n"
)


def trf_line(rank: int, name: str, rating: int, fide: int, blocks: list[str]) -> str:
    """A TRF16 001 line laid out by columns (docs/pgn-trf.md "TRF columns")."""
    head = f"001 {rank:>4} m    {name:<33} {rating:>4} GER {fide:>11} 1990/01/01  1.0 {rank:>4}  "
    assert len(head) == 91
    return head + "".join(b.ljust(10) for b in blocks).rstrip()


def trf_text(lines: list[str]) -> str:
    head = ["012 Officer Open", "042 2024/01/10", "052 2024/01/12", "092 Individual: Swiss"]
    return "\n".join(head + lines) + "\n"


def snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != ".lock"
    }


def stored_games(root: Path) -> pl.DataFrame:
    files = Store(root).game_files()
    return pl.from_arrow(pa.concat_tables([pq.read_table(f) for f in files])).sort("game_id")


def list_ratings(path: Path) -> dict[str, int]:
    frame = pl.read_csv(path, schema_overrides={"player_id": pl.String})
    return dict(zip(frame["player_id"], frame["rating"]))


def run(*args: str) -> int:
    return main([*args, "--no-flow"] if args[0] in ("ingest", "rate") else list(args))


def _ingested(tmp_path, players: str = PLAYERS) -> Path:
    """A store with January 2024 ingested (games and ``players``), not rated."""
    (tmp_path / "players.csv").write_text(players)
    (tmp_path / "jan.csv").write_text(GAMES)
    root = tmp_path / "store"
    s = ["--store", str(root)]
    assert (
        run("ingest", str(tmp_path / "jan.csv"), "--players", str(tmp_path / "players.csv"), *s)
        == 0
    )
    return root


@pytest.fixture()
def rated(tmp_path) -> Path:
    """A store with January 2024 ingested (games and players) and rated with FIDE."""
    root = _ingested(tmp_path)
    assert run("rate", "--system", "fide", "--store", str(root)) == 0
    return root


# -- TRF -------------------------------------------------------------------------------------


def test_trf_shifted_by_one_column_stores_no_player(rated, tmp_path, capsys):
    """A TRF whose 001 lines an editor shifted by one column used to put players with a
    neighbour's digits into the players table (FIDE id 1000 for 10001, rating 220 for
    2200) although every game was quarantined; now each such line is quarantined."""
    good = [
        trf_line(1, "Aa, Anna", 2200, 10001, ["   2 w 1"]),
        trf_line(2, "Bb, Bert", 2100, 10002, ["   1 b 0"]),
        trf_line(10, "Cc, Carl", 2000, 10010, ["  11 w ="]),
        trf_line(11, "Dd, Dora", 1900, 10011, ["  10 b ="]),
    ]
    for shifted in (
        [line[:3] + " " + line[3:] for line in good],
        [line[:3] + line[4:] for line in good],
    ):
        path = tmp_path / "shifted.trf"
        path.write_text(trf_text(shifted))
        players_before = Store(rated).read_players()
        code = run("ingest", str(path), "--store", str(rated))
        err = capsys.readouterr().err
        assert code == 2
        assert f"{path}:5: malformed_row" in err
        after = Store(rated).read_players()
        assert sorted(after.column("player_id").to_pylist()) == sorted(
            players_before.column("player_id").to_pylist()
        )
        raw = read_any(path)
        assert raw.frame.height == 0
        # the note counts every 001 line read, quarantined ones included
        assert "4 players × 1 rounds = 4 blocks" in " ".join(raw.notes)


def test_trf_with_tabs_is_refused_line_by_line_with_the_reason(tmp_path):
    """An editor that turned runs of spaces into tabs: the lines were read at the wrong
    offsets, with a note per line about a FIDE id such as '.0\t1    26'."""
    lines = [
        trf_line(1, "Aa, Anna", 2200, 10001, ["   2 w 1"]),
        trf_line(2, "Bb, Bert", 2100, 10002, ["   1 b 0"]),
    ]
    path = tmp_path / "tabs.trf"
    path.write_text(trf_text([line.replace("        ", "\t") for line in lines]))
    raw = read_any(path)
    assert raw.frame.height == 0 and raw.players.height == 0
    assert [p[0] for p in raw.problems] == [5, 6]
    assert all("a TAB character in a 001 line" in p[2] for p in raw.problems)
    assert not any("FIDE id" in n for n in raw.notes)


def test_trf_with_one_fide_id_on_two_lines_rates_nobody_twice(tmp_path, capsys):
    """A FIDE id typed twice (ranks 1 and 2 both 10001): rank 2's game used to be stored
    as the game of rank 1's player, although the players row was quarantined."""
    lines = [
        trf_line(1, "Aa, Anna", 2200, 10001, ["   3 w 1"]),
        trf_line(2, "Bb, Bert", 2100, 10001, ["   4 b 0"]),
        trf_line(3, "Cc, Carl", 2000, 10003, ["   1 b 0"]),
        trf_line(4, "Dd, Dora", 1900, 10004, ["   2 w 1"]),
    ]
    path = tmp_path / "twice.trf"
    path.write_text(trf_text(lines))
    root = tmp_path / "store"
    assert run("ingest", str(path), "--store", str(root)) == 2
    err = capsys.readouterr().err
    assert f"{path}:6: duplicate_player_id: FIDE id 10001 (columns 58-68) already on line 5" in err
    games = stored_games(root)
    assert games.select("white_id", "black_id").rows() == [("10001", "10003")]
    assert "Bb, Bert" not in Store(root).read_players().column("name").to_pylist()


def test_trf_header_date_not_understood_is_named(tmp_path, capsys):
    """Start and end dates with a two-digit year ("24.09.10"): the games were
    quarantined "neither date nor period given" without a word about the header."""
    lines = [
        trf_line(1, "Aa, Anna", 2200, 10001, ["   2 w 1"]),
        trf_line(2, "Bb, Bert", 2100, 10002, ["   1 b 0"]),
    ]
    text = (
        trf_text(lines)
        .replace("042 2024/01/10", "042 10.01.24")
        .replace("052 2024/01/12", "052 12.01.24")
    )
    path = tmp_path / "yy.trf"
    path.write_text(text)
    assert run("ingest", str(path), "--store", str(tmp_path / "store")) == 2
    out = capsys.readouterr()
    err = out.out + out.err
    assert "header date(s) 042 '10.01.24', 052 '12.01.24' not understood: give YYYY/MM/DD" in err
    assert f"{path}:5: missing_period" in err


def test_corrected_trf_under_a_new_name_says_the_result_was_not_applied(tmp_path, capsys):
    """The arbiter's corrected TRF saved under a new name: its changed result was
    quarantined "already stored from …" exactly like the unchanged games, so nothing
    told the officer the correction had not been applied. Now the changed game is
    quarantined conflicting_result with a note whose hint gives the stored source's
    identity (its absolute path here, not the label open.trf), and the same bytes
    ingested as a new version of that source apply the correction (docs/ingest.md
    "Which file is which (source identity) and corrections")."""
    first = [
        trf_line(1, "Aa, Anna", 2200, 10001, ["   2 w 1", "   3 b ="]),
        trf_line(2, "Bb, Bert", 2100, 10002, ["   1 b 0", "   4 w 1"]),
        trf_line(3, "Cc, Carl", 2000, 10003, ["   4 w 1", "   1 w ="]),
        trf_line(4, "Dd, Dora", 1900, 10004, ["   3 b 0", "   2 b 0"]),
    ]
    fixed = [first[0].replace("   2 w 1", "   2 w 0"), first[1].replace("   1 b 0", "   1 b 1")]
    (tmp_path / "open.trf").write_text(trf_text(first))
    (tmp_path / "open-v2.trf").write_text(trf_text(fixed + first[2:]))
    root = str(tmp_path / "store")
    # outside the working directory: the source's identity is its absolute path
    ident, v2 = str(tmp_path / "open.trf"), str(tmp_path / "open-v2.trf")
    assert run("ingest", ident, "--store", root) == 0
    before = stored_games(tmp_path / "store").select("game_id", "score", "source").rows()
    assert before == [
        ("trf:Officer Open|2024-01-10:r1:1-2", 1.0, "open.trf:5"),
        ("trf:Officer Open|2024-01-10:r1:3-4", 1.0, "open.trf:7"),
        ("trf:Officer Open|2024-01-10:r2:1-3", 0.5, "open.trf:5"),
        ("trf:Officer Open|2024-01-10:r2:2-4", 1.0, "open.trf:6"),
    ]
    capsys.readouterr()
    assert run("ingest", v2, "--store", root) == 2
    out = capsys.readouterr()
    text = out.out + out.err
    changed = [line for line in text.splitlines() if ": conflicting_result: " in line]
    assert len(changed) == 1 and "trf:Officer Open|2024-01-10:r1:1-2" in changed[0]
    assert "already stored from open.trf:5 with White's score 1 there, 0 here" in changed[0]
    hint = f"not applied (a correction of open.trf is ingested with --source {ident!r}"
    assert hint in changed[0]
    assert "--source 'open.trf'" not in text  # the label is no stored identity
    assert (
        "note: 1 game(s) with the date and players of a game stored from another file but "
        "another result: not applied (quarantined as conflicting_result; to correct "
        f"{ident}, ingest this file with --source {ident!r}: a new version replaces all of "
        "that source's games, so send the complete corrected file)" in out.out
    )
    assert "quarantined by reason: conflicting_result 1, duplicate_game_id 3" in text
    assert stored_games(tmp_path / "store").select("game_id", "score", "source").rows() == before
    # --source with the label (what the old hint gave) names no stored source: refused,
    # giving the identity, and nothing of open.trf is replaced (historian round 11: it
    # made a new source open.trf@1)
    assert run("ingest", v2, "--source", "open.trf", "--store", root) == 2
    out = capsys.readouterr()
    assert (
        "--source open.trf is no stored source's identity; the stored source "
        f"{ident} is named open.trf: to ingest this file as its new version (it replaces all "
        f"of that source's games), --source {ident!r}" in out.err
    )
    assert "replaced the earlier version" not in out.out + out.err
    assert stored_games(tmp_path / "store").select("game_id", "score", "source").rows() == before
    # the same bytes as a new version of the stored source: the correction is applied,
    # although those bytes were tried under another name first
    assert run("ingest", v2, "--source", ident, "--store", root) == 0
    out = capsys.readouterr()
    assert (
        "4 rows read, 4 games stored, 0 quarantined; replaced the earlier version of "
        "open.trf (0 games removed, 0 added, 1 changed)" in out.out
    )
    assert (
        f"note: these bytes were ingested before as {v2} (0 games stored, 4 quarantined): "
        f"that ingest is undone, the file is stored as the new version of {ident}" in out.out
    )
    assert stored_games(tmp_path / "store").select("game_id", "score", "source").rows() == [
        ("trf:Officer Open|2024-01-10:r1:1-2", 0.0, "open.trf:5"),  # Bert beat Anna
        ("trf:Officer Open|2024-01-10:r1:3-4", 1.0, "open.trf:7"),
        ("trf:Officer Open|2024-01-10:r2:1-3", 0.5, "open.trf:5"),
        ("trf:Officer Open|2024-01-10:r2:2-4", 1.0, "open.trf:6"),
    ]
    manifest = pq.read_table(Store(root).manifest_path).to_pylist()
    assert [(m["source"], m["source_key"], m["accepted"], m["quarantined"]) for m in manifest] == [
        ("open.trf", ident, 4, 0)
    ]
    # the same bytes again, now stored as that source: skipped; with --replace the
    # summary says why
    assert run("ingest", v2, "--source", ident, "--store", root) == 0
    assert "skipped, identical content already ingested as open.trf" in capsys.readouterr().out
    assert run("ingest", v2, "--replace", "--store", root) == 0
    out = capsys.readouterr()
    assert "skipped, identical content already ingested as open.trf" in out.out
    assert "--source and --replace do not apply to a file stored byte for byte" in out.out
    assert stored_games(tmp_path / "store")["score"].to_list()[0] == 0.0
    assert run("check", "--store", root) == 0


def test_trf_aligned_lines_still_read(tmp_path):
    lines = [
        trf_line(1, "Aa, Anna", 2200, 10001, ["   2 w 1"]),
        trf_line(2, "Bb, Bert", 2100, 10002, ["   1 b 0"]),
    ]
    path = tmp_path / "ok.trf"
    path.write_text(trf_text(lines))
    raw = read_any(path)
    assert raw.frame.height == 1 and not raw.problems
    assert raw.players.get_column("rating").to_list() == ["2200", "2100"]


def test_players_file_alone_with_the_players_option(rated, tmp_path, capsys):
    """`arpad ingest --players players.csv` (a corrected players file, no games) was
    refused by the argument parser ("the following arguments are required: FILE")."""
    (tmp_path / "players.csv").write_text(PLAYERS.replace("1002,Bravo,2100", "1002,Bravo,2110"))
    s = ["--store", str(rated)]
    assert run("ingest", "--players", str(tmp_path / "players.csv"), *s) == 0
    ratings = dict(
        zip(*Store(rated).read_players().select(["player_id", "rating"]).to_pydict().values())
    )
    assert ratings["1002"] == 2110.0
    capsys.readouterr()
    assert run("ingest", *s) == 2
    err = capsys.readouterr().err
    assert err == "arpad: error: give the files to ingest: FILE... and/or --players F\n"


# -- publishing ------------------------------------------------------------------------------


def test_publish_refuses_a_list_a_correction_made_stale(rated, tmp_path, capsys):
    """A correction ingested after the rating, then `arpad publish` without `arpad rate`,
    used to freeze the old ratings for ever; now exit 2 until the period is rated again."""
    s = ["--store", str(rated)]
    stale_list = tmp_path / "stale.csv"
    assert main(["list", *s, "--format", "csv", "--output", str(stale_list)]) == 0
    corrected = GAMES.replace("g2,2024-01-11,1003,1004,1-0", "g2,2024-01-11,1003,1004,0-1")
    (tmp_path / "jan.csv").write_text(corrected)
    assert run("ingest", str(tmp_path / "jan.csv"), *s) == 0
    capsys.readouterr()
    before = snapshot(rated)
    assert main(["publish", *s]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert "out of date" in err and "stale from period 202401" in err and "arpad rate" in err
    assert snapshot(rated) == before
    assert run("rate", "--system", "fide", *s) == 0
    assert main(["publish", *s]) == 0
    current = tmp_path / "current.csv"
    assert main(["list", *s, "--format", "csv", "--output", str(current)]) == 0
    folder = Store(rated).published_partition("fide", "standard", 202401)
    published = list_ratings(folder / "list.csv")
    assert published == list_ratings(current)
    # the correction moved both players of g2: the frozen list has it
    old = list_ratings(stale_list)
    assert published["1003"] < old["1003"] and published["1004"] > old["1004"]


def test_list_of_stale_ratings_says_so(rated, tmp_path, capsys):
    """`arpad list` printed ratings a correction had made stale without a word."""
    s = ["--store", str(rated)]
    assert main(["list", *s, "--format", "csv"]) == 0
    assert "out of date" not in capsys.readouterr().err
    corrected = GAMES.replace("g2,2024-01-11,1003,1004,1-0", "g2,2024-01-11,1003,1004,0-1")
    (tmp_path / "jan.csv").write_text(corrected)
    assert run("ingest", str(tmp_path / "jan.csv"), *s) == 0
    capsys.readouterr()
    assert main(["list", *s, "--format", "csv"]) == 0
    assert capsys.readouterr().err == (
        "arpad: note: the fide/standard ratings of period 202401 are out of date: games or "
        "players changed since they were rated (stale from period 202401); run arpad rate "
        "--system fide --pool standard first\n"
    )
    assert run("rate", "--system", "fide", *s) == 0
    capsys.readouterr()
    assert main(["list", *s, "--format", "csv"]) == 0
    assert capsys.readouterr().err == ""


def test_merge_interrupted_after_its_alias_file_leaves_the_ratings_stale(
    rated, monkeypatch, capsys
):
    """Ctrl-C (or SIGKILL) right after the merge's alias file was written used to leave
    no stale mark: the monthly job then found nothing to recompute and `arpad publish`
    froze ratings that did not count the merge."""
    from arpad.pipeline import identity

    real = identity._write_merge

    def write_then_interrupt(*args, **kwargs):
        real(*args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(identity, "_write_merge", write_then_interrupt)
    s = ["--store", str(rated)]
    assert main(["players", "merge", "1001", "1004", "--force", *s]) == 130
    monkeypatch.undo()
    # a merge is one staged transition now: interrupted before its commit, not in force
    # (docs/identity.md "Copies a merge makes one game"); its stale marks are set first
    assert identity.alias_map(Store(rated)) == {}
    capsys.readouterr()
    assert main(["publish", *s]) == 2
    assert "out of date" in capsys.readouterr().err
    assert run("rate", "--system", "fide", *s) == 0
    assert main(["publish", *s]) == 0


def test_publish_refuses_after_an_interrupted_rate(rated, tmp_path, capsys):
    """A rate with other rules killed half-way leaves periods of two runs; `arpad
    publish` froze that mixture, and the monthly job (no stale mark) published it as
    up to date. The state a SIGKILL leaves is the journal still saying "running"."""
    s = ["--store", str(rated)]
    journal = Store(rated).journal_path("fide", "standard")
    text = journal.read_text()
    assert '"status": "done"' in text
    journal.write_text(text.replace('"status": "done"', '"status": "running"'))
    capsys.readouterr()
    assert main(["publish", *s]) == 2
    err = capsys.readouterr().err
    assert "the last arpad rate of fide/standard was interrupted" in err
    assert "STORE/runs/system=fide/pool=standard.json still says running" in err
    # the monthly job recomputes it (marked stale from the first period), then publishes
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    monthly = ["recalculate", "--inbox", str(inbox), *s, "--systems", "fide", "--no-flow"]
    assert main(monthly) == 0
    assert "Recomputed" in capsys.readouterr().out
    assert '"status": "done"' in journal.read_text()
    assert Store(rated).published_periods("fide", "standard") == [202401]


def test_a_publication_killed_half_way_is_not_published(rated, tmp_path, capsys):
    """`arpad publish` killed before its manifest (written last) leaves a folder with some
    list files. The monthly job took that folder for a published list: it never froze
    the period and failed on every run with "no published fide/standard list of period
    202401 (published: 202401; …)"."""
    s = ["--store", str(rated)]
    store = Store(rated)
    folder = store.published_partition("fide", "standard", 202401)
    folder.mkdir(parents=True)
    (folder / "list.txt").write_text("ID Number      Name\n")  # what a SIGKILL left
    assert store.published_periods("fide", "standard") == []
    capsys.readouterr()
    assert main(["diff", "--published", "202401", *s]) == 2
    assert "no published fide/standard list of period 202401 (published: none;" in (
        capsys.readouterr().err
    )
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    monthly = ["recalculate", "--inbox", str(inbox), *s, "--systems", "fide", "--no-flow"]
    assert main(monthly) == 0, capsys.readouterr().err
    assert store.published_periods("fide", "standard") == [202401]
    assert (folder / "manifest.json").is_file() and (folder / "list.txt").stat().st_size > 100
    assert main(["diff", "--published", "202401", *s]) == 0


def test_diff_of_a_fide_list_is_in_whole_numbers(rated, tmp_path):
    """`arpad diff --published` printed FIDE's whole-number ratings as 2186.0."""
    s = ["--store", str(rated)]
    assert main(["publish", *s]) == 0
    corrected = GAMES.replace("g2,2024-01-11,1003,1004,1-0", "g2,2024-01-11,1003,1004,0-1")
    (tmp_path / "jan.csv").write_text(corrected)
    assert run("ingest", str(tmp_path / "jan.csv"), *s) == 0
    assert run("rate", "--system", "fide", *s) == 0
    out = tmp_path / "diff.csv"
    assert (
        main(["diff", "--published", "2024-01", *s, "--format", "csv", "--output", str(out)]) == 0
    )
    text = out.read_text()
    assert ".0" not in text
    frame = pl.read_csv(out, schema_overrides={"player_id": pl.String})
    assert frame["published"].dtype == pl.Int64 and frame.height >= 2
    assert (frame["change"] == frame["revised"] - frame["published"]).all()
    assert (frame["change"] != 0).all()


def test_publish_refuses_after_a_merge_until_rated(rated, capsys):
    s = ["--store", str(rated)]
    assert main(["players", "merge", "1001", "1004", "--force", *s]) == 0
    assert main(["publish", *s]) == 2
    assert "out of date" in capsys.readouterr().err
    assert run("rate", "--system", "fide", *s) == 0
    assert main(["publish", *s]) == 0


def test_publish_before_rating_and_twice_are_exit_2(tmp_path, capsys):
    root = _ingested(tmp_path)
    s = ["--store", str(root)]
    assert main(["publish", *s]) == 2
    assert run("rate", "--system", "fide", *s) == 0
    assert main(["publish", *s]) == 0
    assert main(["publish", *s]) == 2
    assert "already published" in capsys.readouterr().err


def test_written_files_follow_the_umask(rated, tmp_path):
    """Published lists, store files and --output files were written 0600 (mkstemp's
    mode): a web server or an analyst in the officer's group could not read them."""
    expected = 0o666 & ~store_module._umask()
    assert expected == store_module.FILE_MODE
    assert main(["publish", "--store", str(rated)]) == 0
    folder = Store(rated).published_partition("fide", "standard", 202401)
    out = tmp_path / "list.txt"
    assert main(["list", "--store", str(rated), "--format", "fide-txt", "--output", str(out)]) == 0
    files = [*folder.iterdir(), out, *(rated / "players").iterdir()]
    assert files and all(stat.S_IMODE(f.stat().st_mode) == expected for f in files)


def test_line_breaks_in_names_do_not_break_the_fixed_width_file(rated, tmp_path):
    """A name typed with Alt+Enter in a spreadsheet ("Alpha,\nAnna"), or holding a tab,
    split or shifted its player's line of the published list.txt."""
    players = PLAYERS.replace("1001,Alpha,2200", '1001,"Alpha,\nAnna",2200')
    players = players.replace("1002,Bravo,2100", '1002,"Bravo\tB\u2028x",2100')
    (tmp_path / "players2.csv").write_text(players, encoding="utf-8")
    s = ["--store", str(rated)]
    assert run("ingest", "--players", str(tmp_path / "players2.csv"), *s) == 0
    assert run("rate", "--system", "fide", *s) == 0
    assert main(["publish", *s]) == 0
    folder = Store(rated).published_partition("fide", "standard", 202401)
    lines = (folder / "list.txt").read_text(encoding="utf-8").split("\n")
    assert lines[-1] == "" and len(lines) == 1 + 4 + 1  # header, four players, final newline
    rows = {line[:15].strip(): line for line in lines[1:-1]}
    assert rows["1001"][15:76].rstrip() == "Alpha, Anna"
    assert rows["1002"][15:76].rstrip() == "Bravo B x"
    assert all(line[113:119].strip().isdigit() for line in rows.values())  # ratings in place
    # the other formats keep the name as it was given
    assert "Alpha,\nAnna" in pl.read_csv(folder / "list.csv")["name"].to_list()


def test_fide_xml_with_control_characters_is_well_formed(rated, tmp_path):
    """A vertical tab or another control character in a name (spreadsheet exports have
    them) made list.xml not well-formed: no XML parser could read the published file."""
    import xml.etree.ElementTree as ET

    players = PLAYERS.replace("1001,Alpha,2200", '1001,"Al\x0bpha\x01",2200')
    (tmp_path / "players2.csv").write_text(players, encoding="utf-8")
    s = ["--store", str(rated)]
    assert run("ingest", "--players", str(tmp_path / "players2.csv"), *s) == 0
    assert run("rate", "--system", "fide", *s) == 0
    out = tmp_path / "list.xml"
    assert main(["list", *s, "--format", "fide-xml", "--output", str(out)]) == 0
    root = ET.parse(out).getroot()
    names = {p.findtext("fideid"): p.findtext("name") for p in root.iter("player")}
    assert names["1001"] == "Al pha " and names["1002"] == "Bravo" and len(names) == 4


# -- a read-only store or output folder ---------------------------------------------------------


def _refuse_writes(monkeypatch, under: Path, code: int) -> None:
    """Simulate a read-only mount of ``under`` (the tests may run as root, for whom
    permission bits do not stop a write)."""
    real_open, real_mkstemp = os.open, store_module.tempfile.mkstemp

    def guarded_open(path, flags, *args, **kwargs):
        if str(path).startswith(str(under)) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise OSError(code, os.strerror(code), str(path))
        return real_open(path, flags, *args, **kwargs)

    def guarded_mkstemp(*args, dir=None, **kwargs):
        if dir is not None and str(dir).startswith(str(under)):
            raise OSError(code, os.strerror(code), str(Path(dir) / ".x.tmp"))
        return real_mkstemp(*args, dir=dir, **kwargs)

    monkeypatch.setattr(store_module.os, "open", guarded_open)
    monkeypatch.setattr(store_module.tempfile, "mkstemp", guarded_mkstemp)


@pytest.mark.parametrize("code", [errno.EROFS, errno.EACCES])
@pytest.mark.parametrize(
    "command",
    [["rate", "--system", "fide"], ["publish"], ["players", "merge", "1001", "1002"], ["ingest"]],
)
def test_read_only_store_is_exit_2_not_a_traceback(
    rated, tmp_path, monkeypatch, capsys, command, code
):
    """Every writing command on a read-only store was an internal error (exit 1 and a
    traceback from opening the lock file)."""
    if command == ["ingest"]:
        (tmp_path / "feb.csv").write_text(GAMES.replace("2024-01", "2024-02").replace("g", "f"))
        command = ["ingest", str(tmp_path / "feb.csv")]
    before = snapshot(rated)
    capsys.readouterr()
    _refuse_writes(monkeypatch, rated, code)
    assert run(*command, "--store", str(rated)) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"arpad: error: {rated}: the store cannot be written ({os.strerror(code)}); "
        "nothing was changed"
    )
    assert snapshot(rated) == before


def test_read_only_output_folder_is_exit_2(rated, tmp_path, monkeypatch, capsys):
    folder = tmp_path / "readonly"
    folder.mkdir()
    _refuse_writes(monkeypatch, folder, errno.EROFS)
    capsys.readouterr()
    code = main(
        ["list", "--store", str(rated), "--format", "csv", "--output", str(folder / "l.csv")]
    )
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert err == f"arpad: error: {folder}: Read-only file system (the store is as before)"
    assert list(folder.iterdir()) == []


# -- CSV exports from spreadsheets ------------------------------------------------------------


def test_semicolon_csv_with_decimal_commas(tmp_path, capsys):
    """A spreadsheet saved in a decimal-comma locale (';' between fields, '0,5' for a
    draw) was refused whole ("header … is neither a games file …")."""
    text = (
        "\ufeffgame_id;date;white_id;black_id;score\n"
        "s1;2024-01-10;1001;1002;1\n"
        "s2;2024-01-11;1003;1004;0,5\n"
        's3;2024-01-12;"1002";1003;0\n'
    )
    path = tmp_path / "semi.csv"
    path.write_text(text, encoding="utf-8")
    raw = read_any(path)
    assert raw.frame.get_column("white_id").to_list() == ["1001", "1003", "1002"]
    assert "fields separated by ';' (from the header line)" in raw.notes
    root = tmp_path / "store"
    assert run("ingest", str(path), "--store", str(root)) == 0, capsys.readouterr().err
    assert stored_games(root)["score"].to_list() == [1.0, 0.5, 0.0]


def test_spreadsheet_columns_without_a_name_are_not_duplicates(tmp_path, capsys):
    """Excel writes a header ending in ",," when cells right of the table were touched:
    the file was refused whole as "duplicate column names in header"."""
    path = tmp_path / "excel.csv"
    path.write_bytes(
        b"\xef\xbb\xbfgame_id,date,white_id,black_id,result,,\r\n"
        b"e1,2024-01-10,1001,1002,1-0,,\r\ne2,2024-01-11,1002,1001,1/2,,\r\n"
    )
    root = tmp_path / "store"
    assert run("ingest", str(path), "--store", str(root)) == 0, capsys.readouterr().err
    assert stored_games(root)["score"].to_list() == [1.0, 0.5]
    # two columns really named alike are still refused
    path.write_text("game_id,date,white_id,black_id,result,result\ne1,2024-01-10,a,b,1-0,0-1\n")
    assert run("ingest", str(path), "--store", str(root)) == 2
    assert "duplicate column names in header" in capsys.readouterr().err


def test_comma_csv_keeps_semicolons_inside_fields(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text(
        "game_id,date,white_id,black_id,result,event_id\nc1,2024-01-10,a,b,1-0,Open; round 1\n"
    )
    raw = read_any(path)
    assert raw.frame.get_column("event_id").to_list() == ["Open; round 1"]
    assert not any("separated" in n for n in raw.notes)


@pytest.mark.parametrize(
    ("text", "score"),
    [("1/2", 0.5), ("½", 0.5), ("½-½", 0.5), ("0.5", 0.5), ("=", 0.5), ("0,5", 0.5)],
)
def test_every_way_of_writing_a_draw(tmp_path, text, score, capsys):
    """'½' alone (as 1/2 alone is) was an unknown result code."""
    path = tmp_path / "d.csv"
    path.write_text(
        f'game_id,date,white_id,black_id,result\nd1,2024-01-10,a,b,"{text}"\n', encoding="utf-8"
    )
    root = tmp_path / "store"
    assert run("ingest", str(path), "--store", str(root)) == 0, capsys.readouterr().err
    assert stored_games(root)["score"].to_list() == [score]


def test_sql_csv_of_a_list_column_is_exit_2(rated, capsys):
    """`arpad sql "SELECT list(...)" --format csv` was an internal error (exit 1 and a
    polars traceback: "CSV format does not support nested data")."""
    query = "SELECT period, list(DISTINCT rules) AS rules FROM ratings GROUP BY period"
    capsys.readouterr()
    assert main(["sql", query, "--store", str(rated), "--format", "csv"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "arpad: error: --format csv cannot hold the nested column(s) rules (a list or "
        "struct): use --format json or parquet, or make it text in the query\n"
    )
    assert main(["sql", query, "--store", str(rated), "--format", "json"]) == 0
    assert '"rules":["FIDE' in capsys.readouterr().out


@pytest.mark.parametrize(
    "command",
    [
        ["list", "--format", "csv"],
        ["list", "--format", "fide-txt"],
        ["diff", "--published", "2024-01", "--format", "csv"],
        ["sql", "SELECT 1"],
    ],
)
def test_output_naming_a_folder_is_exit_2(rated, tmp_path, capsys, command):
    """`--output /tmp` (a folder where a file name belongs) was an internal error (exit
    1, IsADirectoryError from the final rename)."""
    if command[0] == "diff":
        assert main(["publish", "--store", str(rated)]) == 0
    folder = tmp_path / "exports"
    folder.mkdir()
    capsys.readouterr()
    assert main([*command, "--store", str(rated), "--output", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err == f"arpad: error: --output {folder} is a directory: give a file name\n"
    assert list(folder.iterdir()) == []


def test_names_a_spreadsheet_would_run_are_text_in_csv_lists(tmp_path, capsys):
    """A players file naming a player `=HYPERLINK("http://x","Alpha")` (or `+`, `-`,
    `@` first) gave a published list.csv whose cell Excel runs as a formula; text cells
    now begin with an apostrophe (docs/lists.md "Spreadsheet-safe CSV"), numbers do not."""
    hostile = {
        "1001": '=HYPERLINK("http://x","Alpha")',
        "1002": "+1+cmd|' /C calc'!A0",
        "1003": "-2+3",
        "1004": "@SUM(1)",
    }
    rows = [f'{pid},"{name.replace(chr(34), chr(34) * 2)}",{2200 - i * 100}'
            for i, (pid, name) in enumerate(hostile.items())]  # fmt: skip
    root = _ingested(tmp_path, "player_id,name,rating\n" + "\n".join(rows) + "\n")
    s = ["--store", str(root)]
    assert run("rate", "--system", "fide", *s) == 0
    assert run("publish", "--system", "fide", "--period", "202401", *s) == 0
    (published,) = (root / "published").rglob("list.csv")
    frame = pl.read_csv(published, schema_overrides={"player_id": pl.String})
    assert dict(zip(frame["player_id"], frame["name"])) == {
        pid: "'" + name for pid, name in hostile.items()
    }
    assert frame["rating"].dtype.is_numeric()
    # the machine formats keep the names as they are
    parquet = pl.read_parquet(published.with_name("list.parquet"))
    assert dict(zip(parquet["player_id"], parquet["name"])) == hostile
    capsys.readouterr()
    assert main(["list", "--system", "fide", "--format", "csv", *s]) == 0
    assert "'=HYPERLINK" in capsys.readouterr().out
