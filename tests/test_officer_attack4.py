"""The published files as the federation's members, clubs and FIDE read them
(docs/lists.md "Published files checked, round 4"): each file opened in the tool a
reader would use (Python's csv module, json, an XML parser, an HTML parser, a
fixed-width reader counting screen columns) and compared with the store. Tests named
as defects failed before their fix."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import unicodedata
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from arpad.pipeline.cli import main
from arpad.pipeline.list_text import display_width, fit, name_key, tenths
from arpad.pipeline.store import Store

# docs/lists.md "FIDE TXT": (column, 0-based start, width), in screen columns here
from tests.test_lists import TXT_LAYOUT

LONG_CJK = "龍" * 40  # 80 screen columns: longer than the 60 the Name field shows
NAMES = {
    "1001": "Zeller, Anna",
    "1002": "adams, Bo",
    "1003": "Müller, Jörg",
    "1004": "Иванов, Иван",
    "1005": "王, 小明",
    "1006": "Q\u0308uinn, Ana",  # Q + combining diaeresis (no precomposed form): 1 column
    "1007": "כהן, דוד",
    "1008": 'O"Brien, "Pat"',
    "1009": "Tab\tand\nline",
    "1010": LONG_CJK,
    "1011": "Öztürk, Ali",
    "1012": "de Boer, Jan",
    "1013": "Evil\u202e, Reversed",  # an unterminated right-to-left override
}
RATINGS = {
    "1001": 2400,
    "1002": 2400,
    "1003": 2500,
    "1004": 2300,
    "1005": 2200,
    "1006": 2100,
    "1007": 2050,
    "1008": 2000,
    "1009": 1990,
    "1010": 1980,
    "1011": 2400,
    "1012": 2400,
    "1013": 1970,
}
# players 1001, 1002, 1011, 1012 play nobody: FIDE keeps their 2400 (a four-way tie)
GAMES = [
    ("2024-01-05", "1003", "1004", "1"),
    ("2024-01-06", "1005", "1006", "0.5"),
    ("2024-01-07", "1007", "1008", "1"),
    ("2024-01-08", "1009", "1010", "0"),
    ("2024-01-09", "1013", "1005", "0.5"),
]


def _csv_cell(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def build(root: Path, reverse: bool = False) -> Path:
    """A FIDE store of the names above, January 2024 rated (``reverse``: the players
    and games files written in the opposite order); returns the store root."""
    root.mkdir(parents=True, exist_ok=True)
    lines = ["player_id,name,federation,sex,birth_year,title,rating,rated_games"]
    for pid, name in sorted(NAMES.items(), reverse=reverse):
        sex = "F" if pid in ("1001", "1006") else "M"
        title = "GM" if pid == "1003" else ""
        lines.append(f"{pid},{_csv_cell(name)},GER,{sex},1990,{title},{RATINGS[pid]},100")
    (root / "players.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    games = ["date,white_id,black_id,score", *(",".join(g) for g in GAMES[:: -1 if reverse else 1])]
    (root / "games.csv").write_text("\n".join(games) + "\n")
    s = ["--store", str(root / "store")]
    assert main(["ingest", "--no-flow", str(root / "games.csv"), "--players",
                 str(root / "players.csv"), *s]) == 0  # fmt: skip
    assert main(["rate", "--no-flow", "--system", "fide", *s]) == 0
    return root / "store"


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> Path:
    """The folder of the published January 2024 FIDE list."""
    store = build(tmp_path_factory.mktemp("officer4"))
    assert main(["publish", "--store", str(store)]) == 0
    return Store(store).published_partition("fide", "standard", 202401)


def screen_slice(line: str, start: int, width: int) -> str:
    """The characters of ``line`` between screen columns start and start + width."""
    out, col = [], 0
    for ch in line:
        if start <= col < start + width:
            out.append(ch)
        col += display_width(ch)
    return "".join(out)


def read_fixed_width(text: str) -> list[dict[str, str]]:
    return [
        {name: screen_slice(line, start, width).strip() for name, start, width in TXT_LAYOUT}
        for line in text.splitlines()[1:]
    ]


# -- the fixed-width file -----------------------------------------------------------------


def test_fixed_width_file_aligns_every_script_by_screen_columns(published):
    """Defect: fields were padded and cut by characters, so a Chinese name (two screen
    columns a character) pushed its federation and rating right, and a combining accent
    (two characters, one column; ingest composes those that have a precomposed form)
    pulled them left: the columns of those lines
    no longer lined up under the header in a terminal or an editor."""
    text = (published / "list.txt").read_text(encoding="utf-8")
    lines = text.splitlines()
    for line in lines[1:]:
        # every line has the federation at screen column 76 and the rating at 113
        assert screen_slice(line, 76, 4) == "GER ", line
        assert screen_slice(line, 113, 6).strip().isdigit(), line
        assert screen_slice(line, 75, 1) == " "  # the space before Fed is kept
    rows = {r["ID Number"]: r for r in read_fixed_width(text)}
    assert len(rows) == len(NAMES)
    for pid in ("1003", "1004", "1005", "1007", "1008"):
        assert rows[pid]["Name"] == NAMES[pid]  # kept as given, in every script
    assert rows["1006"]["Name"] == NAMES["1006"]  # the combining accent stays with its e
    # 80 columns of CJK cut to the 60 the field shows (never half a character)
    assert rows["1010"]["Name"] == "龍" * 30
    assert display_width(rows["1010"]["Name"]) == 60
    assert rows["1009"]["Name"] == "Tab and line"  # control characters: spaces (round 1)


def test_right_to_left_override_in_a_name_is_not_written_to_the_fixed_width_file(published):
    """Defect: a name holding U+202E (right-to-left override, never closed) made an
    editor show the rest of its line, federation and rating included, reversed. The
    fixed-width file drops bidi controls; the machine formats keep the name as given."""
    text = (published / "list.txt").read_text(encoding="utf-8")
    line = next(line for line in text.splitlines() if line.startswith("1013 "))
    assert not any(unicodedata.category(ch) == "Cf" for ch in line)
    assert line[15:76].rstrip() == "Evil, Reversed"
    names = {r["player_id"]: r["name"] for r in json.loads((published / "list.json").read_text())}
    assert names["1013"] == NAMES["1013"]
    # Hebrew without controls is kept as given (its display is the viewer's bidi)
    assert "כהן, דוד" in text


def test_fit_counts_screen_columns():
    assert fit("abc", 5) == "abc  "
    assert fit("王小明", 5) == "王小 "  # 4 columns kept, one space before the next field
    assert fit("王小明", 6) == "王小  "  # the third would take columns 4-5: left out whole
    assert fit("Jose\u0301", 6) == "Jose\u0301  "  # five characters, four columns + 2 spaces
    assert fit("a\u202eb", 4) == "ab  "
    assert display_width(fit("龍" * 40, 61)) == 61


def test_header_line_and_column_positions_as_documented(published):
    head = (published / "list.txt").read_text(encoding="utf-8").splitlines()[0]
    assert head.split() == ["ID", "Number", "Name", "Fed", "Sex", "Tit", "WTit", "OTit",
                            "FOA", "FEB24", "Gms", "K", "B-day", "Flag"]  # fmt: skip
    for name, start, width in TXT_LAYOUT:
        assert head[start : start + width].strip() == (name if name != "Rating" else "FEB24")


# -- order, ties, rounding ----------------------------------------------------------------


def test_equal_ratings_share_a_rank_and_go_by_name(published):
    """Defect: four players with the same published 2400 were ranked by the store's
    hidden order (their ids: Zeller, adams, Öztürk, de Boer); the list is by rating,
    then by name (accents removed, case folded): adams, de Boer, Öztürk, Zeller, all
    ranked 2, the next player 6."""
    with open(published / "list.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    ties = [r for r in rows if r["rating"] == "2400"]
    assert [r["player_id"] for r in ties] == ["1002", "1012", "1011", "1001"]
    assert {r["rank"] for r in ties} == {"2"}
    # 2500 beat 2300 with K 10: D 200 -> PD 0.76 (FIDE table 8.1.2), +2.4 -> 2502
    assert rows[0]["rank"] == "1" and rows[0]["rating"] == "2502"
    assert rows[5]["rank"] == "6"
    ratings = [int(r["rating"]) for r in rows]
    assert ratings == sorted(ratings, reverse=True)
    # the fixed-width and XML files are alphabetical, as FIDE's downloads (round 14)
    txt = read_fixed_width((published / "list.txt").read_text(encoding="utf-8"))
    assert [r["ID Number"] for r in txt] == by_name(published)
    xml = [p.findtext("fideid") for p in ET.parse(published / "list.xml").getroot()]
    assert xml == by_name(published)


def by_name(published: Path) -> list[str]:
    """The ids of the published list in FIDE's download order: by name (accents
    removed, case folded), then as written, then id (docs/lists.md "FIDE TXT")."""
    rows = pq.read_table(published / "list.parquet").to_pylist()
    key = lambda r: (name_key(r["name"]), r["name"] or "", r["player_id"])  # noqa: E731
    return [r["player_id"] for r in sorted(rows, key=key)]


def test_name_key_is_alphabetical_not_code_points():
    names = ["Zeller", "Öztürk", "de Boer", "adams", "Bauer", "Ozols"]
    assert sorted(names, key=name_key) == ["adams", "Bauer", "de Boer", "Ozols", "Öztürk", "Zeller"]
    assert sorted(names) != sorted(names, key=name_key)  # code points put Ö and d after Z


def test_one_decimal_is_rounded_half_away_from_zero():
    """Defect: lists of systems that keep a decimal were rounded by Polars, half to even
    on the binary value: 1500.25 was listed 1500.2 and 0.05 as 0.0."""
    import polars as pl

    col = pl.Series("rating", [1500.25, 1500.35, 1499.95, -0.05, 0.05, 1499.9999999, None])
    assert tenths(col).to_list() == [1500.3, 1500.4, 1500.0, -0.1, 0.1, 1500.0, None]


def _elo_store(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    players = "player_id,name,rating\n2001,Bravo,1500.04\n2002,Alpha,1499.96\n"
    players += "2003,Charlie,1500\n2004,Delta,1500\n2005,Echo,1500.25\n2006,Foxtrot,1499.95\n"
    (root / "players.csv").write_text(players)
    games = "date,white_id,black_id,score\n2024-01-05,2001,2003,1\n2024-01-06,2002,2004,1\n"
    (root / "games.csv").write_text(games)
    s = ["--store", str(root / "store")]
    assert main(["ingest", "--no-flow", str(root / "games.csv"), "--players",
                 str(root / "players.csv"), *s]) == 0  # fmt: skip
    assert main(["rate", "--no-flow", "--system", "elo", *s]) == 0
    return root / "store"


def test_a_decimal_list_ranks_on_the_rating_it_shows(tmp_path, capsys):
    """Defect: Bravo (1510.0388) and Alpha (1509.9612) are both listed 1510.0 but were
    ranked 1 and 2, Bravo first, by decimals the list does not show; an inactive
    1500.25 was listed 1500.2. Now both are rank 1, Alpha first, and 1500.3."""
    store = _elo_store(tmp_path)
    capsys.readouterr()
    assert main(["list", "--store", str(store), "--system", "elo", "--format", "csv"]) == 0
    rows = list(csv.DictReader(capsys.readouterr().out.splitlines()))
    got = [(r["rank"], r["name"], r["rating"], r["flag"]) for r in rows]
    assert got == [
        ("1", "Alpha", "1510.0", ""),
        ("1", "Bravo", "1510.0", ""),
        ("3", "Charlie", "1490.0", ""),
        ("3", "Delta", "1490.0", ""),
        ("", "Echo", "1500.3", "i"),
        ("", "Foxtrot", "1500.0", "i"),  # 1499.95 shows as 1500.0, never 1499.9
    ]
    # the stored values, for the record: the list rounds, the store keeps them
    table = pq.read_table(Store(store).rating_partition("elo", "standard", 202401))
    stored = dict(zip(table["player_id"].to_pylist(), table["rating_after"].to_pylist()))
    assert stored["2001"] > 1510.0 > stored["2002"] > 1509.95  # two ratings, one shown
    assert stored["2005"] == 1500.25


# -- every format read back in its reader's tool -------------------------------------------


def test_every_format_reads_back_in_its_readers_tool(published):
    """CSV with Python's csv module, JSON with json, XML with ElementTree, Parquet with
    pyarrow: the same players, the same order, names as stored (CSV: a formula start
    gets an apostrophe, round 2), whole-number ratings written without ``.0``."""
    with open(published / "list.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["rank", "player_id", "name", "federation", "sex", "title",
                             "w_title", "o_title", "foa_title", "rating", "games", "k",
                             "birth_year", "flag", "status"]  # fmt: skip
    order = [r["player_id"] for r in rows]
    assert {r["player_id"]: r["name"] for r in rows} == NAMES  # comma, quote, tab, newline
    assert all(r["rating"].isdigit() for r in rows)
    data = json.loads((published / "list.json").read_text(encoding="utf-8"))
    assert [d["player_id"] for d in data] == order
    assert {d["player_id"]: d["name"] for d in data} == NAMES
    assert all(type(d["rating"]) is int and type(d["games"]) is int for d in data)
    root = ET.parse(published / "list.xml").getroot()
    xml = {p.findtext("fideid"): p for p in root}
    assert list(xml) == by_name(published)  # alphabetical, as FIDE's (round 14)
    # XML keeps every name but its control characters (round 1): tab and LF are legal
    # XML characters, so they are kept too; an XML parser normalises nothing in text
    assert {k: p.findtext("name") for k, p in xml.items()} == NAMES
    assert xml["1001"].findtext("flag") == "w" and xml["1003"].findtext("title") == "GM"
    assert xml["1002"].findtext("k") == "" and xml["1003"].findtext("k") == "10"
    table = pq.read_table(published / "list.parquet")
    assert table["player_id"].to_pylist() == order
    assert table["name"].to_pylist() == [NAMES[i] for i in order]


class _Cells(HTMLParser):
    """The text of every ``<td>`` of the list table, row by row."""

    def __init__(self):
        super().__init__()
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag == "td":
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def test_html_list_page_shows_every_name_as_given(published, tmp_path):
    store = published.parents[3]
    out = tmp_path / "site"
    assert main(["site", "--store", str(store), "--out", str(out)]) == 0
    page = next((out / "lists").glob("*.html")).read_text(encoding="utf-8")
    assert '<meta charset="utf-8">' in page
    parser = _Cells()
    parser.feed(page)
    rows = [r for r in parser.rows if r]
    assert len(rows) == len(NAMES)
    names = {name for row in rows for name in row}
    assert set(NAMES.values()) <= names  # escaped on the way in, unescaped by the parser


def test_one_player_list_in_every_format(tmp_path):
    root = tmp_path
    (root / "players.csv").write_text("player_id,name,rating\n3001,Solo,1500.5\n")
    (root / "games.csv").write_text("date,white_id,black_id,score\n2024-01-05,3001,3002,1\n")
    s = ["--store", str(root / "store")]
    assert main(["ingest", "--no-flow", str(root / "games.csv"), "--players",
                 str(root / "players.csv"), *s]) == 0  # fmt: skip
    assert main(["rate", "--no-flow", "--system", "elo", *s]) == 0
    assert main(["publish", "--system", "elo", *s]) == 0
    folder = Store(root / "store").published_partition("elo", "standard", 202401)
    txt = (folder / "list.txt").read_text().splitlines()
    rows = list(csv.DictReader((folder / "list.csv").read_text().splitlines()))
    data = json.loads((folder / "list.json").read_text())
    xml = list(ET.parse(folder / "list.xml").getroot())
    assert len(txt) - 1 == len(rows) == len(data) == len(xml) >= 1
    assert [r["player_id"] for r in rows] == [d["player_id"] for d in data]
    assert [r["rating"] for r in rows] == [str(d["rating"]) for d in data]


# -- determinism --------------------------------------------------------------------------


def _digests(folder: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.iterdir())
        if p.name.startswith("list.")
    }


def test_the_same_list_published_twice_gives_the_same_bytes(published, tmp_path):
    """Two stores built from the same players and games, given in the opposite order,
    publish byte-identical list files (the manifest differs only in ``published_at``
    and the run ids)."""
    store = build(tmp_path / "again", reverse=True)
    assert main(["publish", "--store", str(store)]) == 0
    again = Store(store).published_partition("fide", "standard", 202401)
    assert _digests(again) == _digests(published)
    assert len(_digests(published)) == 5  # txt, xml, csv, json, parquet
    first = json.loads((published / "manifest.json").read_text())
    second = json.loads((again / "manifest.json").read_text())
    lists = {name: digest for name, digest in first["files"].items() if name.startswith("list.")}
    assert lists == {n: d for n, d in second["files"].items() if n.startswith("list.")}
    # games.parquet differs: a CSV game without a game_id is named by its file and line
    assert first["files"]["games.parquet"] != second["files"]["games.parquet"]


# -- the combined file ----------------------------------------------------------------------

# FIDE's players_list_foa.txt header as its public parsers read it: SRtng, RRtng, Rk,
# BRtng (arpad wrote SRtg, RRtg, RK, BRtg); (header, 0-based start)
FIDE_COMBINED_HEADER = [
    ("ID Number", 0), ("Name", 15), ("Fed", 76), ("Sex", 80), ("Tit", 84), ("WTit", 89),
    ("OTit", 94), ("FOA", 109), ("SRtng", 113), ("SGm", 119), ("SK", 123), ("RRtng", 126),
    ("RGm", 132), ("Rk", 136), ("BRtng", 139), ("BGm", 145), ("BK", 149), ("B-day", 152),
    ("Flag", 158),
]  # fmt: skip


def test_combined_file_has_fides_headers_and_alphabetical_order(tmp_path, capsys):
    """Defects: the combined file's rating headers were SRtg/RRtg/RK/BRtg where FIDE's
    file (and a parser that finds its columns by name) has SRtng/RRtng/Rk/BRtng; and it
    was sorted by code point, so ``de Boer`` and ``Öztürk`` came after ``Zeller``."""
    names = {"4001": "Zeller, Z", "4002": "Öztürk, Ali", "4003": "de Boer, Jan",
             "4004": "Bauer, Udo", "4005": "Ozols, Ivo", "4006": "王, 小明"}  # fmt: skip
    lines = ["player_id,name,federation,rating,rated_games"]
    lines += [f"{pid},{_csv_cell(n)},LAT,2000,100" for pid, n in names.items()]
    (tmp_path / "players.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    games = ["date,white_id,black_id,score,pool", "2024-01-05,4001,4002,1,standard",
             "2024-01-06,4003,4004,0.5,standard", "2024-01-06,4005,4006,0,standard",
             "2024-01-07,4001,4006,1,rapid"]  # fmt: skip
    (tmp_path / "games.csv").write_text("\n".join(games) + "\n")
    s = ["--store", str(tmp_path / "store")]
    assert main(["ingest", "--no-flow", str(tmp_path / "games.csv"), "--players",
                 str(tmp_path / "players.csv"), *s]) == 0  # fmt: skip
    for pool in ("standard", "rapid"):
        assert main(["rate", "--no-flow", "--system", "fide", "--pool", pool, *s]) == 0
    capsys.readouterr()
    assert main(["list", "--pool", "all", "--format", "fide-txt", *s]) == 0
    text = capsys.readouterr().out.splitlines()
    head = text[0]
    for i, (name, start) in enumerate(FIDE_COMBINED_HEADER):
        end = FIDE_COMBINED_HEADER[i + 1][1] if i + 1 < len(FIDE_COMBINED_HEADER) else None
        assert head[start:end].strip() == name
    ids = [line[:15].strip() for line in text[1:]]
    assert ids == ["4004", "4003", "4005", "4002", "4001", "4006"]  # Bauer .. Zeller, 王
    for line in text[1:]:
        assert screen_slice(line, 76, 4) == "LAT ", line
        assert screen_slice(line, 113, 6).strip().isdigit()


# -- the XML writer -------------------------------------------------------------------------


def _elementtree_xml(rows, elements) -> str:
    """The reference: the list XML as ElementTree writes it (arpad's writer until round 4)."""
    from arpad.pipeline.lists import _NOT_XML

    root = ET.Element("playerslist")
    for row in rows:
        player = ET.SubElement(root, "player")
        for element, column in elements:
            value = row[column]
            text = None if value is None else _NOT_XML.sub(" ", str(value))
            ET.SubElement(player, element).text = text
    ET.indent(root, space="")
    buf = io.BytesIO()
    ET.ElementTree(root).write(buf, encoding="utf-8", xml_declaration=True)
    return buf.getvalue().decode("utf-8") + "\n"


@pytest.mark.parametrize("count", [0, 1, 3])
def test_xml_writer_is_elementtrees_output_byte_for_byte(count):
    """The XML list was built as an ElementTree (9.7 s of a 200k-player publish); it is
    now written as strings (2.0 s), and must stay what ElementTree writes."""
    import polars as pl

    from arpad.pipeline.lists import FIDE_XML_ELEMENTS, fide_xml

    values = ["A & B <c> \"d\" 'e'", "]]>", "", None, "王\x0b小明", "tab\there\r\nx", "כהן"]
    rows = []
    for i in range(count):
        row = {column: values[(i + j) % len(values)] for j, (_, column) in
               enumerate(FIDE_XML_ELEMENTS)}  # fmt: skip
        row["rating"], row["games"] = 2400 + i, (None if i == 1 else i)
        rows.append(row)
    schema = {c: (pl.Int64 if c in ("rating", "games") else pl.String)
              for _, c in FIDE_XML_ELEMENTS}  # fmt: skip
    frame = pl.DataFrame(rows, schema=schema)
    assert fide_xml(frame) == _elementtree_xml(frame.iter_rows(named=True), FIDE_XML_ELEMENTS)
    parsed = ET.fromstring(fide_xml(frame).encode("utf-8"))
    assert len(parsed) == count


@pytest.mark.parametrize("lower_is_better", [False, True])
def test_order_and_rank_against_a_naive_ranking(lower_is_better):
    """``order_and_rank`` against a naive walk: active players first, by rating (ascending
    when lower is better, Ingo), then name key, name, id; a rank is 1 + the number of
    active players with a better published rating; inactive players have none."""
    import random

    import polars as pl

    from arpad.pipeline.list_text import order_and_rank

    rng = random.Random(4)
    names = ["Öztürk", "Ozols", "de Boer", "Bauer", "bauer", "王", None, "Zeller"]
    rows = [
        {
            "player_id": f"{i:04d}",
            "name": rng.choice(names),
            "rating": float(rng.choice([1500, 1510, 1490, 1500.5])),
            "status": rng.choice(["rated", "rated", "new", "inactive"]),
        }
        for i in range(200)
    ]
    frame = pl.DataFrame(rows, schema={"player_id": pl.String, "name": pl.String,
                                       "rating": pl.Float64, "status": pl.String})  # fmt: skip
    out = order_and_rank(frame, lower_is_better).to_dicts()
    sign = 1 if lower_is_better else -1

    def key(r):
        inactive = r["status"] == "inactive"
        return (inactive, sign * r["rating"], name_key(r["name"]), r["name"] or "", r["player_id"])

    assert [r["player_id"] for r in out] == [r["player_id"] for r in sorted(rows, key=key)]
    active = [r for r in rows if r["status"] != "inactive"]
    for r in out:
        if r["status"] == "inactive":
            assert r["rank"] is None
        else:
            better = sum(sign * a["rating"] < sign * r["rating"] for a in active)
            assert r["rank"] == 1 + better


# -- numbers wider than their column --------------------------------------------------------


def test_a_number_too_wide_for_its_column_is_refused_not_cut(tmp_path, capsys):
    """Defect: 1,000 games in a period were written as ``100`` in the 4-wide Gms column
    (cut to keep one space before K): a wrong number with nothing to say so. Now
    ``list --format fide-txt`` is exit 2 naming the player, the column and the value,
    and ``publish`` writes the other files and says why list.txt is not written."""
    (tmp_path / "players.csv").write_text("player_id,name,rating\n5001,Busy,1500\n5002,Also,1500\n")
    games = ["date,white_id,black_id,score"]
    games += [f"2024-01-{1 + i % 28:02d},5001,5002,{i % 2}" for i in range(1000)]
    (tmp_path / "games.csv").write_text("\n".join(games) + "\n")
    s = ["--store", str(tmp_path / "store")]
    assert main(["ingest", "--no-flow", str(tmp_path / "games.csv"), "--players",
                 str(tmp_path / "players.csv"), *s]) == 0  # fmt: skip
    assert main(["rate", "--no-flow", "--system", "elo", *s]) == 0
    capsys.readouterr()
    assert main(["list", "--system", "elo", "--format", "csv", *s]) == 0
    rows = list(csv.DictReader(capsys.readouterr().out.splitlines()))
    assert {r["games"] for r in rows} == {"1000"}
    assert main(["list", "--system", "elo", "--format", "fide-txt", *s]) == 2
    err = capsys.readouterr().err.strip()
    assert "player 500" in err and "Gms 1000 does not fit" in err and len(err.splitlines()) == 1
    assert main(["publish", "--system", "elo", *s]) == 0
    out = capsys.readouterr().out
    assert "not written: list.txt" in out and "1000" in out
    folder = Store(tmp_path / "store").published_partition("elo", "standard", 202401)
    assert not (folder / "list.txt").exists()
    manifest = json.loads((folder / "manifest.json").read_text())
    assert "list.txt" in manifest["skipped"] and "list.csv" in manifest["files"]


def test_fixed_width_numbers_are_whole_and_refused_when_too_wide():
    """A decimal K (US Chess: 800/(N' + m)) was cut to its first characters (``23.46``
    -> ``23``, ``7.5`` -> ``7.``); it is now rounded half away from zero like a decimal
    rating. A K of 200 (a new US Chess player) does not fit FIDE's 3-wide K column
    (two digits and the space before B-day): refused, with the player."""
    import polars as pl

    from arpad.pipeline.lists import LIST_COLUMNS, TooWideError, fide_txt

    def frame(k):
        row = dict.fromkeys(LIST_COLUMNS)
        row.update(player_id="7001", name="Newcomer", rating=1234.5, games=4, k=k)
        return pl.DataFrame([row], schema_overrides={"rating": pl.Float64, "k": pl.Float64})

    line = fide_txt(frame(23.46), 202401).splitlines()[1].ljust(136)  # lines are rstripped
    assert line[113:119] == "1235  " and line[119:123] == "4   " and line[123:126] == "23 "
    assert fide_txt(frame(7.5), 202401).splitlines()[1][123:] == "8"
    with pytest.raises(TooWideError, match="player 7001: K 200 does not fit"):
        fide_txt(frame(200.0), 202401)
