"""Rating officer, round 13, findings 1 and 2: FIDE's one-time compression of 1 March
2024 (docs/fide-history.md "The 1 March 2024 compression").

1. A March 2024 file states FIDE's March 2024 ratings, which are already compressed:
   arpad seeded the players with them and compressed them again (Iota 1675 stated →
   +130 → 1805), and the stated-ratings notes blamed the arbiter. A rating stated for a
   period on or after the compression date is not compressed again; one stated before
   it, or the store's own, is.
2. The list in force on 1 March 2024 (the list of 202402, fide-txt column MAR24) showed
   the uncompressed ratings; FIDE's March 2024 list is compressed. The list of 202402
   shows them compressed; the ratings rows keep theirs (202403's adjustment).

By hand (FIDE B.02, table 8.1.2; K 20: 100 rated games, born 1970, peak below 2400):
compression R' = R + 0.4 × (2000 − R), rounded half away from zero:
  I 1458: 0.4 × 542 = 216.8 → +217 → 1675;  O 1800: 0.4 × 200 = 80 → 1880;
  Z 1522: 0.4 × 478 = 191.2 → +191 → 1713;  A and B 2200: none.
March: I 1675 beats O 1880, D 205 → PD(H) .76: I +.76 × 20 = 15.2 → +15, 1690;
O −.76 × 20 = −15.2 → −15, 1865. (Compressed twice, I would start at 1675 + 130 = 1805
and O at 1880 + 48 = 1928.) February: A and B 2200 draw (no change).
"""

from __future__ import annotations

import csv
import io

import pytest

from arpad.pipeline.cli import main
from tests.test_historian_attack import sql

PLAYERS = (
    "player_id,name,rating,rated_games,birth_year\n"
    "I,Iota,1458,100,1970\nO,Omega,1800,100,1970\nZ,Zeta,1522,100,1970\n"
    "A,Alpha,2200,100,1970\nB,Beta,2200,100,1970\n"
)
FEB = "date,white_id,black_id,result\n2024-02-10,A,B,1/2-1/2\n"
HEADER = "date,white_id,black_id,result,white_rating,black_rating\n"
MAR_STATED = HEADER + "2024-03-10,I,O,1-0,1675,1880\n"  # FIDE's March 2024 list
MAR_PLAIN = "date,white_id,black_id,result\n2024-03-10,I,O,1-0\n"
MAR_OLD_LIST = HEADER + "2024-03-10,I,O,1-0,1458,1880\n"  # I from February's list


def cli(*args: str) -> int:
    return main([*args, "--no-flow"])


def ingest(tmp_path, store, name: str, text: str, *more: str) -> None:
    (tmp_path / name).write_text(text)
    assert cli("ingest", str(tmp_path / name), "--store", str(store), *more) == 0


def february(tmp_path, capsys, publish: bool = False):
    """A store rated through 202402 (published when ``publish``)."""
    store = tmp_path / "S"
    (tmp_path / "players.csv").write_text(PLAYERS)
    ingest(tmp_path, store, "feb.csv", FEB, "--players", str(tmp_path / "players.csv"))
    assert cli("rate", "--system", "fide", "--store", str(store)) == 0
    if publish:
        assert main(["publish", "--store", str(store), "--period", "202402"]) == 0
    capsys.readouterr()
    return store


def rows(store, period: int) -> dict[str, tuple]:
    got = sql(
        store,
        "SELECT player_id, rating_before, adjustment, change, rating_after FROM ratings "
        f"WHERE system = 'fide' AND pool = 'standard' AND period = {period} ORDER BY 1",
    ).rows()
    return {r[0]: tuple(None if v != v else v for v in r[1:]) for r in got}


