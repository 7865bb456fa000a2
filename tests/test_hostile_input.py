"""Hostile input (issue 12 items 8, 9, 13; docs/operations.md "Guarantees and limits:
hostile input"): never a traceback, a one-line error with exit 2 naming file (and
line), nothing stored half-way, every row or line accounted for, bounded
decompression. Files that must not be committed (bombs, large files) are built
here in tmp_path. The Hypothesis test at the end mutates small valid CSV, PGN
and TRF files and checks the same guarantees on whatever comes out.
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import io
import os
import tempfile
import zipfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arpad.pipeline import archives
from arpad.pipeline.cli import main
from arpad.pipeline.errors import disk_full
from arpad.pipeline.readers import RAW_TEXT_CAP, read_any
from arpad.pipeline.store import Store
from tests.data.make_bad_corpus import good_trf_lines, p001, trf

CSV_HEAD = "game_id,date,white_id,black_id,result,white_rating,black_rating"
GOOD_ROWS = [
    "x1,2024-02-03,A,B,1-0,2100,2000",
    "x2,2024-02-04,C,D,0-1,,",
    "x3,2024-02-05,E,F,1/2-1/2,,",
]
PGN_GAME = """[Event "Club Ch"]
[Site "Here"]
[Date "2024.02.{day}"]
[Round "{round}"]
[White "{white}"]
[Black "{black}"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 1-0

"""


def pgn_game(white="Ann", black="Bob", day=10, round=1) -> str:
    return PGN_GAME.format(white=white, black=black, day=f"{day:02d}", round=round)


def snapshot(root: Path) -> dict[str, str]:
    """Every file (with its digest) and directory under ``root``, but the lock file."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.name == ".lock":
            continue
        key = str(p.relative_to(root))
        out[key] = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
    return out


def ingest(store: Path, *files: Path, capsys=None) -> tuple[int, str]:
    code = main(["ingest", "--no-flow", "--store", str(store), *map(str, files)])
    err = capsys.readouterr().err if capsys else ""
    return code, err


def one_error_line(err: str) -> str:
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("arpad: error: "), err
    assert "Traceback" not in err
    return lines[0]


def manifest_entry(store: Path, source: str) -> dict:
    return next(m for m in Store(store).read_manifest().to_pylist() if m["source"] == source)


def stored_rows(store: Path, batch: str) -> int:
    files = [f for f in Store(store).game_files() if f.name == f"part-{batch}.parquet"]
    return sum(pq.read_metadata(f).num_rows for f in files)


def quarantine(store: Path) -> list[dict]:
    q = Store(store).quarantine_dir
    return pq.read_table(q).to_pylist() if any(q.rglob("*.parquet")) else []


@pytest.fixture
def base(tmp_path) -> Path:
    """A store holding three games and their players (files to be overwritten)."""
    root = tmp_path / "store"
    path = tmp_path / "base.csv"
    path.write_text(
        "\n".join([CSV_HEAD, "b1,2024-01-05,A,B,1-0,,", "b2,2024-01-06,C,D,0-1,,"]) + "\n"
    )
    assert main(["ingest", "--no-flow", "--store", str(root), str(path)]) == 0
    return root


# -- item 8: errors, not tracebacks -----------------------------------------------------------


def test_directory_as_input(base, tmp_path, capsys):
    before = snapshot(base)
    code, err = ingest(base, tmp_path, capsys=capsys)
    assert code == 2
    assert f"{tmp_path}: is a directory" in one_error_line(err)
    assert snapshot(base) == before


def test_store_is_a_regular_file(tmp_path, capsys):
    games = tmp_path / "g.csv"
    games.write_text("\n".join([CSV_HEAD, *GOOD_ROWS]) + "\n")
    afile = tmp_path / "afile"
    afile.write_text("not a store\n")
    for args in (
        ["ingest", "--no-flow", "--store", str(afile), str(games)],
        ["rate", "--no-flow", "--store", str(afile), "--system", "fide"],
        ["list", "--store", str(afile / "inside")],
    ):
        assert main(args) == 2
        assert "not a store directory" in one_error_line(capsys.readouterr().err)
    assert afile.read_text() == "not a store\n"


@pytest.mark.parametrize("top", ["-1", "0"])
def test_list_top_must_be_positive(base, capsys, top):
    assert main(["list", "--store", str(base), "--top", top]) == 2
    assert "--top takes a positive number" in one_error_line(capsys.readouterr().err)


def _fail_at(monkeypatch, n: int) -> list[int]:
    """Make the n-th Parquet write of the process fail as on a full disk."""
    calls = [0]
    real = pq.write_table

    def write_table(*args, **kwargs):
        calls[0] += 1
        if calls[0] == n:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(*args, **kwargs)

    monkeypatch.setattr(pq, "write_table", write_table)
    return calls


def _count_writes(monkeypatch, run) -> int:
    calls = _fail_at(monkeypatch, 0)
    run()
    monkeypatch.undo()
    return calls[0]


def test_disk_full_during_ingest_leaves_the_store_unchanged(base, tmp_path, capsys, monkeypatch):
    games = tmp_path / "more.csv"
    games.write_text(
        "\n".join([CSV_HEAD, *GOOD_ROWS, "x4,2024-03-01,G,H,1-0,,", "bad,2024-03-02,G,G,1-0,,"])
        + "\n"
    )
    probe = tmp_path / "probe"
    import shutil

    shutil.copytree(base, probe)
    writes = _count_writes(monkeypatch, lambda: ingest(probe, games))
    capsys.readouterr()
    assert writes >= 4  # games (2 periods), players, quarantine, manifest
    before = snapshot(base)
    for n in range(1, writes + 1):
        _fail_at(monkeypatch, n)
        code, err = ingest(base, games, capsys=capsys)
        monkeypatch.undo()
        assert code == 2, (n, err)
        assert "disk full" in one_error_line(err)
        assert snapshot(base) == before, f"store changed when write {n} failed"
    assert ingest(base, games)[0] == 2  # the quarantined self-play row: exit 2, stored now
    assert manifest_entry(base, "more.csv")["accepted"] == 4


def test_disk_full_during_rate_leaves_the_store_unchanged(base, tmp_path, capsys, monkeypatch):
    def rate(root):
        # elo rates from nothing (fide needs published ratings the base store lacks)
        return main(["rate", "--no-flow", "--store", str(root), "--system", "elo"])

    import shutil

    probe = tmp_path / "probe"
    shutil.copytree(base, probe)
    writes = _count_writes(monkeypatch, lambda: rate(probe))
    capsys.readouterr()
    assert writes >= 2
    before = snapshot(base)
    for n in sorted({1, 2, writes // 2, writes}):
        _fail_at(monkeypatch, n)
        code = rate(base)
        err = capsys.readouterr().err
        monkeypatch.undo()
        assert code == 2, (n, err)
        assert "disk full" in one_error_line(err)
        assert snapshot(base) == before, f"store changed when write {n} failed"
    assert rate(base) == 0


def test_disk_full_during_recalculate_puts_the_inbox_back(base, tmp_path, capsys, monkeypatch):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    new = inbox / "march.csv"
    new.write_text("\n".join([CSV_HEAD, "m1,2024-03-01,A,C,1-0,,"]) + "\n")
    args = ["recalculate", "--no-flow", "--store", str(base), "--inbox", str(inbox)]
    args += ["--systems", "elo"]
    before = snapshot(base)
    import shutil

    probe, probe_inbox = tmp_path / "probe", tmp_path / "probe_inbox"
    shutil.copytree(base, probe)
    shutil.copytree(inbox, probe_inbox)
    calls = _fail_at(monkeypatch, 10**9)
    assert main([*args[:3], str(probe), "--inbox", str(probe_inbox), *args[6:]]) == 0
    monkeypatch.undo()
    capsys.readouterr()
    last = calls[0]  # the last write happens after the ingest and its move to processed/
    _fail_at(monkeypatch, last)
    assert main(args) == 2
    monkeypatch.undo()
    assert "disk full" in one_error_line(capsys.readouterr().err)
    assert snapshot(base) == before
    assert sorted(p.name for p in inbox.iterdir()) == ["march.csv"]
    assert main(args) == 0


def test_disk_full_is_recognised_through_library_messages():
    assert disk_full(OSError(errno.ENOSPC, "No space left on device"))
    assert disk_full(OSError(errno.EDQUOT, "Disk quota exceeded"))
    assert disk_full(OSError("IOError: Error writing bytes to file. Detail: [errno 28]"))
    wrapped = RuntimeError("write failed")
    wrapped.__cause__ = OSError(errno.ENOSPC, "No space left on device")
    assert disk_full(wrapped)
    assert not disk_full(OSError(errno.EACCES, "Permission denied"))


# -- item 9: silently wrong, now right ---------------------------------------------------------


def test_unterminated_quote_accounts_for_every_line(tmp_path):
    path = tmp_path / "q.csv"
    rows = [GOOD_ROWS[0], 'x9,2024-02-05,"E,F,1-0,,', *GOOD_ROWS[1:], "x4,2024-02-06,G,H,1-0,,"]
    path.write_text("\n".join([CSV_HEAD, *rows]) + "\n")
    raw = read_any(path)
    assert raw.frame.get_column("_line").to_list() == [2, 4, 5, 6]
    assert [(p[0], p[1]) for p in raw.problems] == [(3, "malformed_row")]
    assert "a quote opened on line 3 is never closed" in raw.problems[0][2]
    assert raw.frame.height + len(raw.problems) == len(rows)


def test_huge_field_is_quarantined_with_capped_raw_and_next_line_right(tmp_path, capsys):
    path = tmp_path / "huge.csv"
    rows = [GOOD_ROWS[0], "x9,2024-02-05,E," + "F" * 10**6 + ",1-0,,", *GOOD_ROWS[1:]]
    path.write_text("\n".join([CSV_HEAD, *rows]) + "\n")
    raw = read_any(path)
    assert raw.frame.get_column("_line").to_list() == [2, 4, 5]
    ((line, reason, detail, text),) = raw.problems
    assert (line, reason) == (3, "malformed_row")
    assert "field larger than field limit" in detail
    assert text.startswith("x9,2024-02-05,E,FFF") and len(text) < RAW_TEXT_CAP + 100
    assert "1000022 characters in all" in text
    store = tmp_path / "store"
    code, err = ingest(store, path, capsys=capsys)
    assert code == 2 and "huge.csv:3: malformed_row" in err
    entry = manifest_entry(store, "huge.csv")
    assert (entry["rows"], entry["accepted"], entry["quarantined"]) == (4, 3, 1)


@pytest.mark.parametrize("fmt", ["csv", "pgn", "trf"])
def test_nul_after_64_kib_is_refused_with_its_line(tmp_path, capsys, fmt):
    if fmt == "csv":
        rows = [f"g{i},2024-02-03,P{i},Q{i},1-0,," for i in range(4000)]
        rows[3500] = "g3500,2024-02-03,P\x00,Q,1-0,,"
        text, line = "\n".join([CSV_HEAD, *rows]) + "\n", 3502
    elif fmt == "pgn":
        games = [pgn_game(f"W{i}", f"B{i}", round=i) for i in range(600)]
        games[500] = pgn_game("W\x00", "B", round=500)
        text, line = "".join(games), 500 * 10 + 5  # 10 lines a game; White is the 5th
    else:
        players = [p001(i, f"P{i}", "2000", str(1000 + i), ["        H"]) for i in range(1, 900)]
        players[850] = players[850][:20] + "\x00" + players[850][21:]
        text, line = trf(players), 5 + 851
    path = tmp_path / f"nul.{fmt}"
    path.write_bytes(text.encode())
    assert text.index("\x00") > 65536
    code, err = ingest(tmp_path / "store", path, capsys=capsys)
    assert code == 2
    assert f"{path}:{line}: binary data (NUL byte)" in one_error_line(err)
    assert not (tmp_path / "store" / "games").exists() or not any(
        (tmp_path / "store" / "games").rglob("*.parquet")
    )


def test_repeated_byte_order_marks_are_dropped(tmp_path, capsys):
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbf" * 2 + ("\n".join([CSV_HEAD, *GOOD_ROWS]) + "\n").encode())
    store = tmp_path / "store"
    code, _ = ingest(store, path, capsys=capsys)
    assert code == 0
    ids = sorted(
        pq.read_table(Store(store).games_dir).column("game_id").to_pylist()
    )  # the game_id column was found: ids are not "<file>:<line>"
    assert ids == ["x1", "x2", "x3"]


def test_result_and_score_that_disagree_are_quarantined(tmp_path, capsys):
    path = tmp_path / "rs.csv"
    path.write_text(
        "game_id,date,white_id,black_id,result,score\n"
        "a,2024-02-03,A,B,1-0,1\nb,2024-02-03,C,D,1-0,0\nc,2024-02-03,E,F,0-1,\n"
        "d,2024-02-03,G,H,1/2-1/2,x\n"
    )
    store = tmp_path / "store"
    code, err = ingest(store, path, capsys=capsys)
    assert code == 2
    reasons = {(q["line"], q["reason"]) for q in quarantine(store)}
    assert reasons == {(3, "result_score_mismatch"), (5, "result_score_mismatch")}
    assert "rs.csv:3: result_score_mismatch: result 1-0 but score 0" in err


def test_tag_lines_inside_a_comment_are_comment_text(tmp_path, capsys):
    commented = pgn_game().replace(
        "1. e4 e5", '1. e4 {quoting another game:\n[Event "Other"]\n[White "Zed"]\nend} e5'
    )
    path = tmp_path / "c.pgn"
    path.write_text(commented + pgn_game("Cid", "Dee", round=2))
    store = tmp_path / "store"
    code, err = ingest(store, path, capsys=capsys)
    assert code == 0, err
    entry = manifest_entry(store, "c.pgn")
    assert (entry["rows"], entry["accepted"], entry["quarantined"]) == (2, 2, 0)
    whites = pq.read_table(Store(store).games_dir).column("white_id").to_pylist()
    assert sorted(whites) == ["c.pgn:Ann", "c.pgn:Cid"]


def test_a_stray_open_brace_does_not_swallow_the_next_games(tmp_path):
    stray = pgn_game().replace("1. e4 e5", "1. e4 {unclosed e5")
    path = tmp_path / "s.pgn"
    path.write_text(stray + pgn_game("Cid", "Dee", round=2) + pgn_game("Eve", "Fay", round=3))
    raw = read_any(path)
    assert raw.frame.height + len(raw.problems) == 3
    assert raw.frame.height >= 2


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, body in members.items():
            zf.writestr(name, body)
    return path


def test_zip_reads_only_pgn_members_each_on_its_own(tmp_path, capsys):
    game_no_newline = pgn_game().rstrip("\n").encode()
    path = _zip(
        tmp_path / "games.zip",
        {
            "a.pgn": game_no_newline,
            "b.pgn": pgn_game("Cid", "Dee", round=2).encode("latin-1"),
            "readme.txt": b"[Event not a game]\nhello",
            "__MACOSX/._a.pgn": b"\x00\x05\x16\x07",
        },
    )
    store = tmp_path / "store"
    code, err = ingest(store, path, capsys=capsys)
    assert code == 0, err
    entry = manifest_entry(store, "games.zip")
    assert (entry["rows"], entry["accepted"]) == (2, 2)
    raw = read_any(path)
    (note,) = [n for n in raw.notes if "skipped" in n]
    assert note == "2 zip member(s) skipped, not .pgn files: __MACOSX/._a.pgn, readme.txt"


# -- item 13: bounded decompression --------------------------------------------------------------


def _gzip_bomb(path: Path, gib: float) -> Path:
    """Concatenated gzip members of 1 MiB of blanks: ``gib`` GiB from a few MB."""
    member = gzip.compress(b" " * 2**20, compresslevel=9, mtime=0)
    with open(path, "wb") as fh:
        for _ in range(int(gib * 1024)):
            fh.write(member)
    return path


def test_gzip_bomb_is_refused_by_ratio_while_streaming(tmp_path, capsys):
    path = _gzip_bomb(tmp_path / "bomb.pgn.gz", 4)  # 4 GiB from ~4 MB
    code, err = ingest(tmp_path / "store", path, capsys=capsys)
    assert code == 2
    line = one_error_line(err)
    assert f"{path}: the gzip stream decompresses more than 200:1" in line
    assert "ARPAD_MAX_RATIO" in line


def test_gzip_bomb_is_refused_by_size(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("ARPAD_MAX_DECOMPRESSED", "64M")
    monkeypatch.setenv("ARPAD_MAX_RATIO", "1e9")
    path = _gzip_bomb(tmp_path / "bomb.pgn.gz", 3)
    code, err = ingest(tmp_path / "store", path, capsys=capsys)
    assert code == 2
    assert "decompresses to more than 64.0 MiB (limit ARPAD_MAX_DECOMPRESSED)" in one_error_line(
        err
    )


def test_zip_bomb_is_refused(tmp_path, capsys, monkeypatch):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("games.pgn", b" " * (64 * 2**20))
    path = tmp_path / "bomb.zip"
    path.write_bytes(buf.getvalue())
    code, err = ingest(tmp_path / "store", path, capsys=capsys)
    assert code == 2
    assert "zip member games.pgn decompresses more than 200:1" in one_error_line(err)
    monkeypatch.setenv("ARPAD_MAX_DECOMPRESSED", "16M")
    monkeypatch.setenv("ARPAD_MAX_RATIO", "1e9")
    code, err = ingest(tmp_path / "store", path, capsys=capsys)
    assert code == 2
    assert "zip member games.pgn decompresses to more than 16.0 MiB" in one_error_line(err)


def test_small_compressible_files_are_not_bombs(tmp_path, capsys):
    body = pgn_game().encode() + b" " * 500_000  # well over 200:1, but under 1 MiB
    path = tmp_path / "ok.pgn.gz"
    path.write_bytes(gzip.compress(body))
    assert ingest(tmp_path / "store", path, capsys=capsys)[0] == 0


@pytest.mark.parametrize(
    "name, value, message",
    [
        ("ARPAD_MAX_DECOMPRESSED", "lots", "is not a size"),
        ("ARPAD_MAX_RATIO", "0.5", "greater than 1"),
    ],
)
def test_bad_limit_settings_are_bad_input(tmp_path, capsys, monkeypatch, name, value, message):
    monkeypatch.setenv(name, value)
    path = tmp_path / "g.pgn.gz"
    path.write_bytes(gzip.compress(pgn_game().encode()))
    code, err = ingest(tmp_path / "store", path, capsys=capsys)
    assert code == 2 and message in one_error_line(err)


def test_limit_settings_parse():
    assert archives._size("2G", 1) == 2 * 1024**3
    assert archives._size("500MiB", 1) == 500 * 1024**2
    assert archives._size("1048576", 1) == 1024**2
    assert archives._size(None, 7) == 7


# -- attacking our own work ------------------------------------------------------------------------


def test_many_lines_of_separators_and_blank_lines(tmp_path, capsys):
    path = tmp_path / "sep.csv"
    path.write_text("\n".join([CSV_HEAD, *GOOD_ROWS, *([",,,,,,"] * 1000), "", "  ", ""]) + "\n")
    store = tmp_path / "store"
    code, _ = ingest(store, path, capsys=capsys)
    # rows of separators only are blank lines, as a spreadsheet writes them (docs/ingest.md;
    # they were quarantined as games without players until tests/test_cli_attack.py)
    assert code == 0
    entry = manifest_entry(store, "sep.csv")
    assert (entry["rows"], entry["accepted"], entry["quarantined"]) == (3, 3, 0)


def test_a_hundred_thousand_columns(tmp_path, capsys):
    extra = [f"c{i}" for i in range(100_000)]
    head = ",".join([CSV_HEAD, *extra])
    rows = [",".join([r, *([""] * len(extra))]) for r in GOOD_ROWS]
    path = tmp_path / "wide.csv"
    path.write_text("\n".join([head, *rows]) + "\n")
    code, err = ingest(tmp_path / "store", path, capsys=capsys)
    assert code == 0, err


def test_deeply_nested_variations(tmp_path, capsys):
    moves = "1. e4 " + "( 1. d4 " * 100_000 + ")" * 100_000 + " e5 1-0"
    path = tmp_path / "deep.pgn"
    path.write_text(pgn_game().replace("1. e4 e5 2. Nf3 Nc6 1-0", moves))
    code, err = ingest(tmp_path / "store", path, capsys=capsys)
    assert code == 0, err


def test_trf_with_overlapping_and_short_columns(tmp_path, capsys):
    lines = good_trf_lines()
    lines[1] = lines[1][:60]  # cut inside the FIDE id
    lines[2] = lines[2][:95] + "12345678901234567890"  # a block that runs into the next
    path = tmp_path / "overlap.trf"
    path.write_text(trf(lines))
    code, err = ingest(tmp_path / "store", path, capsys=capsys)
    assert code in (0, 2) and "Traceback" not in err


def test_mixed_encodings_in_one_file(tmp_path, capsys):
    path = tmp_path / "mixed.csv"
    data = ("\n".join([CSV_HEAD, *GOOD_ROWS]) + "\n").encode()
    data += "x4,2024-02-06,Müller,Weiß,1-0,,\n".encode()
    data += "x5,2024-02-06,Müller,Weiß,0-1,,\n".encode("latin-1")
    path.write_bytes(data)
    code, err = ingest(tmp_path / "store", path, capsys=capsys)
    assert code == 0, err
    raw = read_any(path)
    assert "1 line(s) decoded as Latin-1, 1 other non-ASCII line(s) kept as UTF-8" in str(raw.notes)
    assert raw.frame.get_column("white_id").to_list()[-2:] == ["Müller", "Müller"]


# -- property: mutations of valid files --------------------------------------------------------


def _valid_files() -> dict[str, bytes]:
    pgn = (pgn_game() + pgn_game("Cid", "Dee", day=11, round=2)).encode()
    members = io.BytesIO()
    with zipfile.ZipFile(members, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("a.pgn", pgn)
        zf.writestr("b.pgn", pgn_game("Eve", "Fay", round=3))
        zf.writestr("readme.txt", "not games")
    return {
        "csv": ("\n".join([CSV_HEAD, *GOOD_ROWS]) + "\n").encode(),
        "pgn": pgn,
        "trf": trf(good_trf_lines()).encode(),
        "pgn.gz": gzip.compress(pgn, mtime=0),
        "zip": members.getvalue(),
    }


VALID = _valid_files()
INSERTS = [b"\x00", b'"', b"\xef\xbb\xbf", b"\r", b"\n", b",", b"{", b"}", b"[", b"\xff", b";"]
INSERTS += [b"\xc2\xb2", b"  ", b"\t"]  # '²' (a digit to str.isdigit), blanks, a tab


def _mutate(data: bytes, ops: list[tuple], inserts: list[bytes] = INSERTS) -> bytes:
    """``data`` with ``ops`` applied in turn (tests/test_fuzz_inputs.py uses it too, with
    its own ``inserts``)."""
    for op, a, b in ops:
        n = len(data)
        if op == "flip" and n:
            i = a % n
            data = data[:i] + bytes([data[i] ^ (b % 255 + 1)]) + data[i + 1 :]
        elif op == "truncate":
            data = data[: a % (n + 1)]
        elif op == "insert":
            i = a % (n + 1)
            data = data[:i] + inserts[b % len(inserts)] + data[i:]
        elif op in ("duplicate", "delete"):
            lines = data.split(b"\n")
            i = a % len(lines)
            lines[i:i] = [lines[i]] if op == "duplicate" else []
            if op == "delete":
                del lines[i]
            data = b"\n".join(lines)
        elif op == "swap":  # swap two columns of every line (CSV fields, TRF characters)
            out = []
            for line in data.split(b"\n"):
                if b"," in line:
                    f = line.split(b",")
                    i, j = a % len(f), b % len(f)
                    f[i], f[j] = f[j], f[i]
                    line = b",".join(f)
                elif len(line) > 10:
                    i, j = sorted((a % len(line), b % len(line)))
                    line = (
                        line[:i]
                        + line[j : j + 1]
                        + line[i + 1 : j]
                        + line[i : i + 1]
                        + line[j + 1 :]
                    )
                out.append(line)
            data = b"\n".join(out)
    return data


op = st.tuples(
    st.sampled_from(["flip", "truncate", "insert", "duplicate", "delete", "swap"]),
    st.integers(0, 10_000),
    st.integers(0, 10_000),
)


@settings(
    max_examples=int(os.environ.get("ARPAD_MUTATION_EXAMPLES", "40")),
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(fmt=st.sampled_from(sorted(VALID)), ops=st.lists(op, min_size=1, max_size=4))
def test_mutated_files_never_crash_and_every_row_is_accounted_for(capsys, fmt, ops):
    data = _mutate(VALID[fmt], ops)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        inputs = tmp / "in"
        inputs.mkdir()
        path = inputs / f"m.{fmt}"
        path.write_bytes(data)
        cwd_before = sorted(os.listdir("."))
        outside = snapshot(inputs)
        store = tmp / "store"
        code, err = ingest(store, path, capsys=capsys)
        assert code in (0, 2), err
        assert "Traceback" not in err
        assert snapshot(inputs) == outside  # the input is only read
        assert sorted(os.listdir(".")) == cwd_before
        manifest = Store(store).read_manifest().to_pylist() if store.exists() else []
        if not manifest:  # refused as a whole: nothing stored
            assert code == 2 and err.startswith("arpad: error: "), err
            assert not store.exists() or not any(
                p.is_file() for p in store.rglob("*") if p.name != ".lock"
            )
            return
        (entry,) = manifest
        assert entry["accepted"] + entry["quarantined"] == entry["rows"]
        assert stored_rows(store, entry["batch"]) == entry["accepted"]
        q = [r for r in quarantine(store) if r["ingest_batch"] == entry["batch"]]
        assert len(q) >= entry["quarantined"]
        if fmt == "csv" and b'"' not in data:
            # without quotes every line after the header is one row, but blank lines and
            # lines of separators only (a spreadsheet's empty rows, docs/ingest.md); the
            # separator: ',' when the header has one, else ';' or a tab if it has them
            text = data.decode("utf-8", "replace").lstrip("\ufeff")
            lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            sep = next((c for c in (",", ";", "\t") if c in lines[0]), ",")
            rows = [x for x in lines[1:] if any(f.strip() for f in x.split(sep))]
            assert entry["rows"] == len(rows)


def test_one_trf_line_with_a_hundred_thousand_rounds(tmp_path, capsys):
    players = [p001(i, f"P{i}", "2000", str(1000 + i), ["        H"]) for i in range(1, 2001)]
    players[0] = p001(1, "P1", "2000", "1001", ["0000 - H"] * 100_001)
    path = tmp_path / "long.trf"
    path.write_text(trf(players))
    raw = read_any(path)  # seconds, not players × rounds steps
    acc = raw.accounting
    assert acc["rounds"] == 100_001 and acc["blocks"] == 2000 * 100_001
    assert (acc["bye_blocks"], acc["absent_blocks"]) == (100_001, 1999 * 100_001)


def test_quarantine_raw_text_is_capped_for_pgn_too(tmp_path, capsys):
    path = tmp_path / "long.pgn"
    path.write_text(pgn_game("A" * 100_000, "A" * 100_000))  # self-play, huge names
    store = tmp_path / "store"
    assert ingest(store, path, capsys=capsys)[0] == 2
    (row,) = quarantine(store)
    assert row["reason"] == "self_play"
    assert len(row["raw"]) < RAW_TEXT_CAP + 100 and "characters in all" in row["raw"]


def test_messages_stay_on_one_line(tmp_path, capsys):
    path = tmp_path / "two\nlines.csv"
    path.write_bytes(b"\x00")
    code, err = ingest(tmp_path / "store", path, capsys=capsys)
    assert code == 2
    assert "two\\nlines.csv:1: binary data" in one_error_line(err)


def test_damaged_parquet_files_are_bad_input_never_a_crash(tmp_path):
    """300 seeded byte-level mutations of a valid Parquet file (seeded, not Hypothesis:
    a PyArrow abort would take the test process down, so the set is fixed and known
    to be safe). Found by this: invalid arrays after decoding (now ``validate(full=True)``),
    column names that are not UTF-8, and a PyArrow abort when reading damaged
    column-chunk statistics (no longer read)."""
    import random

    import pyarrow as pa

    buf = io.BytesIO()
    pq.write_table(
        pa.table(
            {
                "game_id": ["g1", "g2", "g3"],
                "date": ["2024-01-01"] * 3,
                "white_id": ["A", "C", "E"],
                "black_id": ["B", "D", "F"],
                "result": ["1-0", "0-1", "1/2-1/2"],
                "white_rating": [2000.0, None, 1500.0],
            }
        ),
        buf,
    )
    good = buf.getvalue()
    rnd = random.Random(1)
    outcomes = {"read": 0, "refused": 0}
    from arpad.pipeline.errors import InputError
    from arpad.pipeline.validate import validate_games

    for _ in range(300):
        data = bytearray(good)
        for _ in range(rnd.randint(1, 4)):
            where, roll = rnd.randrange(len(data)), rnd.random()
            if roll < 0.6:
                data[where] ^= rnd.randint(1, 255)
            elif roll < 0.8:
                data = data[:where]
            else:
                data[where:where] = bytes([rnd.randint(0, 255)])
        path = tmp_path / "damaged.parquet"
        path.write_bytes(bytes(data))
        try:
            raw = read_any(path)
        except InputError:
            outcomes["refused"] += 1
            continue
        v = validate_games(raw, path.name, "b")
        assert v.accepted.num_rows + v.quarantine.num_rows == v.rows_read
        outcomes["read"] += 1
    assert outcomes["refused"] > 200 and outcomes["read"] > 0


def test_trf_numbers_are_ascii_digits(tmp_path, capsys):
    lines = good_trf_lines()
    lines[1] = lines[1][:4] + "   ²" + lines[1][8:]  # '²'.isdigit() is True, int('²') fails
    lines[2] = lines[2].replace("   4 w =", "  ¹4 w =")
    path = tmp_path / "sup.trf"
    path.write_text(trf(lines))
    store = tmp_path / "store"
    code, err = ingest(store, path, capsys=capsys)
    assert code == 2 and "Traceback" not in err
    assert "sup.trf:7: malformed_row: starting rank '²'" in err
    entry = manifest_entry(store, "sup.trf")
    assert entry["accepted"] + entry["quarantined"] == entry["rows"]


def test_parquet_declared_size_limit(tmp_path, capsys, monkeypatch):
    import pyarrow as pa

    n = 20_000
    path = tmp_path / "big.parquet"
    pq.write_table(
        pa.table(
            {
                "date": ["2024-01-01"] * n,
                "white_id": [f"W{i}" for i in range(n)],
                "black_id": [f"B{i}" for i in range(n)],
                "result": ["1-0"] * n,
            }
        ),
        path,
    )
    monkeypatch.setenv("ARPAD_MAX_DECOMPRESSED", "64K")
    code, err = ingest(tmp_path / "store", path, capsys=capsys)
    assert code == 2
    assert "more than 64.0 KiB (limit ARPAD_MAX_DECOMPRESSED)" in one_error_line(err)
    monkeypatch.delenv("ARPAD_MAX_DECOMPRESSED")
    assert ingest(tmp_path / "store", path, capsys=capsys)[0] == 0
