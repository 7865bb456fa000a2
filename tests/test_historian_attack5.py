"""A historian's sources, round 5 (docs/identity.md "Self-play", "Forms of address";
docs/pgn-trf.md "Probable duplicates"): a merge must only make the probable-duplicate
check find more copies, a merge must not make a player play himself, and names
written with a no-break space or a title are one player."""

from __future__ import annotations

import itertools
import re
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from arpad.pipeline import engine, identity, schemas
from arpad.pipeline.cli import main
from arpad.pipeline.pgn import read_pgn
from arpad.pipeline.store import Store
from tests.test_historian_attack import sql
from tests.test_historian_attack3 import ratings
from tests.test_merge_players import identify_store

MOVES = "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6"


def game(white, black, result, date, rnd="1", site="London", moves=MOVES, event="Morphy m"):
    tags = {"Event": event, "Site": site, "Date": date, "Round": rnd}
    tags |= {"White": white, "Black": black, "Result": result}
    head = "".join(f'[{k} "{v}"]\n' for k, v in tags.items())
    return f"{head}\n{moves} {result}\n\n"


def write(path: Path, *games: str) -> Path:
    path.write_text("".join(games), encoding="utf-8")
    return path


def run(*args: str) -> int:
    return main(list(args) if args[0] == "players" else [*args, "--no-flow"])


def stored_games(root: Path) -> list[tuple[str, str, str]]:
    store = Store(root)
    rows = []
    for pool in store.pools():
        for f in store.game_files(pool):
            t = pq.read_table(f, columns=["source", "white_id", "black_id"])
            rows += list(zip(*(t.column(c).to_pylist() for c in t.column_names), strict=True))
    return sorted(rows)


def quarantine(root: Path) -> list[tuple[int, str, str]]:
    """(line, reason, the stored game's file:line named in the detail) of each row."""
    rows = sql(root, "SELECT line, reason, detail FROM quarantine ORDER BY line").rows()
    return [(line, reason, re.search(r"stored from (\S+)", d).group(1)) for line, reason, d in rows]


# -- defect 1: a merge switched the probable-duplicate check off -------------------------

A_GAMES = (
    game("Morphy, Paul", "Lowenthal, J.", "1-0", "1858.07.19"),
    game("Lowenthal, Johann Jacob", "Morphy, Paul", "0-1", "1858.07.20", "2", moves="1. e4 e5"),
)


def test_merge_keeps_the_stored_name_for_probable_duplicates(tmp_path, capsys):
    """The attack as reported: b.pgn holds a.pgn's first game again (Site "London ENG",
    Round "1.1"). Without a merge it is a probable duplicate; after merging "Lowenthal,
    J." into "Lowenthal, Johann Jacob" it was stored (the stored game compared only by
    the kept name). Both stores now keep two games."""
    a = write(tmp_path / "a.pgn", *A_GAMES)
    b = write(tmp_path / "b.pgn", game("Morphy, Paul", "Lowenthal, J.", "1-0", "1858.07.19",
                                       "1.1", site="London ENG"))  # fmt: skip
    p1, p2 = tmp_path / "P1", tmp_path / "P2"
    assert run("ingest", str(a), "--store", str(p1)) == 0
    shutil.copytree(p1, p2)
    keep, dup = "a.pgn:Lowenthal, Johann Jacob", "a.pgn:Lowenthal, J."
    assert run("players", "merge", keep, dup, "--store", str(p2)) == 0
    capsys.readouterr()
    for root in (p1, p2):
        assert run("ingest", str(b), "--store", str(root)) == 2
        assert "0 games stored, 1 quarantined" in capsys.readouterr().out
        assert quarantine(root) == [(1, "probable_duplicate", "a.pgn:1")]
        assert [s for s, _, _ in stored_games(root)] == ["a.pgn:1", "a.pgn:11"]