@pytest.mark.parametrize("march", [MAR_STATED, MAR_PLAIN], ids=["stated", "not-stated"])
def test_a_rating_stated_in_march_2024_is_not_compressed_again(tmp_path, capsys, march):
    store = february(tmp_path, capsys)
    ingest(tmp_path, store, "mar.csv", march)
    assert cli("rate", "--system", "fide", "--store", str(store)) == 0
    got = rows(store, 202403)
    if march is MAR_STATED:  # seeded with the compressed ratings: no adjustment
        assert got["I"] == (1675.0, None, 15.0, 1690.0)
        assert got["O"] == (1880.0, None, -15.0, 1865.0)
    else:  # compressed once, by arpad
        assert got["I"] == (1458.0, 217.0, 15.0, 1690.0)
        assert got["O"] == (1800.0, 80.0, -15.0, 1865.0)
    assert got["Z"] == (1522.0, 191.0, 0.0, 1713.0)  # no rating stated: compressed
    assert got["A"] == (2200.0, 0.0, 0.0, 2200.0)


def test_a_rating_stated_before_the_date_is_compressed(tmp_path):
    """No February games: the run walks 202401, then 202403. I's rating comes from a
    players row dated February 2024 (1500, before the compression): 1500 + 0.4 × 500 =
    1700. O's from the March file (1880, FIDE's compressed list): not compressed again.
    I 1700 beats O 1880: D 180 → PD(H) .74, PD(L) .26; I +(1 − .26) × 20 = 14.8 → +15,
    1715; O −.74 × 20 = −14.8 → −15, 1865. (O compressed again: 1928, D 228.)"""
    store = tmp_path / "S"
    (tmp_path / "players.csv").write_text(
        "player_id,rating,rated_games,birth_year,date\n"
        "I,1500,100,1970,2024-02-15\nO,1800,100,1970,\nA,2200,100,1970,\nB,2200,100,1970,\n"
    )
    (tmp_path / "games.csv").write_text(
        HEADER + "2024-01-10,A,B,1/2-1/2,,\n2024-03-10,I,O,1-0,,1880\n"
    )
    argv = ["--store", str(store)]
    assert cli("ingest", str(tmp_path / "games.csv"), "--players", str(tmp_path / "players.csv"),
               *argv) == 0  # fmt: skip
    assert cli("rate", "--system", "fide", *argv) == 0
    got = rows(store, 202403)
    assert got["I"] == (1500.0, 200.0, 15.0, 1715.0)
    assert got["O"] == (1880.0, None, -15.0, 1865.0)


def list_csv(capsys, store, *args: str) -> dict[str, int]:
    capsys.readouterr()
    assert main(["list", "--store", str(store), "--format", "csv", *args]) == 0
    return {r["player_id"]: int(r["rating"]) for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}  # fmt: skip


def test_the_list_in_force_on_1_march_2024_is_compressed(tmp_path, capsys):
    store = february(tmp_path, capsys, publish=True)
    compressed = {"A": 2200, "B": 2200, "O": 1880, "Z": 1713, "I": 1675}
    assert list_csv(capsys, store, "--in-force", "2024-03-01") == compressed
    assert list_csv(capsys, store, "--period", "202402") == compressed
    # the frozen list and its fide-txt file (column MAR24) too
    frozen = store / "published" / "system=fide" / "pool=standard" / "period=202402"
    text = (frozen / "list.txt").read_text()
    assert "MAR24" in text.splitlines()[0]
    iota = next(line for line in text.splitlines() if "Iota" in line)
    assert " 1675 " in iota and "1458" not in iota
    # the ratings rows keep the rating after February's games; 202403 compresses them
    assert rows(store, 202402)["I"] == (1458.0, None, 0.0, 1458.0)
    assert "arpad: note" not in capsys.readouterr().err
    # nothing changed since the list was frozen
    assert main(["diff", "--published", "202402", "--store", str(store)]) == 0
    assert "0 player(s) whose fide/standard rating of period 202402 changed" in (
        capsys.readouterr().out
    )


