"""The officer's attack, round 10, on the monthly job (docs/operations.md step 4):

- a federation's register exported now gives rated games and peak ratings as they are
  after last month's games; arpad reads a players file's values as of the store's first
  period, so they re-rated the frozen month (K 40 -> 20, K 20 -> 10), exit 0, the next
  month frozen on top, "0 ingest(s) … touched it". Now that run freezes no list and
  exits 2, naming the file, the lists and the remedy, and the trail names the file;
- a run stopped after it rejected a file: the run after it freezes no list either;
- the revisions of one pool's list count the ingests of that pool only;
- ``recalculate --inbox . --store S`` names ``S/`` as the store, with no advice to move
  it (the new user, round 10).

Numbers by hand (docs/rules.md "The period step"; PD table 8.1.2): D 0 -> PD .50;
D 100 -> .64; D 150 -> .70. K 40 under 30 rated games, 10 once the peak reached 2400,
else 20; change = K x sum(score - PD), rounded once.
"""

from __future__ import annotations

import datetime as dt

from arpad.pipeline import monthly, trail
from arpad.pipeline.cli import main
from arpad.pipeline.publish import read_manifest
from arpad.pipeline.store import Store
from tests.test_lists_attack import pin_today
from tests.test_round9_monthly import OCTOBER, OCTOBER_FIXED, RAPID, REGISTER
from tests.test_round10_monthly_interrupted import stop_at

GAMES = "date,white_id,black_id,result\n"
# Alpha 5.5/6 against Beta, both 2000: sum(score - .50) = +2.5
OCT = GAMES + "".join(
    f"2026-10-{d:02d},{w},{b},{r}\n"
    for d, w, b, r in [
        (5, 1, 2, "1-0"),
        (6, 2, 1, "0-1"),
        (7, 1, 2, "1-0"),
        (8, 2, 1, "1/2-1/2"),
        (9, 1, 2, "1-0"),
        (10, 2, 1, "0-1"),
    ]
)
NOV = GAMES + "2026-11-05,1,2,1/2-1/2\n"
REG_OCT = 'player_id,name,rating,rated_games\n1,"Alpha, A",2000,25\n2,"Beta, B",2000,100\n'
# the register exported in November: Alpha's 25 + 6 October games = 31
REG_NOV = 'player_id,name,rating,rated_games\n1,"Alpha, A",2000,31\n2,"Beta, B",2000,106\n'
HELD = "Not frozen: players file `reg-nov.csv` (now in `INBOX/processed/`) changes the ratings"


def recalculate(root, inbox, capsys) -> tuple[int, str, str]:
    argv = ["recalculate", "--no-flow", "--store", str(root), "--inbox", str(inbox)]
    rc = main([*argv, "--systems", "fide"])
    out, err = capsys.readouterr()
    return rc, out, err


def after(root, period: int, pool: str = "standard") -> dict[str, float]:
    table = Store(root).read_ratings("fide", pool, period)
    return {r["player_id"]: r["rating_after"] for r in table.to_pylist()}


def october(tmp_path, monkeypatch, capsys, register=REG_OCT, games=OCT):
    """October rated and frozen on 1 November."""
    root, inbox = tmp_path / "M", tmp_path / "inbox"
    (inbox / "players").mkdir(parents=True)
    (inbox / "players" / "reg-oct.csv").write_text(register)
    (inbox / "oct.csv").write_text(games)
    pin_today(monkeypatch, dt.date(2026, 11, 1))
    rc, out, _ = recalculate(root, inbox, capsys)
    assert rc == 0 and "Frozen list fide/standard period 202610" in out
    return root, inbox


def test_a_register_that_re_rates_a_frozen_month_freezes_nothing(tmp_path, monkeypatch, capsys):
    root, inbox = october(tmp_path, monkeypatch, capsys)
    # 25 games: K 40, 40 x 2.5 = +100; Beta (100 games) K 20: 20 x -2.5 = -50
    assert after(root, 202610) == {"1": 2100.0, "2": 1950.0}

    (inbox / "players" / "reg-nov.csv").write_text(REG_NOV)
    (inbox / "nov.csv").write_text(NOV)
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    rc, out, err = recalculate(root, inbox, capsys)
    assert rc == 2
    # October re-rated with K 20 (31 games): 20 x 2.5 = +50; November not frozen
    assert after(root, 202610)["1"] == 2050.0
    assert Store(root).published_periods("fide", "standard") == [202610]
    assert "Frozen list" not in out
    line = next(x for x in out.splitlines() if x.startswith(HELD))
    assert "lists frozen before it: fide/standard period 202610 (1 player(s))" in line
    assert "send it again under the same name with the rated games and peak ratings" in line
    assert "to accept the revisions, run again" in line
    assert line.endswith("(waiting: fide/standard period 202611; docs/operations.md).")
    assert (
        "Not frozen (an inbox file revises lists frozen before it, below; the next run "
        "without one freezes them):" in out
    )
    # the revision names its cause: the register (it was "0 ingest(s)")
    assert (
        "Revisions of the published fide/standard list of period 202610: 1 player(s) "
        "changed, 1 ingest(s) or merge(s) since publication touched it" in out
    )
    assert "| 1 | Alpha, A | 2100 | 2050 | -50 | +0/-0/~0 |" in out
    assert "froze no list: reg-nov.csv revising frozen lists" in err
    manifest = read_manifest(Store(root), "fide", "standard", 202610)
    assert trail.since(Store(root), manifest)["source"].to_list() == ["reg-nov.csv"]

    # Accepted: run again. November frozen from the revised October: Alpha 2050 draws
    # Beta 1950 (D 100, PD .64): 20 x (.5 - .64) = -2.8 -> -3
    rc, out, err = recalculate(root, inbox, capsys)
    assert rc == 0 and "Not frozen: players file" not in out and err == ""
    assert Store(root).published_periods("fide", "standard") == [202610, 202611]
    assert after(root, 202611) == {"1": 2047.0, "2": 1953.0}


