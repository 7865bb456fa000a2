"""``arpad recalculate``: a folder inside the inbox (other than ``players/``,
``processed/``, ``rejected/``) is not read, and the run says so (it was silent: a club's
export dropped into ``inbox/sub/`` looked ingested; the officer's attack, 2026-12-03)."""

from __future__ import annotations

from arpad.pipeline import monthly
from arpad.pipeline.cli import main


def test_a_folder_in_the_inbox_is_named_as_not_read(tmp_path, capsys):
    inbox = tmp_path / "inbox"
    (inbox / "sub").mkdir(parents=True)
    (inbox / "players").mkdir()
    (inbox / ".hidden").mkdir()
    (inbox / "games.csv").write_text("date,white_id,black_id,result\n2024-03-02,A,B,1-0\n")
    (inbox / "sub" / "club.csv").write_text("date,white_id,black_id,result\n2024-03-03,C,D,0-1\n")
    assert monthly.unread_folders(inbox) == ["sub"]
    store = tmp_path / "store"
    code = main(
        [
            "recalculate",
            "--inbox",
            str(inbox),
            "--store",
            str(store),
            "--systems",
            "elo",
            "--no-flow",
        ]
    )
    out = capsys.readouterr()
    assert code == 0  # the inbox's own file went in; nothing was refused
    assert "Not read: the inbox folder(s) `sub/`" in out.out
    assert f"{inbox / 'sub'}: not read: a folder" in out.err
    assert (inbox / "sub" / "club.csv").exists()  # left where it is
    assert (inbox / "processed" / "games.csv").exists()
    # the folders the job itself makes are not named
    assert monthly.unread_folders(inbox) == ["sub"]
