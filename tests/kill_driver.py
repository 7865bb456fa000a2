"""Run ``arpad`` in a subprocess that SIGKILLs itself at a chosen point (tests/test_resume.py).

``ARPAD_KILL`` selects the point (the count N is 1-based):

* ``write:N``       — as the N-th Parquet file write begins (nothing written yet)
* ``halfwrite:N``   — in the middle of the N-th Parquet file write (half the rows on disk)
* ``ratings:N``     — right after the N-th ratings file is written (on the write-behind thread or not)
* ``checkpoint:N``  — right after the N-th complete state checkpoint
* ``pace:SECONDS``  — never kills; sleeps after each period's ratings so that the test
  can kill the process from outside at an uncontrolled moment

Usage: ``python tests/kill_driver.py rate --no-flow --store S --system fide``.
"""

from __future__ import annotations

import os
import signal
import sys
import time


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def install(spec: str) -> None:
    import pyarrow.parquet as pq

    from arpad.pipeline.store import Store

    kind, _, arg = spec.partition(":")
    count = {"n": 0}

    def counted(n: int) -> bool:
        count["n"] += 1
        return count["n"] == n

    if kind in ("write", "halfwrite"):
        original = pq.write_table
        n = int(arg)

        def write_table(table, where, *args, **kwargs):
            if counted(n):
                if kind == "halfwrite":
                    with open(where, "wb") as fh:
                        original(table.slice(0, table.num_rows // 2), fh, *args, **kwargs)
                        fh.flush()
                        os.fsync(fh.fileno())
                _die()
            return original(table, where, *args, **kwargs)

        pq.write_table = write_table
    elif kind == "ratings":
        # The file write itself: the engine writes ratings files through
        # ``ratings_writer`` (perhaps on its write-behind thread); ``write_ratings`` too.
        original_writer = Store.ratings_writer
        n = int(arg)

        def writer(self, *args, **kwargs):
            write = original_writer(self, *args, **kwargs)

            def write_then_maybe_die():
                write()
                if counted(n):
                    _die()

            return write_then_maybe_die

        Store.ratings_writer = writer
    elif kind == "checkpoint":
        method = "write_state"
        original_method = getattr(Store, method)
        n = int(arg)

        def wrapped(self, *args, **kwargs):
            result = original_method(self, *args, **kwargs)
            if counted(n):
                _die()
            return result

        setattr(Store, method, wrapped)
    elif kind == "pace":
        original_ratings = Store.ratings_writer
        pause = float(arg)

        def paced(self, *args, **kwargs):
            write = original_ratings(self, *args, **kwargs)

            def write_then_pause():
                write()
                time.sleep(pause)

            return write_then_pause

        Store.ratings_writer = paced
    else:
        raise SystemExit(f"unknown ARPAD_KILL spec {spec!r}")


if __name__ == "__main__":
    if os.environ.get("ARPAD_KILL"):
        install(os.environ["ARPAD_KILL"])
    from arpad.pipeline.cli import main

    sys.exit(main(sys.argv[1:]))
