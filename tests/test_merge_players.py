"""Merging duplicate players (docs/identity.md): a merge counts the duplicate's games
as the kept id's when the engine reads them, marks the rated systems stale from the
earliest period where either id played, and the next ``arpad rate`` equals a clean
run on data where the two ids were one from the start; ``split`` restores the
original ratings exactly."""

from __future__ import annotations

import random
from pathlib import Path

import pyarrow as pa
import pytest

from arpad.pipeline import identity, incremental
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store
from tests.conftest import results

MONTHS = ["2024-01", "2024-02", "2024-03", "2024-04", "2024-05", "2024-06"]
SYSTEMS = ("glicko2", "elo", "whr")


def games_csv(duplicate: bool) -> str:
    """Random games; from April a newcomer plays, as X1 in even games and, when
    ``duplicate``, as X2 in odd ones (one person under two ids)."""
    rng = random.Random(11)
    rows = ["game_id,date,white_id,black_id,result,event_id"]
    for month in MONTHS:
        for i in range(40):
            w, b = rng.sample(range(16), 2)
            white, black = f"P{w:02d}", f"P{b:02d}"
            if month >= "2024-04" and i % 4 < 2:
                newcomer = "X2" if duplicate and i % 2 else "X1"
                white, black = (newcomer, black) if i % 3 else (white, newcomer)
            result = rng.choice(["1-0", "0-1", "1/2-1/2"])
            rows.append(f"{month}-{i},{month}-{1 + i % 28:02d},{white},{black},{result},ev{month}")
    return "\n".join(rows) + "\n"


def run(*args: str) -> int:
    # merge/split run in this process (no Prefect flow of their own)
    return main(list(args) if args[0] == "players" else [*args, "--no-flow"])


def ratings_of(root: Path, system: str) -> pa.Table:
    store = Store(root)
    parts = []
    for period in store.rating_periods(system, "standard"):
        t = results(store.read_ratings(system, "standard", period))
        parts.append(t.append_column("period", pa.array([period] * t.num_rows, pa.int32())))
    return pa.concat_tables(parts).sort_by([("period", "ascending"), ("player_id", "ascending")])


def build(root: Path, duplicate: bool) -> None:
    root.parent.mkdir(parents=True, exist_ok=True)
    csv = root.parent / f"{root.name}.csv"
    csv.write_text(games_csv(duplicate))
    assert run("ingest", "--store", str(root), str(csv)) == 0
    for system in SYSTEMS:
        assert run("rate", "--store", str(root), "--system", system) == 0


def test_merge_then_rate_equals_clean_run_and_split_restores(tmp_path, capsys):
    dup, clean = tmp_path / "dup", tmp_path / "clean"
    build(dup, duplicate=True)
    build(clean, duplicate=False)
    original = {s: ratings_of(dup, s) for s in SYSTEMS}

    capsys.readouterr()
    assert run("players", "merge", "X1", "X2", "--store", str(dup), "--reason", "same man") == 0
    assert "merged 1 pair(s); affected: standard from 202404" in capsys.readouterr().out
    store = Store(dup)
    assert incremental.read_stale(store) == {f"{s}/standard": 202404 for s in SYSTEMS}
    log = identity.read_merge_log(store)
    assert log.select("action", "keep", "duplicate", "reason").rows() == [
        ("merge", "X1", "X2", "same man")
    ]
    assert log["stale_from"][0] == "standard:202404" and log["at"][0]
    capsys.readouterr()
    for system in SYSTEMS:
        assert run("rate", "--store", str(dup), "--system", system) == 0
        assert "recomputing from stale period 202404" in capsys.readouterr().out
        got, want = ratings_of(dup, system), ratings_of(clean, system)
        assert got.equals(want), system
        assert "X2" not in got.column("player_id").to_pylist()
        assert not got.equals(original[system])

    assert run("players", "split", "X1", "X2", "--store", str(dup)) == 0
    assert incremental.read_stale(store) == {f"{s}/standard": 202404 for s in SYSTEMS}
    for system in SYSTEMS:
        assert run("rate", "--store", str(dup), "--system", system) == 0
        assert ratings_of(dup, system).equals(original[system]), system
    assert identity.read_aliases(store).height == 0
    assert identity.read_merge_log(store)["action"].to_list() == ["merge", "split"]


