"""The workspace lock: one writing memcli at a time (cron runs overlap, hooks fire twice).

The lock is an advisory `flock` on `.memcli/lock`, so the kernel releases it
when its holder dies. The file also records who holds it; a record left
behind by a holder that died is how a stale holder is recognised and reported.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from memcli.core.roles import STATE_DIR
from memcli.errors import DataError, LockTimeout
from memcli.parallel import for_workers_again, not_for_workers
from memcli.workspace.files import adopt_owner, make_dirs, recover_carried, settle_carried

LOCK_NAME = "lock"
POLL_SECONDS = 0.05


@dataclass(frozen=True, slots=True)
class Holder:
    pid: int
    host: str
    command: str
    since: float

    def describe(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.since))
        return f"`memcli {self.command}` (pid {self.pid} on {self.host}, since {when})"


def _parse_holder(raw: bytes) -> Holder | None:
    try:
        data = json.loads(raw.decode("utf-8"))
        return Holder(int(data["pid"]), str(data["host"]), str(data["command"]), float(data["since"]))
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None


class WorkspaceLock:
    """`with WorkspaceLock(root, "gc", timeout=10):` waits up to `timeout` seconds."""

    def __init__(self, root: Path, command: str, timeout: float) -> None:
        self.root = root
        self.path = root / STATE_DIR / LOCK_NAME
        self.command = command
        self.timeout = timeout
        self.fd: int | None = None
        self.stale: Holder | None = None
        self.carried: list[str] = []  # files that received late lines left by an earlier run

    def acquire(self) -> WorkspaceLock:
        make_dirs(self.path.parent, self.root)
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise DataError(
                f"cannot use the lock file {STATE_DIR}/{LOCK_NAME}: {exc.strerror}",
                f"it must be a plain file; remove {STATE_DIR}/{LOCK_NAME} if it is a link",
            ) from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise DataError(f"{STATE_DIR}/{LOCK_NAME} is not a plain file", "remove it and run again")
        adopt_owner(fd, self.path.parent)
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = _parse_holder(os.pread(fd, 4096, 0))
                    os.close(fd)
                    who = holder.describe() if holder else "another process"
                    raise LockTimeout(
                        f"the workspace is locked by {who}; waited {self.timeout:g} s",
                        "let it finish, or raise lock_timeout_seconds",
                    ) from None
                time.sleep(POLL_SECONDS)
        previous = _parse_holder(os.pread(fd, 4096, 0))
        if previous is not None and previous.pid != os.getpid():
            self.stale = previous
        record = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "command": self.command,
            "since": time.time(),
        }
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(record).encode("utf-8"), 0)
        self.fd = fd
        not_for_workers(fd)
        try:
            self.carried = recover_carried(self.root)
        except BaseException:
            self._unlock()
            raise
        return self

    def release(self) -> None:
        """Carry what arrived late in the files this run replaced (files.settle_carried),
        then let go of the lock."""
        if self.fd is None:
            return
        try:
            settle_carried(self.root)
        finally:
            self._unlock()

    def _unlock(self) -> None:
        if self.fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(self.fd, 0)
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        for_workers_again(self.fd)
        os.close(self.fd)
        self.fd = None

    def __enter__(self) -> WorkspaceLock:
        return self.acquire()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
