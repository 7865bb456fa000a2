"""PGN and TRF readers on the real files in ../shared/data/real (README there gives
the counts quoted below), compared with python-chess and with a naive block count."""

from __future__ import annotations

import gzip
import io
import zipfile
from pathlib import Path

import chess.pgn
import pytest

from arpad.pipeline.cli import main
from arpad.pipeline.ingest import ingest_file
from arpad.pipeline.pgn import UNRATED_ELO, read_pgn, time_control_pool
from arpad.pipeline.readers import read_any
from arpad.pipeline.store import Store
from arpad.pipeline.trf import parse_free_date, read_trf
from arpad.pipeline.validate import validate_games

PGN_FILES = ["tatamast22.pgn", "kingbase_kb1.pgn", "Capablanca.pgn", "London1851.pgn",
             "WorldChamp1886.pgn"]  # fmt: skip
TRF_FILES = {
    # file: (001 lines, rounds with at least one block)
    "fide_example1_karl_mala_2005.trf": (284, 7),
    "open_gros_2010_after_r4.trf": (52, 5),  # 4 rounds played + pre-announced round-5 byes
    "lichess_swiss_bullet_2020-05-10.trf": (112, 20),
    "lichess_swiss_2020-05-29.trf": (13, 10),
    "lichess_swiss_2020-06-26.trf": (9, 9),
}


def chess_headers(path: Path) -> list[tuple[dict, bool]]:
    """(headers, has a move) per game, by python-chess."""
    out = []
    with open(path, encoding="utf-8", errors="replace") as fh:
        while (game := chess.pgn.read_game(fh)) is not None:
            out.append((dict(game.headers), game.next() is not None))
    return out


@pytest.mark.parametrize("name", PGN_FILES)
def test_pgn_tags_match_python_chess(shared_data, name):
    path = shared_data / "pgn" / name
    raw = read_pgn(path)
    assert not raw.problems
    reference = chess_headers(path)
    frame = raw.frame.sort("_line")
    assert frame.height == len(reference)
    for row, (h, has_move) in zip(frame.iter_rows(named=True), reference):
        assert row["event_id"] == h["Event"]
        assert row["result"] == h["Result"]
        for side, tag in (("white_id", "White"), ("black_id", "Black")):
            fide = h.get(f"{tag}FideId")
            expect = fide if fide else f"{name}:{h[tag].strip()}"  # names are stripped
            assert row[side] == expect
        for side, tag in (("white_rating", "WhiteElo"), ("black_rating", "BlackElo")):
            elo = h.get(tag, "")
            assert row[side] == (None if elo in UNRATED_ELO else elo)
        date = h["Date"]
        if "?" in date:
            assert row["date"] is None or row["date"] == h.get("EventDate")
        else:
            assert row["date"] == date
        assert (row["rated"] is None) == has_move


def test_tata_steel_2022(shared_data):
    """91 games, 4 of them Dubov's forfeits (no moves): stored, not rated (README §3)."""
    raw = read_pgn(shared_data / "pgn" / "tatamast22.pgn")
    v = validate_games(raw, "tatamast22.pgn", "b")
    games = v.accepted
    assert games.num_rows == 91 and v.quarantine.num_rows == 0
    unrated = games.filter(~games["rated"].combine_chunks().to_numpy(zero_copy_only=False))
    assert unrated.num_rows == 4
    dubov = "24126055"  # Dubov's FIDE id in the file
    assert all(dubov in (w, b) for w, b in zip(unrated["white_id"].to_pylist(),
                                              unrated["black_id"].to_pylist()))  # fmt: skip
    scores = games["score"].to_pylist()
    assert (scores.count(1.0), scores.count(0.5), scores.count(0.0)) == (26, 49, 16)
    assert set(games["period"].to_pylist()) == {202201}
    assert raw.players.height == 14
    carlsen = raw.players.filter(raw.players["player_id"] == "1503014").row(0, named=True)
    assert carlsen["name"] == "Carlsen, Magnus" and carlsen["rating"] == "2865"


def test_kingbase_pools_and_capablanca_unfinished(shared_data):
    """KingBase: 763 World Rapid/Blitz + CZE blitz games, 212 classical (README §3)."""
    raw = read_pgn(shared_data / "pgn" / "kingbase_kb1.pgn")
    pools = dict(raw.frame.group_by("pool").len().iter_rows())
    assert pools["rapid"] + pools["blitz"] == 763 and pools[None] == 212
    cap = validate_games(read_pgn(shared_data / "pgn" / "Capablanca.pgn"), "c", "b")
    assert cap.quarantine["reason"].to_pylist() == ["unfinished_game"]
    assert cap.accepted.num_rows == 596
    # "1901.??.??": period 190112 (the year's last month), no date, precision "year".
    first = cap.accepted.slice(0, 1).to_pylist()[0]
    assert first["period"] == 190112 and first["date"] is None
    assert first["date_precision"] == "year"


