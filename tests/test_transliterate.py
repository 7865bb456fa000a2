"""Transliterated names (docs/identity.md "Transliterations"): the Cyrillic table, the
phonetic key, and ``arpad players identify`` proposing transliterations as their own,
weaker evidence. Positive pairs must meet, negative pairs must not."""

from __future__ import annotations

import pytest

from arpad.pipeline import identity
from arpad.pipeline.cli import main
from arpad.pipeline.identity import normalise_name
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.store import Store
from arpad.pipeline.transliterate import phonetic_key, phonetic_word, to_latin
from tests.conftest import write_csv


def key(name: str):
    return phonetic_key(*normalise_name(name))


def same_person(a: str, b: str) -> bool:
    """Surname keys equal and given-name keys equal or one abbreviating the other."""
    (sa, ga), (sb, gb) = key(a), key(b)
    return sa == sb and identity._given_match(ga, gb) is not None


@pytest.mark.parametrize(
    "names",
    [
        ("Alekhine", "Aljechin", "Alechin", "Aljekhin", "Алехин", "Alekhin"),
        ("Tchigorin", "Chigorin", "Tschigorin", "Tchigorine", "Чигорин"),
        ("Nimzowitsch", "Nimzovich", "Nimzowitch"),
        ("Bogoljubow", "Bogolyubov", "Bogoljubov", "Боголюбов"),
        ("Janowski", "Janowsky", "Janowskij", "Janowskii"),
        ("Smyslov", "Smyslow", "Смыслов"),
        ("Petrosian", "Petrosjan", "Петросян"),
        ("Taimanov", "Tajmanov", "Тайманов"),
        ("Romanov", "Romanoff", "Романов"),
        ("Botvinnik", "Botwinnik", "Ботвинник"),
    ],
)
def test_romanisations_share_a_key(names):
    keys = {phonetic_word(normalise_name(n)[0]) for n in names}
    assert len(keys) == 1, dict(zip(names, keys, strict=False))


def test_keys_written_out():
    # the rules applied by hand (docs/identity.md "Transliterations")
    assert phonetic_word("alekhine") == "alehin"  # kh → h, final -e dropped
    assert phonetic_word("aljechin") == "alehin"  # j → i, -ie- → -e-, ch → h
    assert phonetic_word("tschigorin") == "higorin"  # tsch → ch → h
    assert phonetic_word("nimzowitsch") == "nimzovih"  # w → v, tsch → ch → h
    assert phonetic_word("alexander") == "aleksandr"  # x → ks, -er → -r
    assert phonetic_word("steinitz") == "steinitz"  # nothing to fold


def test_cyrillic_to_latin():
    assert to_latin("Алехин, Александр") == "Alekhin, Aleksandr"
    assert to_latin("Щербаков") == "Shcherbakov"
    assert to_latin("Чигорин, Михаил") == "Chigorin, Mikhail"
    assert to_latin("Нимцович, Арон Исаевич") == "Nimtsovich, Aron Isaevich"
    assert to_latin("АЛЕХИН") == "ALEKHIN"
    assert to_latin("Хмельницкий") == "Khmelnitskii"
    assert to_latin("Lasker, Emanuel") == "Lasker, Emanuel"  # Latin untouched
    assert normalise_name("Алехин, Александр") == ("alekhin", ("aleksandr",))
    assert normalise_name("АЛЕХИН Александр") == ("alekhin", ("aleksandr",))


@pytest.mark.parametrize(
    "a, b",
    [
        ("Алехин, Александр", "Alekhine, Alexander"),
        ("Aljechin, Alexander", "Alekhine, Alexander"),
        ("Aljechin, A.", "Alekhine, Alexander"),
        ("Tschigorin, Michail", "Chigorin, Mikhail"),
        ("Чигорин, Михаил", "Tchigorine, Mikhail"),
        ("Nimzowitsch, Aron", "Nimzovich, Aron"),
        ("Steinitz, Wilhelm", "Steinitz, W."),
        ("Bogoljubow, Efim", "Bogolyubov, Efim"),
    ],
)
def test_positive_pairs(a, b):
    assert same_person(a, b)


