"""``--encoding CODEPAGE`` works wherever a command reads games and players files
(docs/ingest.md "Encodings"): a tracked ``arpad ingest`` passes it to its Prefect flow
(it was refused: "--encoding is not passed to a tracked flow: add --no-flow"), and
``arpad recalculate`` takes it for the inbox's files, in process and as its flow (it had
no such option). An unknown name is one line and exit 2 before anything is read."""

from __future__ import annotations

from pathlib import Path

import pytest

from arpad.pipeline.cli import main
from arpad.pipeline.store import Store
from tests.conftest import write_csv

NAMES = ["Wałęsa, Łucja", "Erdős, Gábor", "Świątek, Iga", "Bíró-Szűcs, Anna"]
# the note of a file read in the code page the command stated (readers._decode_mixed)
STATED = "not valid UTF-8; decoded as Windows-1250 (--encoding cp1250)"


def cp1250_players(path: Path) -> Path:
    """A players file of ``NAMES`` (ids 1-4) saved in Windows-1250, as a Polish or
    Hungarian federation's Windows export is."""
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = "".join(f'{i};"{n}";1800\r\n' for i, n in enumerate(NAMES, 1))
    path.write_bytes(("player_id;name;rating\r\n" + rows).encode("cp1250"))
    return path


def stored_names(store: Path) -> list[str]:
    players = Store(store).read_players().sort_by("player_id")
    return players.column("name").to_pylist()


def games_file(path: Path) -> Path:
    return write_csv(path, "date,white_id,black_id,result", ["2025-01-05,1,2,1-0"])


