"""Writes tests/data/bad/ (the bad-input corpus) and its EXPECTED.csv.

Run once after changing a case: ``.venv/bin/python tests/data/make_bad_corpus.py``.
Every case holds one problem; row-level cases also hold good rows, which must
be stored. EXPECTED.csv: file, line, reason (a quarantine reason code, or
``file`` for a problem that rejects the whole file), and a text the error
message must contain. The base store (good_base.csv, good_players.csv) is
ingested before every case.
"""

from __future__ import annotations

import csv
import gzip
import io
import zipfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
BAD = HERE / "bad"

CSV_HEAD = "game_id,date,white_id,black_id,result,white_rating,black_rating"
GOOD_CSV = ["x1,2024-02-03,A,B,1-0,2100,2000", "x2,2024-02-04,C,D,0-1,,"]

PGN_GOOD = """[Event "Club Ch"]
[Site "Here"]
[Date "2024.02.10"]
[Round "1"]
[White "Alpha, Ann"]
[Black "Beta, Bob"]
[Result "1-0"]
[WhiteElo "2100"]
[BlackElo "2000"]

1. e4 e5 2. Nf3 Nc6 1-0
"""


def pgn(tags: dict[str, str], moves: str = "1. d4 d5 1/2-1/2") -> str:
    body = "".join(f'[{k} "{v}"]\n' for k, v in tags.items())
    return body + "\n" + moves + "\n"


def pgn_tags(**over) -> dict[str, str]:
    tags = {
        "Event": "Club Ch",
        "Site": "Here",
        "Date": "2024.02.11",
        "Round": "2",
        "White": "Gamma, Gil",
        "Black": "Delta, Dan",
        "Result": "1/2-1/2",
    }
    tags.update(over)
    return tags


TRF_HEAD = """012 Test Open
022 Town
042 2024/03/01
052 2024/03/03
092 Individual: Swiss-System (Standard)
"""


def p001(rank: int, name: str, rating: str, fide: str, blocks: list[str], birth="1990/01/01"):
    """A 001 line laid out by columns (docs/pgn-trf.md "TRF columns")."""
    line = "001 " + f"{rank:>4}" + " m" + "   " + " " + f"{name:<33}" + " " + f"{rating:>4}"
    line += " " + "GER" + " " + f"{fide:>11}" + " " + f"{birth:<10}" + " " + f"{'1.0':>4}"
    line += " " + f"{rank:>4}" + "  "
    assert len(line) == 91, len(line)
    return line + "  ".join(blocks)


def trf(lines: list[str]) -> str:
    return TRF_HEAD + "\n".join(lines) + "\n"


def good_trf_lines() -> list[str]:
    # Round 1: 1-2 (1 wins as White), 3-4 draw. Round 2: 1-3 (3 wins), 2-4 (4 wins).
    return [
        p001(1, "Aa, Anna", "2200", "100001", ["   2 w 1", "   3 b 0"]),
        p001(2, "Bb, Bert", "2100", "100002", ["   1 b 0", "   4 w 0"]),
        p001(3, "Cc, Cleo", "2000", "100003", ["   4 w =", "   1 w 1"]),
        p001(4, "Dd, Dora", "1900", "100004", ["   3 b =", "   2 b 1"]),
    ]


def with_line(lines: list[str], index: int, new: str) -> list[str]:
    out = list(lines)
    out[index] = new
    return out


def zip_of(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, body in members.items():
            zf.writestr(
                zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0)),
                body,
                compress_type=zipfile.ZIP_DEFLATED,
            )
    return buf.getvalue()


def zip_patched(body: bytes, local: dict[int, bytes], central: dict[int, bytes]) -> bytes:
    """A one-member zip with bytes of its local and central headers overwritten
    (offsets from each header's signature; APPNOTE.TXT 4.3.7 and 4.3.12)."""
    out = bytearray(zip_of({"games.pgn": body}))
    cen = out.index(b"PK\x01\x02")
    for offset, value in local.items():
        out[offset : offset + len(value)] = value
    for offset, value in central.items():
        out[cen + offset : cen + offset + len(value)] = value
    return bytes(out)


def zip_corrupted(body: bytes) -> bytes:
    """A one-member zip whose deflate data is overwritten with garbage."""
    out = bytearray(zip_of({"games.pgn": body}))
    start = 30 + int.from_bytes(out[26:28], "little") + int.from_bytes(out[28:30], "little")
    out[start : start + 16] = b"\xff" * 16
    return bytes(out)


