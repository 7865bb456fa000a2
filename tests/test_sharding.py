"""A period's step sharded by player (pipeline/sharding.py) equals the unsharded step.

The store is small but reaches the branches a shard could get wrong: FIDE's
pool of unrated players' games across periods (unrated players with few games
a period), two-monthly rating periods (2011–2012), the once-per-event 400-point
rule (2022), the March 2024 compression and the rapid 600-point rule (Dec
2024); events for Harkness/Ingo; Glicko-2 with a volatility iteration cap that
leaves players unconverged (an index list in ``report.extra``).
"""

from __future__ import annotations

import itertools
import json
import os
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

from arpad.pipeline import engine, sharding, synthetic
from arpad.pipeline.store import Store, atomic_write_parquet
from arpad.pipeline.systems import get_system
from arpad.pipeline.systems.base import PeriodGames, State
from tests.conftest import results

SHARDABLE = ["fide", "elo", "elo-linear", "glicko", "glicko2", "harkness", "ingo"]
NOT_SHARDABLE = ["uscf", "ecf", "whr"]
POOLS = {
    "standard": [201111, 201112, 201201, 202203, 202402, 202403, 202404],
    "rapid": [202411, 202412, 202501],
}
PLAYERS = 300
GAMES = 240  # ~1.6 games per player and period: unrated players pool games over periods
OVERRIDES = {"glicko2": {"max_iterations": "1"}}


def _period_games(spec, period, rng) -> pa.Table:
    table = synthetic.period_games(spec, period, rng)
    events = rng.integers(0, 12, table.num_rows)
    event_id = pa.array([f"E{period}-{e}" for e in events], pa.string())
    return table.set_column(table.schema.get_field_index("event_id"), "event_id", event_id)


@pytest.fixture(scope="module")
def base_store(tmp_path_factory) -> Store:
    spec = synthetic.SyntheticSpec(
        players=PLAYERS, periods=1, games_per_period=GAMES, unrated_share=0.3, seed=7
    )
    rng = np.random.default_rng(spec.seed)
    store = Store(tmp_path_factory.mktemp("sharding") / "base")
    store.ensure()
    players = synthetic.players_table(spec, rng)
    # A few strong players, so the 400-point rule, the 2650 exemption and the rapid
    # 600-point rule have games to act on.
    rating = players.column("rating").to_numpy(zero_copy_only=False).copy()
    rating[:12] = np.linspace(2600, 2800, 12)
    idx = players.schema.get_field_index("rating")
    players = players.set_column(idx, "rating", pa.array(rating, mask=np.isnan(rating)))
    store.write_players(players)
    for pool, periods in POOLS.items():
        for period in periods:
            atomic_write_parquet(
                _period_games(spec, period, rng),
                store.game_partition(pool, period) / "part-synthetic.parquet",
            )
    return store


def _copy(base: Store, path) -> Store:
    shutil.copytree(base.root, path)
    return Store(path)


def _snapshot(store: Store, system: str) -> dict:
    """Every ratings and checkpoint file of ``system`` (Arrow tables; meta.json as dicts)."""
    out = {}
    for root in (store.ratings_dir, store.state_dir):
        base = root / f"system={system}"
        for f in sorted(base.rglob("*")):
            key = str(f.relative_to(store.root))
            if f.suffix == ".parquet":
                out[key] = results(pq.read_table(f))
            elif f.suffix == ".json":
                out[key] = json.loads(f.read_text())
    return out


def _assert_same_table(got: pa.Table, want: pa.Table, key: str) -> None:
    """Same schema, nulls and values (exactly; NaN equals NaN, which Arrow's
    ``equals`` does not grant: Harkness/Ingo states hold NaN for players without one)."""
    assert got.schema.equals(want.schema), key
    for name in want.column_names:
        g, w = got.column(name), want.column(name)
        assert g.is_null().equals(w.is_null()), (key, name)
        np.testing.assert_array_equal(
            g.to_numpy(zero_copy_only=False), w.to_numpy(zero_copy_only=False), err_msg=key
        )


