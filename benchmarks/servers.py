"""Real servers on loopback, started and stopped by whoever needs them: a
private PostgreSQL cluster, a private Dovecot IMAP server, and the helpers to
find a free port and wait for a listener. The benchmarks start them, and so do
the tests (tests/servers.py adds what is pytest's: skip or fail when one cannot
be had)."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

PG_BIN_DIRS = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)


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
    """A private throw-away PostgreSQL cluster in a temporary directory;
    without ``fsync`` (the tests' default) its commits do not wait for the disk,
    with it they do, as in production."""

    def __init__(self, *, fsync: bool = False) -> None:
        self.fsync = fsync
        self.dir = Path(tempfile.mkdtemp(prefix="turnproc-pg-", dir="/tmp"))
        self.port = free_port()
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"
        self._pg_ctl: str | None = None

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
        self._run(
            initdb, "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8", "-N"
        )
        self._run(
            pg_ctl,
            "-D",
            str(data),
            "-l",
            str(self.dir / "log"),
            "-w",
            "-o",
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1"
            f" -c fsync={'on' if self.fsync else 'off'}",
            "start",
        )
        self._pg_ctl = pg_ctl

    def stop(self) -> None:
        # A cluster that never started, or is already gone, has nothing to stop.
        if self._pg_ctl is not None:
            with contextlib.suppress(subprocess.SubprocessError, OSError):
                self._run(self._pg_ctl, "-D", str(self.dir / "data"), "-m", "fast", "stop")
        shutil.rmtree(self.dir, ignore_errors=True)


def wait_for_port(port: int, timeout: float = 60.0) -> None:
    # A minute: a server's start on a busy shared machine takes far more than an idle one's second.
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
  # Dovecot's high-performance login mode, and imap processes that serve one
  # connection after another: a test connects and logs in dozens of times,
  # and a process started for each took 20 ms of the 24 a login cost.
  service_count = 0
  process_min_avail = 1
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service imap {{
  service_count = 0
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
        binary = shutil.which("dovecot") or (
            "/usr/sbin/dovecot" if Path("/usr/sbin/dovecot").exists() else None
        )
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
        self.proc = subprocess.Popen(
            [binary, "-F", "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
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