def test_a_run_stopped_after_the_recompute_leaves_the_hold_to_the_next(
    tmp_path, monkeypatch, capsys
):
    """Ctrl-C after October was re-rated (before the stale marks were cleared): the run
    after it compares with the frozen lists as they were before the stopped run's
    recompute (its record), so it holds the freeze too."""
    root, inbox = october(tmp_path, monkeypatch, capsys)
    (inbox / "players" / "reg-nov.csv").write_text(REG_NOV)
    (inbox / "nov.csv").write_text(NOV)
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    with monkeypatch.context() as mp:
        stop_at(mp, "record")
        assert recalculate(root, inbox, capsys)[0] == 130
    assert after(root, 202610)["1"] == 2050.0  # already re-rated
    rc, out, err = recalculate(root, inbox, capsys)
    assert rc == 2 and Store(root).published_periods("fide", "standard") == [202610]
    line = next(x for x in out.splitlines() if x.startswith("Not frozen: players file"))
    assert line.startswith(
        "Not frozen: players file `reg-nov.csv` (taken by an interrupted run) (now in "
        "`INBOX/processed/`) changes the ratings of lists frozen before it: fide/standard "
        "period 202610 (1 player(s))"
    )
    assert "froze no list: reg-nov.csv revising frozen lists" in err
    assert recalculate(root, inbox, capsys)[0] == 0  # and the next run freezes
    assert Store(root).published_periods("fide", "standard") == [202610, 202611]


def test_the_register_sent_again_with_the_starting_counts_keeps_october(
    tmp_path, monkeypatch, capsys
):
    root, inbox = october(tmp_path, monkeypatch, capsys)
    (inbox / "players" / "reg-nov.csv").write_text(REG_NOV)
    (inbox / "nov.csv").write_text(NOV)
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    assert recalculate(root, inbox, capsys)[0] == 2
    # the remedy: the same name, the counts the store started from (columns reordered)
    (inbox / "players" / "reg-nov.csv").write_text(
        'player_id,rated_games,name,rating\n1,25,"Alpha, A",2000\n2,100,"Beta, B",2000\n'
    )
    rc, out, _ = recalculate(root, inbox, capsys)
    assert rc == 0 and "Not frozen: players file" not in out
    assert after(root, 202610)["1"] == 2100.0  # K 40 again, as frozen
    # November: 31 games now (25 + 6), K 20; Alpha 2100 draws Beta 1950 (D 150, PD .70):
    # 20 x (.5 - .70) = -4
    assert after(root, 202611) == {"1": 2096.0, "2": 1954.0}
    assert Store(root).published_periods("fide", "standard") == [202610, 202611]


def test_a_peak_that_passed_2400_last_month_holds_the_freeze(tmp_path, monkeypatch, capsys):
    """m3: Alpha 2380 wins 3 games against Beta 2380 (K 20): 20 x 1.5 = +30 -> 2410. The
    November register gives his peak 2410: October with K 10 would be +15 -> 2395."""
    reg = 'player_id,name,rating,rated_games,peak_rating\n1,"Alpha, A",2380,100,2380\n'
    reg += '2,"Beta, B",2380,100,2380\n'
    games = GAMES + "2026-10-05,1,2,1-0\n2026-10-06,2,1,0-1\n2026-10-07,1,2,1-0\n"
    root, inbox = october(tmp_path, monkeypatch, capsys, reg, games)
    assert after(root, 202610) == {"1": 2410.0, "2": 2350.0}
    (inbox / "players" / "reg-nov.csv").write_text(
        reg.replace("2380,100,2380\n2", "2380,103,2410\n2")
    )
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    rc, out, _ = recalculate(root, inbox, capsys)
    assert rc == 2 and after(root, 202610)["1"] == 2395.0
    assert "| 1 | Alpha, A | 2410 | 2395 | -15 | +0/-0/~0 |" in out
    # no month waits (no November games): the line says so
    line = next(x for x in out.splitlines() if x.startswith(HELD))
    assert line.endswith("(no list waits to be frozen; docs/operations.md).")