def test_merge_mapping_file_and_bad_input(tmp_path, capsys):
    root = tmp_path / "s"
    build(root, duplicate=True)
    mapping = tmp_path / "map.csv"
    mapping.write_text("keep,duplicate,evidence,score\nX1,X2,reviewed by hand,1.0\n")
    assert run("players", "merge", "--mapping", str(mapping), "--store", str(root)) == 0
    aliases = identity.read_aliases(Store(root))
    assert aliases.select("duplicate", "keep").rows() == [("X2", "X1")]
    assert "reviewed by hand" in aliases["reason"][0]
    capsys.readouterr()
    # already merged into another keep, unknown id, a split of no merge, a bad mapping:
    # exit 2, one line (the same merge again is exit 0: tests/test_round9_lead.py)
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\nX1,X2\n")
    for args in (
        ("merge", "P01", "X2"),
        ("merge", "X1", "NOBODY"),
        ("merge", "X1"),
        ("split", "P01", "P02"),
        ("merge", "--mapping", str(bad)),
    ):
        assert run("players", *args, "--store", str(root)) == 2, args
        err = capsys.readouterr().err.strip()
        assert err and "\n" not in err, args


@pytest.mark.parametrize(
    ("name", "want"),
    [
        ("Lasker, Emanuel", ("lasker", ("emanuel",))),
        ("Lasker, Em.", ("lasker", ("em",))),
        ("Lasker,E", ("lasker", ("e",))),
        ("E. Lasker", ("lasker", ("e",))),
        ("LASKER Emanuel", ("lasker", ("emanuel",))),
        ("Capablanca, José Raúl", ("capablanca", ("jose", "raul"))),
        ("Zukertort/Hoffer", ("zukertort hoffer", ())),
    ],
)
def test_normalise_name(name, want):
    assert identity.normalise_name(name) == want


MASTERS = [
    ("lasker", ("emanuel",)),
    ("steinitz", ("william",)),
    ("zukertort", ("johannes", "hermann")),
    ("capablanca", ("jose", "raul")),
]


def test_bundled_pgn_masters_are_one_identity(shared_data, tmp_path, capsys):
    """The five bundled PGN files in one store: identify, apply the mapping; each of
    Lasker, Steinitz, Zukertort and Capablanca is one id, Emanuel and Edward Lasker
    stay two, and the duplicated modern players resolve to their FIDE ids."""
    root = tmp_path / "s"
    files = sorted(str(p) for p in (shared_data / "pgn").glob("*.pgn"))
    assert len(files) == 5
    # exit 2: Capablanca.pgn has one unfinished game, quarantined; the rest is stored
    assert run("ingest", "--store", str(root), *files) in (0, 2)
    assert Store(root).exists()
    mapping = tmp_path / "mapping.csv"
    assert run("players", "identify", "--store", str(root), "--output", str(mapping)) == 0
    proposed = mapping.read_text().splitlines()
    assert proposed[0] == "keep,duplicate,evidence,score"
    assert any(line.startswith('1503014,"kingbase_kb1.pgn:Carlsen, Magnus"') for line in proposed)
    capsys.readouterr()
    assert run("players", "--conflicts", "--store", str(root)) == 0
    out = capsys.readouterr().out
    assert f"{len(proposed) - 1} proposed merge(s)" in out and "same normalised name" in out
    assert run("players", "merge", "--mapping", str(mapping), "--store", str(root)) == 0

    store = Store(root)
    aliases = dict(identity.read_aliases(store).select("duplicate", "keep").iter_rows())
    assert len(aliases) == len(proposed) - 1
    names = store.read_players().select(["player_id", "name"]).to_pylist()

    def ids_of(surname, given):
        out = set()
        for row in names:
            s, g = identity.normalise_name(row["name"])
            if (
                s == surname
                and g
                and all(a.startswith(b) or b.startswith(a) for a, b in zip(g, given))
            ):
                out.add(aliases.get(row["player_id"], row["player_id"]))
        return out

    for surname, given in MASTERS:
        assert len(ids_of(surname, given)) == 1, surname
    assert ids_of("lasker", ("emanuel",)) != ids_of("lasker", ("edward",))
    # --conflicts lists the proposals' evidence too (none left after the merge)
    capsys.readouterr()
    assert run("players", "--conflicts", "--store", str(root)) == 0
    assert "0 proposed merge(s)" in capsys.readouterr().out


