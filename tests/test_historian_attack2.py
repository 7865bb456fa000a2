"""A historian's sources, round 2 (docs/pgn-trf.md "Historian's sources, round 2"):
the five real PGN files in one store, players by name in other spellings, the FIDE
card of a replay with dated rules, the TRF tools against hand computation from the
rules (docs/legacy-systems.md), and the shapes old databases write (tag order,
unknown players, variants). python-chess is the reference for how a PGN file splits
into games; a naive line counter for how many games a file holds."""

from __future__ import annotations

import io
import random
import re
import shutil
from pathlib import Path

import chess.pgn
import polars as pl
import pytest

from arpad.pipeline.cli import main
from arpad.pipeline.pgn import read_pgn
from arpad.pipeline.store import Store
from tests.test_historian_attack import sql

FILES = (
    "Capablanca.pgn",
    "London1851.pgn",
    "WorldChamp1886.pgn",
    "kingbase_kb1.pgn",
    "tatamast22.pgn",
)


def naive_game_count(path: Path) -> int:
    """Games in a PGN file counted the simplest way: tag sections, i.e. runs of tag
    lines that follow a line which is not a tag line (blank lines between tag lines
    do not end a section)."""
    count, in_tags = 0, False
    for line in path.read_bytes().decode("utf-8", "replace").splitlines():
        text = line.strip().lstrip("\ufeff")
        if not text:
            continue
        if text.startswith("["):
            if not in_tags:
                count += 1
            in_tags = True
        else:
            in_tags = False
    return count


def tags(pairs: list[tuple[str, str]], movetext: str) -> str:
    return "".join(f'[{k} "{v}"]\n' for k, v in pairs) + "\n" + movetext + "\n\n"


ROSTER = [
    ("Event", "Hastings"),
    ("Site", "Hastings"),
    ("Date", "1895.08.05"),
    ("Round", "1"),
    ("White", "Pillsbury, Harry Nelson"),
    ("Black", "Tarrasch, Siegbert"),
    ("Result", "1-0"),
]


# -- the five real files in one store ------------------------------------------------


@pytest.fixture(scope="module")
def five(shared_data, tmp_path_factory):
    """All five files ingested by one command (store A) and file by file (store B)."""
    tmp = tmp_path_factory.mktemp("five")
    paths = [str(shared_data / "pgn" / f) for f in FILES]
    a, b = tmp / "A", tmp / "B"
    codes = [main(["ingest", *paths, "--store", str(a)])]
    codes += [main(["ingest", p, "--store", str(b)]) for p in paths]
    return a, b, codes, shared_data


def test_one_command_and_file_by_file_store_the_same_games(five, capsys):
    a, b, codes, shared = five
    assert codes == [2, 2, 0, 0, 0, 0]  # Capablanca.pgn has one '*' game (quarantined)
    cols = "game_id, date, white_id, black_id, score, rated, event_id, source, white_rating, black_rating, date_precision, period, pool"  # fmt: skip
    q = f"SELECT {cols} FROM games ORDER BY game_id"
    ga, gb = sql(a, q), sql(b, q)
    assert ga.height == 1933
    assert ga.equals(gb)
    pa, pb = (sql(s, "SELECT * FROM players ORDER BY player_id") for s in (a, b))
    assert pa.equals(pb)
    # again: nothing new
    capsys.readouterr()
    assert main(["ingest", str(shared / "pgn" / "London1851.pgn"), "--store", str(a)]) == 0
    assert "identical content already ingested" in capsys.readouterr().out
    assert sql(a, q).equals(ga)


def test_no_game_lost_or_doubled(five):
    a, _, _, shared = five
    stored = sql(a, "SELECT source FROM games")["source"].str.replace(r":\d+$", "")
    quarantined = sql(a, "SELECT source FROM quarantine")["source"]
    for name in FILES:
        n = naive_game_count(shared / "pgn" / name)
        assert (stored == name).sum() + (quarantined == name).sum() == n, name
    assert sql(a, "SELECT count(*) AS n, count(DISTINCT game_id) AS d FROM games").row(0) == (
        1933,
        1933,
    )


