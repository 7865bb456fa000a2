"""A rating officer's three months from the command line, round 3 (docs/operations.md
"The officer's month, round 3"): September's TRF, October's with two newcomers and a
club's CSV export, a correction of September after October was published. The
ratings are checked by hand from the FIDE rules (docs/rules.md: table 8.1.2, the
400-point rule, K, §8.2 initial ratings, rounding half away from zero); the defects
found on the way each have a test that failed before its fix."""

from __future__ import annotations

import datetime as dt
import errno
import hashlib
import json
from pathlib import Path

import polars as pl

import arpad
from arpad.pipeline.cli import main
from arpad.pipeline.namesakes import namesakes
from arpad.pipeline.periods import latest_game_date
from arpad.pipeline.store import Store
from tests.test_officer_attack import _refuse_writes

# -- the tournament reports ------------------------------------------------------------------

# The federation's players file: rating, rated games and peak give each player's K
# (docs/rules.md: 40 under 30 rated games or a junior under 2300; 10 once the peak
# reached 2400; else 20).
PLAYERS = """player_id,name,sex,birth_year,rating,rated_games,peak_rating,federation
4100001,"Aalto, Anna",F,1990,2480,300,2510,GER
4100002,"Berg, Bruno",M,1985,2310,200,2350,GER
4100003,"Carr, Cyril",M,1970,2150,150,2190,GER
4100004,"Dahl, Dana",F,2010,2020,80,2030,GER
4100005,"Eck, Emil",M,1980,1890,45,1950,GER
4100006,"Falk, Fritz",M,1975,1750,12,1750,GER
4100007,"Gray, Gina",F,1995,1620,60,1700,GER
4100008,"Holm, Hugo",M,1960,1480,40,1600,GER
4100009,"Ives, Ida",F,1992,2000,100,2100,GER
4100011,"Kern, Karl",M,1980,2500,100,2500,GER
4100012,"Lutz, Lena",F,1980,2500,100,2500,GER
4100013,"Moor, Max",M,1980,2310,100,2350,GER
4100014,"Nolte, Nils",M,1980,2310,100,2350,GER
"""
# start rank -> (name, rating, FIDE id, birth date, sex)
SEPT = {
    1: ("Aalto, Anna", 2480, 4100001, "1990/03/01", "w"),
    2: ("Berg, Bruno", 2310, 4100002, "1985/01/01", "m"),
    3: ("Carr, Cyril", 2150, 4100003, "1970/01/01", "m"),
    4: ("Dahl, Dana", 2020, 4100004, "2010/05/05", "w"),
    5: ("Eck, Emil", 1890, 4100005, "1980/01/01", "m"),
    6: ("Falk, Fritz", 1750, 4100006, "1975/01/01", "m"),
    7: ("Gray, Gina", 1620, 4100007, "1995/01/01", "w"),
    8: ("Holm, Hugo", 1480, 4100008, "1960/01/01", "m"),
    9: ("Ives, Ida", 2000, 4100009, "1992/01/01", "w"),  # withdrew before round 1
}
# (white rank, black rank, White's result) or (rank, bye code); "+": White wins by forfeit
SEPT_ROUNDS = [
    [(1, 5, "1"), (6, 2, "="), (3, 7, "1"), (8, 4, "0")],
    [(2, 1, "="), (4, 3, "1"), (5, 8, "+"), (7, 6, "0")],
    [(1, 3, "1"), (2, 4, "1"), (6, 5, "="), (7, "H"), (8, "U")],
    [(3, 2, "0"), (4, 1, "="), (8, 6, "1"), (5, 7, "1")],
    [(1, 6, "1"), (7, 2, "0"), (3, 8, "1"), (5, 4, "0")],
]
# The arbiter's correction: round 4, Eck-Gray was 0-1, not 1-0.
SEPT_CORRECTED = [*SEPT_ROUNDS[:3], [*SEPT_ROUNDS[3][:3], (5, 7, "0")], SEPT_ROUNDS[4]]
OCT = {k: SEPT[k] for k in range(1, 9)}
OCT[9] = ("Nagy, Nora", 0, 4100101, "2001/01/01", "w")  # new, unrated
OCT[10] = ("Ortiz, Omar", 0, 4100102, "1999/01/01", "m")  # new, unrated
OCT_ROUNDS = [
    [(9, 6, "="), (10, 8, "0"), (1, 2, "1"), (3, 4, "="), (5, 7, "1")],
    [(8, 9, "0"), (7, 10, "="), (2, 3, "1"), (4, 5, "1"), (6, 1, "0")],
    [(9, 7, "1"), (10, 6, "0"), (1, 3, "="), (2, 5, "1"), (4, 8, "1")],
    [(5, 9, "="), (4, 10, "1"), (8, 1, "0"), (7, 2, "0"), (6, 3, "0")],
    [(9, 3, "0"), (5, 10, "1"), (1, 4, "1"), (2, 8, "1"), (6, 7, "=")],
]
# A club's export for October: two games of K = 10 players whose change ends in .5.
CLUB = """game_id,date,white_id,black_id,result
club-1,2026-10-20,4100011,4100013,1-0
club-2,2026-10-20,4100012,4100014,1/2-1/2
"""
RESULTS = {"1": ("1", "0"), "0": ("0", "1"), "=": ("=", "="), "+": ("+", "-"), "-": ("-", "+")}


