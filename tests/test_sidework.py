"""turnproc.runtime.sidework: pure work in a forked child, and every way a child can
let the parent down (an error, a kill, a lock it inherited held, a caller
that gives up) ends with the parent holding the right answer and no child
left behind."""

from __future__ import annotations

import atexit
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import reaped
from turnproc.runtime import sidework
from turnproc.runtime.sidework import beside

PARENT = os.getpid()


def _pid_and(value: int) -> tuple[int, int]:
    return os.getpid(), value * 2


def test_the_work_is_done_in_a_child_and_its_value_comes_back(forks: list[int]) -> None:
    work = beside(_pid_and, 21)
    assert work.forked
    pid, value = work.result()
    assert value == 42 and pid == forks[0] != PARENT
    assert work.result() == (pid, 42)  # asked again: the same answer, no second child
    assert len(forks) == 1 and reaped(forks[0])


def test_without_a_fork_the_work_is_done_here(forks: list[int]) -> None:
    work = beside(_pid_and, 5, fork=False)
    assert not work.forked and work.result() == (PARENT, 10) and forks == []


def _nothing() -> None:
    return None


def test_a_value_of_none_is_the_childs_answer(forks: list[int], caplog: pytest.LogCaptureFixture) -> None:
    assert beside(_nothing).result() is None
    assert len(forks) == 1 and not caplog.records  # not taken for a failure and done again


def _fails_in_child() -> int:
    if os.getpid() != PARENT:
        raise RuntimeError("only the child fails")
    return 7


def _killed_in_child() -> int:
    if os.getpid() != PARENT:
        os.kill(os.getpid(), signal.SIGKILL)
    return 8


@pytest.mark.parametrize("fn, value", [(_fails_in_child, 7), (_killed_in_child, 8)], ids=["error", "killed"])
def test_a_child_that_fails_leaves_the_work_to_the_parent(
    fn: object, value: int, forks: list[int], caplog: pytest.LogCaptureFixture
) -> None:
    assert beside(fn).result() == value  # type: ignore[arg-type]
    assert "done in this process" in caplog.text
    assert reaped(forks[0])


def _always_fails() -> int:
    raise ValueError("the work's own error")


def test_the_works_own_error_is_raised_in_the_parent(forks: list[int]) -> None:
    work = beside(_always_fails)
    with pytest.raises(ValueError, match="the work's own error"):
        work.result()
    assert reaped(forks[0])


HELD = threading.Lock()


def _needs_the_lock() -> str:
    with HELD:
        return "got it"


def test_a_child_stuck_on_a_lock_a_thread_held_at_the_fork_is_ended(
    forks: list[int], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The hazard of forking a threaded process (the worker's poll may hold a
    lock at the moment of the fork): the child's copy of the lock is never
    released. The child uses no CPU from then on, and is ended."""
    monkeypatch.setattr(sidework, "STALL_SECONDS", 0.5)
    taken, release = threading.Event(), threading.Event()

    def holder() -> None:
        with HELD:
            taken.set()
            release.wait(10)

    thread = threading.Thread(target=holder)
    thread.start()
    taken.wait(10)
    try:
        work = beside(_needs_the_lock)
    finally:
        release.set()
        thread.join()
    started = time.monotonic()
    assert work.result() == "got it"
    assert time.monotonic() - started < 5
    assert "stopped making progress" in caplog.text
    assert reaped(forks[0])


def _sleeps_in_child() -> int:
    if os.getpid() != PARENT:
        time.sleep(60)
    return 1


def test_a_caller_that_gives_up_leaves_no_child(forks: list[int]) -> None:
    started = time.monotonic()
    with pytest.raises(KeyError), beside(_sleeps_in_child):
        raise KeyError("the database work failed")
    assert time.monotonic() - started < 5
    assert reaped(forks[0])


def _registers_exit_handler(path: str) -> int:
    atexit.register(Path(path).write_text, "exit handler ran")
    return 3


def test_the_child_runs_no_exit_handler(tmp_path: Path, forks: list[int]) -> None:
    """It leaves with os._exit: no handler of the parent's (nor its own) runs,
    no buffer of the parent's is written twice."""
    marker = tmp_path / "marker"
    assert beside(_registers_exit_handler, str(marker)).result() == 3
    assert not marker.exists()


def test_no_fork_on_this_platform_means_the_work_is_done_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(sidework.os, "fork")
    work = beside(_pid_and, 1)
    assert not work.forked and work.result() == (PARENT, 2)


def test_a_fork_refused_by_the_system_means_the_work_is_done_here(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def refused() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(sidework.os, "fork", refused)
    work = beside(_pid_and, 2)
    assert not work.forked and work.result() == (PARENT, 4)
    assert "cannot fork" in caplog.text


def test_a_child_the_system_reaped_is_not_trusted_and_the_work_is_done_here(
    forks: list[int], caplog: pytest.LogCaptureFixture
) -> None:
    """A process that ignores SIGCHLD has its children reaped by the system,
    their exit status lost: the parent does the work itself, and fails on
    nothing."""
    before = signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    try:
        work = beside(_pid_and, 4)
        assert work.forked and work.result() == (PARENT, 8)
        with beside(_sleeps_in_child):  # and one given up on while it works
            pass
    finally:
        signal.signal(signal.SIGCHLD, before)
    assert "was lost" in caplog.text and len(forks) == 2
