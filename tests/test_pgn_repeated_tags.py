"""A tag arpad reads given twice in one game's tag section with different values
(docs/pgn-trf.md "Reading PGN"): the game is quarantined ``malformed_row`` naming the
tag and both lines; the same value repeated is harmless.

References: the line numbers and values are read off the hand-written files below
(not produced by the reader); the parts scan (threads) is compared array for array
with the one-part scan (tests/test_pgn_parallel.py's rule).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

from arpad.kernels import pgn_scan
from arpad.pipeline import pgn
from arpad.pipeline.ingest import ingest_file
from arpad.pipeline.pgn import read_pgn
from arpad.pipeline.reasons import Reason
from arpad.pipeline.store import Store

GOOD = (
    '[Event "Club"]\n[Site "Here"]\n[Date "2024.03.0{d}"]\n[Round "{d}"]\n'
    '[White "Ann"]\n[Black "Bob"]\n[Result "1-0"]\n\n1. e4 e5 1-0\n\n'
)
# line 1 [Event, line 3 the first White, line 5 the second (another value)
CONFLICT = (
    '[Event "Club"]\n[Site "Here"]\n[White "A5"]\n[Black "Bob"]\n[White "Z5"]\n'
    '[Date "2024.03.09"]\n[Round "9"]\n[Result "1-0"]\n\n1. e4 e5 1-0\n\n'
)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def test_conflicting_white_is_quarantined_naming_both_lines(tmp_path):
    raw = read_pgn(write(tmp_path, "c.pgn", CONFLICT))
    assert raw.frame.height == 0
    assert [p[:3] for p in raw.problems] == [
        (
            1,
            Reason.MALFORMED_ROW,
            "tag White given twice with different values ('A5' on line 3, 'Z5' on line 5)",
        )
    ]


def test_same_value_repeated_is_harmless(tmp_path):
    # the same White twice (once with a trailing blank, once in another case): one game
    text = (
        '[Event "Club"]\n[Site "Here"]\n[White "Ann"]\n[Black "Bob"]\n[White "Ann "]\n'
        '[white "Ann"]\n[Date "2024.03.01"]\n[Round "1"]\n[Result "1-0"]\n\n1. e4 e5 1-0\n'
    )
    raw = read_pgn(write(tmp_path, "same.pgn", text))
    assert raw.problems == []
    assert raw.frame["game_id"].to_list() == ["pgn:Club|Here|2024.03.01|1|Ann|Bob"]
    assert raw.frame["result"].to_list() == ["1-0"]


@pytest.mark.parametrize(
    ("tags", "detail"),
    [
        # two pairs on one line: both on line 3
        (
            '[Result "0-1"] [Result "1-0"]',
            "tag Result given twice with different values ('0-1' on line 3, '1-0' on line 3)",
        ),
        # a blank line and a comment line between them still count as lines; an
        # escaped quote is shown unescaped
        (
            '[Date "2024.03.09"]\n\n% a remark\n[Date "2024.\\"03\\".10"]',
            "tag Date given twice with different values ('2024.03.09' on line 3, "
            "'2024.\"03\".10' on line 6)",
        ),
        (
            '[WhiteElo "2100"]\n[WhiteElo "2010"]',
            "tag WhiteElo given twice with different values ('2100' on line 3, '2010' on line 4)",
        ),
    ],
)
def test_other_tags_and_layouts(tmp_path, tags, detail):
    text = f'[Event "Club"]\n[Site "Here"]\n{tags}\n[White "Ann"]\n[Black "Bob"]\n\n1. e4 1-0\n'
    raw = read_pgn(write(tmp_path, "o.pgn", text))
    assert [(p[0], p[2]) for p in raw.problems] == [(1, detail)]


def test_a_tag_arpad_does_not_read_may_repeat(tmp_path):
    text = (
        '[Event "Club"]\n[Site "Here"]\n[Date "2024.03.01"]\n[Round "1"]\n[White "Ann"]\n'
        '[Black "Bob"]\n[Result "1-0"]\n[Annotator "X"]\n[Annotator "Y"]\n\n1. e4 e5 1-0\n'
    )
    raw = read_pgn(write(tmp_path, "a.pgn", text))
    assert raw.problems == [] and raw.frame.height == 1


def test_ingest_counts_and_quarantine_row(tmp_path):
    text = GOOD.format(d=1) + CONFLICT.replace('"Club"', '"Club2"') + GOOD.format(d=2)
    path = write(tmp_path, "mixed.pgn", text)
    store = Store(tmp_path / "s")
    report = ingest_file(store, path)
    assert (report.rows, report.accepted, report.quarantined) == (3, 2, 1)
    assert report.rows == report.accepted + report.quarantined
    assert report.reasons == {"malformed_row": 1}
    q = pl.read_parquet(store.quarantine_dir / "**" / "*.parquet")
    # GOOD is 10 lines (with its blank lines): the conflicting game starts on line 11
    assert q.select("line", "reason", "detail").rows() == [
        (
            11,
            "malformed_row",
            "tag White given twice with different values ('A5' on line 13, 'Z5' on line 15)",
        )
    ]


@pytest.mark.parametrize("end", ["\n", "\r\n"])  # cuts are at "\n[Event " lines
def test_parts_scan_equals_one_scan_with_repeats(end):
    # every other game has a conflicting White: the REPEAT columns (lines offset per
    # part) must come out of the parts scan exactly as from one reading
    games = []
    for k in range(40):
        games.append((GOOD.format(d=k % 9 + 1) if k % 2 else CONFLICT).replace("\n", end))
    data = "".join(games).encode()
    buf = np.frombuffer(data, np.uint8)
    one, pre = pgn.scan(buf, 1)
    cuts = pgn.split_points(buf, 4)
    assert len(cuts) == 3
    joined = pgn._joined(buf, cuts)
    assert joined is not None  # really read in parts
    assert np.array_equal(joined[0], one) and joined[1].tolist() == pre.tolist()
    conflicting = one[one[:, pgn_scan.REPEAT] >= 0]
    assert conflicting.shape[0] == 20
    # game 2k starts on line 1 + 21k (CONFLICT is 11 lines, GOOD 10)
    starts = [1 + 21 * k for k in range(20)]
    assert conflicting[:, pgn_scan.LINE].tolist() == starts
    assert conflicting[:, pgn_scan.REPEAT_FIRST].tolist() == [s + 2 for s in starts]
    assert conflicting[:, pgn_scan.REPEAT].tolist() == [s + 4 for s in starts]
    assert set(conflicting[:, pgn_scan.REPEAT_TAG].tolist()) == {pgn.TAGS.index("White")}
