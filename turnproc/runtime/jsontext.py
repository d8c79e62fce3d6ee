"""Compact JSON text, fast: what the database's JSON columns and the JSON
report hold.

orjson writes the very text the standard library's ``json.dumps`` writes
with ``ensure_ascii=False`` and no spaces (int keys as strings too;
tests/reports/test_formats.py), several times faster: a thousand-empire turn
stores tens of megabytes of it and mails as much again. What orjson refuses
(a lone surrogate from a broken mail, an integer beyond 64 bits) the
standard library still writes.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

__all__ = ["Encoded", "dumps", "loads"]


class Encoded(str):
    """JSON text already written: :func:`dumps` gives it back as it is, so a
    JSON column takes text built elsewhere (a turn's reports, built as JSON
    text by turnproc.reports.turnout) without a parse and a second write.
    Only as the whole value: inside a list or dict it is a string like any."""

    __slots__ = ()


def dumps(value: Any, *, sort_keys: bool = False) -> str:
    if type(value) is Encoded:
        return str.__str__(value)
    option = orjson.OPT_NON_STR_KEYS | (orjson.OPT_SORT_KEYS if sort_keys else 0)
    try:
        return orjson.dumps(value, option=option).decode("utf-8")
    except (orjson.JSONEncodeError, UnicodeDecodeError):
        return json.dumps(value, sort_keys=sort_keys, ensure_ascii=False, separators=(",", ":"))


def loads(text: str | bytes) -> Any:
    return orjson.loads(text)
