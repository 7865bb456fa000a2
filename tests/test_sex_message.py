"""The ``sex`` error of a players file names exactly the spellings the reader accepts
(docs/ingest.md: ``M`` for m, male, man, men, h, homme, masculin; ``F`` for f, female, w,
woman, women, femme, féminin; empty, ?, -, u or unknown for not known). It used to list
only "m, male, man; f, female, w, woman; empty or ?" while h, homme, femme, - and unknown
were read too (the new user's report, round 7)."""

from __future__ import annotations

import re

from arpad.pipeline.readers import read_any
from arpad.pipeline.validate import validate_players

MESSAGE = (
    "sex x is neither M nor F (read: M for m, male, man, men, h, homme, masculin; "
    "F for f, female, w, woman, women, femme, féminin; unknown for empty, ?, -, u, unknown; "
    "any case)"
)


def _players(tmp_path, rows):
    path = tmp_path / "p.csv"
    path.write_text("player_id,sex\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return validate_players(read_any(path, kind="players"), "p.csv", "b")


def test_sex_message_names_every_spelling_read(tmp_path):
    v = _players(tmp_path, ["1,x"])
    assert v.quarantine.column("reason").to_pylist() == ["bad_player_field"]
    assert v.quarantine.column("detail").to_pylist() == [MESSAGE]


def test_every_spelling_the_message_names_is_read_as_it_says(tmp_path):
    groups = re.search(r"read: (.*); any case\)", MESSAGE).group(1).split("; ")
    expected = {}
    for group in groups:
        label, spellings = group.split(" for ", 1)
        stored = {"M": "M", "F": "F", "unknown": None}[label]
        for spelling in spellings.split(", "):
            if spelling != "empty":
                expected[spelling.upper()] = stored  # any case
    rows = [f"{i},{s}" for i, s in enumerate(expected, 1)]
    v = _players(tmp_path, rows)
    assert v.quarantine.num_rows == 0
    got = v.accepted.column("sex").to_pylist()
    assert dict(zip(expected, got)) == expected
    assert {"H", "HOMME", "FEMME", "-", "UNKNOWN"} <= set(expected)  # the report's five
