"""The command line attacked the way a hurried rating officer types it (docs/cli.md
"The command line attacked"): each test but the guards named so is a defect found that
way, and failed before its fix."""

from __future__ import annotations

import gzip
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest

from arpad.pipeline.cli import main
from arpad.pipeline.store import Store
from tests.conftest import BUNDLED

ARPAD = str(Path(sys.executable).with_name("arpad"))
KAGGLE = BUNDLED / "kaggle2010_elo_vs_rest" / "training_data.csv"


def kaggle_rows(n: int) -> list[list[str]]:
    """``n`` games of the bundled Kaggle 2010 file, every 200th from the first (months
    1..100): month, white, black, score."""
    lines = KAGGLE.read_text().splitlines()[1::200][:n]
    assert len(lines) == n
    return [line.split(",") for line in lines]


def plain_csv(path: Path, n: int = 300) -> Path:
    body = [f"{w},{b},{m},{s}" for m, w, b, s in kaggle_rows(n)]
    path.write_text("\n".join(["white_id,black_id,period,score", *body]) + "\n")
    return path


def games_of(store: Path) -> list[tuple]:
    """The stored games as (white, black, period, score), sorted (the period is the
    partition folder's, docs/store.md)."""
    out = []
    for f in Store(store).game_files():
        period = int(next(p for p in Path(f).parts if p.startswith("period=")).split("=")[1])
        t = pq.read_table(f, columns=["white_id", "black_id", "score"]).to_pydict()
        out += [(w, b, period, s) for w, b, s in zip(t["white_id"], t["black_id"], t["score"])]
    return sorted(out)


def expected_games(n: int = 300) -> list[tuple]:
    return sorted((w, b, int(m), float(s)) for m, w, b, s in kaggle_rows(n))


def run(args, env_extra=None, **kw):
    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", "ARPAD_STORE")}
    env.update(env_extra or {})
    kw.setdefault("stdout", subprocess.PIPE)
    return subprocess.run([ARPAD, *args], stderr=subprocess.PIPE, env=env, **kw)


@pytest.fixture
def rated(tmp_path):
    """A store of the first 300 Kaggle games rated with generic Elo."""
    s = str(tmp_path / "s")
    assert main(["ingest", str(plain_csv(tmp_path / "k.csv")), "--store", s]) == 0
    assert main(["rate", "--system", "elo", "--store", s]) == 0
    return s


# -- option order and spelling ------------------------------------------------------------


def test_store_before_the_command(tmp_path, capsys):
    """`arpad --store S ingest F` was "invalid choice: 'S'"; now --store may come first."""
    s = str(tmp_path / "s")
    assert main(["--store", s, "ingest", str(plain_csv(tmp_path / "k.csv"))]) == 0
    assert games_of(Path(s)) == expected_games()
    assert main([f"--store={s}", "rate", "--system", "elo"]) == 0
    capsys.readouterr()
    assert main(["--store", s, "list", "--system", "elo", "--format", "csv"]) == 0
    before = capsys.readouterr().out
    assert main(["list", "--system", "elo", "--format", "csv", "--store", s]) == 0
    assert capsys.readouterr().out == before and before.count("\n") > 100
    assert not Path("arpad-store").exists()


