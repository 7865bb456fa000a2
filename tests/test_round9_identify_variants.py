"""``players identify`` and spelling variants of given names (round 9, historian9
defect 1; docs/identity.md "Spelling variants of given names").

Before, "Schlechter, Carl" and "Schlechter, Karl", or "Loewenthal, Johann Jacob" and
"Löwenthal, Johann Jakob", were never proposed and nothing was said; "Loewenthal, J."
was proposed into "Johann Jacob" when the other spelling had an umlaut (the ambiguity
rule counted only the same *normalised* surname) and left out as ambiguous when both
were written "Loewenthal".

Expected values by hand from docs/identity.md: same normalised name 0.6, abbreviated
given name 0.5, transliterated name 0.5, spelling variants 0.5 (abbreviated 0.4),
years of play within 10 years +0.1, a shared opponent +0.05, from 0.5 proposed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arpad.pipeline import identity
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store
from arpad.pipeline.transliterate import variant_key
from tests.test_identity_attack import players_store as csv_store


def pgn_game(event: str, year: int, white: str, black: str, result: str) -> str:
    return (
        f'[Event "{event}"]\n[Site "{event}"]\n[Date "{year}.??.??"]\n[Round "1"]\n'
        f'[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n\n'
        f"1. e4 e5 2. Nf3 Nc6 {result}\n"
    )


def pgn_store(tmp_path: Path, files: dict[str, tuple]) -> Path:
    """One PGN file per entry (file name -> (event, year, white, black, result)), all
    ingested into one store, as the report did (``arpad ingest --no-flow``)."""
    paths = []
    for name, game in files.items():
        path = tmp_path / name
        path.write_text(pgn_game(*game), encoding="utf-8")
        paths.append(str(path))
    root = tmp_path / "S"
    assert main(["ingest", "--no-flow", "--store", str(root), *paths]) == 0
    return root


def proposals(root: Path) -> list[tuple]:
    return identity.candidates(Store(root)).rows()


CARL, KARL, C = "a.pgn:Schlechter, Carl", "b.pgn:Schlechter, Karl", "c.pgn:Schlechter, C."
JACOB, JAKOB = "d.pgn:Loewenthal, Johann Jacob", "e.pgn:Löwenthal, Johann Jakob"
J = "f.pgn:Loewenthal, J."
SCHLECHTER = {
    "a.pgn": ("Vienna 1873", 1873, "Schlechter, Carl", "Mieses, Jacques", "1-0"),
    "b.pgn": ("Vienna 1873", 1874, "Schlechter, Karl", "Marco, Georg", "1-0"),
    "c.pgn": ("Vienna 1873", 1875, "Schlechter, C.", "Marco, G.", "1-0"),
}
LOEWENTHAL = {
    "d.pgn": ("London", 1851, "Loewenthal, Johann Jacob", "Williams, Elijah", "1-0"),
    "e.pgn": ("London", 1858, "Löwenthal, Johann Jakob", "Morphy, Paul", "0-1"),
    "f.pgn": ("London", 1855, "Loewenthal, J.", "Bird, Henry Edward", "1-0"),
}


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Carl", "Karl"),
        ("Jacob", "Jakob"),
        ("Nicolai", "Nikolai"),
        ("Isaac", "Isaak"),
        ("Frederick", "Frederik"),
        ("Ignatz", "Ignaz"),
        ("Moritz", "Moriz"),
        ("Adolph", "Adolf"),
        ("Rudolph", "Rudolf"),
        ("Günther", "Günter"),
        ("Walther", "Walter"),
        ("Matthias", "Mathias"),
        ("Mathias", "Matias"),
    ],
)
def test_spelling_variants_share_a_variant_key(a, b):
    """pipeline/transliterate.py ``VARIANT_RULES``: hard c = k, tz = z, th = t, on top
    of the phonetic key's ph = f and doubled letters."""
    key = variant_key
    assert key(identity.normalise_name(f"X, {a}")[1]) == key(identity.normalise_name(f"X, {b}")[1])


