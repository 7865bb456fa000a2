"""Values a hostile file slipped past validation (docs/ingest.md "Dates", players file):
fractional whole numbers, full-width digits, impossible UTC offsets."""

from __future__ import annotations

import polars as pl

from arpad.pipeline.cli import main


def test_fractional_rated_games_and_birth_year_are_quarantined(tmp_path, capsys):
    """29.9 rated games was stored as 29 (K 40 under FIDE) and birth year 1990.7 as 1990,
    without a word; from a float Parquet column too."""
    rows = "player_id,name,birth_year,rating,rated_games\n"
    rows += "Q1,One,1990.7,2500,10\nQ3,Three,1990,2500,29.9\nQ4,Four,1990.0,2500,30.0\n"
    (tmp_path / "p.csv").write_text(rows)
    pl.DataFrame(
        {"player_id": ["F1", "F2"], "name": ["Fa", "Fb"], "rated_games": [29.9, 31.0]}
    ).write_parquet(tmp_path / "p.parquet")
    for name in ("p.csv", "p.parquet"):
        s = tmp_path / f"s-{name}"
        main(["ingest", "--players", str(tmp_path / name), "--store", str(s)])
        err = capsys.readouterr().err
        stored = pl.read_parquet(s / "players" / "players.parquet").sort("player_id")
        if name == "p.csv":
            assert "p.csv:2: bad_player_field: birth_year 1990.7 is not a whole number" in err
            assert "p.csv:3: bad_player_field: rated_games 29.9 is not a whole number" in err
            # 1990.0 and 30.0 are whole numbers, written with a decimal point
            assert stored.select("player_id", "birth_year", "rated_games").rows() == [
                ("Q4", 1990, 30)
            ]
        else:
            assert "bad_player_field: rated_games 29.9 is not a whole number" in err
            assert stored["player_id"].to_list() == ["F2"]


def test_full_width_digits_and_impossible_zones_are_bad_dates(tmp_path, capsys):
    """`２０２４-01-05` got "no such day, ２０２４-01 has no day 5"; `+99:99` and `+25:00`
    zones were stored as 2024-01-05 while `23:61:00` was a bad date."""
    rows = [
        "d1,２０２４-01-05,A,B,1-0",
        "t1,2024-01-05T23:30:00+99:99,A,B,1-0",
        "t2,2024-01-05T10:00:00+25:00,A,B,1-0",
        "t3,2024-01-05T23:30:00+14:00,A,B,1-0",
        "t4,2024-01-06T01:00:00-05:30,A,B,1-0",
    ]
    (tmp_path / "d.csv").write_text("game_id,date,white_id,black_id,result\n" + "\n".join(rows))
    main(["ingest", str(tmp_path / "d.csv"), "--store", str(tmp_path / "s")])
    out = capsys.readouterr()
    text = out.out + out.err
    forms = "is not a valid date (YYYY-MM-DD, YYYY/MM/DD, YYYY.MM.DD or DD.MM.YYYY)"
    assert f"d.csv:2: bad_date: date ２０２４-01-05 {forms}\n" in text
    assert f"d.csv:3: bad_date: date 2024-01-05T23:30:00+99:99 {forms}" in text
    assert f"d.csv:4: bad_date: date 2024-01-05T10:00:00+25:00 {forms}" in text
    assert "5 rows read, 2 games stored, 3 quarantined" in text
