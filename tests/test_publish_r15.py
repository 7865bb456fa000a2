"""Round 15, the officer's findings 5, 6 and 7 (docs/lists.md "Lists are frozen in order",
docs/operations.md, docs/ingest.md "FIDE's fixed-width list"):

6. ``arpad publish --period 202611`` (a later month without games) passed over 202609 and
   202610 without a word, and they could never be frozen; the next report said "Already
   frozen: … 202608", and ``publish`` without a period "202608 is already published".
   Now it is refused naming them and the commands that freeze them first, unless
   ``--skip-earlier``; the report names the months passed over and the latest frozen list.
7. Every monthly run printed "Revisions … 0 player(s) changed" for lists nothing touched:
   now only for a list the run recomputed, or one with changes.
5. A published list read back as a players file lost K: ``Gms``, ``K`` and ``Flag`` were
   not read, so every player was established with his rating as his peak. K is read
   where it is unambiguous, and one note names the players whose K is guessed.

The store: four players of the register (K 20: born 1980, 100 rated games), today
5 December 2026.

* 2026-08-10 Alpha 2100 draws Beta 2000: D 100 → PD .64 (table 8.1.2): Alpha .5 − .64 =
  −.14 × 20 = −2.8 → 2097, Beta 2003. Corrected to 1-0: +.36 × 20 = +7.2 → Alpha 2107,
  Beta 1993.
* 2026-09-07 Gamma 1800 beats Delta 1700: D 100 → .64: +.36 × 20 = 7.2 → 1807, Delta 1693.
* October and November 2026: no games (their lists carry September's).
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

import arpad
from arpad.pipeline import jobs, monthly
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store
from tests.test_lists_attack import pin_today
from tests.test_lists_r14 import REGISTER, TODAY, cli

AUGUST = "date,white_id,black_id,result\n2026-08-10,1001,1002,1/2-1/2\n"
SEPTEMBER = "date,white_id,black_id,result\n2026-09-07,1003,1004,1-0\n"


def report_lines(store: str, inbox: Path) -> list[str]:
    inbox.mkdir(exist_ok=True)
    run = jobs.recalculate(jobs.RecalculateRequest(store, str(inbox), ["fide"]))
    return monthly.markdown(run).splitlines()


@pytest.fixture
def store(tmp_path, monkeypatch, capsys) -> str:
    """August and September rated, August's list published (the first one)."""
    pin_today(monkeypatch, TODAY)
    root = str(tmp_path / "S")
    (tmp_path / "players.csv").write_text(REGISTER)
    (tmp_path / "aug.csv").write_text(AUGUST)
    (tmp_path / "sep.csv").write_text(SEPTEMBER)
    s = ["--no-flow", "--store", root]
    assert main(["ingest", *s, "--players", str(tmp_path / "players.csv")]) == 0
    assert main(["ingest", *s, str(tmp_path / "aug.csv"), str(tmp_path / "sep.csv")]) == 0
    assert main(["rate", *s, "--system", "fide"]) == 0
    assert main(["publish", "--store", root, "--period", "202608"]) == 0
    capsys.readouterr()
    return root


PASSES_OVER = (
    "arpad: error: the fide/standard lists of periods 202609, 202610 (no games) are not "
    "published, and lists are frozen in order: once period 202611 is published they never "
    "can be; arpad publish --period 202609, then arpad publish --period 202610 freeze them "
    "first, then arpad publish --period 202611; or give --skip-earlier to publish period "
    "202611 and leave them unpublished\n"
)


# -- 6. publish of a later month passes over the earlier ones ------------------------------
def test_publishing_a_later_month_names_the_months_it_would_pass_over(store, capsys):
    code, out, err = cli(capsys, "publish", "--store", store, "--period", "202611")
    assert (code, out, err) == (2, "", PASSES_OVER)  # before: exit 0, nothing said
    assert Store(store).published_periods("fide", "standard") == [202608]
    # as the refusal says: each in order, then November (its list carries September's)
    for period in ("202609", "202610", "202611"):
        code, out, err = cli(capsys, "publish", "--store", store, "--period", period)
        assert code == 0, err
    assert Store(store).published_periods("fide", "standard") == [
        202608,
        202609,
        202610,
        202611,
    ]
    # without a period: the latest published list, not "202609 is already published"
    code, _, err = cli(capsys, "publish", "--store", store)
    folder = Path(store) / "published/system=fide/pool=standard/period=202611"
    assert code == 2
    assert err == (
        "arpad: error: nothing to publish: the latest published fide/standard list is of "
        "period 202611, the list of period 202609 carried forward into a month without "
        f"games ({folder}), after 202609, the latest rated month that is over; a published "
        "list is never revised: see arpad diff --published\n"
    )