@pytest.mark.parametrize(
    ("a", "b"),
    [("Carl", "Charles"), ("Paul", "Pavel"), ("Cecil", "Kekil"), ("Emanuel", "Edward")],
)
def test_other_names_keep_their_own_variant_keys(a, b):
    """ch is not c ("Charles" is not "Carl"), a soft c (before e, i, y) is not k, and
    the rules add nothing for Paul / Pavel."""
    assert variant_key((a.lower(),)) != variant_key((b.lower(),))


def test_carl_and_karl_are_proposed_as_spelling_variants(tmp_path, capsys):
    """The report's store C1: Carl (1873) and Karl (1874) are one name spelt two ways,
    0.5 + years 0.1; "C." abbreviates Carl (0.5 + 0.1). All end in one keep (Carl:
    the smaller id of two equally informative spellings with one game each)."""
    root = pgn_store(tmp_path, SCHLECHTER)
    # round 10: the Marcos' opponents "Schlechter, Karl" and "Schlechter, C." are one
    # opponent by the spelling-variant key (C. / Karl): +0.05 (docs/identity.md)
    assert proposals(root) == [
        ("b.pgn:Marco, Georg", "c.pgn:Marco, G.", "abbreviated given name; years 1874-1874 and 1875-1875; 1 shared opponent(s)", 0.65),
        (CARL, KARL, "given names Carl / Karl (spelling variants); years 1873-1873 and 1874-1874", 0.6),
        (CARL, C, "abbreviated given name; years 1873-1873 and 1875-1875", 0.6),
    ]  # fmt: skip
    out = tmp_path / "m.csv"
    argv = ["players", "identify", "--store", str(root), "--output", str(out)]
    assert main(argv) == 0
    text = out.read_text(encoding="utf-8")
    assert f'"{CARL}","{KARL}",given names Carl / Karl (spelling variants);' in text


def test_jacob_and_jakob_with_an_umlaut_and_an_initial_end_in_one_keep(tmp_path):
    """The report's store C2: "Löwenthal, Johann Jakob" (transliterated surname, given
    names spelling variants: 0.5 + years 1851 / 1858 0.1) and "Loewenthal, J." (0.5 +
    0.1) are both proposed into "Loewenthal, Johann Jacob"; J. is not ambiguous, as
    Jacob and Jakob are one name. After the merge one id is left."""
    root = pgn_store(tmp_path, LOEWENTHAL)
    assert proposals(root) == [
        (JACOB, JAKOB, "transliterated surname; given names Jacob / Jakob (spelling variants); years 1851-1851 and 1858-1858", 0.6),
        (JACOB, J, "abbreviated given name; years 1851-1851 and 1855-1855", 0.6),
    ]  # fmt: skip
    mapping = tmp_path / "m.csv"
    argv = ["players", "identify", "--store", str(root), "--output", str(mapping)]
    assert main(argv) == 0
    assert main(["players", "merge", "--store", str(root), "--mapping", str(mapping)]) == 0
    assert identity.alias_map(Store(root)) == {JAKOB: JACOB, J: JACOB}


def test_two_unaccented_spellings_and_an_initial_are_one_person(tmp_path):
    """The report's store C3 ("Loewenthal, Johann Jakob" without the umlaut): before,
    J. was left out as ambiguous between Jacob and Jakob, and Jakob was not proposed."""
    files = dict(LOEWENTHAL)
    files["e.pgn"] = ("London", 1858, "Loewenthal, Johann Jakob", "Morphy, Paul", "0-1")
    root = pgn_store(tmp_path, files)
    assert proposals(root) == [
        (JACOB, "e.pgn:Loewenthal, Johann Jakob", "given names Jacob / Jakob (spelling variants); years 1851-1851 and 1858-1858", 0.6),
        (JACOB, J, "abbreviated given name; years 1851-1851 and 1855-1855", 0.6),
    ]  # fmt: skip


def test_an_umlaut_spelling_counts_in_the_ambiguity_rule(tmp_path):
    """ "Loewenthal, J." fits "Loewenthal, Johann Jacob" and "Löwenthal, Johann Baptist"
    (two different names; the umlaut is the same surname): ambiguous, not proposed.
    Before, only the same normalised surname counted and J. went to Jacob."""
    files = dict(LOEWENTHAL)
    files["e.pgn"] = ("London", 1858, "Löwenthal, Johann Baptist", "Morphy, Paul", "0-1")
    assert proposals(pgn_store(tmp_path, files)) == []