def trf(title: str, start: str, players: dict, rounds: list, ratings: dict | None = None) -> str:
    """A TRF16 file laid out by columns (docs/pgn-trf.md "TRF columns"); ``ratings``
    (FIDE id -> rating) replaces the ratings of ``players``, as an arbiter copies them
    from the list in force."""
    blocks = {r: [""] * len(rounds) for r in players}
    for i, pairings in enumerate(rounds):
        for p in pairings:
            if len(p) == 2:
                blocks[p[0]][i] = f"0000 - {p[1]}"
                continue
            w, b, res = p
            blocks[w][i] = f"{b:>4} w {RESULTS[res][0]}"
            blocks[b][i] = f"{w:>4} b {RESULTS[res][1]}"
    lines = [f"012 {title}", "022 Officerton", f"042 {start}", f"052 {start}"]
    lines.append("092 Individual: Swiss-System")
    for rank, (name, rating, fide, born, sex) in sorted(players.items()):
        rating = (ratings or {}).get(str(fide), rating)
        head = f"001 {rank:>4} {sex}    {name:<33} {rating:>4} GER {fide:>11} {born:<10} "
        head += f" 0.0 {rank:>4}  "
        assert len(head) == 91
        lines.append((head + "".join(b.ljust(10) for b in blocks[rank])).rstrip())
    return "\n".join(lines) + "\n"


def run(*args: str) -> int:
    return main([*args, "--no-flow"] if args[0] in ("ingest", "rate") else list(args))


def listed(root: Path, period: int) -> dict[str, tuple[int, int, object, str]]:
    """player_id -> (rating, games, k, status) of the current list of ``period``."""
    frame = arpad.Store(root).list("fide", pool="standard", period=period)
    return {
        r["player_id"]: (r["rating"], r["games"], r["k"], r["status"])
        for r in frame.iter_rows(named=True)
    }


def published(root: Path) -> dict[str, str]:
    folder = root / "published"
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def published_ratings(root: Path, period: int) -> dict[str, int]:
    path = root / f"published/system=fide/pool=standard/period={period}/list.csv"
    frame = pl.read_csv(path, schema_overrides={"player_id": pl.String})
    return dict(zip(frame["player_id"], frame["rating"], strict=True))