def test_skip_earlier_publishes_and_the_report_names_the_months_passed_over(
    store, tmp_path, capsys
):
    code, out, err = cli(
        capsys, "publish", "--store", store, "--period", "202611", "--skip-earlier"
    )
    assert code == 0, err
    assert out.splitlines()[0] == "published fide/standard period 202611: 4 players"
    assert err == (
        "arpad: note: the fide/standard lists of periods 202609, 202610 passed over "
        "(--skip-earlier): they can no longer be published, lists being frozen in order; "
        "arpad list --period P prints them\n"
    )
    folder = Path(store) / "published/system=fide/pool=standard/period=202611"
    assert json.loads((folder / "manifest.json").read_text())["carried_from"] == 202609
    # without a period: September, the latest rated month, is passed over for good
    code, _, err = cli(capsys, "publish", "--store", store)
    assert code == 2 and err.startswith(
        "arpad: error: the fide/standard list of period 202611 is already published and "
        "period 202609 is earlier: lists are frozen in order"
    )
    # the monthly report: both months passed over, and November as the latest frozen list
    lines = report_lines(store, tmp_path / "inbox")
    assert (
        "Not frozen: 2 lists fide/standard periods 202609-202610: the later period 202611 "
        "is already frozen, and lists are frozen in order (docs/lists.md)."
    ) in lines
    assert (
        "Already frozen: list fide/standard period 202611, by an earlier run "
        "(`STORE/published/`; left as it is)."
    ) in lines
    assert not [line for line in lines if "period 202608, by an earlier run" in line]
    assert "- `STORE/exports/system=fide/pool=standard/list-202611.csv`" in lines


def test_the_python_api_refuses_and_skips_in_its_own_words(store):
    s = arpad.Store(store)
    with pytest.raises(ValueError) as refused:
        s.publish("fide", period=202611)
    assert str(refused.value).endswith(
        "or pass skip_earlier=True to publish period 202611 and leave them unpublished"
    )
    made = s.publish("fide", period=202611, skip_earlier=True)
    assert made["passed_over"] == [202609, 202610]
    assert Store(store).published_periods("fide", "standard") == [202608, 202611]


def test_the_monthly_job_names_a_month_without_games_it_passed_over(tmp_path, monkeypatch):
    """August frozen; September without games; October's games: the run of 1 November
    freezes October (the job leaves a month without games to ``arpad publish``, and its
    report of 1 October said so), and names September as never to be frozen."""
    inbox, root = tmp_path / "inbox", str(tmp_path / "S")
    (inbox / "players").mkdir(parents=True)
    (inbox / "players" / "register.csv").write_text(REGISTER)
    (inbox / "aug.csv").write_text(AUGUST)
    pin_today(monkeypatch, dt.date(2026, 9, 1))
    assert "Frozen list fide/standard period 202608 (`STORE/published/`)." in report_lines(
        root, inbox
    )
    (inbox / "oct.csv").write_text(SEPTEMBER.replace("2026-09-07", "2026-10-07"))
    pin_today(monkeypatch, dt.date(2026, 11, 1))
    lines = report_lines(root, inbox)
    assert "Frozen list fide/standard period 202610 (`STORE/published/`)." in lines
    assert (
        "Not frozen: list fide/standard period 202609: the later period 202610 is already "
        "frozen, and lists are frozen in order (docs/lists.md)."
    ) in lines
    assert Store(root).published_periods("fide", "standard") == [202608, 202610]


# -- 7. "Revisions" only for a list this run recomputed, or with changes ---------------------
def test_revisions_only_for_a_list_the_run_recomputed(tmp_path, monkeypatch):
    inbox, root = tmp_path / "inbox", str(tmp_path / "S")
    (inbox / "players").mkdir(parents=True)
    (inbox / "players" / "register.csv").write_text(REGISTER)
    (inbox / "aug.csv").write_text(AUGUST)
    pin_today(monkeypatch, dt.date(2026, 9, 1))
    report_lines(root, inbox)
    pin_today(monkeypatch, dt.date(2026, 9, 2))
    lines = report_lines(root, inbox)  # nothing in the inbox: nothing recomputed
    assert "Every system and pool was up to date: nothing recomputed." in lines
    # before: "Revisions of the published fide/standard list of period 202608: 0 player(s)
    # changed, 0 ingest(s) or merge(s) since publication touched it" on every run
    assert not [line for line in lines if line.startswith("Revisions of")]
    # the arbiter's correction: Alpha beat Beta (2097 → 2107, 2003 → 1993)
    (inbox / "aug.csv").write_text(AUGUST.replace("1/2-1/2", "1-0"))
    lines = report_lines(root, inbox)
    assert [line for line in lines if line.startswith("Revisions of")] == [
        "Revisions of the published fide/standard list of period 202608: 2 player(s) "
        "changed, 1 ingest(s) or merge(s) since publication touched it "
        "(`arpad diff --published 202608`)."
    ]
    assert "| 1001 | Alpha, Anna | 2097 | 2107 | +10 | +0/-0/~1 |" in lines
    assert "| 1002 | Beta, Bela | 2003 | 1993 | -10 | +0/-0/~1 |" in lines


