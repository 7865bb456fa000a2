"""The monthly job keeps the rules of the last ``arpad rate`` (docs/operations.md "The
rules of the monthly job"; the non-FIDE officer's attack, report items 1 and 6):

1. after ``arpad rate --set rd_min=50`` (Glicko-2) or ``--rules 2010-06 --set
   bonus_b=12`` (USCF), ``arpad recalculate`` with a new month rates it with those rules,
   from the new month (not every period again with the defaults), the report names
   them, and the result is the full run's with those rules; nothing recorded: the
   system's own rules, said so; a rules file is kept from any folder, and one that is
   gone fails the run naming it;
2. the report's Revisions table shows a Glicko-2 list's ratings with its one decimal
   (1558.2 -> 1558.3 is +0.1, never "1558 | 1558 | +0")."""

from __future__ import annotations

import datetime as dt
import json
import shutil

import pyarrow.parquet as pq
import pytest

from arpad.pipeline import monthly
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store
from tests.conftest import write_csv
from tests.test_lists_attack import pin_today

GAMES = "date,white_id,black_id,result"
GLICKO_PLAYERS = (
    "player_id,name,federation,sex,birth_year,rating,rd,volatility",
    [
        'G1,"Ames, Ann",NOR,F,1990,1500,200,0.06',
        'G2,"Berg, Bjorn",NOR,M,1980,1400,30,0.06',
        'G3,"Carl, Cato",NOR,M,1985,1550,100,0.06',
        'G4,"Dahl, Dag",NOR,M,1975,1700,300,0.06',
        'G5,"Eng, Eli",NOR,M,1995,1600,50,0.06',
    ],
)
GLICKO_MONTHS = {
    "jun.csv": ["2026-06-06,G1,G2,1-0", "2026-06-06,G3,G1,1-0", "2026-06-13,G1,G4,0-1"],
    "jul.csv": ["2026-07-04,G5,G2,1/2-1/2"],
    "sep.csv": ["2026-09-05,G2,G5,0-1"],
    "oct.csv": ["2026-10-03,G2,G3,1/2-1/2"],
}
GLICKO_NOV = ["2026-11-07,G1,G5,1-0"]
USCF_PLAYERS = (
    "player_id,name,federation,sex,birth_year,rating,rated_games,peak_rating",
    [
        'U1,"Able, Art",USA,M,1980,1700,30,1700',
        'U2,"Baker, Bea",USA,F,1990,1500,6,1500',
        'U4,"Drake, Don",USA,M,1970,1750,100,1941',
        'U5,"Ellis, Eve",USA,F,1985,1600,40,1600',
    ],
)
USCF_MONTHS = {
    "sep.csv": ["2026-09-05,U1,U2,1-0", "2026-09-05,U4,U5,1/2-1/2", "2026-09-12,U2,U4,1-0"],
    "oct.csv": ["2026-10-03,U1,U4,0-1", "2026-10-03,U5,U2,1-0"],
}
USCF_NOV = ["2026-11-07,U1,U5,1-0", "2026-11-07,U2,U4,1/2-1/2"]


def build(tmp_path, name, players, months, rate_options, pool_months=None):
    """A store with ``months`` ingested, rated with ``rate_options`` and its latest
    month frozen (``arpad publish``), and an inbox holding ``pool_months``."""
    root, inbox = tmp_path / name / "S", tmp_path / name / "inbox"
    inbox.mkdir(parents=True)
    files = [str(write_csv(tmp_path / name / f, GAMES, rows)) for f, rows in months.items()]
    write_csv(tmp_path / name / "players.csv", *players)
    ingest = ["ingest", *files, "--players", str(tmp_path / name / "players.csv")]
    assert main([*ingest, "--store", str(root)]) == 0
    assert main(["rate", "--store", str(root), *rate_options]) == 0
    system = rate_options[rate_options.index("--system") + 1]
    assert main(["publish", "--system", system, "--store", str(root)]) == 0
    for f, rows in (pool_months or {}).items():
        write_csv(inbox / f, GAMES, rows)
    return root, inbox


