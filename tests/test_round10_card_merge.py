"""`arpad card` after a merge: the kept id's rating at the start comes from a merged
duplicate's Elo tags (a dated observation, which counts for the keep:
docs/observations.md "Where observations come from"), so K is that of a player rated
from a published rating, established (30 games taken), as the engine rated him, not a
new player's (round 10, historian10 #2: "stored K = 10 DIFFERS from the recomputed
K = 25", exit 2).

By hand (docs/rules.md "FIDE"): Steinitz 2720 v Winawer 2640, D = +80 → PD 0.61
(table 8.1.2, 77..83); won: ΔR +0.39, drew: −0.11; ΣΔR = +0.28. Rated from a stated
rating, his count is taken as 30 (not < 30), and his peak 2720 ≥ 2400: K = 10;
10 × 0.28 = 2.8 → +3 (half away from zero): 2723.
"""

from __future__ import annotations

import pytest

from arpad.pipeline.cli import main

GAME = """[Event "{event}"]
[Site "X"]
[Date "{date}"]
[Round "{rnd}"]
[White "{white}"]
[Black "{black}"]
[Result "{result}"]
{tags}
1. e4 e5 {result}

"""
STEINITZ, WINAWER = "Steinitz, Wilhelm", "Winawer, Szymon"
KEEP, DUP = f"b.pgn:{STEINITZ}", f"a.pgn:{STEINITZ}"


def _store(tmp_path, year: int, merge: bool) -> str:
    tags = '[WhiteElo "{}"]\n[BlackElo "{}"]'
    a = GAME.format(event="Wien 1882", date=f"{year}.05.10", rnd=1, white=STEINITZ,
                    black=WINAWER, result="1-0", tags=tags.format(2720, 2640))  # fmt: skip
    a += GAME.format(event="Wien 1882", date=f"{year}.05.11", rnd=2, white=WINAWER,
                     black=STEINITZ, result="1/2-1/2", tags=tags.format(2640, 2720))  # fmt: skip
    b = GAME.format(event="London 1886", date=f"{year + 4}.??.??", rnd=1, white=STEINITZ,
                    black="Zukertort, J.", result="1-0", tags="")  # fmt: skip
    (tmp_path / "a.pgn").write_text(a)
    (tmp_path / "b.pgn").write_text(b)
    root = str(tmp_path / "S")
    files = [str(tmp_path / "a.pgn"), str(tmp_path / "b.pgn")]
    assert main(["ingest", *files, "--store", root, "--no-flow"]) == 0
    if merge:
        assert main(["players", "merge", KEEP, DUP, "--store", root]) == 0
    assert main(["rate", "--system", "fide", "--store", root, "--no-flow"]) == 0
    return root


def _card(root: str, player: str, period: int, capsys) -> list[str]:
    capsys.readouterr()
    assert main(["card", player, "--period", str(period), "--store", root]) == 0
    return capsys.readouterr().out.splitlines()


def _k(lines: list[str]) -> str:
    (line,) = [ln for ln in lines if ln.startswith("K = ")]
    return line


PENDING = "the K × n cap applies when the rating period closes"


def test_merged_keep_two_monthly_matches_the_stored_k(tmp_path, capsys):
    root = _store(tmp_path, 1882, merge=True)  # FIDE 2009-07: two-monthly, K new 25
    first = _card(root, KEEP, 188205, capsys)
    assert "rating at the start: 2720" in first
    assert _k(first) == f"K = 10: base K 10 (peak published rating 2720 ≥ 2400); {PENDING}"
    assert not any("DIFFERS" in ln for ln in first)
    closing = _card(root, KEEP, 188206, capsys)
    assert "ΣΔR = +0.28   K = 10   K × ΣΔR = +2.80   rounded half away from zero = +3" in closing
    assert "stored change = +3  (matches)" in closing
    assert "rating after: 2723" in closing


def test_merged_keep_monthly_matches_the_stored_change(tmp_path, capsys):
    root = _store(tmp_path, 2016, merge=True)  # FIDE 2014-07: monthly, K new 40
    lines = _card(root, KEEP, 201605, capsys)
    assert _k(lines) == (
        "K = 10: base K 10 (peak published rating 2720 ≥ 2400); K × n = 10 × 2 = 20 ≤ 700"
    )
    assert "stored change = +3  (matches)" in lines
    assert "rating after: 2723" in lines


@pytest.mark.parametrize(
    ("player", "k"),
    [
        (DUP, f"K = 10: base K 10 (peak published rating 2720 ≥ 2400); {PENDING}"),
        (f"a.pgn:{WINAWER}", f"K = 10: base K 10 (peak published rating 2640 ≥ 2400); {PENDING}"),
    ],
)
def test_without_a_merge_the_card_is_unchanged(tmp_path, capsys, player, k):
    root = _store(tmp_path, 1882, merge=False)
    lines = _card(root, player, 188205, capsys)
    assert _k(lines) == k
    assert not any("DIFFERS" in ln for ln in lines)
