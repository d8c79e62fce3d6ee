"""Real servers for the tests, started on loopback by the tests themselves.

When a server cannot be had, tests that need it skip on a developer's machine
but fail when ``CI`` is set, so a missing install step can never hide as skips.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

PG_BIN_DIRS = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)


def in_ci() -> bool:
    return bool(os.environ.get("CI"))


def unavailable(reason: str) -> None:
    """Skip locally, fail in CI."""
    if in_ci():
        pytest.fail(f"{reason} (CI is set, so this is a failure, not a skip)")
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pg_tool(name: str) -> str | None:
    for d in PG_BIN_DIRS:
        if (d / name).exists():
            return str(d / name)
    return shutil.which(name)


class PostgresServer:
    """A private throw-away PostgreSQL cluster in a temporary directory."""

    def __init__(self, fsync: bool = False) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="turnproc-pg-", dir="/tmp"))
        self.port = free_port()
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"
        #: Off for the tests (their commits need not survive a crash); a benchmark may want it on.
        self.fsync = fsync

    def _run(self, *cmd: str) -> None:
        if os.geteuid() == 0:
            cmd = ("runuser", "-u", "postgres", "--", *cmd)
        subprocess.run(cmd, check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        initdb, pg_ctl = _pg_tool("initdb"), _pg_tool("pg_ctl")
        if not initdb or not pg_ctl:
            raise RuntimeError("PostgreSQL server binaries (initdb, pg_ctl) not found")
        os.chmod(self.dir, 0o755)
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
        data = self.dir / "data"
        self._run(initdb, "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8", "-N")
        self._run(
            pg_ctl, "-D", str(data), "-l", str(self.dir / "log"), "-w", "-o",
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync={'on' if self.fsync else 'off'}", "start",
        )
        self._pg_ctl = pg_ctl

    def stop(self) -> None:
        try:
            self._run(self._pg_ctl, "-D", str(self.dir / "data"), "-m", "fast", "stop")
        except Exception:
            pass
        shutil.rmtree(self.dir, ignore_errors=True)


def wait_for_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listening on 127.0.0.1:{port}")


DOVECOT_CONF = """\
protocols = imap
listen = 127.0.0.1
base_dir = {dir}/run
state_dir = {dir}/state
log_path = {dir}/dovecot.log
info_log_path = {dir}/dovecot.log
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
first_valid_uid = 1
mail_location = maildir:{dir}/mail/%u/Maildir:LAYOUT=fs
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {dir}/users
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={dir}/mail/%u
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service anvil {{
  unix_listener anvil-auth-penalty {{
    mode = 0
  }}
}}
"""


class DovecotServer:
    """A private Dovecot IMAP server on loopback, plain-text login, Maildir store."""

    def __init__(self, users: dict[str, str]) -> None:
        self.users = users
        # Dovecot drops to an unprivileged uid: every parent must be o+x (not pytest's 0700 tmp).
        self.dir = Path(tempfile.mkdtemp(prefix="turnproc-imap-", dir="/tmp"))
        os.chmod(self.dir, 0o755)
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        binary = shutil.which("dovecot") or ("/usr/sbin/dovecot" if Path("/usr/sbin/dovecot").exists() else None)
        if binary is None:
            raise RuntimeError("dovecot is not installed (apt-get install dovecot-imapd)")
        uid = gid = 65534 if os.geteuid() == 0 else os.getuid()
        if os.geteuid() != 0:
            gid = os.getgid()
        for sub in ("run", "state", "mail"):
            (self.dir / sub).mkdir()
        (self.dir / "users").write_text("".join(f"{u}:{{PLAIN}}{p}\n" for u, p in self.users.items()))
        if os.geteuid() == 0:
            os.chown(self.dir / "mail", uid, gid)
        conf = self.dir / "dovecot.conf"
        conf.write_text(DOVECOT_CONF.format(dir=self.dir, port=self.port, uid=uid, gid=gid))
        self.proc = subprocess.Popen([binary, "-F", "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            wait_for_port(self.port)
        except TimeoutError:
            self.stop()
            log = (self.dir / "dovecot.log").read_text() if (self.dir / "dovecot.log").exists() else ""
            raise RuntimeError(f"dovecot did not start: {log[-2000:]}") from None

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            self.proc = None
        shutil.rmtree(self.dir, ignore_errors=True)

    def wipe(self, user: str) -> None:
        """Empty a user's mail between tests (users themselves are fixed at start)."""
        shutil.rmtree(self.dir / "mail" / user, ignore_errors=True)