def recalculate(root, inbox, capsys) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main(["recalculate", "--no-flow", "--store", str(root), "--inbox", str(inbox)])
    out, err = capsys.readouterr()
    return rc, out, err


def ratings(root, system: str) -> dict[tuple[int, str], tuple]:
    """(period, player) -> (rating_after, rules) of every stored rating row."""
    out = {}
    for path in sorted(Store(root).ratings_dir.glob(f"system={system}/pool=standard/*/*.parquet")):
        period = int(path.parent.name.split("=", 1)[1])
        for row in pq.read_table(path, columns=["player_id", "rating_after", "rules"]).to_pylist():
            out[(period, row["player_id"])] = (row["rating_after"], row["rules"])
    return out


@pytest.mark.parametrize(
    "players, months, november, options, label",
    [
        (
            GLICKO_PLAYERS,
            GLICKO_MONTHS,
            GLICKO_NOV,
            ["--system", "glicko2", "--set", "rd_min=50"],
            "Glicko-2 (2012) + rd_min=50",
        ),
        (
            USCF_PLAYERS,
            USCF_MONTHS,
            USCF_NOV,
            ["--system", "uscf", "--rules", "2010-06", "--set", "bonus_b=12"],
            None,  # the label `arpad rate` gave the ratings (asserted equal below)
        ),
    ],
    ids=["glicko2-set", "uscf-rules-and-set"],
)
def test_the_monthly_job_keeps_the_rules_of_the_last_rate(
    tmp_path, monkeypatch, capsys, players, months, november, options, label
):
    pin_today(monkeypatch, dt.date(2026, 12, 4))
    system = options[1]
    root, inbox = build(tmp_path, "a", players, months, options, {"nov.csv": november})
    before = ratings(root, system)
    label = label or next(iter(before.values()))[1]
    assert {rules for _, rules in before.values()} == {label}  # `arpad rate`'s rules

    rc, out, _ = recalculate(root, inbox, capsys)
    assert rc == 0
    # From the new month only: the rules did not change, so the earlier periods stand
    # (before: "Recomputed 5 periods from the first period" with the defaults).
    assert f"Recomputed 1 period from period 202611: {len(november)} games" in out
    kept = " ".join(options[2:])
    assert f"Rules: `{label}`, kept from the last rating of {system}/standard (`{kept}`)." in out
    after = ratings(root, system)
    assert {k: v for k, v in after.items() if k[0] < 202611} == before
    assert {rules for _, rules in after.values()} == {label}
    # October's frozen list is not revised by the run (before: 3 players changed), and
    # not recomputed: no "Revisions" block for it (round 15)
    assert f"Revisions of the published {system}/standard list of period 202610" not in out

    # The result is the full run's with the same options over all five months.
    full, _ = build(tmp_path, "b", players, {**months, "nov.csv": november}, options)
    assert ratings(full, system) == after
    # And the kept rules stay recorded for next month's run.
    spec = json.loads((root / "manifest" / "rated.json").read_text())[f"{system}/standard"]
    assert (
        spec["spec"]
        == json.loads((full / "manifest" / "rated.json").read_text())[f"{system}/standard"]["spec"]
    )


def test_nothing_recorded_rates_with_the_systems_own_rules_and_says_so(
    tmp_path, monkeypatch, capsys
):
    pin_today(monkeypatch, dt.date(2026, 12, 4))
    options = ["--system", "glicko2"]
    root, inbox = build(
        tmp_path, "a", GLICKO_PLAYERS, GLICKO_MONTHS, options, {"n.csv": GLICKO_NOV}
    )
    (root / "manifest" / "rated.json").unlink()  # (a store of an arpad before rated.json)
    rc, out, _ = recalculate(root, inbox, capsys)
    assert rc == 0
    assert "Recomputed 5 periods from the first period" in out
    assert "Rules: `Glicko-2 (2012)`, the system's own (no `arpad rate` rules recorded)." in out