def test_merged_id_answers_to_every_name_of_its_ids(tmp_path, capsys):
    """A game stored under the kept name ("Lowenthal, Johann Jacob") and sent again as
    "Lowenthal, J." (the duplicate's name) is a different spelling before the merge
    (stored: names are not guessed) and the same player after it (quarantined)."""
    a = write(tmp_path / "a.pgn", *A_GAMES)
    c = write(tmp_path / "c.pgn", game("Lowenthal, J.", "Morphy, Paul", "0-1", "1858.07.20",
                                       "2.1", site="London ENG", moves="1. e4 e5"))  # fmt: skip
    before, after = tmp_path / "before", tmp_path / "after"
    assert run("ingest", str(a), "--store", str(before)) == 0
    shutil.copytree(before, after)
    keep, dup = "a.pgn:Lowenthal, Johann Jacob", "a.pgn:Lowenthal, J."
    assert run("players", "merge", keep, dup, "--store", str(after)) == 0
    capsys.readouterr()
    assert run("ingest", str(c), "--store", str(before)) == 0
    assert len(stored_games(before)) == 3
    assert run("ingest", str(c), "--store", str(after)) == 2
    assert quarantine(after) == [(1, "probable_duplicate", "a.pgn:11")]
    assert len(stored_games(after)) == 2


# Names a second collection may give each player of the first (by the first's spelling)
COLLECTION = (
    game("Morphy, Paul", "Lowenthal, J.", "1-0", "1858.07.19"),
    game("Lowenthal, Johann Jacob", "Morphy, Paul", "0-1", "1858.07.20", "2", moves="1. e4 e5"),
    game("Morphy, P.", "Lowenthal, J. J.", "1/2-1/2", "1858.07.21", "3", moves="1. d4 d5"),
    game("Lowenthal, J.", "Morphy, P.", "0-1", "1858.??.??", "4", moves="1. c4 c5"),
)
IDS = {
    "L": "a.pgn:Lowenthal, Johann Jacob",
    "LJ": "a.pgn:Lowenthal, J.",
    "LJJ": "a.pgn:Lowenthal, J. J.",
    "M": "a.pgn:Morphy, Paul",
    "MP": "a.pgn:Morphy, P.",
}
MERGES = [
    [],
    [("L", "LJ")],
    [("LJ", "L")],
    [("L", "LJ"), ("L", "LJJ")],
    [("LJJ", "LJ"), ("L", "LJJ")],  # a chain: LJ follows LJJ into L
    [("M", "MP")],
    [("M", "MP"), ("L", "LJ"), ("L", "LJJ")],
]


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    """a.pgn (four games, five ids), and b.pgn: every game again with Site spelt
    differently, the first two under the same names, the third and fourth under the
    other spellings of their players (each stored game matches one copy at most)."""
    root = tmp_path_factory.mktemp("collection")
    a = write(root / "a.pgn", *COLLECTION)
    respelt = [g.replace('"London"', '"London ENG"') for g in COLLECTION]
    other = [
        respelt[2]
        .replace("Morphy, P.", "Morphy, Paul")
        .replace("Lowenthal, J. J.", "Lowenthal, Johann Jacob"),
        respelt[3].replace("Lowenthal, J.", "Lowenthal, Johann Jacob"),
    ]
    b = write(root / "b.pgn", *respelt[:2], *other)
    base = root / "base"
    assert run("ingest", str(a), "--store", str(base)) == 0
    return base, b


def quarantined_lines(root: Path, b: Path, merges) -> set[int]:
    for keep, dup in merges:
        assert run("players", "merge", IDS[keep], IDS[dup], "--store", str(root)) == 0
    run("ingest", str(b), "--store", str(root))
    stored = {s for s, _, _ in stored_games(root) if s.startswith("b.pgn:")}
    lines = range(1, 41, 10)  # the four games of b.pgn, ten lines each
    return {n for n in lines if f"b.pgn:{n}" not in stored}


def test_a_merge_only_finds_more_probable_duplicates(collection, tmp_path, capsys):
    """For every merge of MERGES (one id into another, both directions, chains,
    several at once) the copies b.pgn's ingest quarantines include those it
    quarantines without a merge: the two same-name copies, always; a re-spelt one
    once both its players are merged."""
    base, b = collection
    found = {}
    for i, merges in enumerate(MERGES):
        root = tmp_path / f"s{i}"
        shutil.copytree(base, root)
        found[i] = quarantined_lines(root, b, merges)
    capsys.readouterr()
    assert found[0] == {1, 11}  # the same names: the check as before
    for i, merges in enumerate(MERGES):
        assert found[0] <= found[i], merges
    # "Lowenthal, Johann Jacob - Morphy, P." is the fourth game once "Lowenthal, J." and
    # "Lowenthal, Johann Jacob" are one (either way round, or through a chain);
    # "Morphy, Paul - Lowenthal, Johann Jacob" the third once both its players are
    assert [found[i] for i in range(1, 5)] == [{1, 11, 31}] * 4
    assert found[5] == {1, 11}
    assert found[6] == {1, 11, 21, 31}