def gzip_corrupted(body: bytes) -> bytes:
    """A gzip file with a valid header and a damaged deflate stream."""
    out = bytearray(gzip.compress(body, mtime=0))
    out[12:28] = b"\xff" * 16
    return bytes(out)


def parquet_bytes(columns: dict[str, pa.Array]) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table(columns), buf)
    return buf.getvalue()


def parquet_games(**white) -> bytes:
    """A two-game Parquet file whose columns ``white`` replace or add to the good ones."""
    cols = {
        "game_id": pa.array(["q1", "q2"]),
        "date": pa.array(["2024-02-03", "2024-02-04"]),
        "white_id": pa.array(["A", "C"]),
        "black_id": pa.array(["B", "D"]),
        "result": pa.array(["1-0", "0-1"]),
    }
    cols.update(white)
    return parquet_bytes(cols)


def cases() -> list[tuple[str, bytes, int, str, str]]:
    """(file, content, line, reason, message text)."""
    c = []

    def csv_case(name, rows, line, reason, text, head=CSV_HEAD):
        c.append((name, ("\n".join([head, *rows]) + "\n").encode(), line, reason, text))

    # --- CSV -------------------------------------------------------------
    c.append(("csv_empty.csv", b"", 1, "file", "empty file"))
    c.append(("csv_binary.csv", bytes(range(256)) * 4, 1, "file", "binary data"))
    c.append(
        (
            "csv_utf16.csv",  # UTF-16 is read; one cut in half (an odd byte) is not
            ("\n".join([CSV_HEAD, *GOOD_CSV]) + "\n").encode("utf-16") + b"\x00",
            1,
            "file",
            "UTF-16",
        )
    )
    c.append(
        (
            "csv_missing_columns.csv",
            b"game_id,date,white_id,result\ny1,2024-02-03,A,1-0\n",
            1,
            "file",
            "missing required column(s): black_id",
        )
    )
    csv_case("csv_truncated.csv", [*GOOD_CSV, "x3,2024-02-05,E"], 4, "malformed_row", "3 fields")
    csv_case(
        "csv_bad_date.csv",
        [*GOOD_CSV, "x3,2024-02-30,E,F,1-0,,"],
        4,
        "bad_date",
        "date 2024-02-30 is not a valid date (YYYY-MM-DD, YYYY/MM/DD, YYYY.MM.DD or DD.MM.YYYY): no such day, "
        "2024-02 has no day 30",
    )
    csv_case(  # read year first as the year 3 before (the officer's attack of 2026-12-03)
        "csv_two_digit_year.csv",
        [*GOOD_CSV, "x3,03.11.23,E,F,1-0,,"],
        4,
        "bad_date",
        "date 03.11.23 is not a valid date (YYYY-MM-DD, YYYY/MM/DD, YYYY.MM.DD or DD.MM.YYYY): the year has two "
        "digits; write it with four (03.11.2023)",
    )
    csv_case(
        "csv_unknown_result.csv", [*GOOD_CSV, "x3,2024-02-05,E,F,2-0,,"], 4, "unknown_result", "2-0"
    )
    csv_case(
        "csv_self_play.csv", [*GOOD_CSV, "x3,2024-02-05,E,E,1-0,,"], 4, "self_play", "plays himself"
    )
    csv_case(
        "csv_absurd_rating.csv", [*GOOD_CSV, "x3,2024-02-05,E,F,1-0,9999,"], 4, "bad_rating", "9999"
    )
    csv_case(
        "csv_duplicate_in_file.csv",
        [*GOOD_CSV, "x1,2024-02-06,E,F,1-0,,"],
        4,
        "duplicate_game_id",
        "already on line 2",
    )
    csv_case(
        "csv_duplicate_across_files.csv",
        [*GOOD_CSV, "base1,2024-01-05,A,B,1-0,,"],
        4,
        "duplicate_game_id",
        "already stored from good_base.csv",
    )
    csv_case(
        "csv_empty_player.csv", [*GOOD_CSV, "x3,2024-02-05,,F,1-0,,"], 4, "empty_player_id", "empty"
    )
    csv_case(
        "csv_score_out_of_range.csv",
        ["x1,2024-02-03,A,B,1,", "x3,2024-02-05,E,F,2,"],
        3,
        "score_out_of_range",
        "score 2",
        head="game_id,date,white_id,black_id,score,event_id",
    )
    csv_case(
        "csv_unfinished.csv", [*GOOD_CSV, "x3,2024-02-05,E,F,*,,"], 4, "unfinished_game", "'*'"
    )
    csv_case(
        "csv_bad_pool.csv",
        ["x1,2024-02-03,A,B,1-0,standard", "x3,2024-02-05,E,F,1-0,chess960"],
        3,
        "bad_pool",
        "chess960",
        head="game_id,date,white_id,black_id,result,pool",
    )
    csv_case(
        "csv_period_mismatch.csv",
        ["x1,2024-02-03,202402,A,B,1-0", "x3,2024-02-05,202403,E,F,1-0"],
        3,
        "period_mismatch",
        "not in period 202403",
        head="game_id,date,period,white_id,black_id,result",
    )
    csv_case(
        "csv_bad_period.csv",
        ["x1,202402,A,B,1-0", "x3,-5,E,F,1-0"],
        3,
        "bad_period",
        "-5",
        head="game_id,period,white_id,black_id,result",
    )
    csv_case(
        "csv_no_date.csv",
        ["x1,2024-02-03,A,B,1-0", "x3,,E,F,1-0"],
        3,
        "missing_period",
        "neither date nor period",
        head="game_id,date,white_id,black_id,result",
    )
    csv_case(
        "csv_bad_rated.csv",
        ["x1,2024-02-03,A,B,1-0,true", "x3,2024-02-05,E,F,1-0,perhaps"],
        3,
        "bad_rated",
        "perhaps",
        head="game_id,date,white_id,black_id,result,rated",
    )
    c.append(
        (
            "players_absurd_rating.csv",
            b"player_id,name,rating\nP1,One,2100\nP2,Two,12000\n",
            3,
            "bad_player_field",
            "rating 12000",
        )
    )
    c.append(
        (
            "players_duplicate.csv",
            b"player_id,name,rating\nP1,One,2100\nP1,Again,2000\n",
            3,
            "duplicate_player_id",
            "already on line 2",
        )
    )

    csv_case(
        "csv_result_score_mismatch.csv",
        ["x1,2024-02-03,A,B,1-0,1", "x3,2024-02-05,E,F,1-0,0"],
        3,
        "result_score_mismatch",
        "result 1-0 but score 0",
        head="game_id,date,white_id,black_id,result,score",
    )
    csv_case(
        "csv_unterminated_quote.csv",
        [GOOD_CSV[0], 'x3,2024-02-05,"E,F,1-0,,', GOOD_CSV[1], "x4,2024-02-06,G,H,1-0,,"],
        3,
        "malformed_row",
        "a quote opened on line 3 is never closed",
    )
    csv_case(
        "csv_stray_quote_mid_file.csv",
        [GOOD_CSV[0], 'x3,2024-02-05,E,"F,1-0,,', GOOD_CSV[1], 'x4,2024-02-06,G",H,1-0,,'],
        3,
        "malformed_row",
        "a quote opened on line 3 runs over 3 lines",
    )
    c.append(
        (
            "csv_nul_in_field.csv",
            ("\n".join([CSV_HEAD, *GOOD_CSV, "x3,2024-02-05,E\x00,F,1-0,,"]) + "\n").encode(),
            4,
            "file",
            "NUL byte",
        )
    )
    c.append(
        (
            "csv_header_quote.csv",
            b'game_id,"date,white_id,black_id,result\nx1,2024-02-03,A,B,1-0\n',
            1,
            "file",
            "header runs over several lines",
        )
    )

    # --- Parquet ---------------------------------------------------------
    c.append(
        (
            "parquet_list_column.parquet",
            parquet_games(white_id=pa.array([["A"], ["C"]])),
            None,
            "file",
            "column 'white_id' has the nested type list",
        )
    )
    c.append(
        (
            "parquet_map_column.parquet",
            parquet_games(
                event_id=pa.array([[("k", 1)], [("k", 2)]], pa.map_(pa.string(), pa.int64()))
            ),
            None,
            "file",
            "column 'event_id' has the nested type map",
        )
    )
    c.append(
        (
            "parquet_struct_column.parquet",
            parquet_games(white_id=pa.array([{"id": "A"}, {"id": "C"}])),
            None,
            "file",
            "column 'white_id' has the nested type struct",
        )
    )
    c.append(
        (
            "parquet_binary_not_utf8.parquet",
            parquet_games(white_id=pa.array([b"\xff\xfe", b"C"], pa.binary())),
            None,
            "file",
            "column 'white_id' holds binary data that is not UTF-8",
        )
    )
    c.append(
        (
            "parquet_case_duplicate.parquet",
            parquet_games(White_Id=pa.array(["X", "Y"])),
            1,
            "file",
            "duplicate column names (case-insensitive): White_Id, white_id",
        )
    )
    c.append(
        (
            "parquet_duration_column.parquet",
            parquet_games(event_id=pa.array([1, 2], pa.duration("s"))),
            None,
            "file",
            "column 'event_id' has the type duration[s], which arpad cannot read",
        )
    )
    c.append(
        (
            "parquet_nul.parquet",
            parquet_games(black_id=pa.array(["B", "D\x00"])),
            2,
            "file",
            "column 'black_id' holds a NUL character in row 2",
        )
    )

    # --- PGN -------------------------------------------------------------
    good = PGN_GOOD + "\n"
    c.append(
        (
            "pgn_corrupt_deflate.pgn.gz",
            gzip_corrupted(good.encode() * 20),
            None,
            "file",
            "not a readable gzip file",
        )
    )
    c.append(
        (
            "pgn_zip_corrupt_member.zip",
            zip_corrupted(good.encode() * 20),
            None,
            "file",
            "zip member games.pgn is corrupted",
        )
    )
    c.append(
        (
            "pgn_zip_encrypted.zip",
            zip_patched(good.encode(), {6: b"\x01\x00"}, {8: b"\x01\x00"}),
            None,
            "file",
            "zip member games.pgn is encrypted",
        )
    )
    c.append(
        (
            "pgn_zip_deflate64.zip",
            zip_patched(good.encode(), {8: b"\x09\x00"}, {10: b"\x09\x00"}),
            None,
            "file",
            "compression method 9",
        )
    )
    c.append(
        (
            "pgn_zip_no_pgn.zip",
            zip_of({"readme.txt": b"no games here\n"}),
            None,
            "file",
            "holds no .pgn member",
        )
    )
    c.append(
        (
            "pgn_nul_in_name.pgn",
            (good + pgn(pgn_tags(White="Gam\x00ma"))).encode(),
            17,
            "file",
            "NUL byte",
        )
    )
    c.append(("pgn_empty.pgn", b"\n\n", 1, "file", "empty file"))
    c.append(("pgn_binary.pgn", b"\x00\x01\x02PGN?\x00" * 50, 1, "file", "binary data"))
    c.append(("pgn_not_pgn.pgn", b"just some notes\nno tags here\n", 1, "file", "no PGN tag pairs"))
    c.append(("pgn_bad_gzip.pgn.gz", b"this is not gzip data", None, "file", "not a readable gzip"))
    c.append(("pgn_bad_zip.zip", b"PK\x03\x04 broken", None, "file", "not a readable zip"))
    c.append(
        (
            "pgn_truncated.pgn",
            (good + pgn(pgn_tags(), "1. d4 d5 2. c4"))[:-1].encode(),
            13,
            "truncated_game",
            "termination",
        )
    )
    c.append(
        (
            "pgn_malformed_tag.pgn",
            (good + pgn(pgn_tags()).replace('[Round "2"]', "[Round 2]")).encode(),
            13,
            "malformed_row",
            "malformed tag line 16",
        )
    )
    c.append(
        (
            "pgn_unfinished.pgn",
            (good + pgn(pgn_tags(Result="*"), "1. d4 *")).encode(),
            13,
            "unfinished_game",
            "'*'",
        )
    )
    c.append(
        (
            "pgn_result_mismatch.pgn",
            (good + pgn(pgn_tags(Result="1-0"), "1. d4 d5 0-1")).encode(),
            13,
            "result_mismatch",
            "Result tag 1-0",
        )
    )
    c.append(
        (
            "pgn_unknown_result.pgn",
            (good + pgn(pgn_tags(Result="2-0"), "1. d4 d5 1-0")).encode(),
            13,
            "unknown_result",
            "unknown result code 2-0",
        )
    )
    c.append(
        (
            "pgn_self_play.pgn",
            (good + pgn(pgn_tags(Black="Gamma, Gil"))).encode(),
            13,
            "self_play",
            "plays himself",
        )
    )
    c.append(
        (
            "pgn_bad_date.pgn",
            (good + pgn(pgn_tags(Date="2024.13.45"))).encode(),
            13,
            "bad_date",
            "2024.13.45",
        )
    )
    c.append(
        (
            "pgn_no_date.pgn",
            (good + pgn(pgn_tags(Date="????.??.??"))).encode(),
            13,
            "missing_period",
            "Date tag '????.??.??' gives no year",
        )
    )
    c.append(
        (
            "pgn_absurd_elo.pgn",
            (good + pgn(pgn_tags(WhiteElo="9999"))).encode(),
            13,
            "bad_rating",
            "9999",
        )
    )
    c.append(
        (
            "pgn_empty_name.pgn",
            (good + pgn(pgn_tags(White="?"))).encode(),
            13,
            "empty_player_id",
            "empty",
        )
    )
    c.append(
        (
            "pgn_text_before_tags.pgn",
            ("stray text that is not PGN\n\n" + good).encode(),
            1,
            "malformed_row",
            "before the first tag section",
        )
    )

    # --- TRF -------------------------------------------------------------
    g = good_trf_lines()
    c.append(("trf_empty.trf", b"", 1, "file", "empty file"))
    c.append(("trf_binary.trf", b"001 \x00\x00\x00" * 40, 1, "file", "binary data"))
    c.append(("trf_no_players.trf", TRF_HEAD.encode(), 1, "file", "no player records"))
    bad = with_line(g, 3, g[3].replace("   2 b 1", "   2 b 0"))
    c.append(
        ("trf_inconsistent.trf", trf(bad).encode(), 7, "inconsistent_pairing", "round 2: rank 2")
    )
    bad = with_line(g, 3, g[3][:101].rstrip())  # rank 4 forgets round 2
    c.append(("trf_one_sided.trf", trf(bad).encode(), 7, "inconsistent_pairing", "does not list"))
    bad = with_line(g, 2, g[2].replace("   1 w 1", "  77 w 1"))
    c.append(("trf_unknown_opponent.trf", trf(bad).encode(), 8, "unknown_opponent", "rank 77"))
    bad = with_line(g, 2, g[2].replace("   4 w =", "   4 w X"))
    c.append(("trf_unknown_result.trf", trf(bad).encode(), 8, "unknown_result", "'X'"))
    bad = with_line(g, 2, g[2].replace("   4 w =", "   3 w ="))
    c.append(("trf_self_pairing.trf", trf(bad).encode(), 8, "self_play", "himself"))
    dup = p001(2, "Ee, Emil", "1800", "100005", ["        H", "        H"])
    c.append(
        (
            "trf_duplicate_rank.trf",
            trf([*g, dup]).encode(),
            10,
            "duplicate_player_id",
            "starting rank 2",
        )
    )
    c.append(
        (
            "trf_bad_round_date.trf",
            (TRF_HEAD + "132" + " " * 88 + "24/03/01  24/13/45\n" + "\n".join(g) + "\n").encode(),
            6,
            "bad_date",
            "132 record (round dates), round 2 (columns 102-109): '24/13/45' is not a date: "
            "there is no month 13",
        )
    )
    bad = with_line(g, 1, g[1].replace(" 2100 ", " 9999 "))
    c.append(("trf_absurd_rating.trf", trf(bad).encode(), 7, "bad_player_field", "rating 9999"))
    bad = with_line(g, 3, g[3][:97])  # cut inside round 1's block: "   3 b" without result
    c.append(("trf_truncated.trf", trf(bad).encode(), 8, "inconsistent_pairing", "round 1: rank 3"))
    bad = with_line(g, 0, g[0].replace("   2 w 1", "   2 x 1"))
    c.append(("trf_bad_colour.trf", trf(bad).encode(), 6, "malformed_row", "colour 'x'"))
    bad = with_line(g, 0, g[0][:4] + "  ab" + g[0][8:])
    c.append(("trf_bad_rank.trf", trf(bad).encode(), 6, "malformed_row", "starting rank 'ab'"))
    bad = with_line(g, 1, g[1].replace("   1 b 0", "   0 - 1"))
    c.append(
        (
            "trf_result_without_opponent.trf",
            trf(bad).encode(),
            7,
            "unknown_result",
            "without an opponent",
        )
    )
    return c


def main() -> None:
    BAD.mkdir(exist_ok=True)
    for old in BAD.iterdir():
        old.unlink()
    rows = []
    for name, content, line, reason, text in cases():
        (BAD / name).write_bytes(content)
        rows.append([name, "" if line is None else line, reason, text])
    with open(BAD / "EXPECTED.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["file", "line", "reason", "message"])
        w.writerows(rows)
    (HERE / "good_base.csv").write_text(
        "\n".join(
            [
                CSV_HEAD,
                "base1,2024-01-05,A,B,1-0,2100,2000",
                "base2,2024-01-06,C,D,1/2-1/2,,",
                "base3,2024-01-07,B,C,0-1,,",
            ]
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
