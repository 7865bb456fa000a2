"""``players identify``, historian round 11 (docs/identity.md "Pairs held back",
"Careers apart, an opponent in both", "Forms of address", "Nobiliary particles").

Finding 4: the years-of-play rule held back the players of a collection split by year
(Capablanca's games before and after 1920: Nimzowitsch 1914 and 1927), and its note
named 3 pairs of 8 with no way to list the rest. Now one full name with a shared
opponent is proposed across the gap, and every pair held back is a row of the mapping
file marked ``merge`` "no" (``--held-back`` lists them alone), which ``merge
--mapping`` leaves out until the user writes yes.

Finding 5: "Capt." was read as a given name ("Capt. Mackenzie" proposed as an
abbreviation of "Mackenzie, Capt. George Henry", who was not proposed with "Mackenzie,
George Henry"), and "Lasa, Tassilo von der" / "de Riviere, Jules Arnous" were not
compared with "von der Lasa, Tassilo" / "Rivière, Jules Arnous de".

Scores by hand (docs/identity.md "Evidence scores"): same normalised name 0.6, years
within 10 years +0.1, each shared opponent +0.05.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arpad.pipeline import identity
from arpad.pipeline.cli import main
from arpad.pipeline.store import Store


def game(event: str, year: int, rnd: int, white: str, black: str, result: str) -> str:
    return (
        f'[Event "{event}"]\n[Site "?"]\n[Date "{year}.??.??"]\n[Round "{rnd}"]\n'
        f'[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n\n'
        f"1. e4 e5 2. Nf3 Nc6 {result}\n\n"
    )


def ingest(tmp_path: Path, files: dict[str, str]) -> Path:
    paths = []
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        paths.append(str(tmp_path / name))
    root = tmp_path / "S"
    assert main(["ingest", "--no-flow", "--store", str(root), *paths]) == 0
    return root


CAPA, NIMZO, PAULSEN = "Capablanca, Jose Raul", "Nimzowitsch, Aron", "Paulsen, Louis"
EVIDENCE_1927 = (
    "same normalised name; years 1914-1914 and 1927-1927: 13 years apart, allowed for one "
    "full name with a shared opponent; 1 shared opponent(s)"
)


@pytest.fixture
def split_collection(tmp_path):
    """A collection split at 1920: Nimzowitsch and Capablanca met in 1914 and in 1927
    (each the other's shared opponent); Paulsen played Mieses in 1914 and Colle in 1927
    (no shared opponent); Morphy, Paul beat Morphy, P. (two ids that met)."""
    early = game("Early", 1914, 1, NIMZO, CAPA, "0-1") + game(
        "Early", 1914, 2, PAULSEN, "Mieses, Jacques", "1-0"
    )
    late = (
        game("Late", 1927, 1, CAPA, NIMZO, "1-0")
        + game("Late", 1927, 2, "Colle, Edgar", PAULSEN, "0-1")
        + game("Late", 1927, 3, "Morphy, Paul", "Morphy, P.", "1-0")
    )
    return ingest(tmp_path, {"early.pgn": early, "late.pgn": late})


HEADER = "keep,duplicate,evidence,score,merge"
PROPOSED = [
    f'"early.pgn:{CAPA}","late.pgn:{CAPA}","{EVIDENCE_1927}",0.65,yes',
    f'"early.pgn:{NIMZO}","late.pgn:{NIMZO}","{EVIDENCE_1927}",0.65,yes',
]
HELD = [
    f'"early.pgn:{PAULSEN}","late.pgn:{PAULSEN}",'
    '"held back: years of play 1914-1914 and 1927-1927, 13 years apart (more than 10)",,no',
    '"late.pgn:Morphy, Paul","late.pgn:Morphy, P.",held back: they met in a game '
    "(abbreviated given name; years 1927-1927 and 1927-1927; 1 shared opponent(s)),,no",
]


def test_one_full_name_with_a_shared_opponent_is_proposed_across_the_gap(split_collection):
    """13 years apart (1914, 1927), the same full name and one shared opponent: 0.6 +
    0.05 = 0.65, without the +0.1 for years within 10. Before: not proposed (vetoed)."""
    rows = identity.candidates(Store(split_collection)).rows()
    assert rows == [
        (f"early.pgn:{CAPA}", f"late.pgn:{CAPA}", EVIDENCE_1927, 0.65),
        (f"early.pgn:{NIMZO}", f"late.pgn:{NIMZO}", EVIDENCE_1927, 0.65),
    ]


def test_an_abbreviated_name_is_not_lifted_across_the_gap(tmp_path):
    """ "Nimzowitsch, A." 1914 and 1927, both against Capablanca: an initial is not a
    full name, so the years-of-play rule holds (held back, listed)."""
    root = ingest(
        tmp_path,
        {
            "e.pgn": game("E", 1914, 1, "Nimzowitsch, A.", "Capablanca, J.", "0-1"),
            "l.pgn": game("L", 1927, 1, "Capablanca, Jose Raul", "Nimzowitsch, A.", "1-0"),
        },
    )
    held: list = []  # nearest careers first, then by the pair's ids
    assert identity.candidates(Store(root), held=held).rows() == []
    assert held == [
        (
            "l.pgn:Capablanca, Jose Raul",
            "e.pgn:Capablanca, J.",
            "held back: years of play 1927-1927 and 1914-1914, 13 years apart (more than 10)",
        ),
        (
            "e.pgn:Nimzowitsch, A.",
            "l.pgn:Nimzowitsch, A.",
            "held back: years of play 1914-1914 and 1927-1927, 13 years apart (more than 10)",
        ),
    ]


def test_the_mapping_file_holds_every_pair_held_back_marked_merge_no(
    split_collection, tmp_path, capsys
):
    mapping = tmp_path / "m.csv"
    argv = ["players", "identify", "--store", str(split_collection), "--output", str(mapping)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert mapping.read_text(encoding="utf-8").splitlines() == [HEADER, *PROPOSED, *HELD]
    assert out == (
        f"2 proposed merge(s) and 2 pair(s) held back (marked merge 'no') written to {mapping} "
        f"(review, then arpad players merge --mapping {mapping})\n"
    )
    # merge --mapping leaves the "no" rows out, and says so
    assert (
        main(["players", "merge", "--mapping", str(mapping), "--store", str(split_collection)]) == 0
    )
    err = capsys.readouterr().err
    assert (
        f"arpad: note: {mapping}: 2 row(s) marked merge 'no' left out (pairs arpad players "
        "identify held back; write yes in the merge column to merge one)"
    ) in err
    store = Store(split_collection)
    assert identity.alias_map(store) == {
        f"late.pgn:{CAPA}": f"early.pgn:{CAPA}",
        f"late.pgn:{NIMZO}": f"early.pgn:{NIMZO}",
    }
    # the user switches Paulsen on: merged; the two rows merged before are in force
    text = mapping.read_text(encoding="utf-8").replace(
        '(more than 10)",,no', '(more than 10)",,yes'
    )
    mapping.write_text(text, encoding="utf-8")
    assert (
        main(["players", "merge", "--mapping", str(mapping), "--store", str(split_collection)]) == 0
    )
    assert identity.alias_map(store)[f"late.pgn:{PAULSEN}"] == f"early.pgn:{PAULSEN}"
    assert "1 row(s) marked merge 'no' left out" in capsys.readouterr().err


def test_held_back_lists_the_pairs_alone(split_collection, capsys):
    argv = ["players", "identify", "--store", str(split_collection), "--held-back"]
    assert main([*argv, "--format", "csv"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [HEADER, *HELD]
    assert captured.err == ""  # the list is the answer: no notes


def test_a_mapping_of_held_back_rows_only_merges_nothing_and_says_so(
    split_collection, tmp_path, capsys
):
    # refused, exit 2, until round 12: a mapping with no row to merge is exit 0 now
    # (docs/identity.md "Pairs held back"; tests/test_newuser_r12.py)
    mapping = tmp_path / "m.csv"
    mapping.write_text(f"{HEADER}\n{HELD[0]}\n", encoding="utf-8")
    argv = ["players", "merge", "--mapping", str(mapping), "--store", str(split_collection)]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert captured.out == f"nothing to merge: {mapping} has no keep,duplicate row to merge\n"
    assert "1 row(s) marked merge 'no' left out" in captured.err


def test_a_merge_value_other_than_yes_or_no_is_refused_naming_its_line(tmp_path, capsys):
    mapping = tmp_path / "m.csv"
    mapping.write_text("keep,duplicate,merge\nX1,X2,yes\nX1,X3,maybe\n", encoding="utf-8")
    with pytest.raises(Exception) as refused:
        identity.read_mapping(mapping)
    assert str(refused.value) == (
        f"{mapping}:3: merge is 'maybe': yes (or empty) to merge the row, no to not; "
        "nothing was merged"
    )


def test_an_empty_or_yes_merge_cell_merges_and_no_column_merges_every_row(tmp_path):
    """A row added by hand under identify's rows (merge left empty) is merged, as is
    every row of a file without the column (as before round 11)."""
    mapping = tmp_path / "m.csv"
    mapping.write_text("keep,duplicate,merge\nX1,X2,\nX1,X3,no\nX1,X4,YES\n", encoding="utf-8")
    notes: list = []
    assert identity.read_mapping(mapping, notes=notes) == [
        ("X1", "X2", f"mapping {mapping}"),
        ("X1", "X4", f"mapping {mapping}"),
    ]
    assert notes == [
        "1 row(s) marked merge 'no' left out (pairs arpad players identify held back; "
        "write yes in the merge column to merge one)"
    ]
    mapping.write_text("keep,duplicate\nX1,X2\nX1,X3\n", encoding="utf-8")
    assert [row[:2] for row in identity.read_mapping(mapping)] == [("X1", "X2"), ("X1", "X3")]


# -- finding 5: forms of address and particles ---------------------------------------------
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Mackenzie, Capt. George Henry", ("mackenzie", ("george", "henry"))),
        ("Capt. Mackenzie", ("mackenzie", ())),
        ("Captain G. H. Mackenzie", ("mackenzie", ("g", "h"))),
        ("Prof. Adolf Anderssen", ("anderssen", ("adolf",))),
        ("Smith, Lt. Col. John", ("smith", ("john",))),
        ("Maj. Hanham, James Moore", ("hanham", ("james", "moore"))),
        ("Lasa, Tassilo von der", ("von der lasa", ("tassilo",))),
        ("Tassilo von der Lasa", ("von der lasa", ("tassilo",))),
        ("Rivière, Jules Arnous de", ("de riviere", ("jules", "arnous"))),
    ],
)
def test_matching_name_forms_of_address_and_particles(name, expected):
    assert identity.matching_name(name) == expected


def test_what_stays_a_name(tmp_path):
    """Decided (docs/identity.md): "Maj" without its full stop is a given name (Swedish);
    a particle moves only when a given name stays before it ("Wang, Da"); the words
    before a particle are part of the surname ("Arnous de Riviere" is not "de
    Riviere"). The first line is new: "Col." was a given name before."""
    assert identity.matching_name("Col. Moreau, Jean") == ("moreau", ("jean",))
    assert identity.matching_name("Lindholm, Maj") == ("lindholm", ("maj",))
    assert identity.matching_name("Moreau, Col") == ("moreau", ("col",))
    assert identity.matching_name("Wang, Da") == ("wang", ("da",))
    assert identity.matching_name("Arnous de Riviere, J.") == ("arnous de riviere", ("j",))


NAMES = {  # historian11 files/make2.py, the three pairs of the finding
    "names_a.pgn": [
        ("von der Lasa, Tassilo", "Mackenzie, George Henry"),
        ("Morphy, Paul", "Rivière, Jules Arnous de"),
    ],
    "names_b.pgn": [
        ("Von der Lasa, T.", "Capt. Mackenzie"),
        ("MORPHY Paul", "Arnous de Riviere, J."),
    ],
    "names_c.pgn": [
        ("Lasa, Tassilo von der", "Mackenzie, Capt. George Henry"),
        ("Morphy, P.", "de Riviere, Jules Arnous"),
    ],
}


def test_captain_mackenzie_and_the_particles_are_proposed(tmp_path):
    """1890 (a), 1891 (b), 1892 (c). Mackenzie of a and c: same normalised name once
    "Capt." is left out, 2 years apart, the shared opponent von der Lasa: 0.6 + 0.1 +
    0.05 = 0.75; "Capt. Mackenzie" has no given name left and matches nothing (before:
    proposed as an abbreviation of "Capt. George Henry", 0.6). Von der Lasa and de
    Rivière of a and c likewise 0.75 (shared opponents Mackenzie and Morphy). "Von der
    Lasa, T." abbreviates the keep, 1 year apart, its opponent "Capt. Mackenzie" no
    name: 0.5 + 0.1 = 0.6. "Arnous de Riviere, J." has another surname (decided)."""
    files = {
        name: "".join(game(name, 1890 + i, r + 1, w, b, "1-0") for r, (w, b) in enumerate(pairs))
        for i, (name, pairs) in enumerate(NAMES.items())
    }
    root = ingest(tmp_path, files)
    rows = identity.candidates(Store(root)).rows()
    years = "years 1890-1890 and 1892-1892; 1 shared opponent(s)"
    assert rows == [
        (
            "names_a.pgn:Mackenzie, George Henry",
            "names_c.pgn:Mackenzie, Capt. George Henry",
            f"same normalised name; {years}",
            0.75,
        ),
        (
            "names_a.pgn:Rivière, Jules Arnous de",
            "names_c.pgn:de Riviere, Jules Arnous",
            f"same normalised name; {years}",
            0.75,
        ),
        (
            "names_a.pgn:von der Lasa, Tassilo",
            "names_c.pgn:Lasa, Tassilo von der",
            f"same normalised name; {years}",
            0.75,
        ),
        (
            "names_a.pgn:Morphy, Paul",
            "names_b.pgn:MORPHY Paul",
            "same normalised name; years 1890-1890 and 1891-1891",
            0.7,
        ),
        (
            "names_a.pgn:Morphy, Paul",
            "names_c.pgn:Morphy, P.",
            f"abbreviated given name; {years}",
            0.65,
        ),
        (
            "names_a.pgn:von der Lasa, Tassilo",
            "names_b.pgn:Von der Lasa, T.",
            "abbreviated given name; years 1890-1890 and 1891-1891",
            0.6,
        ),
    ]
