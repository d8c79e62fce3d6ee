"""Pure work done beside the database work, on the machine's other CPU.

A thousand-empire turn spends about a second writing the resolved state
through the ORM, and nearly as long building every report's data from that
same state; neither needs the other. :func:`beside` forks a copy of the
process that runs the pure function on its copy of the arguments while the
parent goes on with the database, and :meth:`Beside.result` collects the
answer, pickled through an anonymous file. A fork, not a process pool: a
pool would pickle the state across (some 0.3 s each way at a thousand
empires, as much as the work it moves), where a fork shares it as it is.

The function must be pure: no database, no mail, no clock, nothing but its
arguments. That is what makes a bare fork safe in a process whose other
threads (the worker's poll, its IDLE watch) may hold locks at the moment of
the fork: the child takes none of their locks, touches no connection it
shares with the parent, and leaves with ``os._exit``, running no exit
handler. Whatever goes wrong in the child all the same (an exception, a
kill, a child that stops making progress, no fork on this platform), the
parent runs the function itself and gets the same answer, because it is
pure, or raises the function's own error with its own traceback.
"""

from __future__ import annotations

import logging
import os
import pickle
import signal
import tempfile
import time
from collections.abc import Callable
from typing import IO, Any, Generic, TypeVar

__all__ = ["Beside", "beside"]

log = logging.getLogger(__name__)

T = TypeVar("T")

#: A child whose CPU time has not grown for this long is stuck (a lock it
#: inherited held, say) and is ended: the work it was given never waits.
STALL_SECONDS = 10.0


class Beside(Generic[T]):
    """``fn(*args)``, worked out in a forked child or, failing that, here."""

    def __init__(self, fn: Callable[..., T], args: tuple[Any, ...], *, fork: bool) -> None:
        self._fn, self._args = fn, args
        self._pid: int | None = None
        self._file: IO[bytes] | None = None
        self._done: tuple[T] | None = None
        self._started = False
        if fork and hasattr(os, "fork"):
            self._start()
        if self._pid is None:
            # Here and now: the same inputs, at the same point, as the child's.
            self._done = (fn(*args),)

    def __enter__(self) -> Beside[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Give up on a child still at work (the caller failed before it asked
        for the result): ended and reaped, so no child outlives its use."""
        pid, file = self._pid, self._file
        self._pid = self._file = None
        if pid is not None:
            _end(pid)
        if file is not None:
            file.close()

    @property
    def forked(self) -> bool:
        """Whether a child was started for the work."""
        return self._started

    def _start(self) -> None:
        try:
            file = tempfile.TemporaryFile()
        except OSError as exc:
            log.warning("no file for the work beside (%s): done in this process", exc)
            return
        try:
            # Python 3.12+ warns of a fork in a threaded process (a
            # DeprecationWarning, hidden by default); the child runs only the
            # pure function (see the module's docstring). Not silenced here:
            # catch_warnings would change the filters of every thread.
            pid = os.fork()
        except OSError as exc:
            file.close()
            log.warning("cannot fork for the work beside (%s): done in this process", exc)
            return
        if pid == 0:  # the child
            code = 1
            try:
                pickle.dump(self._fn(*self._args), file, protocol=pickle.HIGHEST_PROTOCOL)
                file.flush()
                code = 0
            finally:
                os._exit(code)
        self._pid, self._file, self._started = pid, file, True

    def result(self) -> T:
        """The function's value: the child's once it ends well, else worked
        out in this process (which raises the function's own error, if any)."""
        if self._done is None:
            self._done = self._collect() or (self._fn(*self._args),)
        return self._done[0]

    def _collect(self) -> tuple[T] | None:
        pid, file = self._pid, self._file
        assert pid is not None and file is not None
        status = _wait(pid)  # interrupted, the child is still ours to end (close)
        self._pid = self._file = None
        try:
            if status is None:
                log.warning("the work beside (child %d) stopped making progress or was lost: done in this process", pid)
                return None
            if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
                log.warning("the work beside (child %d) failed (wait status %d): done in this process", pid, status)
                return None
            file.seek(0)
            return (pickle.load(file),)
        finally:
            file.close()


def _end(pid: int) -> None:
    """Kill the child and wait for it, however far it got."""
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:  # gone already
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:  # reaped by the system already (SIGCHLD ignored)
        pass


def _wait(pid: int) -> int | None:
    """The child's wait status once it ends; None if it stalled and was
    killed, or if its status is lost (a process that ignores SIGCHLD has its
    children reaped by the system): its answer is then not trusted."""
    pause, cpu, progress = 0.001, _cpu_seconds(pid), time.monotonic()
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return None
        if done:
            return status
        now = time.monotonic()
        used = _cpu_seconds(pid)
        if used is None or used != cpu:
            cpu, progress = used, now
        elif now - progress > STALL_SECONDS:
            _end(pid)
            return None
        time.sleep(pause)
        pause = min(pause * 2, 0.02)


def _cpu_seconds(pid: int) -> float | None:
    """The process's CPU seconds so far (Linux); None where it cannot be read,
    which counts as progress: a child is only ended on evidence."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    # utime and stime, fields 14 and 15 of /proc/PID/stat.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def beside(fn: Callable[..., T], *args: Any, fork: bool = True) -> Beside[T]:
    """Start ``fn(*args)`` beside the caller (in a forked child when ``fork``
    and the platform can); :meth:`Beside.result` gives its value."""
    return Beside(fn, args, fork=fork)