def test_a_player_of_two_files_is_one_after_the_proposed_merge(five, capsys):
    # Carlsen has his FIDE id in tatamast22.pgn and only a name in kingbase_kb1.pgn:
    # two ids, and `players identify` proposes the merge (docs/identity.md)
    a, _, _, _ = five
    rows = sql(a, "SELECT player_id FROM players WHERE name = 'Carlsen, Magnus' ORDER BY 1")
    assert rows["player_id"].to_list() == ["1503014", "kingbase_kb1.pgn:Carlsen, Magnus"]
    capsys.readouterr()
    assert main(["players", "identify", "--store", str(a), "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert '1503014,"kingbase_kb1.pgn:Carlsen, Magnus"' in out
    # the historical players are each one id (one file each)
    for name in ("Steinitz, William", "Zukertort, Johannes Hermann", "Lasker, Emanuel"):
        assert sql(a, f"SELECT count(*) AS n FROM players WHERE name = '{name}'")["n"][0] == 1


# -- names in other spellings ---------------------------------------------------------


@pytest.fixture(scope="module")
def rated_history(shared_data, tmp_path_factory):
    store = tmp_path_factory.mktemp("hist") / "S"
    for f in ("Capablanca.pgn", "London1851.pgn", "WorldChamp1886.pgn"):
        main(["ingest", str(shared_data / "pgn" / f), "--store", str(store)])
    assert main(["rate", "--system", "elo", "--store", str(store), "--no-flow"]) == 0
    return store


@pytest.mark.parametrize(
    ("typed", "player"),
    [
        ("Aljechin", "Capablanca.pgn:Alekhine, Alexander"),  # German romanisation
        ("Aljechin, A.", "Capablanca.pgn:Alekhine, Alexander"),
        ("Nimzovich", "Capablanca.pgn:Nimzowitsch, Aaron"),
        ("Bogolyubov", "Capablanca.pgn:Bogoljubow, Efim"),
        ("Botwinnik", "Capablanca.pgn:Botvinnik, Mikhail"),
        ("Tartakover", "Capablanca.pgn:Tartakower, Saviely"),
        ("Jaenisch", "London1851.pgn:Von Jaenisch, Carl Friedrich"),  # the particle left out
        ("Von Jaenisch", "London1851.pgn:Von Jaenisch, Carl Friedrich"),
        ("von Jaenisch, C.", "London1851.pgn:Von Jaenisch, Carl Friedrich"),
        ("Steinitz", "WorldChamp1886.pgn:Steinitz, William"),
        ("Zukertort", "WorldChamp1886.pgn:Zukertort, Johannes Hermann"),  # not Zukertort/Hoffer
    ],
)
def test_history_by_a_name_in_another_spelling(rated_history, typed, player, capsys):
    assert main(["history", typed, "--system", "elo", "--store", str(rated_history), "--format", "csv"]) == 0  # fmt: skip
    err = capsys.readouterr().err
    assert f"showing {player}" in err


def test_another_spelling_never_hides_an_exact_or_ambiguous_match(rated_history, capsys):
    from arpad.pipeline.lookup import resolve_players

    store = Store(rated_history)
    # two Laskers: still ambiguous, not resolved by the phonetic key
    with pytest.raises(ValueError, match="matches 2 players"):
        resolve_players(store, ["Lasker"])
    # an exact name wins over the surname alone (London 1851's "Hodges" beside
    # "Hodges, Albert Beauregard" of the Capablanca file)
    assert resolve_players(store, ["Hodges"])[0][0] == "London1851.pgn:Hodges"
    # a spelling whose key matches nobody is still "no such name"
    with pytest.raises(ValueError, match="no such id or name"):
        resolve_players(store, ["Aljochin, Boris"])


# -- the FIDE card of a replay with dated rules ---------------------------------------


def test_card_explains_the_run_that_was_stored(shared_data, tmp_path, capsys):
    store = tmp_path / "S"
    main(["ingest", str(shared_data / "pgn" / "tatamast22.pgn"), "--store", str(store)])
    assert main(["rate", "--system", "fide", "--rules", "2009-07", "--store", str(store), "--no-flow"]) == 0  # fmt: skip
    capsys.readouterr()
    # the run used the 2009-07 rules (two-monthly lists: the January change is
    # published in February); the card recomputes with those, not today's
    assert main(["card", "Carlsen", "--period", "202201", "--store", str(store)]) == 0
    out = capsys.readouterr().out
    assert "rules FIDE 2009-07" in out
    assert "two-monthly list: the change is published with the closing month" in out
    assert "(matches)" not in out
    # asked for other rules than the run's: a change the store does not hold is no
    # match (was "matches"), and the exit code says so
    assert main(["card", "Carlsen", "--period", "202201", "--rules", "2022-01", "--store", str(store)]) == 2  # fmt: skip
    out = capsys.readouterr().out
    assert "rounded half away from zero = +3" in out
    assert "stored change = -  (DIFFERS" in out
    # Carlsen: 8.5/12, K 10, ΣΔR +0.31 (the card's lines) → +3.1 → +3, published in 202202
    g = sql(store, "SELECT period, change, rating_after FROM ratings WHERE player_id = '1503014' AND system = 'fide' ORDER BY period")  # fmt: skip
    assert g.rows() == [(202201, None, 2865.0), (202202, 3.0, 2868.0)]


# -- TRF tools against the rules, by hand ----------------------------------------------

# FIDE B.02 table 8.1.1 (= Title Regulations table 1.4.9), the entries used here
DP = {75: 193, 86: 309}


def trf_players(path: Path) -> dict[int, dict]:
    """Starting rank → rating, title, federation, FIDE id and round blocks, read by
    the TRF16 columns (docs/pgn-trf.md "TRF columns") with plain slicing."""
    out = {}
    for line in path.read_bytes().decode("latin-1").splitlines():
        if not line.startswith("001"):
            continue
        blocks = []
        for start in range(91, len(line), 10):
            b = line[start : start + 8]
            if b[:4].strip() and b[:4].strip() != "0000":
                blocks.append((int(b[:4]), b[5], b[7]))
        out[int(line[4:8])] = {
            "rating": int(line[48:52]) if line[48:52].strip() else 0,
            "title": line[10:13].strip(),
            "fed": line[53:56].strip(),
            "id": line[57:68].strip(),
            "blocks": blocks,
        }
    return out


def half_up(x: float) -> int:
    return int(x + 0.5)  # positive values only


def test_trf_performance_by_hand(shared_data, capsys):
    path = shared_data / "trf" / "open_gros_2010_after_r4.trf"
    players = trf_players(path)
    rank = next(r for r, p in players.items() if p["id"] == "2201836")
    games = [(players[o]["rating"], {"1": 1.0, "=": 0.5, "0": 0.0}[res]) for o, _, res in players[rank]["blocks"] if res in "1=0"]  # fmt: skip
    assert all(r > 0 for r, _ in games)
    n, score = len(games), sum(s for _, s in games)
    rc = sum(r for r, _ in games) / n
    fide = half_up(rc) + DP[half_up(100 * score / n)]
    linear = rc + 800 * score / n - 400
    assert main(["performance", str(path), "--format", "csv"]) == 0
    rows = pl.read_csv(
        io.StringIO(capsys.readouterr().out), schema_overrides={"player_id": pl.String}
    )
    row = rows.filter(pl.col("player_id") == "2201836").row(0, named=True)
    assert (
        (row["games"], row["score"], row["average_opponent"]) == (n, score, rc) == (4, 3.0, 1932.5)
    )
    assert row["fide"] == fide == 2126
    assert row["linear"] == pytest.approx(linear) == 2132.5


def test_trf_norm_and_category_by_hand(shared_data, capsys):
    path = shared_data / "trf" / "fide_example1_karl_mala_2005.trf"
    players = trf_players(path)
    me = players[1]  # Vasquez, Rodrigo, 3400042: 6/7
    opp = [players[o] for o, _, res in me["blocks"] if res in "1=0"]
    score = sum({"1": 1.0, "=": 0.5, "0": 0.0}[res] for _, _, res in me["blocks"])
    ratings = sorted(p["rating"] or 1400 for p in opp)
    ratings[0] = max(ratings[0], 2050)  # IM floor: the lowest opponent raised (1.4.6b)
    ra = half_up(sum(ratings) / len(ratings))
    p = half_up(100 * score / len(opp))
    titled = sum(p_["title"] in ("g", "m", "f", "wg", "wm", "wf") for p_ in opp)
    assert (len(opp), score, ra, p, titled) == (7, 6.0, 2199, 86, 2)
    assert main(["norm", str(path), "--player", "3400042", "--title", "IM"]) == 0
    out = capsys.readouterr().out
    assert f"FAIL games          {len(opp)} games (minimum 9)" in out
    assert f"FAIL average        Ra {ra} (minimum 2230)" in out
    assert f"ok   performance    Rp {ra} + dp({p} %) +{DP[p]} = {ra + DP[p]} (minimum 2450)" in out
    assert f"{titled} of 7 opponents titled" in out
    # category: over the participants (a player with a game, forfeits included), the
    # average of the rated ones, rounded .5 up; below 2251 the category is 0
    playing = [q for q in players.values() if q["blocks"]]
    rated = [q["rating"] for q in playing if q["rating"] > 0]
    assert main(["category", str(path), "--format", "csv"]) == 0
    line = capsys.readouterr().out.strip().splitlines()[1].split(",")
    assert (int(line[1]), int(line[2])) == (len(playing), len(rated)) == (283, 146)
    assert int(line[4]) == half_up(sum(rated) / len(rated)) == 2113
    assert line[5] == "0"


# -- shapes of old databases ---------------------------------------------------------


def python_chess_headers(text: str) -> list[tuple[str, str, str]]:
    out, fh = [], io.StringIO(text)
    while (g := chess.pgn.read_game(fh)) is not None:
        out.append((g.headers["White"], g.headers["Black"], g.headers["Result"]))
    return out


def test_tags_in_any_order_are_one_game(tmp_path):
    # PGN Standard §8.1: the export format's order of the Seven Tag Roster is not
    # required of import files; a database that writes Result first (or Event last)
    # was split at its [Event line: two broken games instead of one
    rng = random.Random(1851)
    text = ""
    for k in range(12):
        pairs = [*ROSTER[:3], ("Round", str(k + 1)), *ROSTER[4:]]
        rng.shuffle(pairs)
        text += tags(pairs, "1. e4 e5 2. Nf3 1-0")
    path = tmp_path / "shuffled.pgn"
    path.write_text(text)
    raw = read_pgn(path)
    assert not raw.problems
    assert raw.frame["game_id"].to_list() == [
        f"pgn:Hastings|Hastings|1895.08.05|{k + 1}|Pillsbury, Harry Nelson|Tarrasch, Siegbert"
        for k in range(12)
    ]
    expected = [(w, b, r) for w, b, r in python_chess_headers(text)]
    assert [(w.split(":", 1)[1], b.split(":", 1)[1], r) for w, b, r in raw.frame.select("white_id", "black_id", "result").rows()] == expected  # fmt: skip
    # header-only games (no movetext) still split at their next [Event line
    header_only = tags(ROSTER, "").rstrip("\n") + "\n" + tags(ROSTER, "1. e4 1-0")
    path.write_text(header_only)
    assert [p[1] for p in read_pgn(path).problems] == ["truncated_game"]


def test_the_same_game_in_two_files_with_other_tag_orders_is_stored_once(tmp_path, capsys):
    (tmp_path / "a.pgn").write_text(tags(ROSTER, "1. e4 1-0"))
    other = [ROSTER[6], ROSTER[5], ROSTER[4], ("Annotator", "Steinitz"), *ROSTER[:4]]
    text = "\ufeff" + tags(other, "{Notes by Steinitz} 1. e4 1-0").replace("\n", "\r\n")
    (tmp_path / "b.pgn").write_bytes(text.encode("utf-8"))
    store = tmp_path / "S"
    assert main(["ingest", str(tmp_path / "a.pgn"), "--store", str(store)]) == 0
    assert main(["ingest", str(tmp_path / "b.pgn"), "--store", str(store)]) == 2
    q = sql(store, "SELECT reason, source FROM quarantine")
    assert q.rows() == [("duplicate_game_id", "b.pgn")]
    assert sql(store, "SELECT count(*) AS n FROM games")["n"][0] == 1


@pytest.mark.parametrize(
    "placeholder",
    ["NN", "N.N.", "N. N.", "N.N", "nn", "?", "??", "Amateur", "Unknown", "anonymous"],
)
def test_unknown_player_placeholders_are_nobody(tmp_path, placeholder):
    # "NN" (nomen nescio) is how old collections write an unknown opponent: every NN
    # is someone else, so NN is no player (was: one player "file:NN" rated from all
    # the games against unknown opponents)
    pairs = [*ROSTER[:5], ("Black", placeholder), ROSTER[6]]
    text = tags(pairs, "1. e4 1-0") + tags([*ROSTER[:3], ("Round", "2"), *ROSTER[4:]], "1. d4 1-0")
    path = tmp_path / "nn.pgn"
    path.write_text(text)
    raw = read_pgn(path)
    assert raw.frame["black_id"].to_list() == [None, "nn.pgn:Tarrasch, Siegbert"]
    assert "nn.pgn:" + placeholder not in raw.players["player_id"].to_list()
    assert any("unknown player" in n for n in raw.notes)


def test_unknown_player_games_are_quarantined_by_ingest(tmp_path, capsys):
    pairs = [*ROSTER[:4], ("White", "N.N."), ("Black", "Anderssen, Adolf"), ROSTER[6]]
    path = tmp_path / "nn.pgn"
    path.write_text(tags(pairs, "1. e4 1-0") + tags(ROSTER, "1. e4 1-0"))
    store = tmp_path / "S"
    assert main(["ingest", str(path), "--store", str(store)]) == 2
    assert sql(store, "SELECT reason FROM quarantine")["reason"].to_list() == ["empty_player_id"]
    assert sql(store, "SELECT count(*) AS n FROM players WHERE name LIKE 'N%N%'")["n"][0] == 0


def test_chess960_and_other_variants_are_stored_not_rated(tmp_path):
    # a Chess960 game is not a game of chess in the rating's sense; a standard game
    # from a set-up position (SetUp/FEN, or lichess' Variant "From Position") is
    variant = [*ROSTER[:3], ("Round", "1"), *ROSTER[4:], ("Variant", "Chess960"), ("SetUp", "1"),
               ("FEN", "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1")]  # fmt: skip
    crazy = [*ROSTER[:3], ("Round", "2"), *ROSTER[4:], ("Variant", "Crazyhouse")]
    from_pos = [*ROSTER[:3], ("Round", "3"), *ROSTER[4:], ("Variant", "From Position"), ("SetUp", "1"),
                ("FEN", "4k3/8/8/8/8/8/8/4K2R w K - 0 1")]  # fmt: skip
    std = [*ROSTER[:3], ("Round", "4"), *ROSTER[4:], ("Variant", "Standard")]
    path = tmp_path / "v.pgn"
    path.write_text(
        tags(variant, "1. e4 1-0") + tags(crazy, "1. e4 1-0") + tags(from_pos, "1. O-O 1-0") + tags(std, "1. e4 1-0")
    )  # fmt: skip
    raw = read_pgn(path)
    assert not raw.problems
    # the From Position game starts from a set-up position: not rated either (below)
    assert raw.frame["rated"].to_list() == ["false", "false", "false", None]
    assert any(
        "2 game(s) of another variant (Variant tag: Chess960, Crazyhouse)" in n for n in raw.notes
    )


def test_zero_byte_file_among_others_refuses_the_command(tmp_path, capsys):
    (tmp_path / "a.pgn").write_text(tags(ROSTER, "1. e4 1-0"))
    (tmp_path / "empty.pgn").write_bytes(b"")
    store = tmp_path / "S"
    assert main(["ingest", str(tmp_path / "a.pgn"), str(tmp_path / "empty.pgn"), "--store", str(store)]) == 2  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"arpad: error: {tmp_path / 'empty.pgn'}:1: empty file: no PGN games"]
    assert not (store / "games").exists() or not any((store / "games").rglob("*.parquet"))


def test_london_1851_is_rated_at_the_end_of_its_year(shared_data, tmp_path):
    # every game is dated "1851.??.??": one period, 185112 (docs/pgn-trf.md)
    path = tmp_path / "London1851.pgn"
    shutil.copy(shared_data / "pgn" / "London1851.pgn", path)
    raw = read_pgn(path)
    assert set(raw.frame["period"].to_list()) == {"185112"}
    assert set(raw.frame["date_precision"].to_list()) == {"year"}
    assert re.fullmatch(r"\d+", str(raw.frame.height)) and raw.frame.height == 251


def test_rate_with_rules_older_than_any_version_says_which_it_uses(shared_data, tmp_path, capsys):
    # `arpad rules --at 1886` says so (round 1); `rate --rules 1886` used the
    # 2009-07 rules without a word
    store = tmp_path / "S"
    main(["ingest", str(shared_data / "pgn" / "tatamast22.pgn"), "--store", str(store)])
    capsys.readouterr()
    assert main(["rate", "--system", "fide", "--rules", "1886", "--store", str(store), "--no-flow"]) == 0  # fmt: skip
    out = capsys.readouterr()
    assert "1886-12-01 is before the oldest version arpad carries (2000-01-01)" in out.err
    assert "rules: FIDE 2000-01" in out.out
    assert main(["rate", "--system", "fide", "--rules", "2014-07", "--store", str(store), "--no-flow"]) == 0  # fmt: skip
    assert "before the oldest version" not in capsys.readouterr().err


def test_players_candidates_lists_the_proposed_merges(five, capsys):
    # `arpad players --candidates` was refused with "did you mean --conflicts?"
    a, _, _, _ = five
    capsys.readouterr()
    assert main(["players", "identify", "--store", str(a), "--format", "csv"]) == 0
    identify = capsys.readouterr().out
    assert main(["players", "--candidates", "--store", str(a), "--format", "csv"]) == 0
    assert capsys.readouterr().out == identify
    assert identify.count("kingbase_kb1.pgn:") == 9  # the nine Tata Steel players of both files


def test_a_name_in_a_pool_never_rated_says_so(rated_history, capsys):
    # kingbase's blitz games are their own pool; `history Carlsen --pool blitz` before
    # any blitz run said "no such id or name", as if Carlsen were not in the store
    assert main(["history", "Steinitz", "--system", "elo", "--pool", "blitz", "--store", str(rated_history)]) == 2  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert err == (
        "arpad: error: no elo/blitz history: no elo/blitz ratings in the store, so no player "
        "is found by name (arpad rate --system elo --pool blitz first)"
    )


def test_a_stored_player_without_ratings_in_the_system_is_named(rated_history, capsys):
    # the 1886 players have no Elo tags, so FIDE rates nobody of them; the message said
    # "no such id or name", as if Steinitz were not in the store
    assert main(["rate", "--system", "glicko2", "--pool", "standard", "--store", str(rated_history), "--no-flow"]) == 0  # fmt: skip
    from arpad.pipeline.lookup import rated_ids, resolve_players

    store = Store(rated_history)
    everyone_but = rated_ids(store, "glicko2", "standard").filter(
        ~pl.col("player_id").str.starts_with("WorldChamp1886")
    )
    with pytest.raises(ValueError) as e:
        resolve_players(store, ["Steinitz"], everyone_but, "glicko2/standard")
    assert str(e.value) == (
        "no glicko2/standard history for player(s) Steinitz: the name is "
        "WorldChamp1886.pgn:Steinitz, William (Steinitz, William), who has no "
        "glicko2/standard rating"
    )
    with pytest.raises(ValueError, match=r"Morphy \(no such id or name"):
        resolve_players(store, ["Morphy"], everyone_but, "glicko2/standard")


def test_other_given_names_are_not_guessed_but_named(rated_history):
    # Steinitz was born Wilhelm: "Steinitz, Wilhelm" is not "Steinitz, William" by any
    # rule (a Paulsen, Wilfried is not a Paulsen, Louis), but the message names him
    from arpad.pipeline.lookup import rated_ids, resolve_players

    store = Store(rated_history)
    with pytest.raises(ValueError) as e:
        resolve_players(store, ["Steinitz, Wilhelm"], rated_ids(store, "elo", "standard"), "elo/standard")  # fmt: skip
    assert str(e.value) == (
        "no elo/standard history for player(s) Steinitz, Wilhelm (no such id or name; same "
        "surname: WorldChamp1886.pgn:Steinitz, William (Steinitz, William); arpad players "
        "lists them)"
    )


START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def test_odds_games_and_set_up_positions_are_stored_not_rated(tmp_path):
    # 1850s collections hold odds games (Staunton giving pawn and move, knight odds)
    # written as a FEN: not a game between equals, so not rated (was: rated as any
    # game); a FEN that is the initial position is an ordinary game
    def game(rnd: str, fen: str | None, setup: str | None = "1") -> str:
        extra = ([("SetUp", setup)] if setup else []) + ([("FEN", fen)] if fen else [])
        pairs = [*ROSTER[:3], ("Round", rnd), *ROSTER[4:], *extra]
        return tags(pairs, "1. e4 1-0")

    text = (
        game("1", "rnbqkbnr/ppppp1pp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")  # pawn and move
        + game("2", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/R1BQKBNR w KQkq - 0 1")  # knight odds
        + game("3", START)
        + game("4", "  " + START.replace(" 0 1", "") + " ")  # no move counters, blanks
        + game("5", None)  # SetUp "1" without a FEN: nothing to compare, an ordinary game
        + game("6", "4k3/8/8/8/8/8/8/4K2R w K - 0 1", setup=None)  # FEN without SetUp
    )
    path = tmp_path / "odds.pgn"
    path.write_text(text)
    raw = read_pgn(path)
    assert not raw.problems
    assert raw.frame["rated"].to_list() == ["false", "false", None, None, None, "false"]
    assert any("3 game(s) from a set-up position (FEN" in n for n in raw.notes)


def test_norm_takes_a_player_name_as_history_does(shared_data, capsys):
    # `arpad norm FILE --player Carlsen` said "no rated games of player 'Carlsen'"
    # although he played 12 rated games in the file (13 rounds, one forfeit)
    trf = shared_data / "trf" / "fide_example1_karl_mala_2005.trf"
    assert main(["norm", str(trf), "--player", "3400042", "--title", "IM"]) == 0
    by_id = capsys.readouterr().out
    assert main(["norm", str(trf), "--player", "Vasquez", "--title", "IM"]) == 0
    out = capsys.readouterr()
    assert out.out == by_id
    assert "Vasquez is the name of 3400042 (Vasquez,Rodrigo)" in out.err
    pgn = shared_data / "pgn" / "tatamast22.pgn"
    assert main(["norm", str(pgn), "--player", "Carlsen, M.", "--title", "GM"]) == 0
    assert capsys.readouterr().out.startswith("1503014: GM norm check, 12 games, 8.5 points (71 %)")
    assert main(["norm", str(pgn), "--player", "Morphy", "--title", "GM"]) == 2
    assert "no rated games of player 'Morphy'" in capsys.readouterr().err


def test_category_of_tata_steel_2022_and_of_unrated_events(shared_data, capsys):
    # Tata Steel Masters 2022: 14 players, average of their Elo tags 2736.93 → 2737,
    # category ⌈(2737 − 2250)/25⌉ = 20 (docs/legacy-systems.md "Categories")
    path = shared_data / "pgn" / "tatamast22.pgn"
    first: dict[str, int] = {}
    with open(path) as fh:
        while (g := chess.pgn.read_headers(fh)) is not None:
            for side in ("White", "Black"):
                first.setdefault(g[side], int(g[f"{side}Elo"]))
    average = sum(first.values()) / len(first)
    assert main(["category", str(path), "--format", "csv"]) == 0
    line = capsys.readouterr().out.strip().splitlines()[1].split(",")
    assert line[1:3] == ["14", "14"]
    assert float(line[3]) == pytest.approx(average)
    assert int(line[4]) == half_up(average) == 2737
    assert line[5] == "20"
    # an event without rated players: every number empty in CSV, as null in JSON (was NaN)
    assert main(["category", str(shared_data / "pgn" / "WorldChamp1886.pgn"), "--format", "csv"]) == 0  # fmt: skip
    assert capsys.readouterr().out.strip().splitlines()[1] == "World Championship 1st,2,0,,,"