def _assert_same(got: dict, want: dict) -> None:
    assert sorted(got) == sorted(want)
    for key, value in want.items():
        if isinstance(value, pa.Table):
            _assert_same_table(got[key], value, key)
        else:
            assert got[key] == value, key


def _rate_all(store: Store, system: str, **kwargs) -> list:
    return [
        engine.rate(
            store, system, pool, overrides=OVERRIDES.get(system), refresh_catalog=False, **kwargs
        )
        for pool in POOLS
    ]


@pytest.fixture(scope="module")
def unsharded(base_store, tmp_path_factory):
    """The single-process reference of every shardable system."""
    store = _copy(base_store, tmp_path_factory.mktemp("unsharded") / "store")
    return {system: (_rate_all(store, system), _snapshot(store, system)) for system in SHARDABLE}


@pytest.mark.parametrize("system", SHARDABLE)
def test_sharded_rate_equals_unsharded(system, base_store, unsharded, tmp_path):
    want_summaries, want = unsharded[system]
    # 10 periods with games, and for FIDE 201202, the closing month of January 2012's
    # two-monthly rating period, walked without games (docs/fide-history.md)
    walked = 11 if system == "fide" else 10
    assert sum(len(s.periods) for s in want_summaries) == walked
    for shards in (2, 3):
        store = _copy(base_store, tmp_path / f"s{shards}")
        summaries = _rate_all(store, system, shards=shards)
        assert [s.shards for s in summaries] == [shards, shards]
        _assert_same(_snapshot(store, system), want)


def test_fide_store_reaches_the_pool_and_the_dated_rules(unsharded):
    """The FIDE reference walks what sharding must keep: the pool table holds rows of
    several players and months, players get initial ratings, the compression applies."""
    summaries, snap = unsharded["fide"]
    assert set(summaries[0].rules) >= {"FIDE 2011-07", "FIDE 2022-01", "FIDE 2024-03"}
    pools = [t for k, t in snap.items() if k.endswith("table_pool.parquet")]
    assert max(t.num_rows for t in pools) > 20
    assert any(len(set(t.column("month").to_pylist())) > 1 for t in pools)
    ratings = [t for k, t in snap.items() if "ratings" in k and k.endswith(".parquet")]
    statuses = {s for t in ratings for s in t.column("status").to_pylist()}
    assert {"new", "rated", "inactive", "unrated"} <= statuses
    adjusted = [t for t in ratings if t.column("adjustment").null_count < t.num_rows]
    assert adjusted  # two-monthly late publication or the 2024 compression


# -- the step itself: state, report and report.extra ---------------------------------


def _random_period(rng, n, g, unrated_share=0.3):
    white = rng.integers(0, n, g)
    black = (white + rng.integers(1, n, g)) % n
    score = rng.choice([0.0, 0.5, 1.0], g)
    event = rng.integers(-1, 4, g)
    rating = np.round(rng.normal(1800, 350, n))
    rating[rng.random(n) < unrated_share] = np.nan
    return white, black, score, event, rating


def _state_and_rules(system, rating, n, overrides=None):
    from arpad.pipeline.systems.base import PlayerInfo, apply_overrides

    def nan():
        return np.full(n, np.nan)

    info = PlayerInfo(
        player_id=np.array([f"P{i}" for i in range(n)], dtype=object),
        rating=rating,
        rated_games=np.full(n, -1),
        peak_rating=nan(),
        birth_year=np.full(n, -1),
        rd=np.where(np.isnan(rating), np.nan, 120.0),
        volatility=nan(),
        grade=nan(),
        sex=np.full(n, None, dtype=object),
    )
    rules = apply_overrides(system.rules_for(202501, "standard"), overrides or {})
    return system.initial_state(info, rules), rules


