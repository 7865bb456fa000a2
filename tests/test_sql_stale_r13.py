"""Analyst, round 13: after `arpad players merge`, before the store is rated again, `arpad
sql` answered from the old ratings with no note (the merged duplicate still counted in
`period_summary`), while `arpad list` warned that they were out of date. `arpad sql` now
says so on stderr, in `arpad list`'s words, and its output is unchanged."""

from __future__ import annotations

from arpad.pipeline.cli import main

GAMES = "date,white_id,black_id,result\n2025-01-10,a,b,1-0\n2025-01-12,a2,b,0-1\n"


def test_sql_after_a_merge_names_the_stale_ratings(tmp_path, capsys):
    (tmp_path / "g.csv").write_text(GAMES)
    s = str(tmp_path / "S")
    assert main(["ingest", str(tmp_path / "g.csv"), "--store", s, "--no-flow"]) == 0
    assert main(["rate", "--system", "elo", "--store", s, "--no-flow"]) == 0
    query = ["sql", "SELECT count(*) AS n FROM ratings", "--store", s, "--format", "csv"]
    capsys.readouterr()
    assert main(query) == 0
    assert capsys.readouterr().err == ""  # nothing stale: nothing said
    assert main(["players", "merge", "a", "a2", "--store", s]) == 0
    capsys.readouterr()
    assert main(query) == 0
    out, err = capsys.readouterr()
    assert out == "n\n3\n"  # the rows as they are: a, a2 and b
    assert err == (
        "arpad: note: the elo/standard ratings are out of date: games or players changed "
        "since they were rated (stale from period 202501); run arpad rate --system elo "
        "--pool standard first\n"
    )
    assert main(["rate", "--system", "elo", "--store", s, "--no-flow"]) == 0
    capsys.readouterr()
    assert main(query) == 0
    out, err = capsys.readouterr()
    assert (out, err) == ("n\n2\n", "")