def test_a_rules_file_is_kept_from_any_folder_and_one_gone_is_named(tmp_path, monkeypatch, capsys):
    """``arpad rate --rules tau.json`` run in the federation's folder; the monthly job
    (``serve``'s worker) runs elsewhere and still reads the same file."""
    pin_today(monkeypatch, dt.date(2026, 12, 4))
    (tmp_path / "fed").mkdir()
    (tmp_path / "fed" / "tau.json").write_text('{"tau": 0.3, "rd_min": 40}')
    monkeypatch.chdir(tmp_path / "fed")
    options = ["--system", "glicko2", "--rules", "tau.json"]
    root, inbox = build(
        tmp_path, "a", GLICKO_PLAYERS, GLICKO_MONTHS, options, {"n.csv": GLICKO_NOV}
    )
    spare = tmp_path / "spare"
    shutil.copytree(root.parent, spare)
    monkeypatch.chdir(tmp_path)
    rc, out, _ = recalculate(root, inbox, capsys)
    assert rc == 0
    assert "Recomputed 1 period from period 202611" in out
    tau = tmp_path / "fed" / "tau.json"
    assert f"kept from the last rating of glicko2/standard (`--rules {tau}`)" in out

    # The file gone: the run fails before rating anything, naming the rules, rated.json
    # and what to do; the inbox file is put back for the next run (exit 2).
    (tmp_path / "fed" / "tau.json").unlink()
    rc, out, err = recalculate(spare / "S", spare / "inbox", capsys)
    assert rc == 2
    assert (
        "glicko2/standard: the rules of its last `arpad rate` (--rules "
        f"{tmp_path / 'fed' / 'tau.json'}, recorded in STORE/manifest/rated.json) cannot "
        "be used:" in err
    )
    assert "run arpad rate --system glicko2 --pool standard with the rules to keep, once" in err
    assert (spare / "inbox" / "n.csv").is_file()


def test_revisions_of_a_glicko2_list_have_its_decimal(tmp_path, monkeypatch, capsys):
    """A late September game revises October's frozen list: G3 1558.2 -> 1558.3 as in
    `arpad diff --published 202610` and the list (one decimal, docs/lists.md), where the
    report showed "| 1558 | 1558 | +0 |"."""
    pin_today(monkeypatch, dt.date(2026, 12, 4))
    late = {"seplate.csv": ["2026-09-20,G5,G2,1/2-1/2"]}
    options = ["--system", "glicko2"]
    root, inbox = build(tmp_path, "a", GLICKO_PLAYERS, GLICKO_MONTHS, options, late)
    rc, out, _ = recalculate(root, inbox, capsys)
    assert rc == 0
    assert "| G2 | Berg, Bjorn | 1399.6 | 1401.5 | +1.9 | +1/-0/~0 |" in out
    assert "| G3 | Carl, Cato | 1558.2 | 1558.3 | +0.1 | +0/-0/~0 |" in out
    assert "| G5 | Eng, Eli | 1600.0 | 1595.9 | -4.1 | +1/-0/~0 |" in out


def test_a_change_that_rounds_to_nothing_is_never_minus_zero():
    row = {
        "player_id": "X",
        "name": "X",
        "games_added": 0,
        "games_removed": 0,
        "games_changed": 0,
    }
    r = {"period": 202610, "changed": 2, "corrections": 0}
    rows = [
        {**row, "published": 1558.3, "revised": 1558.3, "change": -1e-13},
        {**row, "published": 2500, "revised": 2500, "change": -0.2},
    ]
    lines = monthly.revision_lines({**r, "rows": rows[:1]}, whole=False)
    assert "| X | X | 1558.3 | 1558.3 | 0.0 | +0/-0/~0 |" in lines
    lines = monthly.revision_lines({**r, "rows": rows[1:]}, whole=True)
    assert "| X | X | 2500 | 2500 | 0 | +0/-0/~0 |" in lines
