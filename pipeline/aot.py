"""``python -m arpad.pipeline.aot``: compile the rating kernels ahead of time
(kernels/aot.py; run by ``make demo`` and ``make test``, a no-op when current).

The build runs the kernels under the JIT with the argument types of real runs: a
tiny game set rated with every system through the engine's in-memory walk and
through a store (ingest of a small CSV, a small PGN file and a players file, a
small Parquet file streamed as large ones are, then ``rate``). A build
that fails (no C compiler, say) prints why and exits 0: the JIT still works."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

GAMES = [("a", "b", 1), ("b", "c", 0.5), ("c", "a", 0), ("a", "d", 1), ("d", "b", 0)]
# two games with tags, comments, a variation and a NAG: the PGN scan's kernels
PGN = """[Event "Aot"]
[Site "?"]
[Date "2024.02.03"]
[Round "1"]
[White "Anna, A"]
[Black "Boris, B"]
[Result "1-0"]
[WhiteElo "2000"]

1. e4 {a comment} e5 (1... c5 2. Nf3) 2. Nf3 $1 Nc6 3. O-O 1-0

[Event "Aot"]
[Site "?"]
[Date "2024.??.??"]
[Round "2"]
[White "Boris, B"]
[Black "Anna, A"]
[Result "1/2-1/2"]

1. d4 d5 ; rest of line
2. c4 1/2-1/2
"""


def exercise(systems=None) -> None:
    """Rate a tiny game set with ``systems`` (default: all) in memory and through a store."""
    from arpad.pipeline import engine
    from arpad.pipeline.ingest import ingest_files
    from arpad.pipeline.store import Store
    from arpad.pipeline.systems import system_names
    from arpad.pipeline.warm import _tiny_ratings

    systems = list(systems or system_names())
    _tiny_ratings(systems)
    with tempfile.TemporaryDirectory() as tmp:
        games = Path(tmp) / "games.csv"
        rows = ["white_id,black_id,score,date"]
        for month in (1, 2, 3):
            for i, (w, b, s) in enumerate(GAMES):
                rows.append(f"{w},{b},{s},2024-{month:02d}-{i + 10:02d}")
        games.write_text("\n".join(rows) + "\n")
        players = Path(tmp) / "players.csv"
        players.write_text("player_id,rating\na,2000\nb,1900\nc,1800\n")
        pgn = Path(tmp) / "games.pgn"
        pgn.write_text(PGN)
        store = Store(Path(tmp) / "store")
        ingest_files(store, [games, pgn], players=[players])
        # A Parquet games file of typed columns, streamed (pipeline/stream_ingest.py),
        # with the compiled content digest that real files take from 100k rows, and
        # keys looked up against a dictionary the CSV filled (kernels/strings.py).
        _ingest_parquet(store, Path(tmp) / "games.parquet")
        for system in systems:
            try:
                engine.rate(store, system, "standard", refresh_catalog=False)
            except ValueError:
                pass  # a system this tiny store cannot rate


def _ingest_parquet(store, path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from arpad.pipeline import digest, stream_ingest
    from arpad.pipeline.ingest import ingest_files

    white, black, score = zip(*GAMES)
    n = len(GAMES)
    table = pa.table(
        {
            "game_id": [f"pq{i}" for i in range(n)],
            "period": pa.array([202404] * n, pa.int32()),
            "white_id": list(white),
            "black_id": list(black),
            "score": pa.array(score, pa.float32()),
        }
    )
    pq.write_table(table, path)
    # (in slices of 2 rows: the second slice's ids are looked up among the first's,
    # kernels/idset.py)
    compiled_from, batch_rows = digest.COMPILED_FROM, stream_ingest.BATCH_ROWS
    digest.COMPILED_FROM, stream_ingest.BATCH_ROWS = 0, 2
    try:
        ingest_files(store, [path])
    finally:
        digest.COMPILED_FROM, stream_ingest.BATCH_ROWS = compiled_from, batch_rows


def main(argv=None) -> int:
    import argparse

    from arpad.kernels import aot

    ap = argparse.ArgumentParser(
        prog="python -m arpad.pipeline.aot",
        description="Compile the rating kernels ahead of time (kernels/aot.py).",
    )
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    try:
        path = aot.build(exercise, verbose=args.verbose)
    except Exception as exc:
        print(
            f"arpad: kernels not compiled ahead of time ({type(exc).__name__}: {exc}); "
            "the JIT compiles them on first use",
            file=sys.stderr,
        )
        return 0
    if path is None:
        print("arpad: kernels compiled ahead of time: current")
    else:
        print(f"arpad: kernels compiled ahead of time in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
