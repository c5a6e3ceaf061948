"""livekit's prewarm of a job process (`callmemory.prewarm`): what it leaves for the job.

The warm path itself runs in real job processes (tests/jobprocess/test_burst_bench.py: one
round trip between the dispatch and the greeting)."""

from __future__ import annotations

import pytest
from livekit.agents import JobExecutorType, JobProcess

from callmemory.prewarm import WARM_KEY, prewarm


def test_the_thread_executor_is_left_cold() -> None:
    # its setup runs in the worker's main process, whose loop is not the job's
    proc = JobProcess(executor_type=JobExecutorType.THREAD, user_arguments=None, http_proxy=None)
    prewarm(proc)
    assert WARM_KEY not in proc.userdata


def test_a_process_without_a_database_url_is_left_cold_for_its_job_to_name_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    proc = JobProcess(executor_type=JobExecutorType.PROCESS, user_arguments=None, http_proxy=None)
    prewarm(proc)
    assert WARM_KEY not in proc.userdata