def test_pgn_encodings_line_endings_and_archives(shared_data, tmp_path):
    original = (shared_data / "pgn" / "WorldChamp1886.pgn").read_bytes()
    base = read_pgn(shared_data / "pgn" / "WorldChamp1886.pgn").frame.drop("_raw")
    lf = original.replace(b"\r\n", b"\n")
    latin = lf.replace(b"Zukertort", "Zukertört".encode("latin-1"))
    variants = {
        "lf.pgn": lf,
        "cr.pgn": lf.replace(b"\n", b"\r"),
        "gz.pgn.gz": gzip.compress(lf),
    }
    for name, data in variants.items():
        (tmp_path / name).write_bytes(data)
        frame = read_any(tmp_path / name).frame.drop("_raw")
        assert frame.drop("white_id", "black_id").equals(base.drop("white_id", "black_id")), name
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("a.pgn", lf)
        zf.writestr("b.pgn", lf)
    (tmp_path / "two.zip").write_bytes(buf.getvalue())
    both = read_any(tmp_path / "two.zip")
    assert both.frame.height == 40 and any("b.pgn starts at line" in n for n in both.notes)
    (tmp_path / "latin.pgn").write_bytes(latin)
    raw = read_any(tmp_path / "latin.pgn")
    assert "latin.pgn:Zukertört, Johannes Hermann" in raw.frame["white_id"].to_list()
    assert any("Latin-1" in n for n in raw.notes)
    utf8 = tmp_path / "utf8.pgn"
    utf8.write_bytes(latin.decode("latin-1").encode("utf-8"))
    assert "utf8.pgn:Zukertört, Johannes Hermann" in read_any(utf8).frame["white_id"].to_list()


@pytest.mark.parametrize(
    ("tc", "pool"),
    [
        # FIDE Laws of Chess, Appendix A.1 / B.1: base + 60 x increment.
        ("180+2", "blitz"),  # 3 min + 2 s: 300 s
        ("600", "blitz"),  # 10 minutes or less
        ("600+1", "rapid"),
        ("900+10", "rapid"),  # 15 + 10: 25 min
        ("3000+10", "standard"),  # 50 min + 10 min = 60 min: not "less than 60"
        ("40/7200:3600", "standard"),
        ("*180", "blitz"),
        ("?", None),
        ("-", None),
        ("abc", None),
    ],
)
def test_time_control_pool(tc, pool):
    assert time_control_pool(tc) == pool


@pytest.mark.parametrize(
    ("text", "iso"),
    [
        ("28. 07. 2005", "2005-07-28"),
        ("24/09/2010", "2010-09-24"),
        ("May 29, 2020", "2020-05-29"),
        ("2024/03/01", "2024-03-01"),
        ("", None),
        ("soon", None),
    ],
)
def test_trf_header_dates(text, iso):
    assert parse_free_date(text) == iso


def naive_blocks(path: Path) -> dict[str, int]:
    """Independent count of round blocks, straight from the columns (docs/pgn-trf.md "TRF columns")."""
    counts = {"game_sides": 0, "unplayed_sides": 0, "other": 0}
    for line in path.read_text(encoding="latin-1").splitlines():
        if not line.startswith("001"):
            continue
        for start in range(91, len(line), 10):
            block = line[start : start + 8].ljust(8)
            opponent = block[:4].strip()
            if opponent and opponent != "0000":
                if block[7] in "10=":
                    counts["game_sides"] += 1
                else:
                    counts["unplayed_sides"] += 1
            elif block.strip():
                counts["other"] += 1
    return counts


@pytest.mark.parametrize("name", sorted(TRF_FILES))
def test_trf_real_files_account_for_every_block(shared_data, name, tmp_path):
    path = shared_data / "trf" / name
    lines, rounds = TRF_FILES[name]
    raw = read_trf(path)
    acc = raw.accounting
    assert (acc["player_lines"], acc["rounds"]) == (lines, rounds)
    assert acc["blocks"] == lines * rounds
    assert sum(v for k, v in acc.items() if k.endswith("_blocks")) == lines * rounds
    assert acc["problem_blocks"] == 0 and not raw.problems
    naive = naive_blocks(path)
    rated = raw.frame.filter(raw.frame["rated"] == "true").height
    assert 2 * rated == naive["game_sides"]
    assert 2 * (raw.frame.height - rated) == naive["unplayed_sides"]
    report = ingest_file(Store(tmp_path / "s"), path)
    assert report.accepted == raw.frame.height and report.quarantined == 0
    assert report.players_accepted == lines


def test_trf_example1_fields(shared_data):
    raw = read_trf(shared_data / "trf" / "fide_example1_karl_mala_2005.trf")
    vasquez = raw.players.filter(raw.players["player_id"] == "3400042").row(0, named=True)
    assert vasquez["name"] == "Vasquez,Rodrigo" and vasquez["title"] == "GM"
    assert vasquez["federation"] == "CHI" and vasquez["rating"] == "2558"
    assert vasquez["birth_date"] == "1969.12.06"
    games = raw.frame
    assert set(games["date"].to_list()) == {"2005-07-28"}  # no 132 dates: the start date
    assert games.filter(games["rated"] == "false").height == 10  # the "- +" forfeits
    first = games.row(0, named=True)  # round 1: rank 1 (White) beat rank 141
    assert (first["white_id"], first["score"], first["pool"]) == ("3400042", "1.0", "standard")


