"""``arpad.backtest`` and ``arpad.whatif`` (docs/api.md "Backtest and what-if"): the
API's tables equal the commands' output on the same input, value for value, and bad
arguments are one-line Python exceptions naming the argument."""

from __future__ import annotations

import io

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import arpad
from arpad.pipeline.cli import main
from arpad.pipeline.fide_sample import write_sample

WHATIF_TABLES = ("movers", "distribution", "crossings")

# the API's plumbing against the CLI; the kernels are the first pass's
pytestmark = pytest.mark.once


def cli_csv(capsys, args: list[str]) -> pl.DataFrame:
    capsys.readouterr()
    assert main(args) == 0
    return pl.read_csv(io.StringIO(capsys.readouterr().out))


@pytest.fixture(autouse=True)
def no_flow(monkeypatch):
    monkeypatch.setenv("ARPAD_NO_FLOW", "1")


# -- backtest -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "systems", "flag"),
    [("kaggle2010", ["elo", "glicko2"], "elo,glicko2"), ("deloitte2011", "fide", "fide")],
)
def test_backtest_equals_the_cli_csv(data, systems, flag, bundled_data, capsys):
    api = arpad.backtest(data, systems, data_dir=bundled_data)
    cli = cli_csv(capsys, ["backtest", "--data", data, "--system", flag,
                           "--data-dir", str(bundled_data), "--format", "csv"])  # fmt: skip
    assert isinstance(api, pl.DataFrame) and api.columns == cli.columns
    assert_frame_equal(api, cli)  # every score to the last bit (CSV floats round-trip)
    names = api["system"].to_list()
    assert {*([systems] if isinstance(systems, str) else systems)} <= set(names)
    assert all(v == v for v in api.filter(pl.col("note") == "")["validation"])  # scored


def test_backtest_takes_systems_as_text_list_or_tuple(bundled_data):
    by_text = arpad.backtest("deloitte2011", "elo,glicko", data_dir=bundled_data)
    assert_frame_equal(
        arpad.backtest("deloitte2011", ["elo", "glicko"], data_dir=str(bundled_data)), by_text
    )
    assert_frame_equal(
        arpad.backtest("deloitte2011", ("elo", "glicko"), data_dir=bundled_data), by_text
    )


def test_backtest_bad_arguments_name_the_argument(bundled_data, tmp_path):
    cases = [
        (dict(data=5), TypeError, "data:"),
        (dict(data=pl.DataFrame({"a": [1]})), TypeError, "data:"),
        (dict(data="kaggle"), ValueError, "data: unknown backtest data 'kaggle'"),
        (dict(systems="nope"), ValueError, "systems:"),
        (dict(systems=["elo", 3]), TypeError, "systems:"),
        (dict(systems=[]), ValueError, "systems:"),
        (dict(systems=5), TypeError, "systems:"),
        (dict(workers=0), ValueError, "workers:"),
        (dict(workers=1.5), TypeError, "workers:"),
        (dict(flow="yes"), TypeError, "flow:"),
        (dict(cluster=7), TypeError, "cluster:"),
        (dict(data_dir=tmp_path / "nope"), FileNotFoundError, "data_dir:"),
        (dict(data_dir=3), TypeError, "data_dir:"),
    ]
    for kwargs, error, text in cases:
        kwargs = {"data": "kaggle2010", "systems": "elo", "data_dir": bundled_data, **kwargs}
        with pytest.raises(error) as info:
            arpad.backtest(**kwargs)
        assert text in str(info.value) and "\n" not in str(info.value), kwargs


# -- what-if --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """The synthetic FIDE sample 2009-2026 (every 12th month), ingested and rated."""
    root = tmp_path_factory.mktemp("whatif_api")
    players, games = write_sample(root / "in", every=12)
    store = arpad.Store(root / "store")
    store.ingest(games, players=players)
    store.rate("fide")
    return store, games, players


def cli_whatif(capsys, store, out, rules, vs, extra=()) -> dict[str, pl.DataFrame]:
    capsys.readouterr()
    args = ["whatif", "--rules", rules, "--vs", vs, "--store", str(store.path)]
    assert main([*args, *extra, "--output", str(out)]) == 0
    capsys.readouterr()
    return {name: pl.read_parquet(out / f"{name}.parquet") for name in WHATIF_TABLES}


def assert_same_whatif(api, cli: dict[str, pl.DataFrame]) -> None:
    assert isinstance(api, arpad.WhatIf)
    for name in WHATIF_TABLES:
        assert_frame_equal(getattr(api, name), cli[name], check_dtypes=False)


