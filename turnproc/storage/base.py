"""What every table is made of: the declarative base with its constraint
naming convention, and the column types (timestamps always aware UTC)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from sqlalchemy import JSON, DateTime, Integer, MetaData, TypeDecorator
from sqlalchemy.orm import DeclarativeBase, mapped_column

__all__ = ["Base", "NAMING_CONVENTION", "UTCDateTime", "utcnow", "intpk", "count", "timestamp"]

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_N_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


class UTCDateTime(TypeDecorator[dt.datetime]):
    """Timestamps are always timezone-aware UTC, on SQLite (which drops the
    zone) as on PostgreSQL."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: dt.datetime | None, dialect: Any) -> dt.datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r}: pass an aware UTC datetime")
        return value.astimezone(dt.timezone.utc)

    def process_result_value(self, value: dt.datetime | None, dialect: Any) -> dt.datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=dt.timezone.utc)
        return value.astimezone(dt.timezone.utc)


intpk = Annotated[int, mapped_column(Integer, primary_key=True)]
count = Annotated[int, mapped_column(Integer, nullable=False, default=0)]
timestamp = Annotated[dt.datetime, mapped_column(UTCDateTime, nullable=False, default=utcnow)]


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    # SQLAlchemy reads it by this name, as a plain class attribute.
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON}  # noqa: RUF012