def first_month(tmp_path: Path, root: Path) -> None:
    (tmp_path / "players.csv").write_text(PLAYERS)
    (tmp_path / "autumn.trf").write_text(trf("Autumn Open 2026", "2026/09/05", SEPT, SEPT_ROUNDS))
    s = ["--store", str(root)]
    assert run("ingest", "--players", str(tmp_path / "players.csv"), *s) == 0
    assert run("ingest", str(tmp_path / "autumn.trf"), *s) == 0
    assert run("rate", "--system", "fide", *s) == 0
    assert run("publish", "--system", "fide", *s) == 0


def second_month(tmp_path: Path, root: Path) -> None:
    """October's TRF, its ratings copied from the September list as published."""
    sept = {k: int(v) for k, v in published_ratings(root, 202609).items()}
    (tmp_path / "october.trf").write_text(
        trf("October Cup 2026", "2026/10/10", OCT, OCT_ROUNDS, ratings=sept)
    )
    (tmp_path / "club.csv").write_text(CLUB)
    s = ["--store", str(root)]
    assert run("ingest", str(tmp_path / "october.trf"), str(tmp_path / "club.csv"), *s) == 0
    assert run("rate", "--system", "fide", *s) == 0
    assert run("publish", "--system", "fide", *s) == 0


# -- the three months ------------------------------------------------------------------------


