"""``arpad players merge NEW OLD`` says when the kept id's own value of a fact the rules
read wins over the duplicate's (the rating officer's report, round 13, finding 4;
docs/identity.md "An id change"): a new id's register row with FIDE's count for a fresh
id (rated_games 0) makes an 80-game player a new one, K 40.

Eps (1900, 80 rated games: K 20) draws Eta (1700) in October: D 200, PD .76, ΔR -.26.
Under the new id with rated_games 0 he is a new player, K 40: -10.4 -> -10, 1890 (with
the old id's 80 games, K 20: -5.2 -> -5, 1895)."""

from __future__ import annotations

from arpad.pipeline.cli import main
from arpad.pipeline.store import Store

REGISTER = (
    "player_id,name,federation,sex,birth_year,rating,rated_games\n"
    '1000005,"Eps, Erik",HUN,M,1980,1900,80\n'
    '1000007,"Eta, Eva",HUN,F,1990,1700,100\n'
)
OCTOBER = "date,white_id,black_id,result\n2025-10-12,1000005,1000007,1/2-1/2\n"
NOTE_END = (
    '; the kept id\'s own values win (docs/identity.md "An id change"): if this is an id '
    "change, give 1000055's players-file row the old id's values and ingest it again"
)


def merged(tmp_path, capsys, new_row: str, header: str = REGISTER.splitlines()[0]):
    """A store of ``REGISTER`` and ``OCTOBER``, then a register with ``new_row`` (Eps
    under his new id 1000055) and ``players merge 1000055 1000005``: the merge's stderr."""
    root = tmp_path / "S"
    (tmp_path / "reg.csv").write_text(REGISTER)
    (tmp_path / "oct.csv").write_text(OCTOBER)
    (tmp_path / "new.csv").write_text(f"{header}\n{new_row}\n")
    store = ["--store", str(root)]
    assert main(["ingest", "--players", str(tmp_path / "reg.csv"), *store]) == 0
    assert main(["ingest", str(tmp_path / "oct.csv"), *store]) == 0
    assert main(["ingest", "--players", str(tmp_path / "new.csv"), *store]) == 0
    capsys.readouterr()
    assert main(["players", "merge", "1000055", "1000005", *store]) == 0
    return root, capsys.readouterr().err


def test_a_fresh_ids_zero_rated_games_is_said(tmp_path, capsys):
    root, err = merged(tmp_path, capsys, '1000055,"Eps, Erik",HUN,M,1980,1900,0')
    assert (
        "arpad: note: 1000055 keeps rated_games 0 (1000005 had rated_games 80): K follows 0"
        + NOTE_END
    ) in err
    # and so it rates: a new player, K 40 (the note tells the truth)
    assert main(["rate", "--system", "fide", "--store", str(root), "--no-flow"]) == 0
    rows = Store(root).read_ratings("fide", "standard", 202510).to_pylist()
    eps = next(r for r in rows if r["player_id"] == "1000055")
    assert (eps["rating_before"], eps["rating_after"], eps["k"]) == (1900, 1890, 40)


def test_every_fact_that_differs_is_named(tmp_path, capsys):
    _, err = merged(tmp_path, capsys, '1000055,"Eps, Erik",HUN,M,1981,1933,')
    assert (
        "arpad: note: 1000055 keeps rating 1933, birth_year 1981 (1000005 had rating 1900, "
        "birth_year 1980)" + NOTE_END
    ) in err


def test_a_new_id_without_those_values_is_no_note(tmp_path, capsys):
    # the register of an id change as FIDE's id list gives it: the old id's facts fill in
    header = "player_id,name,federation,sex,birth_year"
    _, err = merged(tmp_path, capsys, '1000055,"Eps, Erik",HUN,M,1980', header=header)
    assert "keeps" not in err


def test_the_same_values_are_no_note(tmp_path, capsys):
    _, err = merged(tmp_path, capsys, '1000055,"Eps, Erik",HUN,M,1980,1900,80')
    assert "keeps" not in err
