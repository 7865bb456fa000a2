"""The card's Rc/Rp line (issue 13 item 6; docs/fide-history.md "Rating card"): Rc the average
rating of the opponents whose games count, p the whole percentage scored, Rp = Rc +
dp(p) from FIDE B.02 table 8.1.1 (published values: dp(0.75) = 193, dp(0.86) = 309)."""

from __future__ import annotations

from arpad.pipeline.cli import main
from arpad.pipeline.fide_card import format_card, rating_card
from arpad.pipeline.ingest import ingest_files
from arpad.pipeline.store import Store
from tests.conftest import write_csv


def test_rc_and_rp_by_hand_leave_out_unrated_opponents(tmp_path, capsys):
    pfile = write_csv(
        tmp_path / "players.csv",
        "player_id,name,rating,rated_games",
        [
            '1001,"Alpha, Anna",2650,100',
            '1002,"Beta, Bob",2400,100',
            '1003,"Gamma, Carl",2100,100',
            '9,"Newcomer, Nina",,',
        ],
    )
    rows = [
        "2025-01-05,1002,1003,1,E1",
        "2025-01-06,1001,1002,0.5,E1",
        "2025-01-07,9,1002,1,E2",  # 9 is unrated: not counted for 1002
    ]
    gfile = write_csv(tmp_path / "g.csv", "date,white_id,black_id,score,event_id", rows)
    store = Store(tmp_path / "store")
    ingest_files(store, [gfile], players=[pfile])
    assert main(["rate", "--no-flow", "--system", "fide", "--store", str(store.root)]) == 0
    card = rating_card(store, "1002", 202501)
    # by hand: opponents 2100 and 2650 → Rc 2375; 1.5/2 = 75 % → dp 193 → Rp 2568
    assert (card.rated_games, card.rc, card.percent, card.rp) == (2, 2375, 75, 2568)
    text = format_card(card)
    assert "Rc = 2375 (average of 2 rated opponent(s))" in text
    assert "score 1.5/2 = 75 %" in text and "Rp = Rc + dp = 2375 + 193 = 2568" in text
    # the unrated newcomer has no counted game: no Rc line
    assert rating_card(store, "9", 202501).rc is None


def test_rc_and_rp_of_the_fide_example_tournament(shared_data, tmp_path):
    """FIDE's TRF example (Karl-Mala-Gedenkturnier 2005): 3400042 scores 6/7 against
    1895, 2079, 2149, 2302, 2346, 2251, 2219 (the TRF's ratings): Rc = 15241/7 =
    2177.3 → 2177, p = 85.7 → 86 %, dp 309, Rp 2486."""
    trf = shared_data / "trf" / "fide_example1_karl_mala_2005.trf"
    store = Store(tmp_path / "store")
    ingest_files(store, [trf])
    assert main(["rate", "--no-flow", "--system", "fide", "--store", str(store.root)]) == 0
    card = rating_card(store, "3400042", 200507)
    assert [g.opponent_rating for g in card.games] == [1895, 2079, 2149, 2302, 2346, 2251, 2219]
    assert (card.rated_games, card.rc, card.percent, card.rp) == (7, 2177, 86, 2486)
