"""Analyst round 13, finding 4: ``arpad predict PAIRS --store S`` and
``arpad.predict(arpad.Store(S), …)`` ignored the store's merges: a pairing naming a2,
merged into a (``arpad players merge a a2``), came back without a rating while a in
the same call got his. docs/identity.md "Merged ids everywhere": a merged duplicate id
is read as the id it was merged into, with a note naming both."""

from __future__ import annotations

import warnings

import polars as pl
import pytest

import arpad
from arpad.pipeline.cli import main

# The analyst's mg.csv: a and a2 are one player, each game stating both ratings.
GAMES = """date,white_id,black_id,result,white_rating,black_rating
2023-01-10,a,b,1-0,2000,2000
2023-02-10,a2,b,1/2-1/2,2010,1990
2023-02-20,c,a,1-0,1900,2010
2023-03-10,d,a2,0-1,1850,2005
2023-03-15,d,b,1-0,,
"""
NOTE = "pairings: a2 was merged into a (arpad players --merges): read with the kept id's rating"


@pytest.fixture
def merged(tmp_path) -> str:
    """The store after the merge and the re-rate. By hand (FIDE table 8.1.2, K 20: no
    rated_games given): a beats b in January, 2000 → 2010; in February a (2010) draws b
    (1990, D 20 → .53: −0.03) and loses to c (1900, D 110 → .65: −0.65), −13.6 → 1996;
    in March a is re-seeded at his stated 2005 and beats d (1850, D 155 → .71: +0.29),
    +5.8 → 2011. c (1900) beats a (2010) in February: +0.65 × 20 = 13 → 1913. d, first stated 1850 in March, loses to a (−0.29) and beats b (1991,
    D 141 → .31: +0.69): +0.40 × 20 = 8 → 1858. a against d: D 153 → .70; d against
    c: D 55 → .42."""
    (tmp_path / "mg.csv").write_text(GAMES)
    root = str(tmp_path / "st_mg")
    assert main(["ingest", str(tmp_path / "mg.csv"), "--store", root, "--no-flow"]) == 0
    assert main(["rate", "--system", "fide", "--store", root, "--no-flow"]) == 0
    assert main(["players", "merge", "a", "a2", "--store", root, "--reason", "test"]) == 0
    assert main(["rate", "--system", "fide", "--store", root, "--no-flow"]) == 0
    return root


PAIRS = pl.DataFrame({"white_id": ["a2", "a", "d"], "black_id": ["d", "d", "c"]})


def test_the_command_reads_a_merged_id_as_its_kept_id_with_a_note(merged, tmp_path, capsys):
    (tmp_path / "pairs.csv").write_text("white_id,black_id\na2,d\na,d\n")
    capsys.readouterr()
    code = main(["predict", str(tmp_path / "pairs.csv"), "--store", merged, "--format", "csv"])
    out, err = capsys.readouterr()
    assert code == 0
    assert out.splitlines() == [
        "white_id,black_id,white_rating,black_rating,expected",
        "a2,d,2011.0,1858.0,0.7",
        "a,d,2011.0,1858.0,0.7",
    ]
    assert f"note: {NOTE}" in err.splitlines()
    assert "without a fide/standard rating" not in err


def test_the_api_reads_a_merged_id_as_its_kept_id_with_a_warning(merged):
    with pytest.warns(UserWarning) as caught:
        got = arpad.predict(arpad.Store(merged), PAIRS)
    assert [str(w.message) for w in caught] == [NOTE]
    assert got.rows() == [
        ("a2", "d", 2011.0, 1858.0, 0.7),
        ("a", "d", 2011.0, 1858.0, 0.7),
        ("d", "c", 1858.0, 1913.0, 0.42),
    ]
    # the store folder's path is that store: the same
    with pytest.warns(UserWarning, match="a2 was merged into a"):
        assert arpad.predict(merged, PAIRS).equals(got)
    # no merged id among the pairings: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = arpad.predict(arpad.Store(merged), PAIRS.tail(2))
    assert got["white_rating"].to_list() == [2011.0, 1858.0]
