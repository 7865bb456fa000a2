"""The rating officer's report, round 12, findings 1 and 2: a FIDE id change handled with
``arpad players merge NEW OLD`` (docs/identity.md "An id change").

1. The kept id (the new FIDE id, from a register without rating and rated-games columns)
   lost the duplicate's register facts: Eta's 26 rated games (K 40, FIDE §8.3.3) became
   "rated games not known: taken as 30" (K 20), so October went 1750 -> 1725. The
   revision table then showed the id pair as two rows without a change.
2. "Revisions not carried forward" left out a player whose frozen lists have the old id
   and whose revised lists have the kept one.

Numbers worked by hand from FIDE's table 8.1.2 (400-point rule), K per §8.3.3, changes
rounded half away from zero. Register: Gamma 2000 (200 games), Zeta 1800 (300), Eps 1900
(80): K 20; Eta 1700 with 26 rated games (born 2000): K 40 until 30 games.

October: Gamma-Eta 1/2, Eta-Zeta 1-0, Eps-Eta 1/2. Eta's D -300, -100, -200 give PD .15,
.36, .24: ΣΔR = .35 + .64 + .26 = 1.25; K 40: +50 -> 1750 (K 20 would be +25 -> 1725).
Corrected (Eta-Zeta 1/2): ΣΔR = .35 + .14 + .26 = .75; K 40: +30 -> 1730 (K 20: 1715).
November: Eta (stated 1750) - Gamma (stated 1993) 1/2: D -243, PD .20; Eta has 26 + 3 = 29
rated games < 30: K 40, 40 x .30 = +12 -> 1762 (K 20: 1756).
"""

from __future__ import annotations

import datetime as dt

import pytest

from arpad.pipeline import identity, incremental, jobs, monthly, publish
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store
from tests.test_lists_attack import pin_today

REGISTER = (
    "player_id,name,federation,sex,birth_year,rating,rated_games\n"
    '1000003,"Gamma, Gabor",HUN,M,1985,2000,200\n'
    '1000006,"Zeta, Zoltan",HUN,M,1970,1800,300\n'
    '1000005,"Eps, Erik",HUN,M,1980,1900,80\n'
    '1000007,"Eta, Eva",HUN,F,2000,1700,26\n'
)
# The new month's register: Eta under her new FIDE id, no rating columns (FIDE's id list).
NEW_REGISTER = 'player_id,name,federation,sex,birth_year\n1000070,"Eta, Eva",HUN,F,2000\n'
OCTOBER = (
    "date,white_id,black_id,result\n"
    "2025-10-10,1000003,1000007,1/2-1/2\n"
    "2025-10-11,1000007,1000006,1-0\n"
    "2025-10-12,1000005,1000007,1/2-1/2\n"
)
OCTOBER_CORRECTED = OCTOBER.replace("1000007,1000006,1-0", "1000007,1000006,1/2-1/2")
# The arbiter copied the frozen October list: Eta 1750 (under her new id), Gamma 1993
# (Gamma: D +300, PD .85, -.35 x 20 = -7).
NOVEMBER = (
    "date,white_id,black_id,result,white_rating,black_rating\n"
    "2025-11-05,1000070,1000003,1/2-1/2,1750,1993\n"
)


def cli(*argv: str) -> int:
    return main(list(argv))


def ratings(root, period: int) -> dict[str, tuple[float, float, float]]:
    table = Store(root).read_ratings("fide", "standard", period)
    return {
        r["player_id"]: (r["rating_before"], r["rating_after"], r["k"]) for r in table.to_pylist()
    }


@pytest.fixture()
def merged(tmp_path, monkeypatch):
    """October rated and frozen by the monthly job under Eta's old id 1000007; then the
    new register and ``players merge 1000070 1000007``."""
    root, inbox = tmp_path / "S", tmp_path / "inbox"
    (inbox / "players").mkdir(parents=True)
    (inbox / "players" / "reg.csv").write_text(REGISTER)
    (inbox / "oct.csv").write_text(OCTOBER)
    pin_today(monkeypatch, dt.date(2025, 11, 1))
    jobs.recalculate(jobs.RecalculateRequest(str(root), str(inbox), ["fide"]))
    assert Store(root).published_periods("fide", "standard") == [202510]
    assert ratings(root, 202510)["1000007"] == (1700, 1750, 40)
    (tmp_path / "reg-nov.csv").write_text(NEW_REGISTER)
    assert cli("--store", str(root), "ingest", "--players", str(tmp_path / "reg-nov.csv")) == 0
    assert cli("--store", str(root), "players", "merge", "1000070", "1000007") == 0
    return root, inbox


def test_the_kept_id_keeps_the_old_ids_rated_games_and_k(merged, capsys):
    root, _ = merged
    assert cli("--store", str(root), "rate", "--system", "fide", "--no-flow") == 0
    # before: (1700, 1725, 20), "rated games not known: taken as 30"
    assert ratings(root, 202510)["1000070"] == (1700, 1750, 40)
    assert "1000007" not in ratings(root, 202510)
    capsys.readouterr()
    argv = ["--store", str(root), "card", "1000070", "--period", "202510"]
    assert cli(*argv) == 0
    card = capsys.readouterr().out
    assert "K = 40: base K 40 (new player: 26 rated game(s) before the period < 30)" in card
    assert "stored change = +50  (matches)" in card
    # the id change alone changes no rating: the frozen list (1000007 1750) is not revised
    players, _ = publish.diff(Store(root), "fide", "standard", 202510)
    assert players.height == 0


