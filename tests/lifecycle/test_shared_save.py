"""The one save of a call: first trigger starts it, every path shares its completion."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from lifecycle.save import SaveReport, SharedSave

PATHS = ["caller_hung_up", "agent_ended", "job_shutdown", "worker_drain", "session_error"]


class CountingSave:
    def __init__(self, report: SaveReport | Exception, delay: float = 0.01) -> None:
        self.calls: list[str] = []
        self.report = report
        self.delay = delay

    async def __call__(self, path: str) -> SaveReport:
        self.calls.append(path)
        await asyncio.sleep(self.delay)
        if isinstance(self.report, Exception):
            raise self.report
        return self.report


@pytest.mark.parametrize("order", list(itertools.permutations(PATHS[:4])))
async def test_paths_in_any_order_share_one_save(order: tuple[str, ...]) -> None:
    save = CountingSave(SaveReport("failed", "memory_model_failed"))
    shared = SharedSave(save, timeout=1.0)
    reports = await asyncio.gather(*(shared.wait(path) for path in order))
    assert save.calls == [order[0]]
    assert all(r == reports[0] for r in reports)
    assert reports[0].status == "failed"


async def test_a_late_path_gets_the_finished_result_without_a_second_save() -> None:
    save = CountingSave(SaveReport("saved"))
    shared = SharedSave(save, timeout=1.0)
    first = await shared.wait("caller_hung_up")
    assert await shared.wait("job_shutdown") is first
    assert save.calls == ["caller_hung_up"]


async def test_an_unexpected_failure_reaches_every_waiter_once() -> None:
    save = CountingSave(RuntimeError("bug"))
    shared = SharedSave(save, timeout=1.0)
    results = await asyncio.gather(
        shared.wait("a"), shared.wait("b"), shared.wait("c"), return_exceptions=True
    )
    assert all(isinstance(r, RuntimeError) for r in results)
    assert save.calls == ["a"]


async def test_cancelling_a_waiter_does_not_cancel_the_save() -> None:
    save = CountingSave(SaveReport("saved"), delay=0.2)
    shared = SharedSave(save, timeout=1.0)
    waiter = asyncio.create_task(shared.wait("caller_hung_up"))
    await asyncio.sleep(0.05)
    waiter.cancel()
    report = await shared.wait("job_shutdown")
    assert report.status == "saved"
    assert save.calls == ["caller_hung_up"]


async def test_a_save_past_its_timeout_is_reported_failed() -> None:
    save = CountingSave(SaveReport("saved"), delay=1.0)
    shared = SharedSave(save, timeout=0.05)
    report = await shared.wait("job_shutdown")
    assert (report.status, report.reason) == ("failed", "save_timeout")


async def test_trigger_from_a_sync_callback_starts_it() -> None:
    save = CountingSave(SaveReport("saved"))
    shared = SharedSave(save, timeout=1.0)

    def on_close() -> None:  # livekit event callbacks are synchronous
        shared.trigger("caller_hung_up")

    on_close()
    assert shared.started
    assert (await shared.wait("job_shutdown")).status == "saved"