def test_three_months_with_a_late_correction(tmp_path, capsys):
    root = tmp_path / "store"
    first_month(tmp_path, root)
    sept = listed(root, 202609)
    # Aalto 2480, K 10 (peak 2510): 1-0 Eck 1890 (D 590 → 400: PD .92, +0.08), ½ Berg 2310
    # (D 170: .72, −0.22), 1-0 Carr 2150 (D 330: .88, +0.12), ½ Dahl 2020 (D 460 → 400:
    # .92, −0.42), 1-0 Falk 1750 (D 730 → 400: +0.08): Σ −0.36 × 10 = −3.6 → −4.
    assert sept["4100001"] == (2476, 5, 10, "rated")
    # Holm 1480, K 20: 0-1 Dahl 2020 (D −540 → −400: PD .08, −0.08), the forfeit against
    # Eck and the round-3 bye are not rated, 1-0 Falk 1750 (D −270: .18, +0.82), 0-1
    # Carr 2150 (−400: −0.08): Σ 0.66 × 20 = 13.2 → +13, 3 games.
    assert sept["4100008"] == (1493, 3, 20, "rated")
    # Eck 1890, K 20: 0-1 Aalto (−400: .08, −0.08), ½ Falk (D 140: .69, −0.19), 1-0 Gray
    # 1620 (D 270: .82, +0.18), 0-1 Dahl (D −130: .32, −0.32): Σ −0.41 → −8.2 → −8.
    assert sept["4100005"] == (1882, 4, 20, "rated")
    # Dahl is a junior (born 2010) under 2300: K 40. Gray's half-point bye is no game.
    assert sept["4100004"][2] == 40 and sept["4100007"][1] == 4
    # Ives withdrew before round 1: on the list with her rating, no games, no K.
    assert sept["4100009"] == (2000, 0, None, "rated")

    capsys.readouterr()
    second_month(tmp_path, root)
    assert "differs from the published" not in capsys.readouterr().out  # the list's ratings
    octo = listed(root, 202610)
    # Nagy (new): 5 games against rated players 1751, 1493, 1607, 1882, 2131 (the
    # October TRF's ratings: the September list), 3 points. §8.2: Ra = (8864 + 2 × 1800)
    # / 7 = 1780.57, p = (3 + 1) / 7 = .57 → dp +50: 1830.57 → 1831.
    assert octo["4100101"][:2] == (1831, 5) and octo["4100101"][3] == "new"
    # Ortiz (new): ½ of 5 against 1493, 1607, 1751, 2074, 1882: Ra = 12407 / 7 = 1772.43,
    # p = 1.5 / 7 = .21 → dp −230: 1542.43 → 1542 (≥ 1400: published).
    assert octo["4100102"][:2] == (1542, 5)
    # Rounding half away from zero (docs/rules.md §8.3.4), the club's export: Kern 2500,
    # K 10, beats Moor 2310 (D 190: PD .75): +0.25 × 10 = 2.5 → +3 (half to even: +2);
    # Lutz 2500 draws Nolte 2310: −0.25 × 10 = −2.5 → −3. Moor −0.25 × 20 = −5.
    assert octo["4100011"][:3] == (2503, 1, 10)
    assert octo["4100012"][:3] == (2497, 1, 10)
    assert octo["4100013"][0] == 2305 and octo["4100014"][0] == 2315
    # A rated player's game against a newcomer does not count for him: Carr played 5.
    assert octo["4100003"][1] == 4

    frozen = published(root)
    sept_before = published_ratings(root, 202609)
    # The correction of September arrives after October was published: the same file,
    # corrected by the arbiter, ingested again (same source: a correction).
    autumn = tmp_path / "autumn.trf"
    autumn.write_text(trf("Autumn Open 2026", "2026/09/05", SEPT, SEPT_CORRECTED))
    capsys.readouterr()
    assert run("ingest", str(autumn), "--store", str(root)) == 0
    out = capsys.readouterr().out
    assert "replaced the earlier version of" in out and "1 changed" in out
    # publishing before rating again is refused: September is stale, October published
    assert run("publish", "--system", "fide", "--store", str(root)) == 2
    assert run("rate", "--system", "fide", "--store", str(root)) == 0
    assert published(root) == frozen  # both published months stay as published
    assert published_ratings(root, 202609) == sept_before

    revised = listed(root, 202609)
    # Eck lost to Gray (D 270: 0 − .82 instead of 1 − .82): Σ −1.41 × 20 = −28.2 → 1862;
    # Gray: −0.18 became +0.82, 20 points more: 1627.
    assert revised["4100005"][0] == 1862 and revised["4100007"][0] == 1627
    capsys.readouterr()
    assert run("diff", "--published", "202609", "--format", "json", "--store", str(root)) == 0
    rows = json.loads(capsys.readouterr().out)
    changes = {r["player_id"]: (r["published"], r["revised"], r["change"]) for r in rows}
    assert changes == {"4100005": (1882, 1862, -20), "4100007": (1607, 1627, 20)}

    # The revised store equals a fresh store fed the corrected data.
    fresh = tmp_path / "fresh"
    f = ["--store", str(fresh)]
    assert run("ingest", "--players", str(tmp_path / "players.csv"), *f) == 0
    files = [str(tmp_path / n) for n in ("autumn.trf", "october.trf", "club.csv")]
    assert run("ingest", *files, *f) == 0
    assert run("rate", "--system", "fide", *f) == 0
    for period in (202609, 202610):
        assert listed(fresh, period) == listed(root, period)
    # October's TRF states the September ratings as published (Eck 1882): they are the
    # ratings in force for October's games (docs/observations.md), so October's list is
    # not revised by the correction: in the fresh store just the same.
    assert listed(root, 202610) == octo