def test_a_carried_standard_list_in_force_on_1_march_2024_is_compressed(tmp_path, capsys):
    """Standard games in January only, rapid games in February: the standard list of
    202402 is January's carried forward, in force from 1 March 2024: compressed (rapid is
    not: FIDE compressed the standard list only)."""
    store = tmp_path / "S"
    (tmp_path / "players.csv").write_text(PLAYERS)
    (tmp_path / "jan.csv").write_text("date,white_id,black_id,result\n2024-01-10,A,B,1/2-1/2\n")
    (tmp_path / "feb.csv").write_text("date,white_id,black_id,result,pool\n2024-02-10,A,B,1/2-1/2,rapid\n")  # fmt: skip
    argv = ["--store", str(store)]
    files = [str(tmp_path / "jan.csv"), str(tmp_path / "feb.csv")]
    assert cli("ingest", *files, "--players", str(tmp_path / "players.csv"), *argv) == 0
    for pool in ("standard", "rapid"):
        assert cli("rate", "--system", "fide", "--pool", pool, *argv) == 0
    assert list_csv(capsys, store, "--period", "202401")["I"] == 1458
    assert list_csv(capsys, store, "--period", "202402")["I"] == 1675
    assert list_csv(capsys, store, "--period", "202402", "--pool", "rapid")["I"] == 1458


@pytest.mark.parametrize("publish", [True, False], ids=["published", "not-published"])
def test_no_note_when_the_stated_rating_is_the_compressed_one(tmp_path, capsys, publish):
    store = february(tmp_path, capsys, publish)
    ingest(tmp_path, store, "mar.csv", MAR_STATED)
    out = capsys.readouterr()
    assert "differs" not in out.out + out.err
    assert cli("rate", "--system", "fide", "--store", str(store)) == 0
    out = capsys.readouterr()
    assert "replaced the store's own results" not in out.out + out.err


def test_a_march_file_copied_from_the_february_list_is_named(tmp_path, capsys):
    """I stated 1458 (February's list) in March: not his compressed rating in force,
    1675. The note says so; his stated 1458 is his start (not compressed: the file is of
    March), 1458 vs O 1880: D 422 → 400, PD(H) .92: I +.92 × 20 = 18.4 → +18."""
    store = february(tmp_path, capsys, publish=True)
    ingest(tmp_path, store, "mar.csv", MAR_OLD_LIST)
    out = capsys.readouterr()
    assert (
        "1 player(s) whose rating in the file differs from the published fide/standard list "
        "in force (202402; e.g. I: 1458 here, 1675 on the list)"
    ) in out.out + out.err
    assert cli("rate", "--system", "fide", "--store", str(store)) == 0
    out = capsys.readouterr()
    assert (
        "ratings stated in mar.csv for 202403 replaced the store's own results of an "
        "earlier period for 1 player(s) (I: 1458 after 202402, 1675 in force at 202403 → 1458)"
    ) in out.out + out.err
    assert rows(store, 202403)["I"] == (1458.0, None, 18.0, 1476.0)


def test_unpublished_note_names_the_rating_in_force(tmp_path, capsys):
    store = february(tmp_path, capsys)
    ingest(tmp_path, store, "mar.csv", MAR_OLD_LIST)
    out = capsys.readouterr()
    assert (
        "1 player(s) whose rating in the file differs from the fide/standard ratings of "
        "period 202402 (not published; the list arpad list shows): I 1458 (1675 in force "
        "for the file's period) → file 1458"
    ) in out.out + out.err


def test_the_card_names_the_compressed_rating_a_march_file_stated(tmp_path, capsys):
    store = february(tmp_path, capsys)
    ingest(tmp_path, store, "mar.csv", MAR_STATED)
    assert cli("rate", "--system", "fide", "--store", str(store)) == 0
    capsys.readouterr()
    assert main(["card", "I", "--period", "202403", "--store", str(store)]) == 0
    assert (
        "rating at the start: 1675 (stated in mar.csv for this period; his rating after "
        "period 202402 was 1458, 1675 compressed)"
    ) in capsys.readouterr().out
