"""A new user following the README and docs, round 3: what-if with two-monthly rules,
recalculate on no store, --allow-file ids, plot calibration --target, ingest --mapping,
convert --era/--date, and the docs' own statements (docs/cli.md, lists.md, api.md,
backtest.md, analysis.md)."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

from arpad.pipeline.backtest import REPORT_HEADER
from arpad.pipeline.cli import main
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.jobs import WhatIfRequest
from arpad.pipeline.jobs import whatif as whatif_job
from arpad.pipeline.store import Store

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
TATA = ROOT / "data" / "real" / "pgn" / "tatamast22.pgn"

# Three games of March 2021 between four players with stated ratings.
GAMES = [
    ("2021.03.05", "Alpha", "9000001", 1800, "Bravo", "9000002", 2000, "1-0"),
    ("2021.03.12", "Charlie", "9000003", 2100, "Delta", "9000004", 1900, "1/2-1/2"),
    ("2021.03.19", "Bravo", "9000002", 2000, "Charlie", "9000003", 2100, "0-1"),
]


def write_pgn(path: Path) -> Path:
    blocks = []
    for date, white, wid, welo, black, bid, belo, result in GAMES:
        tags = {
            "Event": "Club", "Date": date, "White": white, "Black": black,
            "WhiteElo": welo, "BlackElo": belo, "WhiteFideId": wid, "BlackFideId": bid,
            "Result": result,
        }  # fmt: skip
        head = "\n".join(f'[{k} "{v}"]' for k, v in tags.items())
        blocks.append(f"{head}\n\n1. e4 e5 {result}\n")
    path.write_text("\n".join(blocks))
    return path


def club_store(root: Path) -> Store:
    store = Store(root)
    ingest_files(store, [write_pgn(root.parent / f"{root.name}.pgn")])
    return store


def final_ratings(tmp_path: Path, name: str, rules: str) -> tuple[int, dict[str, float]]:
    """The naive reference: `arpad rate --rules RULES` on a store of its own; its last
    rated period and the ratings on that list."""
    store = club_store(tmp_path / name)
    argv = ["rate", "--system", "fide", "--rules", rules, "--store", str(store.root)]
    assert main(argv) == 0
    last = max(store.rating_periods("fide", "standard"))
    rows = store.read_ratings("fide", "standard", last).to_pylist()
    return last, {r["player_id"]: r["rating_after"] for r in rows}


# -- 1. whatif: each side at its own final list ----------------------------------------------
def test_whatif_compares_a_two_monthly_side_at_its_own_final_list(tmp_path, monkeypatch):
    monkeypatch.setenv("ARPAD_NO_FLOW", "1")
    store = club_store(tmp_path / "S")
    res = whatif_job(WhatIfRequest(str(store.root), "2009-07", "2014-07"))
    # 2009-07 lists are two-monthly: March's games count on the list closing in April.
    assert (res.final_a, res.final_b) == (202104, 202103)
    assert res.periods == [202103, 202104]
    last_a, ref_a = final_ratings(tmp_path, "A", "2009-07")
    last_b, ref_b = final_ratings(tmp_path, "B", "2014-07")
    assert (last_a, last_b) == (202104, 202103)
    movers = {r["player_id"]: r for r in res.movers.to_dicts()}
    assert set(movers) == set(ref_a) == set(ref_b)
    for pid, row in movers.items():
        assert (row["period_a"], row["period_b"]) == (202104, 202103)
        assert row["rating_a"] == ref_a[pid] and row["rating_b"] == ref_b[pid]
        assert row["difference"] == ref_b[pid] - ref_a[pid]
    # By hand (table 8.1.2: D 200 -> 0.76/0.24, D 100 -> 0.64/0.36); K 15 under 2009-07,
    # K 20 under 2014-07 (below 2400):
    # Alpha 1800 beats Bravo 2000: +0.76 K -> 1811.4 -> 1811 / 1815.2 -> 1815
    # Bravo loses to Alpha (-0.76) and Charlie 2100 (-0.36): -1.12 K -> 1983.2 / 1977.6
    # Delta 1900 draws Charlie 2100: +0.26 K -> 1903.9 -> 1904 / 1905.2 -> 1905
    hand = {"9000001": (1811, 1815), "9000002": (1983, 1978), "9000004": (1904, 1905)}
    for pid, (a, b) in hand.items():
        assert (movers[pid]["rating_a"], movers[pid]["rating_b"]) == (a, b)
    # Above 2000 at the end: Charlie alone on both sides (Bravo fell below 2000).
    cross = {r["threshold"]: r for r in res.crossings.to_dicts()}
    assert (cross[1400]["above_at_end_a"], cross[1400]["above_at_end_b"]) == (4, 4)
    assert (cross[2000]["above_at_end_a"], cross[2000]["above_at_end_b"]) == (1, 1)
    # Swapped: the two-monthly side is B and is compared at 202104, after its games.
    swapped = whatif_job(WhatIfRequest(str(store.root), "2014-07", "2009-07"))
    assert (swapped.final_a, swapped.final_b) == (202103, 202104)
    back = {r["player_id"]: r for r in swapped.movers.to_dicts()}
    assert all(back[p]["rating_b"] == ref_a[p] and back[p]["rating_a"] == ref_b[p] for p in back)


def test_whatif_cli_on_tata_steel_names_both_final_lists(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ARPAD_NO_FLOW", "1")
    s = str(tmp_path / "T")
    assert main(["ingest", str(TATA), "--store", s]) == 0
    assert main(["rate", "--system", "fide", "--store", s]) == 0
    capsys.readouterr()
    out = tmp_path / "wi"
    argv = ["whatif", "--rules", "2011-07", "--vs", "2012-07", "--store", s, "--output", str(out)]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "Biggest movers at 202202 (A) / 202201 (B)" in text
    movers = pl.read_parquet(out / "movers.parquet")
    assert movers["rating_b"].null_count() == 0 and movers.height == 10
    # All 14 players are grandmasters rated over 2600: above every threshold on both sides.
    cross = pl.read_parquet(out / "crossings.parquet")
    assert cross["above_at_end_a"].to_list() == cross["above_at_end_b"].to_list() == [14] * 3


# -- 2. recalculate on no store ----------------------------------------------------------------
def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_recalculate_refuses_a_folder_that_is_no_store_when_the_inbox_is_empty(tmp_path, capsys):
    inbox, empty, unrelated = tmp_path / "inbox", tmp_path / "empty", tmp_path / "unrel"
    for d in (inbox, empty, unrelated):
        d.mkdir()
    (unrelated / "notes.txt").write_text("mine\n")
    typo = tmp_path / "arpad-stroe"
    for store, extra in (
        (typo, ["--systems", "elo"]),
        (empty, []),
        (unrelated, ["--systems", "elo"]),
    ):
        before = listing(store) if store.exists() else None
        argv = ["recalculate", "--no-flow", "--inbox", str(inbox), "--store", str(store), *extra]
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"no store at {store} (ingest something first" in err
        assert (listing(store) if store.exists() else None) == before  # not even .lock
    assert not typo.exists()


def test_recalculate_still_starts_a_store_from_a_full_inbox(tmp_path, capsys):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "games.csv").write_text(
        "date,white_id,black_id,score\n2024-01-05,A,B,1\n2024-01-09,B,C,0.5\n"
    )
    store = tmp_path / "new"
    argv = ["recalculate", "--no-flow", "--inbox", str(inbox), "--store", str(store)]
    assert main([*argv, "--systems", "elo"]) == 0
    assert Store(store).rating_periods("elo", "standard") == [202401]


# -- 3. --allow-file ids as text -----------------------------------------------------------
def test_allow_file_ids_are_text_so_the_documented_join_works(tmp_path, capsys):
    games = tmp_path / "g.csv"
    games.write_text(
        "date,white_id,black_id,score\n2024-01-05,007,1503014,1\n2024-01-06,x#6,007,0.5\n"
    )
    s = str(tmp_path / "S")
    assert main(["ingest", str(games), "--store", s]) == 0
    clubs = tmp_path / "clubs.csv"
    clubs.write_text("player_id,club\n007,Alpha\n1503014,Bravo\n")
    ints = tmp_path / "fed.parquet"
    pl.DataFrame({"player_id": [1503014], "fed": ["NOR"]}).write_parquet(ints)
    capsys.readouterr()
    sql = (
        "SELECT p.player_id, c.club, f.fed FROM players p JOIN clubs c USING (player_id) "
        "LEFT JOIN fed f USING (player_id) ORDER BY 1"
    )
    argv = ["sql", sql, "--allow-file", str(clubs), "--allow-file", str(ints), "--store", s]
    assert main([*argv, "--format", "csv"]) == 0
    # 007 keeps its zeros; x#6 (not a number) no longer breaks the join; the Parquet
    # file's integer id is joined as text.
    assert capsys.readouterr().out.splitlines() == [
        "player_id,club,fed", "007,Alpha,", "1503014,Bravo,NOR",
    ]  # fmt: skip


# -- 4. plot calibration --target ----------------------------------------------------------
def test_plot_calibration_refuses_a_target_the_file_lacks(tmp_path, capsys):
    pred = tmp_path / "pred.parquet"
    pl.DataFrame(
        {
            "system": ["elo"] * 4,
            "target": ["public", "public", "private", "private"],
            "game": [0, 1, 2, 3],
            "predicted": [0.2, 0.8, 0.3, 0.7],
            "actual": [0.0, 1.0, 0.5, 1.0],
        }
    ).write_parquet(pred)
    png = tmp_path / "typo.png"
    assert main(["plot", "calibration", str(pred), "--target", "pubic", "--output", str(png)]) == 2
    err = capsys.readouterr().err
    assert "--target pubic" in err and "public, private" in err
    assert not png.exists()
    assert (
        main(["plot", "calibration", str(pred), "--target", "private", "--output", str(png)]) == 0
    )
    assert png.read_bytes()[:4] == b"\x89PNG"


# -- 9. ingest --mapping -------------------------------------------------------------------
def test_ingest_unknown_mapping_is_refused_for_every_format(tmp_path, capsys):
    pgn = write_pgn(tmp_path / "club.pgn")
    store = tmp_path / "S"
    assert main(["ingest", str(pgn), "--mapping", "no-such-mapping", "--store", str(store)]) == 2
    err = capsys.readouterr().err
    assert "--mapping no-such-mapping: unknown mapping (known: kaggle2010" in err
    assert not store.exists()
    assert main(["ingest", str(pgn), "--mapping", "kaggle2010", "--store", str(store)]) == 0
    err = capsys.readouterr().err
    assert f"note: {pgn}: --mapping kaggle2010 applies to CSV and Parquet files" in err
    assert Store(store).exists()


# -- 10. convert --era and --date ----------------------------------------------------------
def test_convert_refuses_an_era_and_a_date_that_disagree(capsys):
    argv = ["convert", "150", "--from", "ecf", "--to", "fide"]
    assert main([*argv, "--era", "2024", "--date", "2005-01-01"]) == 2
    assert "the ECF era on 2005-01-01 is pre-2009" in capsys.readouterr().err
    # pre-2009: 8 × 150 + 600 = 1800 (the 2024 era gave 7.5 × 150 + 700 = 1825)
    assert main([*argv, "--era", "pre-2009", "--date", "2005-01-01"]) == 0
    assert capsys.readouterr().out == "150 ecf = 1800.00 fide\n"
    assert main([*argv, "--date", "2005-13-01"]) == 2
    assert "--date 2005-13-01: not a date" in capsys.readouterr().err
    # Ingo has no era: Elo = 2840 − 8 × 80 = 2200, and a note that --era is not used.
    assert main(["convert", "80", "--from", "ingo", "--to", "elo", "--era", "2024"]) == 0
    out, err = capsys.readouterr()
    assert out == "80 ingo = 2200.00 elo\n" and "does not use it" in err


# -- 5–8. the docs' statements -------------------------------------------------------------
def test_docs_statements_match_the_code():
    lists, api = (DOCS / "lists.md").read_text(), (DOCS / "api.md").read_text()
    assert "has no `force`" not in lists and "force=True" in lists
    assert "still reads only a `white_id,black_id`" not in api
    # The report header names two different documents, and the committed report uses it.
    assert "docs/analysis.md and\ndocs/analysis.md" not in REPORT_HEADER
    assert (DOCS / "backtest.md").read_text().startswith(REPORT_HEADER.rstrip("\n"))


def test_analysis_quotes_the_generated_whr_deviance():
    report = (DOCS / "backtest.md").read_text()
    deloitte = report[report.index("<!-- backtest:deloitte2011 -->") :]
    row = next(line for line in deloitte.splitlines() if line.startswith("| whr |"))
    private = row.split("|")[4].strip()  # system | validation | public | private | …
    assert private == "0.291202"
    analysis = " ".join((DOCS / "analysis.md").read_text().split())  # lines joined
    assert f"(private {private};" in analysis and "0.2911)" not in analysis


# -- 11. every option --help shows is in docs/cli.md ------------------------------------------
OPTIONS = {
    "fide-sample": ["--seed"],
    "plot calibration": ["--bins"],
    "card": ["--set", "--pool"],
    "players merge": ["--wait"],
    "players split": ["--wait"],
    "players": ["--format", "--output"],
    "players identify": ["--format"],
    "performance": ["--format", "--mapping", "--output"],
    "backtest": ["--data-dir", "--format"],
    "convert": ["--era"],
    "norm": ["--event", "--opponents", "--score", "--titles", "--federations", "--federation"],
    "rules": ["--pool", "--format"],
    "whatif": ["--pool", "--top", "--output", "--workers"],
    "history": ["--pool", "--format", "--output"],
    "era": ["--output"],
    "category": ["--players", "--format"],
    "demo": ["--workers", "--cluster", "--wait"],
    "recalculate": ["--workers", "--cluster", "--wait"],
    "serve": ["--pools", "--format", "--mapping", "--workers"],
    "deploy": ["--pools", "--format", "--mapping", "--workers"],
}


def documented_units(text: str) -> list[str]:
    """Table rows and synopsis entries (a line and its indented continuations)."""
    units: list[str] = []
    for line in text.splitlines():
        if line.startswith("| `arpad ") or line.startswith("arpad "):
            units.append(line)
        elif line.startswith(" ") and units and units[-1].startswith("arpad "):
            units[-1] += " " + line.strip()
    return units


@pytest.mark.parametrize("command", sorted(OPTIONS))
def test_cli_md_shows_the_options_of_help(command, capsys):
    with pytest.raises(SystemExit):
        main([*command.split(), "--help"])
    help_text = capsys.readouterr().out
    start = re.compile(rf"^(\| `)?arpad {re.escape(command)} +[A-Z\[-]")
    units = [u for u in documented_units((DOCS / "cli.md").read_text()) if start.match(u)]
    assert units, f"no synopsis of arpad {command} in docs/cli.md"
    for option in OPTIONS[command]:
        assert re.search(rf"{option}\b", help_text), f"{command} {option}: not in --help"
        assert any(re.search(rf"{option}(?![\w-])", u) for u in units), (
            f"docs/cli.md: arpad {command} lacks {option}"
        )