def test_identify_then_mapping_then_second_collection(collection, tmp_path, capsys):
    """The historian's workflow: identify, merge the mapping, ingest a second
    collection: no copy of a game is stored twice."""
    base, b = collection
    root = tmp_path / "s"
    shutil.copytree(base, root)
    mapping = tmp_path / "m.csv"
    assert run("players", "identify", "--store", str(root), "--output", str(mapping)) == 0
    assert mapping.read_text().count("\n") >= 2  # at least one proposal
    assert run("players", "merge", "--mapping", str(mapping), "--store", str(root)) == 0
    capsys.readouterr()
    assert run("ingest", str(b), "--store", str(root)) == 2
    stored = [s for s, _, _ in stored_games(root)]
    assert sorted(s for s in stored if s.startswith("a.pgn:")) == [
        "a.pgn:1", "a.pgn:11", "a.pgn:21", "a.pgn:31",
    ]  # fmt: skip
    # the same-name copies are never stored; the proposals merged decide the rest
    assert not {"b.pgn:1", "b.pgn:11"} & set(stored)
    assert [line for line, *_ in quarantine(root)][:2] == [1, 11]


# -- defect 2: a merge made a player play himself ----------------------------------------

SELF = (
    game("Morphy, Paul", "Morphy, P.", "1-0", "1858.07.01", event="E", moves="1. e4 e5"),
    game("Morphy, Paul", "Bird, Henry", "1-0", "1858.07.02", "2", event="E", moves="1. e4 e5"),
)
PAUL, P = "self.pgn:Morphy, Paul", "self.pgn:Morphy, P."


@pytest.fixture
def self_store(tmp_path):
    root = tmp_path / "S"
    assert run("ingest", str(write(tmp_path / "self.pgn", *SELF)), "--store", str(root)) == 0
    return root


def test_identify_does_not_propose_two_ids_that_met(self_store, capsys):
    capsys.readouterr()
    assert run("players", "identify", "--store", str(self_store)) == 0
    out, err = capsys.readouterr()
    assert PAUL not in out and P not in out
    assert "1 pair(s) with compatible names not proposed: they met in a game" in err
    assert f"{PAUL} and {P}" in err
    vetoed: list = []
    assert identity.candidates(Store(self_store), vetoed).height == 0
    assert [(k, d) for k, d, *_ in vetoed] == [(PAUL, P)]


def test_merge_of_two_ids_that_met_is_refused_naming_the_game(self_store, tmp_path, capsys):
    capsys.readouterr()
    assert run("players", "merge", PAUL, P, "--store", str(self_store)) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.endswith("nothing was merged")
    assert f"self.pgn:1 {PAUL} - {P}" in err and "1858.07.01" in err and "--force" in err
    assert identity.read_aliases(Store(self_store)).height == 0
    assert identity.read_merge_log(Store(self_store)).height == 0
    mapping = tmp_path / "m.csv"
    mapping.write_text(f'keep,duplicate\n"{PAUL}","{P}"\n')
    assert run("players", "merge", "--mapping", str(mapping), "--store", str(self_store)) == 2
    assert "self.pgn:1" in capsys.readouterr().err
    assert identity.read_aliases(Store(self_store)).height == 0


def test_merge_refused_when_an_id_already_merged_met_the_duplicate(tmp_path, capsys):
    """K <- D1 is fine; D2 met D1, so D2 into K would make K play himself."""
    games = [
        game("Morphy, Paul", "Bird, Henry", "1-0", "1858.07.01", event="E"),
        game("Morphy, P.", "Morphy, P. C.", "1-0", "1858.07.02", "2", event="E"),
    ]
    root = tmp_path / "S"
    assert run("ingest", str(write(tmp_path / "c.pgn", *games)), "--store", str(root)) == 0
    k, d1, d2 = "c.pgn:Morphy, Paul", "c.pgn:Morphy, P.", "c.pgn:Morphy, P. C."
    assert run("players", "merge", k, d1, "--store", str(root)) == 0
    capsys.readouterr()
    assert run("players", "merge", k, d2, "--store", str(root)) == 2
    assert f"c.pgn:11 {d1} - {d2}" in capsys.readouterr().err
    found = identity.self_play_games(Store(root), [(k, d2)])
    assert found.select("source", "player").rows() == [("c.pgn:11", k)]
    assert identity.self_play_games(Store(root), [("c.pgn:Bird, Henry", d2)]).height == 0