def trf_line(rank, name, blocks):
    head = f"001 {rank:>4} m    {name:<33} 2000 GER {100000 + rank:>11} 1990/01/01  1.0 {rank:>4}  "
    return head + "  ".join(blocks)


def test_trf_pending_short_games_and_round_dates(tmp_path):
    """A blank result after an opponent: pending, stored nowhere but counted;
    W/D/L (under one move): stored, not rated; the 132 line gives the round dates."""
    lines = [
        "012 Club",
        "042 2024/03/01",
        "132" + " " * 88 + "24/03/01  24/04/05",
        trf_line(1, "A", ["   2 w W", "   3 b  "]),
        trf_line(2, "B", ["   1 b L", "   4 w D"]),
        trf_line(3, "C", ["   4 w 1", "   1 w  "]),
        trf_line(4, "D", ["   3 b 0", "   2 b D"]),
    ]
    path = tmp_path / "t.trf"
    path.write_text("\n".join(lines) + "\n")
    raw = read_trf(path)
    assert raw.not_stored["pending_pairings"] == 1
    assert raw.accounting["pending_blocks"] == 2 and raw.accounting["game_blocks"] == 6
    rows = {r["game_id"]: r for r in raw.frame.iter_rows(named=True)}
    assert (
        rows["trf:Club|2024-03-01:r1:1-2"]["rated"] == "false"
        and rows["trf:Club|2024-03-01:r1:1-2"]["score"] == "1.0"
    )
    assert (
        rows["trf:Club|2024-03-01:r2:2-4"]["rated"] == "false"
        and rows["trf:Club|2024-03-01:r2:2-4"]["score"] == "0.5"
    )
    assert (
        rows["trf:Club|2024-03-01:r1:3-4"]["rated"] == "true"
        and rows["trf:Club|2024-03-01:r1:3-4"]["date"] == "2024-03-01"
    )
    assert rows["trf:Club|2024-03-01:r2:2-4"]["date"] == "2024-04-05"
    assert main(["ingest", "--no-flow", "--store", str(tmp_path / "s"), str(path)]) == 0


def test_trf_of_the_same_event_after_a_round_and_final_share_their_games(tmp_path, capsys):
    """Games are keyed by tournament (012 + start date), round and ranks: the final TRF
    repeats round 1 of the TRF sent after round 1, and only round 2 is new."""
    head = ["012 Club", "042 2024/03/01"]
    after_r1 = [trf_line(1, "A", ["   2 w 1"]), trf_line(2, "B", ["   1 b 0"]),
                trf_line(3, "C", ["   4 w =" ]), trf_line(4, "D", ["   3 b ="])]  # fmt: skip
    final = [trf_line(1, "A", ["   2 w 1", "   3 b 0"]), trf_line(2, "B", ["   1 b 0", "   4 w 1"]),
             trf_line(3, "C", ["   4 w =", "   1 w 1"]), trf_line(4, "D", ["   3 b =", "   2 b 0"])]  # fmt: skip
    a, b = tmp_path / "club-r1.trf", tmp_path / "club-final.trf"
    a.write_text("\n".join(head + after_r1) + "\n")
    b.write_text("\n".join(head + final) + "\n")
    root = str(tmp_path / "s")
    assert main(["ingest", "--no-flow", "--store", root, str(a)]) == 0
    capsys.readouterr()
    assert main(["ingest", "--no-flow", "--store", root, str(b)]) == 2
    out, err = capsys.readouterr()
    assert "4 rows read, 2 games stored, 2 quarantined" in out
    assert "quarantined by reason: duplicate_game_id 2" in err
    assert err.count(": duplicate_game_id: ") == 2 and "already stored from club-r1.trf" in err


def test_identity_conflicts(tmp_path, capsys):
    """Same FIDE id, different birth years in two sources: reported, latest value kept."""
    a = tmp_path / "a.trf"
    b = tmp_path / "b.trf"
    a.write_text("042 2024/03/01\n" + trf_line(1, "X", ["   2 w 1"]) + "\n"
                 + trf_line(2, "Y", ["   1 b 0"]) + "\n")  # fmt: skip
    b.write_text(a.read_text().replace("1990/01/01", "1991/01/01", 1).replace("2024/03", "2024/04"))
    root = str(tmp_path / "s")
    assert main(["ingest", "--no-flow", "--store", root, str(a), str(b)]) == 0
    assert "birth year differs between sources" in capsys.readouterr().out
    assert main(["players", "--store", root, "--conflicts", "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert "100001,a.trf,2" in out and "100001,b.trf,2" in out and "100002" not in out
    players = Store(root).read_players().to_pylist()
    assert next(p for p in players if p["player_id"] == "100001")["birth_year"] == 1991
