"""A rating officer's month (attack of 2026-12-04): a file whose year is mistyped is
noted at ingest when rating it would revise published lists (docs/ingest.md "Games long
before the published lists"); an Event column beside White ID is the event."""

from __future__ import annotations

from arpad.pipeline.cli import main


def test_games_a_year_before_the_latest_published_list_are_noted(tmp_path, capsys):
    """The Gros TRF dated 2016 instead of 2026 was stored without a word, then `rate`
    re-rated from 201610 and 48 players of the published 202610 list changed."""
    (tmp_path / "p.csv").write_text(
        "player_id,name,rating\n1,Aa,2000\n2,Bb,2100\n3,Cc,1900\n4,Dd,2050\n"
    )
    (tmp_path / "oct.csv").write_text(
        "date,white_id,black_id,result\n2026-10-03,1,2,1-0\n2026-10-04,3,4,0-1\n"
    )
    s = str(tmp_path / "s")
    argv = ["ingest", str(tmp_path / "oct.csv"), "--players", str(tmp_path / "p.csv")]
    assert main([*argv, "--store", s]) == 0
    assert main(["rate", "--system", "fide", "--store", s]) == 0
    assert main(["publish", "--period", "202610", "--store", s]) == 0
    capsys.readouterr()
    # a late result of September (a month before the list): no note
    (tmp_path / "sep.csv").write_text("date,white_id,black_id,result\n2026-09-20,1,3,1-0\n")
    assert main(["ingest", str(tmp_path / "sep.csv"), "--store", s]) == 0
    assert "more than a year before" not in capsys.readouterr().out
    # 2016 for 2026: three games 120 months before the list
    rows = "2016-10-03,1,4,1-0\n2016-10-04,2,3,1/2-1/2\n2016-11-02,2,4,0-1\n"
    (tmp_path / "typo.csv").write_text("game_id,date,white_id,black_id,result\n" + rows.replace(
        "2016-10-03", "g1,2016-10-03").replace("2016-10-04", "g2,2016-10-04").replace(
        "2016-11-02", "g3,2016-11-02"))  # fmt: skip
    assert main(["ingest", str(tmp_path / "typo.csv"), "--store", s]) == 0
    out = capsys.readouterr().out
    assert (
        "note: 3 game(s) dated more than a year before the latest published fide/standard "
        "list (202610; e.g. game g1, period 201610): rating them revises every list since"
    ) in out


def test_an_event_column_beside_white_id_is_read_as_the_event(tmp_path, capsys):
    """`Date,White ID,Black ID,Result,Event`: the Event column was ignored unsaid."""
    (tmp_path / "g.csv").write_text(
        "Date,White ID,Black ID,Result,Event,WhiteElo\n2026-10-05,1,2,0-1,Autumn Open,2000\n"
    )
    s = tmp_path / "s"
    assert main(["ingest", str(tmp_path / "g.csv"), "--store", str(s)]) == 0
    out = capsys.readouterr().out
    assert "note: column 'event' read as event_id" in out
    assert "note: column 'whiteelo' read as white_rating" in out
    assert main(["sql", "SELECT event_id, white_rating FROM games", "--store", str(s),
                 "--format", "csv"]) == 0  # fmt: skip
    assert capsys.readouterr().out.splitlines()[1:] == ["Autumn Open,2000.0"]