def test_forced_merge_leaves_the_self_game_unrated(self_store, tmp_path, capsys):
    """--force merges; the self-game is not rated: Morphy's and Bird's Elo equal those
    of a store holding only the Morphy - Bird game, and rate says so."""
    alone = tmp_path / "alone"
    only_bird = write(tmp_path / "self.pgn", SELF[1])
    assert run("ingest", str(only_bird), "--store", str(alone)) == 0
    assert run("rate", "--system", "elo", "--store", str(alone)) == 0
    capsys.readouterr()
    assert run("players", "merge", PAUL, P, "--store", str(self_store), "--force") == 0
    out, err = capsys.readouterr()
    assert "merged 1 pair(s)" in out
    assert "1 game(s) of a player against himself after this merge" in err
    assert run("rate", "--system", "elo", "--store", str(self_store)) == 0
    out, err = capsys.readouterr()
    assert "1 games" in out
    assert "elo/standard: 1 game(s) of a player against himself" in err
    got, want = ratings(self_store, "elo"), ratings(alone, "elo")
    assert got[PAUL] == pytest.approx(want[PAUL]) and got[PAUL] == pytest.approx(1510.0)
    assert got["self.pgn:Bird, Henry"] == pytest.approx(want["self.pgn:Bird, Henry"])
    assert main(["history", PAUL, "--system", "elo", "--store", str(self_store),
                 "--format", "csv"]) == 0  # fmt: skip
    history = capsys.readouterr().out.splitlines()
    head = history[0].split(",")
    row = dict(zip(head, history[1].split(","), strict=True))
    assert (row["games"], float(row["score"])) == ("1", 1.0)


def test_engine_leaves_out_games_whose_two_ids_are_one(tmp_path):
    ids = ["A", "B", "C"]
    table = pa.table(
        {
            "white_id": ["A", "A", "C", "B"],
            "black_id": ["B", "C", "B", "A"],
            "score": [1.0, 0.5, 0.0, 1.0],
            "rated": [True, True, True, False],
        }
    )
    aliases = (pa.array(["B"]), pa.array(["A"]))  # B merged into A
    white, black = engine._dense_by_id(table, ids, aliases)
    assert white.tolist() == [0, 0, 2, 0] and black.tolist() == [0, 2, 0, 0]
    path = tmp_path / "g.parquet"
    games = table.append_column("game_id", pa.array(["g1", "g2", "g3", "g4"]))
    games = games.append_column("source", pa.array(["f:1", "f:2", "f:3", "f:4"]))
    games = games.append_column("ingest_batch", pa.array(["b"] * 4))
    pq.write_table(schemas.conform(games, schemas.GAMES_FILE), path)
    own: list[int] = []
    w, b, s, _ = engine.load_period_games([str(path)], ids, aliases, self_play=own)
    # the A-B game is left out (counted), the unrated B-A one was out anyway
    assert (w.tolist(), b.tolist(), s.tolist(), own) == ([0, 2], [2, 0], [0.5, 0.0], [1])
    w, b, _, _ = engine.load_period_games([str(path)], ids, None)
    assert np.array_equal(w, [0, 0, 2]) and np.array_equal(b, [1, 2, 1])


# -- defect 3: Unicode spaces and forms of address in names ------------------------------


@pytest.mark.parametrize("space", ["\u00a0", "\u2009", "\u3000", "\u202f", "\t", "  "])
def test_unicode_spaces_in_a_pgn_name_are_one_blank(tmp_path, space):
    games = [
        game(f"Morphy,{space}Paul", "Bird, Henry", "1-0", "1858.07.01"),
        game("Bird, Henry", "Morphy, Paul", "0-1", "1858.07.02", "2"),
    ]
    raw = read_pgn(write(tmp_path / "n.pgn", *games))
    assert raw.frame.get_column("white_id").to_list() == ["n.pgn:Morphy, Paul", "n.pgn:Bird, Henry"]
    assert sorted(raw.players.get_column("name").to_list()) == ["Bird, Henry", "Morphy, Paul"]
    assert (
        raw.frame.get_column("game_id")[0]
        == "pgn:Morphy m|London|1858.07.01|1|Morphy, Paul|Bird, Henry"
    )


