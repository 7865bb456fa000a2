"""Shared fixtures. Prefect gets a project-local home and no analytics before it is imported."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Shared, noisy machines: no per-example deadlines (speed is measured in benchmarks/).
# In CI the examples are derandomized (reproducible runs); locally they vary.
settings.register_profile(
    "arpad",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
    derandomize=bool(os.environ.get("CI")),
)
settings.load_profile("arpad")

REPO = Path(__file__).resolve().parents[1]
os.environ.setdefault("PREFECT_HOME", str(REPO / ".prefect"))
os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
os.environ.setdefault("PREFECT_LOGGING_TO_API_ENABLED", "false")

BUNDLED = REPO / "data" / "real"
SHARED = REPO.parent / "shared" / "data" / "real"


@pytest.fixture(scope="session")
def bundled_data() -> Path:
    """data/real/ (Deloitte 2011 and Kaggle 2010 files bundled with the repo)."""
    assert (BUNDLED / "SHA256SUMS").exists(), "data/real is missing from the checkout"
    return BUNDLED


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data/real (PGN and TRF files); CI lays it beside the clone."""
    assert SHARED.is_dir(), f"shared real data not found at {SHARED}"
    return SHARED


@pytest.fixture(scope="session")
def prefect_harness():
    """One Prefect test server for the whole session (only for tests that ask for it)."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=120):
        yield


@pytest.fixture
def store(tmp_path):
    from arpad.pipeline.store import Store

    return Store(tmp_path / "store")


def write_csv(path: Path, header: str, rows: list[str]) -> Path:
    path.write_text("\n".join([header, *rows]) + "\n")
    return path