def test_genuinely_different_names_stay_ambiguous(tmp_path):
    """ "Lasker, E." with "Lasker, Emanuel" and "Lasker, Edward" in the same years stays
    out, as before; "Schlechter, C." with "Schlechter, Carl" and "Schlechter, Konrad"
    is now ambiguous too (C. may be Conrad, a spelling of Konrad); Carl and Konrad are
    never proposed."""
    players = [
        ("L1", "Lasker, Emanuel", None),
        ("L2", "Lasker, Edward", None),
        ("L3", "Lasker, E.", None),
        ("S1", "Schlechter, Carl", None),
        ("S2", "Schlechter, Konrad", None),
        ("S3", "Schlechter, C.", None),
        ("O", "Marco, Georg", None),
    ]
    games = [(p, "O", 1900) for p in ("L1", "L2", "L3", "S1", "S2", "S3")]
    assert identity.candidates(csv_store(tmp_path, players, games)).rows() == []


def test_no_over_merge_and_the_vetoes_still_hold(tmp_path, capsys):
    """Carl / Charles and Paul / Pavel are not proposed (no rule folds them); Ignatz /
    Ignaz with two birth years are two people; Moritz / Moriz who met in a game are
    two; Adolph / Adolf already met through the phonetic key ("transliterated name",
    unchanged); Carl / Karl 30 years apart are named in identify's note."""
    players = [
        ("C1", "Mayer, Carl", None),
        ("C2", "Mayer, Charles", None),
        ("P1", "Keres, Paul", None),
        ("P2", "Keres, Pavel", None),
        ("I1", "Kolisch, Ignatz", 1837),
        ("I2", "Kolisch, Ignaz", 1840),
        ("M1", "Porges, Moritz", None),
        ("M2", "Porges, Moriz", None),
        ("A1", "Anderssen, Adolph", None),
        ("A2", "Anderssen, Adolf", None),
        ("K1", "Hamppe, Carl", None),
        ("K2", "Hamppe, Karl", None),
        ("O", "Marco, Georg", None),
    ]
    games = [(p, "O", 1880) for p in ("C1", "C2", "P1", "P2", "I1", "I2", "A1", "A2")]
    games += [("M1", "M2", 1880), ("K1", "O", 1850), ("K2", "O", 1880)]
    store = csv_store(tmp_path, players, games)
    assert identity.candidates(store).rows() == [
        ("A1", "A2", "transliterated name; years 1880-1880 and 1880-1880; 1 shared opponent(s)", 0.65),
    ]  # fmt: skip
    capsys.readouterr()
    assert main(["players", "identify", "--store", str(store.root)]) == 0
    err = capsys.readouterr().err
    assert "they met in a game (M1 and M2" in err or "they met in a game (M2 and M1" in err
    assert "K1 (1850-1850) and K2 (1880-1880)" in err


def test_a_chain_joins_an_initial_to_the_other_spelling(tmp_path):
    """A "Schlechter, C." (no games) abbreviates B "Schlechter, Carl" (0.5; B keeps: it
    has games); B and C "Schlechter, Karl" are spelling variants (0.5 + years 0.1;
    C keeps: 2 games). A and C alone: abbreviated spelling variants without years,
    0.4, not proposed; A goes to C through B with the weaker link's 0.5 (``_chain_row``
    counts spelling variants as compatible names)."""
    players = [
        ("A", "Schlechter, C.", None),
        ("B", "Schlechter, Carl", None),
        ("C", "Schlechter, Karl", None),
        ("O", "Marco, Georg", None),
    ]
    games = [("B", "O", 1900), ("C", "O", 1900), ("C", "O", 1901)]
    assert identity.candidates(csv_store(tmp_path, players, games)).rows() == [
        ("C", "B", "given names Carl / Karl (spelling variants); years 1900-1901 and 1900-1900; 1 shared opponent(s)", 0.65),
        ("C", "A", "linked through B: B <- A: abbreviated given name (0.5) | C <- B: given names Carl / Karl (spelling variants); years 1900-1901 and 1900-1900; 1 shared opponent(s) (0.65)", 0.5),
    ]  # fmt: skip