@pytest.mark.parametrize(
    "a, b",
    [
        ("Paulsen, Louis", "Paulsen, Wilfried"),  # brothers: given names differ
        ("Lasker, Emanuel", "Lasker, Edward"),
        ("Alekhine, Alexander", "Alekhine, Alexei"),
        ("Steinitz, Wilhelm", "Steiner, Wilhelm"),
        ("Chigorin, Mikhail", "Shirov, Mikhail"),
        ("Tal, Mikhail", "Tan, Mikhail"),
        ("Kasparov, Garry", "Karpov, Garry"),
        ("Alekhine, Alexander", "Alekhine"),  # no given names: too weak alone
        ("Schiffers, Emanuel", "Chiffers, Emanuel"),  # sch (sh) is not ch
    ],
)
def test_negative_pairs(a, b):
    assert not same_person(a, b)


PLAYERS = [
    'a1,"Alekhine, Alexander",1892',
    'a2,"Алехин, Александр",1892',
    'a3,"Aljechin, A.",',
    'c1,"Chigorin, Mikhail",',
    'c2,"Tschigorin, Michail",',
    'p1,"Paulsen, Louis",',
    'p2,"Paulsen, Wilfried",',
    'x1,"Steinitz, Wilhelm",',
    'x2,"Steinitz, Wilhelm",',
    'n1,"Nimzowitsch, Aron",1886',
    'n2,"Nimzovich, Aron",1950',  # another birth year: vetoed
    'n3,"Nimzowitsch, Aron",1886',
]
GAMES = [
    "1921-01-05,a1,c1,1-0",
    "1921-01-06,a2,x1,1-0",
    "1921-02-05,a3,c2,1-0",
    "1921-02-06,p1,p2,1-0",
    "1921-03-05,x2,n1,1-0",
    "1921-03-06,n2,n3,1-0",
    "1921-03-07,n1,a1,0-1",
]


@pytest.fixture
def names_store(tmp_path) -> Store:
    players = write_csv(tmp_path / "players.csv", "player_id,name,birth_year", PLAYERS)
    games = write_csv(tmp_path / "games.csv", "date,white_id,black_id,result", GAMES)
    store = Store(tmp_path / "store")
    ingest_files(store, [games], players=[players])
    return store


def test_identify_proposes_transliterations_with_their_own_evidence(names_store):
    found = identity.candidates(names_store)
    pairs = {(r["keep"], r["duplicate"]): r for r in found.iter_rows(named=True)}
    by_dup = {d: (k, r) for (k, d), r in pairs.items()}
    # Cyrillic and Latin spellings of Alekhine, same birth year
    keep, row = by_dup["a2"]
    assert keep == "a1"
    assert row["evidence"].startswith("transliterated name; birth year 1892")
    # 0.5 + birth year 0.3 + overlapping years 0.1; no opponent in common
    want = identity.SCORE_TRANSLITERATED + identity.SCORE_BIRTH_YEAR + identity.SCORE_OVERLAP
    assert row["score"] == pytest.approx(want)
    # abbreviated and transliterated: proposed only with more evidence (the years)
    keep, row = by_dup["a3"]
    assert keep == "a1" and row["evidence"].startswith("transliterated, abbreviated name")
    keep, row = by_dup["c2"]
    assert keep == "c1" and row["evidence"].startswith("transliterated name")
    # an exact normalised match scores more than a transliterated one
    _, exact = by_dup["x2"]
    assert exact["evidence"].startswith("same normalised name")
    assert identity.SCORE_SAME_NAME > identity.SCORE_TRANSLITERATED
    assert exact["score"] > by_dup["c2"][1]["score"]
    # no false merges: brothers, and a Nimzovich with another birth year
    assert "p1" not in by_dup and "p2" not in by_dup
    assert "n2" not in by_dup
    assert by_dup["n3"][0] == "n1" or by_dup["n1"][0] == "n3"


def test_identify_cli_shows_transliterated_evidence(names_store, capsys, tmp_path):
    out = tmp_path / "mapping.csv"
    argv = ["players", "--store", str(names_store.root), "identify", "--output", str(out)]
    assert main(argv) == 0
    capsys.readouterr()
    text = out.read_text(encoding="utf-8")
    assert "a1,a2,transliterated name" in text
    assert "Paulsen" not in text and "p2" not in text
