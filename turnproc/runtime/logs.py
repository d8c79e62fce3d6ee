"""Log lines for the worker's stderr: journald's priorities under systemd,
JSON for log shippers, plain text elsewhere."""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import sys
from typing import Any

__all__ = ["JournalFormatter", "JsonFormatter", "configure_logging"]

UTC = dt.timezone.utc

# syslog priorities, which journald reads from a "<N>" line prefix.
_PRIORITY = {logging.DEBUG: 7, logging.INFO: 6, logging.WARNING: 4, logging.ERROR: 3, logging.CRITICAL: 2}


class JournalFormatter(logging.Formatter):
    """``<6>INFO turnproc.service.worker: message``, no timestamp (journald adds its
    own). Every line of a traceback carries the priority too, so the whole
    error is filed at its level."""

    def format(self, record: logging.LogRecord) -> str:
        text = f"{record.levelname} {record.name}: {record.getMessage()}"
        if record.exc_info:
            text += "\n" + self.formatException(record.exc_info)
        prio = _PRIORITY.get(record.levelno, 6)
        return "\n".join(f"<{prio}>{line}" for line in text.splitlines())


class JsonFormatter(logging.Formatter):
    """One JSON object per line, for log shippers."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": dt.datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


def configure_logging(fmt: str = "auto", level: int = logging.INFO) -> None:
    """Log to stderr. ``auto`` is ``journal`` under systemd (it sets
    $JOURNAL_STREAM for a service's stderr) and ``text`` elsewhere."""
    if fmt == "auto":
        fmt = "journal" if os.environ.get("JOURNAL_STREAM") else "text"
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "journal":
        handler.setFormatter(JournalFormatter())
    elif fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    # APScheduler logs every job run at INFO, and "maximum number of running
    # instances reached" whenever a turn takes longer than the tick: expected,
    # not worth a warning. Its job errors (ERROR) still show.
    logging.getLogger("apscheduler").setLevel(logging.ERROR if level > logging.DEBUG else logging.DEBUG)
    logging.getLogger("alembic").setLevel(logging.WARNING)  # "Context impl ..." on every start