def test_unicode_spaces_and_titles_in_identify(tmp_path):
    """CSV players keep their own ids and names as given; identify reads a no-break
    space as a blank and leaves the title out of its matching key."""
    players = [
        ("M1", "Morphy, Paul", None),
        ("M2", "Morphy,\u00a0Paul", None),
        ("O1", "Owen, John", None),
        ("O2", "Owen, Rev. John", None),
        ("O3", "Rev. John Owen", None),
        ("T1", "Tarrasch, Siegbert", None),
        ("T2", "Dr. Tarrasch", None),
        ("X", "Bird, Henry", None),
    ]
    games = [("M1", "X", 1858), ("M1", "X", 1859), ("M2", "X", 1858), ("O1", "X", 1858)]
    games += [("O1", "X", 1859), ("O2", "X", 1858), ("O3", "X", 1858)]
    games += [("T1", "X", 1890), ("T2", "X", 1890)]
    store = identify_store(tmp_path, players, games)
    got = {(k, d): e for k, d, e, _ in identity.candidates(store).iter_rows()}
    assert set(got) == {("M1", "M2"), ("O1", "O2"), ("O1", "O3")}
    assert got[("O1", "O2")].startswith("same normalised name")
    names = {r["player_id"]: r["name"] for r in store.read_players().to_pylist()}
    assert names["O2"] == "Owen, Rev. John" and names["M2"] == "Morphy,\u00a0Paul"


@pytest.mark.parametrize(
    ("name", "want"),
    [
        ("Owen, Rev. John", ("owen", ("john",))),
        ("Rev. John Owen", ("owen", ("john",))),
        ("Owen, Revd John", ("owen", ("john",))),
        ("Herr Max Lange", ("lange", ("max",))),
        ("Lange, Herr M.", ("lange", ("m",))),
        ("Sir George Thomas", ("thomas", ("george",))),
        ("Mr. Bird", ("bird", ())),
        ("Dr. Tarrasch", ("tarrasch", ())),
        ("Sir, Thomas", ("sir", ("thomas",))),  # "Sir" alone as a surname stays
        ("Owen, John", ("owen", ("john",))),
        ("Morphy,\u00a0Paul", ("morphy", ("paul",))),
    ],
)
def test_matching_name_leaves_out_forms_of_address(name, want):
    assert identity.matching_name(name) == want


def test_self_play_games_of_a_chain_of_pairs():
    """``merged_ids`` applies pairs as ``merge`` does: ids merged into a duplicate
    follow it (no chains)."""
    current = {"D1": "K1"}
    got = identity.merged_ids(current, [("K2", "K1"), ("K2", "D2")])
    assert got == {"D1": "K2", "K1": "K2", "D2": "K2"}
    assert list(itertools.chain(current)) == ["D1"]  # not changed in place


def test_a_mapping_row_that_joins_two_ids_that_met_is_named_by_its_line(tmp_path, capsys):
    """A --mapping file whose row makes two ids that met one player is refused naming
    that row's line (it named no file or line), also when the rows above it bring one
    of them along; --force merges it, the game then not rated."""
    pgn = tmp_path / "a.pgn"
    pgn.write_text(
        '[Event "m"]\n[Date "1858.07.19"]\n[White "Anderssen, Adolf"]\n[Black "Morphy, P."]\n'
        '[Result "1-0"]\n\n1. e4 e5 1-0\n\n'
        '[Event "m"]\n[Date "1858.07.21"]\n[White "Lowenthal, J."]\n[Black "Bird, H."]\n'
        '[Result "0-1"]\n\n1. e4 e5 0-1\n'
    )
    store = tmp_path / "S"
    assert main(["ingest", str(pgn), "--store", str(store)]) == 0
    mapping = tmp_path / "c.csv"
    # line 2 is harmless; line 3 makes Bird one with Lowenthal, whom he met
    mapping.write_text(
        'keep,duplicate\n"a.pgn:Anderssen, Adolf","a.pgn:Lowenthal, J."\n'
        '"a.pgn:Bird, H.","a.pgn:Anderssen, Adolf"\n'
    )
    capsys.readouterr()
    args = ["players", "merge", "--mapping", str(mapping), "--store", str(store)]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"arpad: error: {mapping}:3: the ids to merge into a.pgn:Bird, H. met")
    assert "a.pgn:9 a.pgn:Lowenthal, J. - a.pgn:Bird, H. (game a.pgn:9)" in err
    assert err.endswith("(with the rows above it); nothing was merged")
    assert main([*args, "--force"]) == 0