def test_the_revision_and_its_stated_replacement_compare_old_and_new_id_as_one(
    merged, monkeypatch, capsys
):
    root, inbox = merged
    (inbox / "oct.csv").write_text(OCTOBER_CORRECTED)  # a correction, same file name
    (inbox / "nov.csv").write_text(NOVEMBER)
    pin_today(monkeypatch, dt.date(2025, 12, 1))
    summary = jobs.recalculate(jobs.RecalculateRequest(str(root), str(inbox), ["fide"]))
    assert ratings(root, 202510)["1000070"] == (1700, 1730, 40)  # K 20 before: 1715
    assert ratings(root, 202511)["1000070"] == (1750, 1762, 40)  # 29 games: K 40
    players, _ = publish.diff(Store(root), "fide", "standard", 202510)
    eta = players.filter(players["player_id"] == "1000070").to_dicts()
    assert eta == [
        {
            "player_id": "1000070",
            "name": "Eta, Eva",
            "published": 1750,
            "revised": 1730,
            "change": -20,
            "games_added": 0,
            "games_removed": 0,
            "games_changed": 1,
            "published_id": "1000007",
        }
    ]
    assert "1000007" not in players["player_id"].to_list()
    capsys.readouterr()
    argv = ["--store", str(root), "diff", "--published", "202510", "--format", "csv"]
    assert cli(*argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith(",games_changed,published_id")
    assert '1000070,"Eta, Eva",1750,1730,-20,0,0,1,1000007' in out
    report = monthly.markdown(summary)
    # before: "| 1000007 | Eta, Eva | 1750 |  |  |" and "| 1000070 | Eta, Eva |  | 1730 |  |"
    row = "| 1000070 (published as 1000007) | Eta, Eva | 1750 | 1730 | -20 | +0/-0/~1 |"
    assert row in report.splitlines()
    # finding 2: before, Eta was missing from "Revisions not carried forward"
    assert "Revisions not carried forward (fide/standard): 1 player(s)" in report
    carried = "| 1000070 | Eta, Eva | 202510 | 1750 | 1730 | 1750 | 202511 | nov.csv |"
    assert carried in report.splitlines()


def test_a_merge_that_gives_the_kept_id_facts_recomputes_from_the_first_period(tmp_path, capsys):
    """Eta plays from October; the pool starts in September. The checkpoint of September
    holds the new id without a rating or rated games, so an incremental run from October
    would rate her from it: the merge marks the first period, and the result equals a
    store whose register had her new id from the start."""
    september = "date,white_id,black_id,result\n2025-09-10,1000003,1000006,1-0\n"
    (tmp_path / "reg.csv").write_text(REGISTER)
    (tmp_path / "reg-new.csv").write_text(NEW_REGISTER)
    (tmp_path / "sep.csv").write_text(september)
    (tmp_path / "oct.csv").write_text(OCTOBER)
    root = tmp_path / "S"
    files = ["--players", "reg.csv", "--players", "reg-new.csv", "sep.csv", "oct.csv"]
    argv = [
        "--store",
        str(root),
        "ingest",
        *(str(tmp_path / f) if f[0] != "-" else f for f in files),
    ]
    assert cli(*argv) == 0
    assert cli("--store", str(root), "rate", "--system", "fide", "--no-flow") == 0
    assert ratings(root, 202510)["1000007"] == (1700, 1750, 40)
    assert "1000070" not in ratings(root, 202510)  # unrated, no games: no row
    capsys.readouterr()
    assert cli("--store", str(root), "players", "merge", "1000070", "1000007") == 0
    # before: "standard from 202510", her first game, then a run from September's checkpoint
    assert "affected: standard from 202509" in capsys.readouterr().out
    assert incremental.read_stale(Store(root)) == {"fide/standard": 202509}
    assert identity.read_merge_log(Store(root))["stale_from"].to_list() == ["standard:202509"]
    assert cli("--store", str(root), "rate", "--system", "fide", "--no-flow") == 0
    assert ratings(root, 202510)["1000070"] == (1700, 1750, 40)

    clean = tmp_path / "clean"
    (tmp_path / "reg-clean.csv").write_text(REGISTER.replace("1000007", "1000070"))
    (tmp_path / "oct-clean.csv").write_text(OCTOBER.replace("1000007", "1000070"))
    files = ["--players", "reg-clean.csv", "sep.csv", "oct-clean.csv"]
    argv = [
        "--store",
        str(clean),
        "ingest",
        *(str(tmp_path / f) if f[0] != "-" else f for f in files),
    ]
    assert cli(*argv) == 0
    assert cli("--store", str(clean), "rate", "--system", "fide", "--no-flow") == 0
    for period in (202509, 202510):
        assert ratings(root, period) == ratings(clean, period)

    # a split gives the old id back its games and facts: again from the first period
    capsys.readouterr()
    assert cli("--store", str(root), "players", "split", "1000070", "1000007") == 0
    assert "affected: standard from 202509" in capsys.readouterr().out
    assert cli("--store", str(root), "rate", "--system", "fide", "--no-flow") == 0
    assert ratings(root, 202510)["1000007"] == (1700, 1750, 40)
    assert "1000070" not in ratings(root, 202510)