def flow_run_parameters(store: Path, job: str) -> list[dict]:
    """The parameters of each flow run of ``job`` on ``store`` the server holds."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterTags

    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs(
            flow_run_filter=FlowRunFilter(tags=FlowRunFilterTags(all_=["arpad", f"job:{job}"]))
        )
    return [
        r.parameters
        for r in runs
        if r.parameters.get("store") == str(store.resolve()) and r.state.is_completed()
    ]


@pytest.mark.prefect
def test_a_tracked_ingest_and_recalculate_read_the_stated_code_page(
    tmp_path, capsys, prefect_harness
):
    store = tmp_path / "tracked"
    players = cp1250_players(tmp_path / "club.csv")
    assert main(["ingest", "--players", str(players), "--store", str(store), "--flow",
                 "--encoding", "windows-1250"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert f"  note: {STATED}" in out.splitlines()
    assert stored_names(store) == NAMES
    # it ran as the flow, which was given the encoding (by Python's name of the codec)
    assert [p.get("encoding") for p in flow_run_parameters(store, "ingest")] == ["cp1250"]

    # the monthly job as its flow: the inbox's players file is read in the code page too
    other = tmp_path / "monthly"
    assert main(["ingest", str(games_file(tmp_path / "g.csv")), "--store", str(other),
                 "--no-flow"]) == 0  # fmt: skip
    inbox = tmp_path / "inbox"
    cp1250_players(inbox / "players" / "club.csv")
    capsys.readouterr()
    assert main(["recalculate", "--inbox", str(inbox), "--store", str(other), "--systems",
                 "elo", "--encoding", "cp1250", "--flow"]) == 0  # fmt: skip
    assert f"  note: {STATED}" in capsys.readouterr().err.splitlines()
    assert stored_names(other) == NAMES
    assert [p.get("encoding") for p in flow_run_parameters(other, "recalculate")] == ["cp1250"]


def test_recalculate_reads_the_inbox_in_the_stated_code_page(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    store, inbox = tmp_path / "S", tmp_path / "inbox"
    assert main(["ingest", str(games_file(tmp_path / "g.csv")), "--store", str(store)]) == 0
    # ű alone (no ł, ő) is not evidence enough: unstated, "Szűcs" was read as "Szûcs"
    hu = inbox / "players" / "hu.csv"
    hu.parent.mkdir(parents=True)
    hu.write_bytes("player_id;name\r\n4;Bíró-Szűcs, Anna\r\n".encode("cp1250"))
    cp1250_players(inbox / "players" / "club.csv")
    capsys.readouterr()
    args = ["recalculate", "--inbox", str(inbox), "--store", str(store), "--systems", "elo"]
    assert main([*args, "--encoding", "cp1250"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err.count(f"  note: {STATED}") == 2  # under each file's name
    assert stored_names(store) == NAMES
    assert sorted(p.name for p in (inbox / "processed").rglob("*.csv")) == ["club.csv", "hu.csv"]


def test_an_unknown_encoding_is_one_line_before_anything_is_read(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    store, inbox = tmp_path / "S", tmp_path / "inbox"
    assert main(["ingest", str(games_file(tmp_path / "g.csv")), "--store", str(store)]) == 0
    waiting = cp1250_players(inbox / "players" / "club.csv")
    capsys.readouterr()
    line = (
        "arpad: error: --encoding klingon: not an encoding arpad reads (the code page of a "
        "file that is not UTF-8: cp1250 for Central European, cp1252 for Western, latin-1, "
        "iso8859-2, …; or utf-8)\n"
    )
    args = ["recalculate", "--inbox", str(inbox), "--store", str(store), "--systems", "elo"]
    for how in ("--no-flow", "--flow"):  # refused before a server is looked for
        assert main([*args, "--encoding", "klingon", how]) == 2
        assert capsys.readouterr() == ("", line)
        ingest = ["ingest", "--players", str(waiting), "--store", str(store), how]
        assert main([*ingest, "--encoding", "klingon"]) == 2
        assert capsys.readouterr() == ("", line)
    assert waiting.exists() and not (inbox / "processed").exists()  # nothing moved
    assert stored_names(store) == [None, None]  # the games file's players only


def test_the_api_ingest_takes_the_code_page_too(tmp_path):
    # Store.ingest had no encoding= (an analyst's cp1250 export was guessed, or refused
    # with advice naming --encoding, a flag a notebook has no place for).
    import arpad

    store = arpad.Store(tmp_path / "api")
    report = store.ingest(
        games_file(tmp_path / "g.csv"),
        players=cp1250_players(tmp_path / "p.csv"),
        encoding="windows-1250",
    )
    assert stored_names(tmp_path / "api") == NAMES
    notes = [n for f in report.files for n in f.notes]
    assert any(
        "not valid UTF-8; decoded as Windows-1250 (encoding='cp1250')" in n for n in notes
    ), notes
    with pytest.raises(ValueError, match=r"^encoding='klingon': not an encoding arpad reads"):
        store.ingest(games_file(tmp_path / "g2.csv"), encoding="klingon")


@pytest.mark.parametrize("command", ["serve", "deploy"])
def test_the_scheduled_runs_carry_the_code_page(tmp_path, monkeypatch, command):
    # serve/deploy had no --encoding: the scheduled monthly runs of a Windows
    # federation's inbox guessed every file's code page.
    import arpad.flows.common
    from arpad.pipeline.cli import build_parser
    from arpad.pipeline.commands.ops import schedule_parameters

    store = tmp_path / "S"
    assert (
        main(["ingest", str(games_file(tmp_path / "g.csv")), "--store", str(store), "--no-flow"])
        == 0
    )
    (tmp_path / "inbox").mkdir()
    monkeypatch.setattr(arpad.flows.common, "require_server", lambda **_: None)
    argv = [command, "--store", str(store), "--inbox", str(tmp_path / "inbox")]
    args = build_parser().parse_args([*argv, "--encoding", "windows-1250"])
    parameters, _ = schedule_parameters(args)
    assert parameters["encoding"] == "cp1250"  # Python's name, as the flow reads it
    args = build_parser().parse_args(argv)
    assert "encoding" not in schedule_parameters(args)[0]  # the flow's default: told
    args = build_parser().parse_args([*argv, "--encoding", "klingon"])
    with pytest.raises(ValueError, match=r"^--encoding klingon: not an encoding arpad reads"):
        schedule_parameters(args)