def test_a_newcomer_short_of_five_games_waits_and_is_pooled(tmp_path):
    """§8.2 (docs/rules.md): a newcomer is published once he has 5 games against rated
    players, pooled across months. Quist plays 3 in October (not on the list), 2 in
    November (5: rated from all five)."""
    root = tmp_path / "store"
    first_month(tmp_path, root)
    s = ["--store", str(root)]
    quist = ("Quist, Quinn", 0, 4100103, "2000/01/01", "m")
    october = {1: SEPT[3], 2: SEPT[5], 3: SEPT[6], 4: quist}
    path = tmp_path / "october.trf"
    rounds = [[(4, 1, "0")], [(2, 4, "0")], [(4, 3, "=")]]
    sept = {k: int(v) for k, v in published_ratings(root, 202609).items()}
    path.write_text(trf("October Evening", "2026/10/14", october, rounds, ratings=sept))
    assert run("ingest", str(path), *s) == 0
    assert run("rate", "--system", "fide", *s) == 0
    assert "4100103" not in listed(root, 202610)
    assert run("publish", "--system", "fide", *s) == 0
    november = {1: SEPT[7], 2: SEPT[8], 3: quist}
    path = tmp_path / "november.trf"
    octo = {k: int(v) for k, v in published_ratings(root, 202610).items()}
    path.write_text(
        trf("November Evening", "2026/11/11", november, [[(3, 1, "1")], [(2, 3, "=")]], octo)
    )
    assert run("ingest", str(path), *s) == 0
    assert run("rate", "--system", "fide", *s) == 0
    # Opponents Carr 2131, Eck 1882, Falk 1751 (October), Gray 1607, Holm 1493
    # (November; their games against an unrated player do not count, so unchanged):
    # Ra = (8864 + 3600) / 7 = 1780.57, 3 points, p = 4/7 → .57, dp +50: 1831.
    assert listed(root, 202611)["4100103"][:2] == (1831, 2)
    assert listed(root, 202611)["4100007"][:2] == (1607, 0)


# -- attacks that were right: kept ----------------------------------------------------------


def test_resent_and_repeated_reports_and_wrong_requests(tmp_path, capsys):
    root = tmp_path / "store"
    first_month(tmp_path, root)
    s = ["--store", str(root)]
    games = Store(root).game_files()
    autumn = tmp_path / "autumn.trf"
    renamed = tmp_path / "Autumn_Open_final.trf"
    renamed.write_bytes(autumn.read_bytes())
    capsys.readouterr()
    # listed twice in one command; the same bytes under a new name: skipped
    assert run("ingest", str(autumn), str(autumn), str(renamed), *s) == 0
    assert capsys.readouterr().out.count("skipped, identical content already ingested") == 3
    # the same report with Windows line endings: every game a duplicate, exit 2
    crlf = tmp_path / "autumn_crlf.trf"
    crlf.write_bytes(autumn.read_bytes().replace(b"\n", b"\r\n"))
    assert run("ingest", str(crlf), *s) == 2
    assert "duplicate_game_id 19" in capsys.readouterr().err
    assert Store(root).game_files() == games
    for args, message in [
        (["list", "--period", "202608"], "no fide/standard list for period 202608"),
        (["publish", "--period", "202609"], "already published"),
        (["list", "--top", "0"], "--top takes a positive number of players, got 0"),
        (["card", "0"], "no fide/standard history for player(s) 0"),
        (["audit", "0"], "no fide/standard history for player(s) 0"),
        (["list", "--output", str(tmp_path)], "is a directory: give a file name"),
    ]:
        assert run(*args, *s) == 2, args
        assert message in capsys.readouterr().err, args
    # An output folder that does not exist is made (as `mkdir -p`; docs/cli.md).
    out = tmp_path / "lists" / "2026-09" / "list.txt"
    assert run("list", "--format", "fide-txt", "--output", str(out), *s) == 0
    # (alphabetical, as FIDE's download: Aalto first; by rating before round 14)
    assert out.read_text().splitlines()[1].split()[0] == "4100001"


# -- defects ---------------------------------------------------------------------------------