def _assert_same_step(got, want):
    (gs, gr), (ws, wr) = got, want
    assert gs.players.keys() == ws.players.keys()
    for k in ws.players:
        np.testing.assert_array_equal(gs.players[k], ws.players[k], err_msg=k)
    assert gs.tables.keys() == ws.tables.keys()
    for name in ws.tables:
        for k in ws.tables[name]:
            np.testing.assert_array_equal(gs.tables[name][k], ws.tables[name][k])
    assert gr.columns.keys() == wr.columns.keys()
    for k in wr.columns:
        np.testing.assert_array_equal(gr.columns[k], wr.columns[k], err_msg=k)
    np.testing.assert_array_equal(gr.status, wr.status)
    assert gr.extra.keys() == wr.extra.keys()
    for k in wr.extra:
        np.testing.assert_array_equal(gr.extra[k], wr.extra[k], err_msg=k)


@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 40),
    g=st.integers(0, 120),
    shards=st.integers(1, 8),
    system=st.sampled_from(SHARDABLE),
)
def test_step_sharded_equals_step(seed, n, g, shards, system):
    rng = np.random.default_rng(seed)
    white, black, score, event, rating = _random_period(rng, n, g)
    sys_ = get_system(system)
    state, rules = _state_and_rules(sys_, rating, n, OVERRIDES.get(system))
    games = PeriodGames.build(202501, white, black, score, n, event, 202412)
    want = sys_.step(state, games, rules)
    got = sharding.step_sharded(sys_, state, games, rules, shards)
    _assert_same_step(got, want)


def test_report_extra_is_merged_per_player():
    """Glicko-2's unconverged players (an index list) and Harkness's events per player."""
    rng = np.random.default_rng(3)
    n = 60
    white, black, score, event, rating = _random_period(rng, n, 400)
    games = PeriodGames.build(202501, white, black, score, n, event, 202412)
    for system, key in (("glicko2", "volatility_not_converged"), ("harkness", "events")):
        sys_ = get_system(system)
        state, rules = _state_and_rules(sys_, rating, n, OVERRIDES.get(system))
        want = sys_.step(state, games, rules)
        assert np.asarray(want[1].extra[key]).any(), system  # something to merge
        _assert_same_step(sharding.step_sharded(sys_, state, games, rules, 3), want)


def test_shard_bounds_cover_players_and_balance_games():
    offsets = np.array([0, 10, 10, 10, 20, 30, 40, 41], dtype=np.int64)
    assert sharding.shard_bounds(offsets, 2) == [(0, 4), (4, 7)]
    assert sharding.shard_bounds(offsets, 1) == [(0, 7)]
    bounds = sharding.shard_bounds(offsets, 20)  # more shards than players
    assert bounds[0][0] == 0 and bounds[-1][1] == 7
    assert all(a[1] == b[0] for a, b in itertools.pairwise(bounds))
    assert sharding.shard_bounds(np.zeros(5, dtype=np.int64), 2) == [(0, 2), (2, 4)]


# -- systems that cannot be sharded ---------------------------------------------------


@pytest.mark.parametrize("system", NOT_SHARDABLE)
def test_non_shardable_systems_refuse_step_sharded(system):
    sys_ = get_system(system)
    assert not sharding.is_shardable(sys_)
    state = State(players={})
    games = PeriodGames.build(1, np.zeros(0), np.zeros(0), np.zeros(0), 3)
    with pytest.raises(ValueError, match="cannot be sharded"):
        sharding.step_sharded(sys_, state, games, None, 2)


def test_rate_falls_back_to_unsharded_for_non_shardable(base_store, tmp_path):
    """``rate(shards=N)`` of a non-shardable system rates unsharded, same results."""
    first, second = POOLS["rapid"][:2]
    a, b = _copy(base_store, tmp_path / "a"), _copy(base_store, tmp_path / "b")
    want = engine.rate(a, "uscf", "rapid", end=second, refresh_catalog=False)
    got = engine.rate(b, "uscf", "rapid", end=second, refresh_catalog=False, shards=3)
    assert got.shards == 1 and got.periods == want.periods == [first, second]
    _assert_same(_snapshot(b, "uscf"), _snapshot(a, "uscf"))


