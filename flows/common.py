"""Task options shared by the flows: I/O tasks retry on OS errors only."""

from __future__ import annotations

from prefect.cache_policies import NO_CACHE


def retry_on_os_error(task, task_run, state) -> bool:
    """Retry an I/O task only when it failed on an OSError (bad input is final)."""
    try:
        state.result()
    except OSError:
        return True
    except Exception:
        return False
    return False


IO_TASK = {
    "retries": 2,
    "retry_delay_seconds": 1,
    "retry_condition_fn": retry_on_os_error,
    "cache_policy": NO_CACHE,
}
COMPUTE_TASK = {"cache_policy": NO_CACHE}
