"""The GM's command line as the tests drive it: ``turnproc --config FILE ...``
in this process, against a real database (``db_url``) and a real SMTP server
(the test's aiosmtpd sink); ``send`` delivers what the commands queued."""

from __future__ import annotations

import contextlib
import email
import email.policy
import io
import logging
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path

from tests.conftest import SmtpSink
from turnproc.cli import main

HOST = "turns@turnproc.example"


@dataclass
class Result:
    status: int
    out: str
    err: str


@dataclass
class GM:
    config: Path
    smtp: SmtpSink
    delivered: int = 0
    log: list[str] = field(default_factory=list)

    def __call__(self, *argv: str) -> Result:
        out, err = io.StringIO(), io.StringIO()
        root = logging.getLogger()
        handlers, level = root.handlers[:], root.level
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    status = main(["--config", str(self.config), *argv])
                except SystemExit as exc:  # argparse's own usage errors
                    status = int(exc.code or 0)
        finally:
            root.handlers[:], root.level = handlers, level
        self.log.append(" ".join(argv))
        return Result(status, out.getvalue(), err.getvalue())

    def ok(self, *argv: str) -> str:
        result = self(*argv)
        assert result.status == 0, (
            f"turnproc {' '.join(argv)} failed ({result.status}):\n{result.err}{result.out}"
        )
        return result.out

    def fails(self, *argv: str, status: int = 1) -> str:
        """The command's one-line refusal (stderr); asserts the status."""
        result = self(*argv)
        assert result.status == status, (
            f"turnproc {' '.join(argv)}: status {result.status}, not {status}:\n{result.err}{result.out}"
        )
        return result.err

    def send(self) -> list[EmailMessage]:
        """Deliver everything queued over SMTP; the messages the sink got since the last call."""
        self.ok("send")
        new = self.smtp.messages[self.delivered :]
        self.delivered = len(self.smtp.messages)
        return [
            email.message_from_bytes(raw, policy=email.policy.default)  # type: ignore[misc]
            for _, _, raw in new
        ]


def make_gm(tmp_path: Path, db_url: str, smtp: SmtpSink) -> GM:
    config = tmp_path / "turnproc.toml"
    config.write_text(
        f'database_url = "{db_url}"\ntransport = "imap"\nfrom_address = "Host <{HOST}>"\n'
        'gm_address = "gm@turnproc.example"\n'
        f'[smtp]\nhost = "127.0.0.1"\nport = {smtp.port}\nsecurity = "plain"\n',
        encoding="utf-8",
    )
    return GM(config, smtp)


def body(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    assert part is not None
    return str(part.get_content()).replace("\r\n", "\n")
