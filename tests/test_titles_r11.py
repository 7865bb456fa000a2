"""A player's titles: the register is the authority (rating officer, round 11).

docs/lists.md "What a list holds" and docs/ingest.md "The register wins": a players file
with a ``title`` or ``w_title`` column gives the player's titles whole, an empty cell
too (no such title); a TRF's title does not change them. A TRF's women's title (``wg``
``wm`` ``wf`` ``wc``) is the player's WTit, not her Tit; a list shows a women's title
without an open title in both fields, as FIDE's lists do ("WIM WIM"), whichever file gave
it. A TRF's title unlike the register's is a conflict (``players --conflicts``) and
``players --id`` shows each source's ``w_title``.

The case: the register gives Gamma and Delta ``title`` empty, ``w_title`` WIM; a TRF has
Gamma's old ``WFM``. Before, the list showed Gamma "WFM WIM" and Delta " WIM" (Tit
empty), a register's empty title could not clear a TRF's, ``players --id`` had no
``w_title`` and ``players --conflicts`` said 0 conflicts."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from arpad.pipeline.cli import main
from arpad.pipeline.list_text import listed_titles
from arpad.pipeline.readers import read_any
from arpad.pipeline.store import Store

REGISTER = (
    "player_id,name,sex,birth_year,title,w_title,rating,rated_games\n"
    '5000003,"Gamma, Gina",F,1995,,WIM,2050,100\n'
    '5000004,"Delta, Dora",F,1988,,WIM,2200,300\n'
    '5000001,"Alpha, Adam",M,1990,FM,,2390,150\n'
)
# Alpha (FM) and Gamma draw one game on 2025-11-08 (the officer's nov.trf).
LINES = (
    "001    1 m FM Alpha, Adam                       2390 NOR     5000001 1990/01/01"
    "  0.5    1     2 w =",
    "001    2 wWFM Gamma, Gina                       2050 NOR     5000003 1995/01/01"
    "  0.5    2     1 b =",
)


def trf(path: Path, gamma: str = "WFM", alpha: str = " FM", day: str = "08") -> Path:
    """The one-game TRF with Gamma's and Alpha's title fields (columns 11-13) as given."""
    lines = [LINES[0][:10] + alpha + LINES[0][13:], LINES[1][:10] + gamma + LINES[1][13:]]
    head = ["012 Test Open", f"042 2025/11/{day}", "092 Individual: Round-Robin (Standard)"]
    head.append("132" + " " * 88 + f"25/11/{day}")
    path.write_text("\n".join([*head, *lines]) + "\n")
    return path


def run(*args: str) -> int:
    flow = ["--no-flow"] if args[0] in ("ingest", "rate") else []
    return main([*args, *flow])


def players(root: Path) -> dict[str, dict]:
    return {r["player_id"]: r for r in Store(root).read_players().to_pylist()}


def csv_out(capsys, *args: str) -> pl.DataFrame:
    capsys.readouterr()
    assert run(*args, "--format", "csv") == 0
    text = capsys.readouterr().out
    return pl.read_csv(text.encode(), infer_schema=False)


def test_a_trfs_wfm_does_not_stand_beside_the_registers_wim(tmp_path, capsys):
    (tmp_path / "reg.csv").write_text(REGISTER)
    nov = trf(tmp_path / "nov.trf")
    root = str(tmp_path / "S")
    assert run("ingest", str(nov), "--players", str(tmp_path / "reg.csv"), "--store", root) == 0
    out = capsys.readouterr().out
    assert (
        "1 player(s) whose name, title or federation in the file differs from the players "
        "file's (the register's value is kept; e.g. 5000003: w_title WFM here, WIM in the "
        "register)"
    ) in out
    table = players(tmp_path / "S")
    assert (table["5000003"]["title"], table["5000003"]["w_title"]) == (None, "WIM")
    assert (table["5000001"]["title"], table["5000001"]["w_title"]) == ("FM", None)
    assert run("rate", "--system", "fide", "--store", root) == 0
    capsys.readouterr()
    assert run("list", "--store", root, "--format", "fide-txt") == 0
    lines = capsys.readouterr().out.splitlines()
    # columns Tit 85-89 and WTit 90-94 (lists.FIDE_TXT_LAYOUT): both women alike
    titles = {line[:15].strip(): (line[84:89].strip(), line[89:94].strip()) for line in lines[1:]}
    assert titles == {
        "5000001": ("FM", ""),
        "5000003": ("WIM", "WIM"),
        "5000004": ("WIM", "WIM"),
    }


def test_an_empty_title_cell_of_the_register_clears_a_trfs_title(tmp_path, capsys):
    root = str(tmp_path / "S")
    # A TRF first: Gamma WFM (her WTit), Alpha IM.
    first = trf(tmp_path / "a.trf", alpha="  m", gamma=" wf")
    assert run("ingest", str(first), "--store", root) == 0
    table = players(tmp_path / "S")
    assert (table["5000003"]["title"], table["5000003"]["w_title"]) == (None, "WFM")
    assert (table["5000001"]["title"], table["5000001"]["w_title"]) == ("IM", None)
    # The register: Alpha FM, Gamma no open title and WIM. Its values replace the TRF's,
    # Gamma's empty title cell too.
    (tmp_path / "reg.csv").write_text(REGISTER)
    assert run("ingest", "--players", str(tmp_path / "reg.csv"), "--store", root) == 0
    table = players(tmp_path / "S")
    assert (table["5000003"]["title"], table["5000003"]["w_title"]) == (None, "WIM")
    assert (table["5000001"]["title"], table["5000001"]["w_title"]) == ("FM", None)
    # An update of the register with an empty title for Alpha: he has none now.
    (tmp_path / "reg2.csv").write_text("player_id,title\n5000001,\n")
    assert run("ingest", "--players", str(tmp_path / "reg2.csv"), "--store", root) == 0
    assert players(tmp_path / "S")["5000001"]["title"] is None
    # A players file without a title column says nothing of titles: they stay.
    (tmp_path / "reg3.csv").write_text("player_id,rating\n5000003,2060\n")
    assert run("ingest", "--players", str(tmp_path / "reg3.csv"), "--store", root) == 0
    assert players(tmp_path / "S")["5000003"]["w_title"] == "WIM"
    # And a later TRF's title does not replace the register's.
    later = trf(tmp_path / "b.trf", alpha="  g", gamma=" wg", day="22")
    assert run("ingest", str(later), "--store", root) == 0
    table = players(tmp_path / "S")
    assert (table["5000003"]["title"], table["5000003"]["w_title"]) == (None, "WIM")
    assert (table["5000001"]["title"], table["5000001"]["w_title"]) == (None, None)


def test_players_id_and_conflicts_show_the_titles_per_source(tmp_path, capsys):
    (tmp_path / "reg.csv").write_text(REGISTER)
    root = str(tmp_path / "S")
    nov = trf(tmp_path / "nov.trf")
    assert run("ingest", str(nov), "--players", str(tmp_path / "reg.csv"), "--store", root) == 0
    seen = csv_out(capsys, "players", "--store", root, "--id", "5000003")
    got = seen.select("source", "title", "w_title").sort("source").rows()
    # the register's empty title cell is kept as "" (no title); the TRF said none (null)
    assert got == [("nov.trf", None, "WFM"), ("reg.csv", "", "WIM")]
    capsys.readouterr()
    assert run("players", "--store", root, "--conflicts") == 0
    assert "1 player(s) with conflicting values across sources" in capsys.readouterr().out
    clash = csv_out(capsys, "players", "--store", root, "--conflicts")
    assert clash.select("player_id", "source", "field", "value").rows() == [
        ("5000003", "nov.trf", "w_title", "WFM"),
        ("5000003", "reg.csv", "w_title", "WIM"),
    ]
    # A TRF that agrees ("wm" for Gamma) is no conflict; one giving Alpha GM, whose
    # register title is FM, is.
    assert run("ingest", str(trf(nov, alpha="  g", gamma=" wm")), "--store", root) == 0
    clash = csv_out(capsys, "players", "--store", root, "--conflicts")
    assert clash.select("player_id", "source", "field", "value").rows() == [
        ("5000001", "nov.trf", "title", "GM"),
        ("5000001", "reg.csv", "title", "FM"),
    ]
    # A register's empty title is "none" against a TRF's open title (Gamma as an IM).
    assert run("ingest", str(trf(nov, alpha=" FM", gamma="  m")), "--store", root) == 0
    clash = csv_out(capsys, "players", "--store", root, "--conflicts")
    assert clash.select("player_id", "source", "field", "value").rows() == [
        ("5000003", "nov.trf", "title", "IM"),
        ("5000003", "reg.csv", "title", "none"),
    ]
    # Games files alone are not compared: a TRF of the 22nd may name the WIM of a
    # promotion after the 8th's WFM; without a register the latest TRF's title is kept.
    root = str(tmp_path / "T")
    assert run("ingest", str(trf(tmp_path / "a.trf", gamma=" wf")), "--store", root) == 0
    later = trf(tmp_path / "b.trf", gamma=" wm", day="22")
    assert run("ingest", str(later), "--store", root) == 0
    assert players(tmp_path / "T")["5000003"]["w_title"] == "WIM"
    capsys.readouterr()
    assert run("players", "--store", root, "--conflicts") == 0
    assert "0 player(s) with conflicting values across sources" in capsys.readouterr().out


def test_the_trf_reader_gives_a_womens_title_as_w_title(tmp_path):
    path = trf(tmp_path / "t.trf", alpha="  f", gamma=" wc")
    rows = {r["player_id"]: r for r in read_any(path).players.iter_rows(named=True)}
    assert (rows["5000001"]["title"], rows["5000001"]["w_title"]) == ("FM", None)
    assert (rows["5000003"]["title"], rows["5000003"]["w_title"]) == (None, "WCM")
    path = trf(tmp_path / "u.trf", alpha="   ", gamma="WGM")  # spelt out
    rows = {r["player_id"]: r for r in read_any(path).players.iter_rows(named=True)}
    assert (rows["5000001"]["title"], rows["5000001"]["w_title"]) == (None, None)
    assert (rows["5000003"]["title"], rows["5000003"]["w_title"]) == (None, "WGM")


def test_listed_titles_put_a_womens_title_in_both_fields():
    frame = pl.DataFrame(
        {
            "title": [None, "", "wim", "IM", "GM", "FM", None],
            "w_title": ["WIM", "WFM", None, "WGM", None, " ", None],
        }
    )
    got = frame.select(listed_titles()).rows()
    assert got == [
        ("WIM", "WIM"),  # a register's ",WIM"
        ("WFM", "WFM"),
        ("wim", "WIM"),  # (a title given is kept as written)
        ("IM", "WGM"),
        ("GM", None),
        ("FM", " "),
        (None, None),
    ]


def test_the_rating_list_view_shows_a_womens_title_alone_as_the_title(tmp_path, capsys):
    """The catalog's ``rating_list`` view read ``players.title`` as it is: with a TRF's women's
    title now kept as ``w_title`` (and a register's ``,WIM``), Gamma and Delta had an empty
    title there while every list file shows WIM (docs/lists.md "Titles")."""
    (tmp_path / "reg.csv").write_text(REGISTER)
    nov = trf(tmp_path / "nov.trf")
    root = str(tmp_path / "S")
    assert run("ingest", str(nov), "--players", str(tmp_path / "reg.csv"), "--store", root) == 0
    assert run("rate", "--system", "fide", "--store", root) == 0
    query = "select player_id, title from rating_list where system = 'fide' order by player_id"
    rows = csv_out(capsys, "sql", query, "--store", root)
    titles = dict(zip(rows["player_id"], rows["title"], strict=True))
    assert titles == {"5000001": "FM", "5000003": "WIM", "5000004": "WIM"}