def test_a_register_that_changes_nothing_frozen_freezes_as_before(tmp_path, monkeypatch, capsys):
    root, inbox = october(tmp_path, monkeypatch, capsys)
    # Beta's count grows (100 -> 106: K 20 either way), a new player: nothing frozen moves
    reg = REG_OCT.replace("2000,100", "2000,106") + '3,"Gamma, G",1800,50\n'
    (inbox / "players" / "reg-nov.csv").write_text(reg)
    (inbox / "nov.csv").write_text(NOV)
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    rc, out, err = recalculate(root, inbox, capsys)
    assert rc == 0 and "Not frozen: players file" not in out and "froze no list" not in err
    assert "Frozen list fide/standard period 202611 (`STORE/published/`)." in out
    # Alpha 2100 (25 + 6 = 31 games: K 20) draws Beta 1950: D 150, PD .70: -4; Gamma,
    # undated, is listed from the first period: added to October's list, no published
    # rating changed (a revision, shown as before, that holds nothing)
    assert after(root, 202611) == {"1": 2096.0, "2": 1954.0, "3": 1800.0}
    assert "| 3 | Gamma, G |  | 1800 |  | +0/-0/~0 |" in out
    assert not (root / "manifest" / "unreported").exists()  # the baseline record is gone


def test_a_rejection_by_a_stopped_run_holds_the_next_runs_freeze(tmp_path, monkeypatch, capsys):
    root, inbox = october(tmp_path, monkeypatch, capsys)
    (inbox / "nov.csv").write_text(NOV)
    (inbox / "late.csv").write_text("when,who,whom,score\n2026-11-20,1,2,1-0\n")  # unreadable
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    with monkeypatch.context() as mp:
        stop_at(mp, "publish")  # Ctrl-C after the files were taken and November rated
        assert recalculate(root, inbox, capsys)[0] == 130
    assert (inbox / "rejected" / "late.csv").is_file()
    rc, out, err = recalculate(root, inbox, capsys)
    assert rc == 2  # it froze November before
    assert Store(root).published_periods("fide", "standard") == [202610]
    assert (
        "Not frozen: inbox file `late.csv` (taken by an interrupted run) was rejected (now in "
        "`INBOX/rejected/`)" in out
    )
    assert "froze no list: late.csv rejected" in err
    # the hold is that run's: the next one freezes (the file fixed or not)
    rc, out, _ = recalculate(root, inbox, capsys)
    assert rc == 0 and Store(root).published_periods("fide", "standard") == [202610, 202611]


def test_revisions_of_a_pool_count_the_ingests_of_that_pool(tmp_path, monkeypatch, capsys):
    root, inbox = tmp_path / "S", tmp_path / "inbox"
    (inbox / "players").mkdir(parents=True)
    (inbox / "players" / "register.csv").write_text(REGISTER)
    (inbox / "oct.csv").write_text(OCTOBER)
    (inbox / "oct-rapid.csv").write_text(RAPID)
    pin_today(monkeypatch, dt.date(2026, 11, 1))
    assert recalculate(root, inbox, capsys)[0] == 0
    (inbox / "oct.csv").write_text(OCTOBER_FIXED)  # a new version of the standard file
    pin_today(monkeypatch, dt.date(2026, 12, 1))
    rc, out, _ = recalculate(root, inbox, capsys)
    assert rc == 0
    revisions = [line for line in out.splitlines() if line.startswith("Revisions of")]
    # the rapid list: nothing recomputed it, no block (round 15; it said "0 player(s)
    # changed, 1 ingest(s)" before round 10, the standard file's correction)
    assert len(revisions) == 1
    assert "fide/standard list of period 202610: 2 player(s) changed, 1 ingest(s)" in revisions[0]
    store = Store(root)
    rapid = trail.since(store, read_manifest(store, "fide", "rapid", 202610))
    standard = trail.since(store, read_manifest(store, "fide", "standard", 202610))
    assert rapid.height == 0 and standard["source"].to_list() == ["oct.csv"]


def test_the_store_inside_the_inbox_is_named_as_the_store(tmp_path, monkeypatch, capsys):
    pin_today(monkeypatch, dt.date(2026, 11, 1))
    (tmp_path / "reg.csv").write_text(REG_OCT)
    assert (
        main(["ingest", "--players", str(tmp_path / "reg.csv"), "--store", str(tmp_path / "S")])
        == 0
    )
    (tmp_path / "reg.csv").unlink()
    (tmp_path / "oct.csv").write_text(OCT)
    capsys.readouterr()
    rc, out, err = recalculate(tmp_path / "S", tmp_path, capsys)
    assert rc == 0
    assert "`S/` is the store (--store): not read." in out.splitlines()
    assert "Not read: the inbox folder" not in out and "move them there" not in out
    assert "not read" not in err
    assert monthly.unread_folders(tmp_path, tmp_path / "S") == []
