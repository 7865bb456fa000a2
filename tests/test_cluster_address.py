"""``--cluster`` at something that is not a Dask scheduler, a flow losing its scheduler,
and ``--workers`` beside ``--cluster`` (docs/runners.md "Runners attacked, round 4")."""

from __future__ import annotations

import http.server
import socket
import threading
import time

import pytest
from distributed.client import FutureCancelledError

from arpad.flows import common
from arpad.pipeline import launch, runner


@pytest.fixture
def http_address():
    """A plain HTTP server (as the dashboard or a Prefect server would be) on a free port."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"tcp://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def silent_address():
    """A socket that accepts connections and never says a word."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    yield f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    listener.close()


def _probe_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "arpad-dask-probe"]


@pytest.mark.parametrize("peer", ["http_address", "silent_address"])
def test_a_peer_that_is_not_a_scheduler_is_one_line_within_the_wait(peer, request, monkeypatch):
    address = request.getfixturevalue(peer)
    monkeypatch.setattr(runner, "IDENTITY_WAIT", 1.5)
    monkeypatch.delenv("ARPAD_CLUSTER", raising=False)
    start = time.monotonic()
    with pytest.raises(ValueError) as caught:
        # dask_client: probe, then Client; the old code hung in Client's handshake
        with runner.dask_client(address):
            pass
    elapsed = time.monotonic() - start
    assert str(caught.value) == (
        f"{address} answers but is not a Dask scheduler (an HTTP server? the dashboard "
        "is usually the scheduler's port + 1): no Dask handshake within 1.5 s"
    )
    # 1.5 s wait plus the connect: well under the TCP probe's and Dask's 5 s and 20 s
    assert elapsed < 5.0
    assert _probe_threads() == []  # the exchange's thread has ended


def test_a_real_scheduler_passes_the_probe():
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=0, processes=False, protocol="tcp://", host="127.0.0.1", dashboard_address=None
    ) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tcp://")
        assert runner.check_is_scheduler(address, timeout=5.0) is None
        assert runner.probe_scheduler(address) is None
    assert _probe_threads() == []


def test_a_closed_port_from_arpad_cluster_is_named_so(monkeypatch):
    with socket.socket() as s:  # a port nobody listens on once closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    monkeypatch.setenv("ARPAD_CLUSTER", address)
    with pytest.raises(
        ValueError, match=f"^cannot reach the Dask scheduler at ARPAD_CLUSTER={address}: "
    ):
        runner.probe_scheduler(address)


def test_workers_beside_cluster_is_refused_naming_where_each_came_from(monkeypatch):
    monkeypatch.delenv("ARPAD_CLUSTER", raising=False)
    monkeypatch.delenv("ARPAD_WORKERS", raising=False)
    tail = ": give one (--workers starts a local cluster, --cluster uses the workers of a running scheduler)"
    with pytest.raises(ValueError) as caught:
        runner.check_scale_out("tcp://127.0.0.1:8999", 2)
    assert str(caught.value) == "--workers 2 and --cluster tcp://127.0.0.1:8999" + tail
    monkeypatch.setenv("ARPAD_CLUSTER", "tcp://127.0.0.1:8999")
    # launch.run refuses before it reads the request or tries the scheduler
    with pytest.raises(ValueError) as caught:
        launch.run("reconstruct", None, flow=False, cluster="tcp://127.0.0.1:8999", workers=2)
    assert str(caught.value) == "--workers 2 and ARPAD_CLUSTER=tcp://127.0.0.1:8999" + tail
    monkeypatch.delenv("ARPAD_CLUSTER")
    monkeypatch.setenv("ARPAD_WORKERS", "3")
    with pytest.raises(ValueError) as caught:
        launch.run("rate", None, flow=True, cluster="tcp://127.0.0.1:8999", workers=3)
    assert str(caught.value) == "ARPAD_WORKERS=3 and --cluster tcp://127.0.0.1:8999" + tail
    # either alone is still fine
    assert runner.check_scale_out("tcp://127.0.0.1:8999", None) is None
    assert runner.check_scale_out(None, 2) is None


LOST_TAIL = (
    " during the run (FutureCancelledError): the units that finished are stored; run the "
    "command again (rating runs resume where they stopped)"
)


def test_a_flow_losing_its_scheduler_is_the_in_process_line(monkeypatch):
    monkeypatch.delenv("ARPAD_CLUSTER", raising=False)
    monkeypatch.delenv("ARPAD_WORKERS", raising=False)
    lost = FutureCancelledError("rate_periods-1", "scheduler-connection-lost")

    class Flow:
        name = "reconstruct"

        def with_options(self, **_):
            return self

        def __call__(self, **_):
            raise lost

    monkeypatch.setattr(common, "require_server", lambda **_: "http://127.0.0.1:1/api")
    monkeypatch.setattr(common, "configured", lambda flow_obj, cluster, workers: flow_obj)
    with pytest.raises(ValueError) as caught:
        common.run_flow(Flow(), "tcp://127.0.0.1:8786", None, store="s")
    assert str(caught.value) == "lost the Dask scheduler at tcp://127.0.0.1:8786" + LOST_TAIL
    # a local cluster's (--workers 2) has no address to name
    error = common.lost_dask(lost, None, 2)
    assert str(error) == "lost the Dask scheduler of the local cluster" + LOST_TAIL
    # the deployment's ARPAD_CLUSTER is named as such
    monkeypatch.setenv("ARPAD_CLUSTER", "tcp://10.0.0.5:8786")
    error = common.lost_dask(lost, None, None)
    assert str(error) == "lost the Dask scheduler at ARPAD_CLUSTER=tcp://10.0.0.5:8786" + LOST_TAIL


def test_other_errors_of_a_flow_are_left_alone(monkeypatch):
    monkeypatch.delenv("ARPAD_CLUSTER", raising=False)
    monkeypatch.delenv("ARPAD_WORKERS", raising=False)
    assert common.lost_dask(ValueError("bad row"), "tcp://127.0.0.1:8786", None) is None
    assert common.lost_dask(OSError("disk full"), None, 2) is None
    # a future cancelled for another reason, in a flow that used no Dask: not ours
    assert common.lost_dask(FutureCancelledError("k", "unknown"), None, None) is None


def test_a_prefect_server_named_without_its_api_path_gets_the_fix(monkeypatch):
    """PREFECT_API_URL=http://HOST:PORT (no /api) said "no Prefect server answers",
    though one answered at /api/health (the ops attack of 2026-12-04)."""

    class Api(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # a Prefect server: its API under /api only
            body = b"true" if self.path == "/api/health" else b'"3.0.0"'
            found = self.path in ("/api/health", "/api/admin/version")
            self.send_response(200 if found else 404)
            self.end_headers()
            self.wfile.write(body if found else b"not found")

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Api)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_port}"
        monkeypatch.setenv("PREFECT_API_URL", base)
        with pytest.raises(ValueError) as err:
            common.require_server(timeout=2)
        assert str(err.value) == (
            f"PREFECT_API_URL={base} is a Prefect server's address, not its API: add /api "
            f"({base}/api)"
        )
        monkeypatch.setenv("PREFECT_API_URL", base + "/api")
        assert common.require_server(timeout=2) == base + "/api"
    finally:
        server.shutdown()
        server.server_close()