def identify_store(tmp_path: Path, players: list[tuple], games: list[tuple]) -> Store:
    """A store from (id, name, birth year) players and (white, black, year) games."""
    root, data = tmp_path / "s", tmp_path / "in"
    data.mkdir()
    rows = ["player_id,name,birth_year"]
    rows += [f'{pid},"{name}",{"" if born is None else born}' for pid, name, born in players]
    (data / "players.csv").write_text("\n".join(rows) + "\n")
    rows = ["game_id,date,white_id,black_id,result"]
    rows += [f"g{i},{year}-03-0{1 + i % 9},{w},{b},1-0" for i, (w, b, year) in enumerate(games)]
    (data / "games.csv").write_text("\n".join(rows) + "\n")
    args = ("ingest", "--store", str(root), "--players", str(data / "players.csv"))
    assert run(*args, str(data / "games.csv")) == 0
    return Store(root)


def test_identify_name_variants_evidence_and_vetoes(tmp_path):
    """ "Lasker, Em.", "Lasker,E" and "E. Lasker" are proposed as "Lasker, Emanuel"
    (the id with most games); Edward Lasker, active forty years later, is not; two
    John Smiths with different birth years are not; a same-name pair with the same
    birth year scores the birth year and shared opponents."""
    players = [
        ("EL1", "Lasker, Emanuel", 1868),
        ("EL2", "Lasker, Em.", None),
        ("EL3", "Lasker,E", None),
        ("EL4", "E. Lasker", None),
        ("ED1", "Lasker, Edward", 1885),
        ("S1", "Smith, John", 1900),
        ("S2", "Smith, John", 1950),
        ("T1", "Tarrasch, Siegbert", 1862),
        ("T2", "TARRASCH Siegbert", 1862),
        ("O1", "Janowski, Dawid", None),
    ]
    games = [("EL1", "O1", 1895)] * 3 + [("EL2", "O1", 1896), ("EL3", "O1", 1899)]
    games += [("EL4", "T1", 1900), ("ED1", "O1", 1940), ("S1", "O1", 1925), ("S2", "O1", 1930)]
    games += [("T1", "O1", 1895), ("T1", "O1", 1896), ("T2", "O1", 1897)]
    got = identity.candidates(identify_store(tmp_path, players, games))
    pairs = {(k, d): (e, s) for k, d, e, s in got.iter_rows()}
    assert set(pairs) == {("EL1", "EL2"), ("EL1", "EL3"), ("EL1", "EL4"), ("T1", "T2")}
    evidence, score = pairs[("T1", "T2")]
    assert "same normalised name" in evidence and "birth year 1862" in evidence
    assert "1 shared opponent(s)" in evidence and score == pytest.approx(1.0)
    assert "abbreviated given name" in pairs[("EL1", "EL3")][0]


def test_identify_ambiguous_initial_is_not_proposed(tmp_path):
    """ "Lasker, E" beside two plausible full names (Emanuel and Edward, both active
    then) is ambiguous: no proposal for it."""
    players = [
        ("EL1", "Lasker, Emanuel", None),
        ("ED1", "Lasker, Edward", None),
        ("E", "Lasker, E", None),
        ("O1", "Marshall, Frank", None),
    ]
    games = [("EL1", "O1", 1910), ("ED1", "O1", 1912), ("E", "O1", 1911)]
    got = identity.candidates(identify_store(tmp_path, players, games))
    assert got.height == 0


def test_failed_merge_rolls_back(tmp_path, monkeypatch):
    """A merge that fails after writing the alias table leaves the store as it was
    (the writer lock's undo journal)."""
    root = tmp_path / "s"
    build(root, duplicate=True)
    store = Store(root)
    stale_before = incremental.read_stale(store)

    def boom(*args, **kwargs):
        raise RuntimeError("disk gone")

    monkeypatch.setattr(incremental, "mark_stale", boom)
    assert run("players", "merge", "X1", "X2", "--store", str(root)) == 1
    assert not store.aliases_path.exists() and not store.merges_path.exists()
    assert incremental.read_stale(store) == stale_before