def test_whatif_on_a_store_equals_the_cli_output(sample, tmp_path, capsys):
    store, _, _ = sample
    cli = cli_whatif(capsys, store, tmp_path / "wi", "dated", "2022-01",
                     ["--from", "202201", "--top", "5"])  # fmt: skip
    api = arpad.whatif(store, "dated", "2022-01", start=202201, top=5)
    assert_same_whatif(api, cli)
    assert api.movers.height == 5 and (api.movers["difference"] < 0).all()  # no compression
    # the store's own folder, as a path, is the same store
    assert_same_whatif(arpad.whatif(str(store.path), "dated", "2022-01", start="2022-01",
                                    top=5), cli)  # fmt: skip
    # the real store's ratings are untouched by the replays
    assert store.ratings("fide").height > 0


def test_whatif_on_games_in_memory_equals_the_cli_on_their_store(sample, tmp_path, capsys):
    store, games, players = sample
    cli = cli_whatif(capsys, store, tmp_path / "wi", "2024-03", "2025-10")
    g, p = pl.read_csv(games), pl.read_csv(players)
    for games_in, players_in in [
        (g, p),
        (g.to_pandas(), p.to_pandas()),
        (g.to_arrow(), p.to_arrow()),
        (games, players),  # paths
        (str(games), str(players)),
    ]:
        api = arpad.whatif(games_in, "2024-03", "2025-10", players=players_in)
        assert_same_whatif(api, cli)


def test_whatif_in_memory_with_start_rates_the_earlier_periods_first(sample, tmp_path, capsys):
    store, games, players = sample
    cli = cli_whatif(capsys, store, tmp_path / "wi", "2024-03", "2024-03",
                     ["--from", "202401", "--to", "202412"])  # fmt: skip
    api = arpad.whatif(pl.read_csv(games), "2024-03", "2024-03", players=pl.read_csv(players),
                       start=202401, end="2024-12")  # fmt: skip
    assert_same_whatif(api, cli)
    assert (api.distribution["mean_difference"] == 0).all()  # the same rules twice


def test_whatif_bad_arguments_name_the_argument(sample, tmp_path):
    store, games, players = sample
    g, p = pl.read_csv(games), pl.read_csv(players)
    empty = tmp_path / "empty"
    empty.mkdir()
    cases = [
        (dict(rules=None), TypeError, "rules:"),
        (dict(vs=2022), TypeError, "vs:"),
        (dict(vs="not-a-date"), ValueError, "vs:"),
        (dict(rules=str(tmp_path / "missing.json")), ValueError, "rules:"),
        (dict(pool="classical"), ValueError, "pool:"),
        (dict(start=202412, end=202401), ValueError, "start 202412 is after end 202401"),
        (dict(start=1.5), TypeError, "start:"),
        (dict(top=0), ValueError, "top:"),
        (dict(errors="ignore"), ValueError, "errors"),
        (dict(games=g, players=None), ValueError, "players:"),
        (dict(games=store, players=p), TypeError, "players/mapping:"),
        (dict(games=empty), FileNotFoundError, "games:"),
        (dict(games=[1, 2]), TypeError, "games"),
    ]
    for kwargs, error, text in cases:
        kwargs = {"games": store, "rules": "dated", "vs": "2022-01", **kwargs}
        with pytest.raises(error) as info:
            arpad.whatif(**kwargs)
        assert text in str(info.value) and "\n" not in str(info.value), kwargs


def test_whatif_rejected_rows_raise_unless_skipped(sample):
    _, games, players = sample
    g, p = pl.read_csv(games), pl.read_csv(players)
    bad = pl.concat([g, g.head(1).with_columns(black_id=pl.col("white_id"))])  # self-play
    with pytest.raises(arpad.InputError, match="self_play"):
        arpad.whatif(bad, "2024-03", "2025-10", players=p)
    skipped = arpad.whatif(bad, "2024-03", "2025-10", players=p, errors="skip")
    assert_frame_equal(skipped.movers, arpad.whatif(g, "2024-03", "2025-10", players=p).movers)


def test_whatif_leaves_no_temporary_store_behind(sample, tmp_path, monkeypatch):
    import tempfile

    _, games, players = sample
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    arpad.whatif(pl.read_csv(games), "2024-03", "2025-10", players=pl.read_csv(players))
    with pytest.raises(ValueError):
        arpad.whatif(pl.read_csv(games), "2024-03", "2025-10")  # no players: refused
    assert list(tmp_path.iterdir()) == []
