"""The words an intake outcome is stored as: the inbound log's rows and the
GM's queries (docs/gm-schema.md) read them, so they never change."""

from __future__ import annotations

from turnproc.intake import Folder, Outcome
from turnproc.mail.maildir import PROCESSED, REJECTED
from turnproc.storage import models as m

STORED = {
    "pending",
    "duplicate",
    "ignored",
    "forged",
    "rejected",
    "wrong_password",
    "help",
    "signup",
    "accepted",
    "cleared",
    "commands",
    "unchanged",
    "older",
    "failed",
}


def test_the_outcomes_are_the_stored_words() -> None:
    assert {o.value for o in Outcome} == STORED
    assert all(o == o.value and f"{o}" == o.value for o in Outcome), "compared and printed as the word itself"


def test_every_outcome_fits_the_inbound_logs_column() -> None:
    width = m.InboundMessage.__table__.c.outcome.type.length
    assert max(len(o) for o in Outcome) <= width


def test_the_folders_are_the_maildir_folders() -> None:
    assert (Folder.PROCESSED, Folder.REJECTED) == (PROCESSED, REJECTED)