def test_cli_rate_shards(base_store, unsharded, tmp_path, capsys):
    """``arpad rate --shards N --no-flow``: in this process, and with ``--workers 2`` on a
    local Dask cluster (a plain client, no Prefect); same files as the unsharded run."""
    from arpad.pipeline.cli import main

    for extra in ([], ["--workers", "2"]):
        store = _copy(base_store, tmp_path / f"cli{len(extra)}")
        args = ["rate", "--store", str(store.root), "--system", "glicko", "--pool", "rapid"]
        assert main([*args, "--shards", "3", "--no-flow", *extra]) == 0
        assert "3 player shards per period" in capsys.readouterr().out
        assert "ARPAD_WORKERS" not in os.environ
        want = {
            k: v
            for k, v in unsharded["glicko"][1].items()
            if "pool=rapid" in k and k.endswith(".parquet")
        }
        got = {k: v for k, v in _snapshot(store, "glicko").items() if k.endswith(".parquet")}
        _assert_same(got, want)


# -- a real Dask cluster --------------------------------------------------------------


def test_sharded_on_local_dask_cluster_equals_single_process(base_store, unsharded, tmp_path):
    """Shards as tasks on a real two-process ``distributed.LocalCluster``."""
    from distributed import Client, LocalCluster, get_task_stream

    store = _copy(base_store, tmp_path / "dask")
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            env={"NUMBA_NUM_THREADS": "1"},  # thread budget: 1 thread x 2 workers = 2 cores
        ) as cluster,
        Client(cluster) as client,
    ):
        shard_map = sharding.dask_map(client)
        for system in ("fide", "glicko2"):
            with get_task_stream(client) as stream:
                summaries = _rate_all(store, system, shards=2, shard_map=shard_map)
            assert [s.shards for s in summaries] == [2, 2]
            _assert_same(_snapshot(store, system), unsharded[system][1])
            # one task per shard and period, run on the workers
            shard_tasks = [t for t in stream.data if "run_shard" in str(t["key"])]
            assert len(shard_tasks) == 2 * sum(len(s.periods) for s in summaries)
            assert sum(len(s.periods) for s in summaries) == (11 if system == "fide" else 10)


@pytest.mark.prefect
def test_rate_flow_shards_on_dask_task_runner(base_store, unsharded, tmp_path, prefect_harness):
    """``arpad rate --shards 2 --cluster …``: the rate flow on prefect-dask's DaskTaskRunner
    runs its rating loop as a task on a worker, which submits the shards to the cluster."""
    from distributed import Client, LocalCluster, get_task_stream
    from prefect.settings import PREFECT_API_URL

    from arpad.flows.common import configured
    from arpad.flows.rate import rate_flow

    store = _copy(base_store, tmp_path / "flow")
    os.environ["PREFECT_API_URL"] = PREFECT_API_URL.value()  # inherited by the workers
    try:
        with (
            LocalCluster(
                n_workers=2,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                env={"NUMBA_NUM_THREADS": "1"},
            ) as cluster,
            Client(cluster) as client,
            get_task_stream(client) as stream,
        ):
            summary = configured(rate_flow, cluster=cluster.scheduler_address)(
                str(store.root), "fide", "standard", shards=2
            )
    finally:
        os.environ.pop("PREFECT_API_URL", None)
    # with 201202, the closing month of January 2012's two-monthly rating period
    assert summary.shards == 2 and len(summary.periods) == len(POOLS["standard"]) + 1
    shard_tasks = [t for t in stream.data if "run_shard" in str(t["key"])]
    assert len(shard_tasks) == 2 * len(summary.periods)
    want = {
        k: v
        for k, v in unsharded["fide"][1].items()
        if "pool=standard" in k and k.endswith(".parquet")
    }
    got = {k: v for k, v in _snapshot(store, "fide").items() if k.endswith(".parquet")}
    _assert_same(got, want)