def test_store_on_both_sides_must_agree_and_only_where_taken(tmp_path, capsys):
    s = str(tmp_path / "s")
    assert main(["--store", s, "ingest", str(plain_csv(tmp_path / "k.csv")), "--store", s]) == 0
    capsys.readouterr()
    assert main(["--store", s, "list", "--store", str(tmp_path / "other")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--store given twice" in err
    assert main(["--store", s, "class", "2400"]) == 2
    assert "does not take --store" in capsys.readouterr().err
    # a command whose store is optional (category FILE | --store S) takes it too
    assert main(["--store", s, "category", "--average", "2400"]) == 0


def test_lean_start_up_finds_the_command_after_a_leading_store():
    """pipeline/lean.py read `arpad --store S serve` as the command `S` (and hid pandas
    from serve, which needs it)."""
    from arpad.pipeline.lean import command_of

    assert command_of(["--store", "serve", "serve"]) == "serve"
    assert command_of(["--store", "S", "ingest", "f.csv"]) == "ingest"
    assert command_of(["--store=S", "rate"]) == "rate"
    # an option before the command (`arpad --help rate`): the whole parser answers
    assert command_of(["--help", "rate"]) is None


@pytest.mark.parametrize(
    "argv, option",
    [
        (["list", "--system", "elo", "--system", "fide"], "--system"),
        (["list", "--top", "3", "--top", "5"], "--top"),
        (["ingest", "x.csv", "--store", "A", "--store", "B"], "--store"),
    ],
)
def test_a_single_option_given_twice_with_two_values_is_refused(
    argv, option, tmp_path, monkeypatch, capsys
):
    """argparse kept the last value silently (`--store A … --store B` wrote into B)."""
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{option} given twice" in err
    assert not (tmp_path / "A").exists() and not (tmp_path / "B").exists()


def test_a_rule_set_twice_with_two_values_is_refused(rated, capsys):
    """`--set k=24 --set k=30` rated with K = 30, silently."""
    capsys.readouterr()
    assert (
        main(["rate", "--system", "elo", "--set", "k=24", "--set", "k=30", "--store", rated]) == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--set k given twice ('24', then '30')" in err
    assert (
        main(["rate", "--system", "elo", "--set", "k=24", "--set", "k=24", "--store", rated]) == 0
    )


def test_the_same_value_twice_is_fine(rated, capsys):
    capsys.readouterr()
    assert main(["list", "--system", "elo", "--top", "3", "--top", "3", "--store", rated]) == 0
    assert "3 players" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, hint",
    [
        (["list", "--sys", "elo"], "did you mean --system?"),
        (["rate", "--system", "elo", "--ful"], "did you mean --full?"),
        (["list", "--sytem", "elo"], "did you mean --system?"),
    ],
)
def test_abbreviated_options_are_refused_with_a_hint(rated, argv, hint, capsys):
    """`--sys fide` was taken as `--system fide` (argparse's prefix matching): an
    abbreviation that works today changes meaning when an option is added."""
    capsys.readouterr()
    assert main([*argv, "--store", rated]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and hint in err and f"see arpad {argv[0]} --help" in err


@pytest.mark.parametrize(
    "argv, hint",
    [
        (["rate", "--sys", "elo"], "--sys is not an option; did you mean --system?"),
        (["--sys", "elo", "rate"], "--sys is not an option; did you mean --system?"),
        (
            ["--stor", "S", "list", "--system", "elo"],
            "--stor is not an option; did you mean --store?",
        ),
    ],
)
def test_a_misspelt_option_that_argparse_reports_as_something_else_is_named(argv, hint, capsys):
    """`rate --sys elo` said only "the following arguments are required: --system", and
    `arpad --stor S list` "invalid choice: 'S'": the misspelt option is now named too."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and hint in err


def test_options_between_file_names(tmp_path, capsys):
    """`arpad ingest a.csv --store S b.csv` was "unrecognized arguments: b.csv"."""
    rows = plain_csv(tmp_path / "all.csv").read_text().splitlines()
    (tmp_path / "a.csv").write_text("\n".join(rows[:151]) + "\n")
    (tmp_path / "b.csv").write_text("\n".join([rows[0], *rows[151:]]) + "\n")
    s = str(tmp_path / "s")
    assert main(["ingest", str(tmp_path / "a.csv"), "--store", s, str(tmp_path / "b.csv")]) == 0
    assert games_of(Path(s)) == expected_games()


def test_no_arguments_and_help(capsys):
    """`arpad` alone said only "the following arguments are required: COMMAND"; `arpad
    help` was "invalid choice: 'help'"."""
    assert main([]) == 2
    err = capsys.readouterr().err
    assert "ingest" in err and "publish" in err and "--store" in err
    with pytest.raises(SystemExit) as done:
        main(["help"])
    assert done.value.code == 0 and "COMMAND" in capsys.readouterr().out
    with pytest.raises(SystemExit) as done:
        main(["help", "players", "merge"])
    assert done.value.code == 0 and "--mapping" in capsys.readouterr().out


def test_an_empty_store_is_refused(tmp_path, monkeypatch, capsys):
    """`--store ""` (an unset variable in quotes) made the working directory a store."""
    monkeypatch.chdir(tmp_path)
    games = plain_csv(tmp_path / "k.csv")
    assert main(["ingest", str(games), "--store", ""]) == 2
    assert "--store is empty" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.csv"]


def test_help_of_every_command_is_light_and_touches_nothing(tmp_path):
    """Guard (not a defect): `-h` on every command and subcommand exits 0, creates no
    store and imports none of the heavy modules (start-up is benchmarked)."""
    code = (
        "import contextlib, io, sys\n"
        "from arpad.pipeline import cli\n"
        "parser = cli.build_parser()\n"
        "commands = parser._subparsers._group_actions[0].choices\n"
        "lines = [[c] for c in commands] + [['players', a] for a in ('merge', 'split', "
        "'identify')] + [['plot', a] for a in ('distribution', 'history', 'calibration')]\n"
        "for argv in lines:\n"
        "    with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "        try:\n"
        "            cli._main([*argv, '-h'])\n"
        "        except SystemExit as e:\n"
        "            assert e.code == 0, (argv, e.code)\n"
        "    assert 'usage: arpad ' + ' '.join(argv) in out.getvalue(), argv\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('polars', 'duckdb', "
        "'numba', 'prefect', 'matplotlib', 'dask', 'distributed', 'pandas'))\n"
        "assert not heavy, heavy\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "ARPAD_STORE"}
    subprocess.run([sys.executable, "-c", code], check=True, cwd=tmp_path, env=env)
    assert list(tmp_path.iterdir()) == []


# -- input files as officers have them ----------------------------------------------------


def test_games_are_stored_in_their_own_period(tmp_path):
    """Found on the way: a CSV's games of periods 16 and 17 (three each) were stored
    under each other's period (Store.write_games took a group_by's output order for the
    sorted order; pipeline/store.py ``partition_runs``)."""
    s = tmp_path / "s"
    path = plain_csv(tmp_path / "k.csv")
    rows = path.read_text().splitlines()
    assert main(["ingest", str(path), "--store", str(s)]) == 0
    for f in Store(s).game_files():
        period = int(Path(f).parent.name.split("=")[1])
        lines = [int(g.split(":")[-1]) for g in pq.read_table(f).column("game_id").to_pylist()]
        assert {int(rows[n - 1].split(",")[2]) for n in lines} == {period}, f
    assert games_of(s) == expected_games()


def spreadsheet_text(sep: str, n: int = 300) -> str:
    """Excel/LibreOffice: header `White ID`, quoted numbers, decimal commas with `;`,
    trailing empty columns, a row of separators only and blank lines at the end, CRLF."""
    rows = []
    for m, w, b, s in kaggle_rows(n):
        score = s.replace(".", ",") if sep == ";" else s
        score = f'"{score}"' if sep == "," else score
        rows.append(sep.join([w, b, f'"{m}"', score, "", ""]))
    head = sep.join(["White ID", " Black ID ", "PERIOD", "Score", "", ""])
    return "\r\n".join([head, *rows, sep * 5, "", ""]) + "\r\n"


@pytest.mark.parametrize(
    "sep, encoding", [(";", "utf-8-sig"), (",", "utf-8-sig"), (";", "utf-16"), ("\t", "utf-16")]
)
def test_spreadsheet_exports_ingest_the_same_games(sep, encoding, tmp_path, capsys):
    """`White ID` headers were "neither a games file nor …"; a row of separators only
    (`;;;;;`) was quarantined as a game without players; UTF-16 (Excel's "Unicode
    text") was refused."""
    path = tmp_path / "export.csv"
    path.write_bytes(spreadsheet_text(sep).encode(encoding))
    s = tmp_path / "s"
    assert main(["ingest", str(path), "--store", str(s)]) == 0
    out = capsys.readouterr().out
    assert "300 rows read, 300 games stored, 0 quarantined" in out
    assert games_of(s) == expected_games()
    assert ("decoded as UTF-16" in out) == (encoding == "utf-16")


def test_compressed_csv_files(tmp_path, capsys):
    """`.csv.gz` was "cannot tell the format from the name"; a `.zip` of a CSV was "zip
    archive holds no .pgn member"."""
    plain = plain_csv(tmp_path / "k.csv").read_bytes()
    (tmp_path / "k1.csv.gz").write_bytes(gzip.compress(plain))
    with zipfile.ZipFile(tmp_path / "k2.zip", "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("month/k.csv", plain)
    for name in ("k1.csv.gz", "k2.zip"):
        s = tmp_path / f"s-{name}"
        assert main(["ingest", str(tmp_path / name), "--store", str(s)]) == 0
        assert games_of(s) == expected_games()
    with zipfile.ZipFile(tmp_path / "two.zip", "w") as zf:
        zf.writestr("a.csv", plain)
        zf.writestr("b.csv", plain)
    capsys.readouterr()
    assert main(["ingest", str(tmp_path / "two.zip"), "--store", str(tmp_path / "t")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "2 .csv members (a.csv, b.csv)" in err
    assert not Store(tmp_path / "t").game_files()


def test_a_file_that_is_not_what_its_name_says(tmp_path, capsys):
    """A Parquet file named .csv was "binary data (NUL byte): not a text file"."""
    plain = plain_csv(tmp_path / "k.csv")
    pl.read_csv(plain).write_parquet(tmp_path / "games.csv")
    (tmp_path / "packed.csv").write_bytes(gzip.compress(plain.read_bytes()))
    for name, text in (
        ("games.csv", "is a Parquet file, not what its name says: use --format parquet"),
        ("packed.csv", "is gzip-compressed, not what its name says: name it .csv.gz"),
    ):
        assert main(["ingest", str(tmp_path / name), "--store", str(tmp_path / "s")]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{name}: {text}" in err
    assert not Store(tmp_path / "s").game_files()
    s = tmp_path / "s"
    assert (
        main(["ingest", str(tmp_path / "games.csv"), "--format", "parquet", "--store", str(s)]) == 0
    )
    # the games, whatever their period: a Parquet ingest (pipeline/stream_ingest.py)
    # still files periods by a group_by's order (docs/cli.md "The command line attacked")
    assert sorted((w, b, x) for w, b, _, x in games_of(s)) == sorted(
        (w, b, x) for w, b, _, x in expected_games()
    )


@pytest.mark.parametrize(
    ("module", "what", "tool"),
    [("bz2", "bzip2-compressed", "bunzip2"), ("lzma", "xz-compressed", "unxz")],
)
def test_compressions_arpad_does_not_read_are_named(tmp_path, capsys, module, what, tool):
    """A .bz2 or .xz file was "cannot tell the format from the name" and, named .csv or
    given --format csv, "binary data (NUL byte): not a text file"."""
    import importlib

    packed = importlib.import_module(module).compress(plain_csv(tmp_path / "k.csv").read_bytes())
    for name, extra in (
        (f"k.csv.{module}", []),
        ("k2.csv", []),
        ("k3.csv", ["--format", "csv"]),
        ("k4.pgn", ["--format", "pgn"]),
    ):
        (tmp_path / name).write_bytes(packed)
        argv = ["ingest", str(tmp_path / name), *extra, "--store", str(tmp_path / "s")]
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1
        assert f"{name}: is {what}; arpad reads plain files, gzip (.gz) and zip" in err
        assert f"({tool})" in err
    assert not Store(tmp_path / "s").game_files()


def test_a_glob_that_matched_nothing_says_so(tmp_path, capsys):
    assert main(["ingest", str(tmp_path / "*.csv"), "--store", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a pattern that matched no file" in err


# -- interruption --------------------------------------------------------------------------


def test_ctrl_c_is_one_line(rated, monkeypatch, capsys):
    """Ctrl-C ended a command with exit 130 and nothing said."""
    from arpad.pipeline.commands import core

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(core, "cmd_rate", interrupted)
    capsys.readouterr()
    assert main(["rate", "--system", "elo", "--store", rated]) == 130
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("arpad: interrupted (Ctrl-C)")


@pytest.mark.parametrize(
    "sig, code, text",
    [
        (signal.SIGINT, 130, "arpad: interrupted (Ctrl-C)"),
        (signal.SIGTERM, 143, "arpad: terminated (SIGTERM)"),
    ],
)
def test_ctrl_c_during_a_real_ingest_then_again(tmp_path, sig, code, text):
    """SIGINT (and SIGTERM, which ended the process without a word) to a running `arpad
    ingest` (the store's lock held): one line, exit 130 (143), no traceback; the same
    command again stores exactly the file's games."""
    rows = [f"{i % 5000},{(i * 7 + 1) % 5000 + 5000},{1 + i // 20000},1" for i in range(300000)]
    path = tmp_path / "big.csv"
    path.write_text("\n".join(["white_id,black_id,period,score", *rows]) + "\n")
    s = tmp_path / "s"
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    proc = subprocess.Popen(
        [ARPAD, "ingest", str(path), "--store", str(s)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    lock = s / ".lock"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if lock.exists() and lock.stat().st_size > 0:  # the ingest holds the lock
            break
        time.sleep(0.01)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    if proc.returncode != 0:  # interrupted (else it had finished first: nothing to check)
        assert proc.returncode == code, err
        assert err.count("\n") == 1 and text in err, err
    again = run(["ingest", str(path), "--store", str(s)], text=True)
    assert again.returncode == 0, again.stderr
    assert "Traceback" not in again.stderr
    stored = games_of(s)
    assert len(stored) == 300000
    assert stored == sorted(
        (f"{i % 5000}", f"{(i * 7 + 1) % 5000 + 5000}", 1 + i // 20000, 1.0) for i in range(300000)
    )


# -- output --------------------------------------------------------------------------------


def test_parquet_to_a_redirected_stdout(rated, tmp_path):
    """`arpad list --format parquet > l.parquet` was "--format parquet needs --output"."""
    target = tmp_path / "l.parquet"
    with open(target, "wb") as fh:
        done = run(["list", "--system", "elo", "--format", "parquet", "--store", rated], stdout=fh)
    assert done.returncode == 0, done.stderr
    assert main(["list", "--system", "elo", "--format", "parquet", "--store", rated,
                 "--output", str(tmp_path / "o.parquet")]) == 0  # fmt: skip
    assert pq.read_table(target).equals(pq.read_table(tmp_path / "o.parquet"))
    assert pq.read_table(target).num_rows > 100


def test_output_dash_is_standard_output(rated, tmp_path, monkeypatch, capsys):
    """`--output -` wrote a file named `-`."""
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert (
        main(["list", "--system", "elo", "--format", "csv", "--output", "-", "--store", rated]) == 0
    )
    text = capsys.readouterr().out
    assert text.startswith("rank,player_id,") and not (tmp_path / "-").exists()
    plot = ["plot", "history", "1006", "--system", "elo", "--output", "-", "--store", rated]
    assert main(plot) == 2  # a PNG: not to standard output (no internal error)
    assert "--output - (standard output) is not for arpad plot" in capsys.readouterr().err


def test_format_names_in_capitals(rated, tmp_path, capsys):
    """`--format CSV` was "invalid choice: 'CSV'" (lists) and "unknown format 'CSV'"
    (ingest); a format is a word, not a case."""
    capsys.readouterr()
    assert main(["list", "--system", "elo", "--format", "csv", "--store", rated]) == 0
    lower = capsys.readouterr().out
    assert main(["list", "--system", "elo", "--format", "CSV", "--store", rated]) == 0
    assert capsys.readouterr().out == lower and lower.startswith("rank,player_id,")
    games = tmp_path / "games.txt"  # a name that says nothing: the format is needed
    games.write_text("white_id,black_id,period,score\nx1,x2,202001,1\n")
    store = str(tmp_path / "t")
    assert main(["ingest", str(games), "--format", "CSV", "--store", store]) == 0
    assert main(["list", "--system", "elo", "--format", "Bogus", "--store", rated]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_fide_txt_of_a_system_with_decimals_has_whole_ratings(rated, tmp_path, capsys):
    """`--format fide-txt` of an Elo list cut 1793.3 to `1793.` (the column holds five
    characters); ratings are now rounded half away from zero, as in the combined file."""
    capsys.readouterr()
    assert main(["list", "--system", "elo", "--format", "csv", "--store", rated]) == 0
    csv_rows = pl.read_csv(
        capsys.readouterr().out.encode(), schema_overrides={"player_id": pl.String}
    )
    assert main(["list", "--system", "elo", "--format", "fide-txt", "--store", rated]) == 0
    lines = capsys.readouterr().out.splitlines()[1:]
    assert len(lines) == csv_rows.height
    ratings = {line[:15].strip(): line[113:119].strip() for line in lines}
    for player, rating in zip(csv_rows["player_id"], csv_rows["rating"]):
        whole = int(rating + 0.5) if rating >= 0 else -int(-rating + 0.5)
        assert ratings[player] == str(whole), (player, rating)
    assert any(r != int(r) for r in csv_rows["rating"])  # the list has decimals to round


def test_an_output_encoding_that_cannot_show_a_name(tmp_path):
    """`PYTHONIOENCODING=ascii arpad list` said "'ascii' codec can't encode characters in
    position 0-122: ordinal not in range(128)": Python's words, no fix."""
    (tmp_path / "p.csv").write_text("player_id,name\n1,Ünal Çağrı\n2,Short\n")
    (tmp_path / "g.csv").write_text("white_id,black_id,period,score\n1,2,1,1\n2,1,1,0.5\n")
    s = str(tmp_path / "s")
    assert (
        main(
            ["ingest", str(tmp_path / "g.csv"), "--players", str(tmp_path / "p.csv"), "--store", s]
        )
        == 0
    )
    assert main(["rate", "--system", "elo", "--store", s]) == 0
    done = run(
        ["list", "--system", "elo", "--format", "csv", "--store", s],
        env_extra={"PYTHONIOENCODING": "ascii"},
    )
    err = done.stderr.decode()
    assert done.returncode == 2 and err.count("\n") == 1, err
    assert "encoding (ascii) cannot write" in err and "PYTHONIOENCODING=utf-8" in err
    out = tmp_path / "l.csv"
    assert (
        main(["list", "--system", "elo", "--format", "csv", "--store", s, "--output", str(out)])
        == 0
    )
    assert "Ünal Çağrı" in out.read_text(encoding="utf-8")