# -- 5. FIDE's K column read back -----------------------------------------------------------
# FIDE's download of November 2026 (K for every player) and a November tournament:
# Pia 2390 (K 10: she has reached 2400), Fred 1700 (K 40, born 1990: fewer than 30 rated
# games), Sam and Otto (K 20), Nina 1800 without a K (arpad's own list gives none to a
# player without games in its month), Jill 1600, K 40, born 2012: a junior.
FIDE_LIST = (
    "ID Number      Name                                                         Fed Sex Tit  WTit OTit           FOA NOV26 Gms K  B-day Flag\n"
    "2000002        Fresh, Fred                                                  HUN M                                1700  3   40 1990\n"
    "2000007        Junior, Jill                                                 HUN                                  1600  0   40 2012  w\n"
    "2000005        Nobody, Nina                                                 HUN F                                1800  0      1980  w\n"
    "2000004        Other, Otto                                                  HUN M                                1990  1   20 1980\n"
    "2000001        Peak, Pia                                                    HUN F                                2390  0   10 1980  w\n"
    "2000003        Steady, Sam                                                  HUN M                                2010  1   20 1980\n"
)  # fmt: skip
# 5-6 November: Pia draws Fred and Sam; Fred beats Otto; Sam beats Otto.
NOVEMBER = (
    "date,white_id,black_id,result\n"
    "2026-11-05,2000001,2000002,1/2-1/2\n"
    "2026-11-05,2000003,2000004,1-0\n"
    "2026-11-06,2000003,2000001,1/2-1/2\n"
    "2026-11-06,2000002,2000004,1-0\n"
)


def test_fides_k_column_is_read_and_the_unknown_ones_named(tmp_path, capsys, monkeypatch):
    pin_today(monkeypatch, TODAY)
    (tmp_path / "standard_rating_list.txt").write_text(FIDE_LIST)
    (tmp_path / "nov.csv").write_text(NOVEMBER)
    s = ["--no-flow", "--store", str(tmp_path / "S")]
    code, out, err = cli(
        capsys, "ingest", *s, "--players", str(tmp_path / "standard_rating_list.txt")
    )
    assert code == 0, err
    assert (
        "note: K, Gms, Flag read with the FIDE 2025-10 rules: K 10 as a peak of at least "
        "2400 (peak_rating 2400 for 1 rated below it: 2000001 'Peak, Pia'); K 40 of a "
        "player no junior by birth year as fewer than 30 rated games (rated_games taken as "
        "his Gms, the fewest he can have, for 1: 2000002 'Fresh, Fred'); K 20 as 30 or "
        "more; Flag w as sex F for 1 player(s) without a Sex; Gms and Flag otherwise not "
        "read (one month's games; a list derives its flags); K not read for 1 rated "
        "player(s) (no K given: 2000005 'Nobody, Nina'; arpad's own list gives K only to a "
        "player with games in its month): taken as having 30 rated games and his rating as "
        "his peak (K 20, 40 a junior by birth year, 10 at 2400 or more); give rated_games "
        "and peak_rating in a players file to set them"
    ) in out
    assert "columns not read" not in out  # (before: "columns not read: Gms, K, Flag")
    sql = "SELECT player_id, sex, rated_games, peak_rating FROM players ORDER BY 1"
    assert cli(capsys, "sql", sql, *s[1:], "--format", "csv")[1].splitlines() == [
        "player_id,sex,rated_games,peak_rating",
        "2000001,F,,2400.0",  # K 10: has reached 2400
        "2000002,M,3,",  # K 40, no junior: new, at least his 3 games of the month
        "2000003,M,,",
        "2000004,M,,",
        "2000005,F,,",
        "2000007,F,,",  # K 40 of a junior: nothing more said; Flag w: a woman
    ]
    assert main(["ingest", *s, str(tmp_path / "nov.csv")]) == 0
    assert main(["rate", *s, "--system", "fide"]) == 0
    capsys.readouterr()
    sql = "SELECT player_id, k, rating_after FROM ratings WHERE period = 202611 AND games > 0 ORDER BY 1"
    # Pia: vs Fred D 690 (400) .92, vs Sam D 380 .91: 1 − 1.83 = −.83 × 10 = −8.3 → 2382
    # (K 20 before: −16.6 → 2373); Fred: vs Pia .08, vs Otto D 290 .16: 1.5 − .24 = 1.26 ×
    # 40 = 50.4 → 1750 (K 20 before: 1725)
    assert cli(capsys, "sql", sql, *s[1:], "--format", "csv")[1].splitlines() == [
        "player_id,k,rating_after",
        "2000001,10.0,2382.0",
        "2000002,40.0,1750.0",
        "2000003,20.0,2028.0",
        "2000004,20.0,1964.0",
    ]