def test_a_game_dated_after_today_is_quarantined(tmp_path, capsys):
    """A report dated next month (the year mistyped, or a tournament not played yet) was
    stored and rated: next month is a valid period (lists prepared ahead), so a game
    dated in it passed. A game dated after today (a day's grace east of UTC) has not
    been played: quarantined ``period_out_of_range``, naming today."""
    today = dt.datetime.now(dt.timezone.utc).date()
    assert latest_game_date(dt.date(2026, 12, 31)) == (dt.date(2026, 12, 31), dt.date(2027, 1, 1))
    later = today + dt.timedelta(days=2)  # in this month or the next: a valid period
    path = tmp_path / "future.trf"
    path.write_text(trf("Future Open", later.strftime("%Y/%m/%d"), SEPT, SEPT_ROUNDS[:1]))
    root = tmp_path / "store"
    capsys.readouterr()
    assert run("ingest", str(path), "--store", str(root)) == 2
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert "0 games stored, 4 quarantined" in out
    assert (
        f"period_out_of_range: date {later.isoformat()} is after today "
        f"({today.isoformat()}, UTC): not played yet (a typo in the year?)"
    ) in out
    # today's games and tomorrow's (UTC+14 is a day ahead) are stored
    csv = tmp_path / "today.csv"
    tomorrow = today + dt.timedelta(days=1)
    csv.write_text(
        "game_id,date,white_id,black_id,result\n"
        f"t1,{today.isoformat()},4100001,4100002,1-0\nt2,{tomorrow.isoformat()},4100002,4100001,0-1\n"
    )
    assert run("ingest", str(csv), "--store", str(root)) == 0


def test_a_mistyped_fide_id_is_noted_at_ingest(tmp_path, capsys):
    """A TRF whose player carries another FIDE id than the one stored for his name (a
    digit mistyped: 4100055 for 4100005) made a second Eck, rated from the TRF's rating,
    without a word; `arpad players identify` proposed the merge, but an officer does not
    run it every month. The ingest summary now names both ids and the fix."""
    root = tmp_path / "store"
    first_month(tmp_path, root)
    typo = dict(SEPT)
    typo[5] = ("Eck, Emil", 1882, 4100055, "1980/01/01", "m")
    # a newcomer with a new name and one without a FIDE id are not namesakes of anyone
    typo[9] = ("Ives, Ida", 2000, 0, "1992/01/01", "w")
    typo[10] = ("Quist, Quinn", 0, 4100103, "2000/01/01", "m")
    path = tmp_path / "weekender.trf"
    path.write_text(trf("November Weekender 2026", "2026/11/07", typo, SEPT_ROUNDS))
    capsys.readouterr()
    assert run("ingest", str(path), "--store", str(root)) == 0
    out = capsys.readouterr().out
    assert (
        "note: 1 player id(s) new to the store with the name of a stored player "
        "(4100055 'Eck, Emil' and stored 4100005 'Eck, Emil', both born 1980): a mistyped "
        "player id rates one person under two ids; if so, correct the file and ingest it "
        "again, or arpad players merge 4100005 4100055"
    ) in out
    assert out.count("new to the store with the name") == 1
    assert run("players", "merge", "4100005", "4100055", "--store", str(root)) == 0
    # the same file again under a new name says nothing new: no id is new any more
    again = tmp_path / "weekender-copy.trf"
    again.write_text(path.read_text().replace("Weekender", "Weekender (copy)"))
    capsys.readouterr()
    run("ingest", str(again), "--store", str(root))
    assert "new to the store with the name" not in capsys.readouterr().out


def test_ratings_copied_from_an_old_list_are_noted(tmp_path, capsys):
    """October's TRF with the ratings of August (the arbiter's old download) replaced the
    September list's ratings of every player (docs/observations.md: a stated rating is
    the published one), so September's changes were lost for October without a word.
    The ingest summary now names the players whose stated rating differs from the
    store's published list in force. Ratings as published, and players not on the
    list (the newcomers), say nothing."""
    root = tmp_path / "store"
    first_month(tmp_path, root)
    path = tmp_path / "october.trf"
    path.write_text(trf("October Cup 2026", "2026/10/10", OCT, OCT_ROUNDS))  # August's
    capsys.readouterr()
    assert run("ingest", str(path), "--store", str(root)) == 0
    out = capsys.readouterr().out
    # all eight September players changed (Aalto 2480 -> 2476 ... Holm 1480 -> 1493)
    assert (
        "note: 8 player(s) whose rating in the file differs from the published "
        "fide/standard list in force (202609; e.g. 4100001: 2480 here, 2476 on the list): "
        "the file's ratings replace the list's for its period (docs/observations.md); if "
        "the arbiter used an older list, correct the file"
    ) in out
    # as documented, they are the ratings October is rated from. Aalto from 2480, K 10:
    # 1-0 Berg 2310 (D 170: .72, +0.28), 1-0 Falk 1750 (400: +0.08), ½ Carr 2150 (D 330:
    # .88, −0.38), 1-0 Holm 1480 (+0.08), 1-0 Dahl 2020 (400: +0.08): Σ 0.14 → +1.4 → +1
    assert run("rate", "--system", "fide", "--store", str(root)) == 0
    rows = arpad.Store(root).list("fide", pool="standard", period=202610)
    aalto = rows.filter(pl.col("player_id") == "4100001")["rating"].item()
    assert aalto == 2481  # from the September list's 2476 it would be 2477


def test_namesakes_need_the_same_name_and_no_other_birth_year():
    import pyarrow as pa

    def table(rows):
        ids, names, years = zip(*rows, strict=True)
        return pa.table(
            {"player_id": list(ids), "name": list(names), "birth_year": list(years)},
        )

    before = table(
        [
            ("1", "Eck, Emil", 1980),
            ("2", "Lasker, Emanuel", None),
            ("3", "Tal", None),
            ("4", "Müller, Jörg", 1970),
            ("5", "Алехин, Александр", 1892),
        ]
    )
    after = table(
        [
            *(tuple(r.values()) for r in before.to_pylist()),
            ("11", "ECK, Emil", 1980),  # same name, same year
            ("12", "Emanuel Lasker", 1868),  # one year unknown
            ("13", "Eck, Emil", 1999),  # another person: another birth year
            ("14", "Tal", None),  # no given name: too weak
            ("f.trf#3", "Eck, Emil", 1980),  # no FIDE id: identify's business
            ("15", "Muller, Jorg", 1970),  # accents
            ("16", "Alekhin, Aleksandr", None),  # another script
        ]
    )
    assert namesakes(before, after) == [
        ("11", "ECK, Emil", "1", "Eck, Emil", 1980),
        ("12", "Emanuel Lasker", "2", "Lasker, Emanuel", 1868),
        ("15", "Muller, Jorg", "4", "Müller, Jörg", 1970),
        ("16", "Alekhin, Aleksandr", "5", "Алехин, Александр", 1892),
    ]


def test_disk_full_names_the_output_not_written(tmp_path, monkeypatch, capsys):
    """A full disk under `--output` said "disk full ([Errno 28] No space left on
    device): the store is as before": which file was not written was not said."""
    root = tmp_path / "store"
    first_month(tmp_path, root)
    folder = tmp_path / "full"
    folder.mkdir()
    _refuse_writes(monkeypatch, folder, errno.ENOSPC)
    for args, target in [
        (["list", "--format", "fide-txt", "--output", str(folder / "l.txt")], folder / "l.txt"),
        (["diff", "--published", "202609", "--output", str(folder / "d.csv")], folder / "d.csv"),
    ]:
        capsys.readouterr()
        assert run(*args, "--store", str(root)) == 2
        err = capsys.readouterr().err.strip().splitlines()[-1]
        assert err.startswith("arpad: error: disk full ([Errno 28] No space left on device")
        assert err.endswith(f"); {target} not written: the store is as before")
        assert list(folder.iterdir()) == []


def test_a_player_id_of_zero_in_a_trf_is_no_player(tmp_path):
    """FIDE id 0 in a TRF is "no id": the player gets a file-scoped id (already so)."""
    players = {1: ("Aa, Anna", 2200, 0, "1990/01/01", "w"), 2: SEPT[2]}
    path = tmp_path / "zero.trf"
    path.write_text(trf("Zero Open", "2026/09/05", players, [[(1, 2, "1")]]))
    root = tmp_path / "store"
    assert run("ingest", str(path), "--store", str(root)) == 0
    ids = set(Store(root).read_players().column("player_id").to_pylist())
    assert ids == {f"{path.name}#1", "4100002"}
