"""The templates' layout: every mail the host sends is a folder under
``templates/mail/<kind>/`` (``subject.txt``, ``body.txt``, optionally
``body.html``); beside ``mail/`` are only the public pages and the order desk."""

from __future__ import annotations

import re
from pathlib import Path

import turnproc
from turnproc.reports.render import environment
from turnproc.runtime.resources import templates_dir

PACKAGE = Path(turnproc.__file__).parent


def test_templates_hold_the_mails_the_site_and_the_desk() -> None:
    assert sorted(p.name for p in templates_dir().iterdir()) == ["desk", "mail", "site"]


def test_every_mail_folder_has_a_subject_and_a_text() -> None:
    folders = [p for p in (templates_dir() / "mail").iterdir() if p.is_dir()]
    assert len(folders) >= 20
    for folder in folders:
        assert (folder / "subject.txt").is_file() and (folder / "body.txt").is_file(), folder.name


def test_every_template_a_mail_names_is_there() -> None:
    """The kinds named in the code that queues and builds mails, each found by the renderer."""
    named = set()
    for path in [
        *(PACKAGE / "outgoing").glob("*.py"),
        PACKAGE / "games" / "notices.py",
        PACKAGE / "intake" / "account.py",
    ]:
        text = path.read_text(encoding="utf-8")
        named |= set(re.findall(r'queue_notice\(\s*session,\s*config,\s*"([a-z_]+)"', text))
        named |= set(re.findall(r'queue_built_when_sent\(\s*session,\s*\w+,\s*"([a-z_]+)"', text))
        named |= set(re.findall(r'render(?:_subject)?\(\s*"([a-z_]+)"', text))
    assert {"ack", "welcome", "bulletin", "reminder", "help", "guessing_digest"} <= named
    env = environment()
    for kind in sorted(named):
        env.get_template(f"{kind}/subject.txt")
        assert (templates_dir() / "mail" / kind / "body.txt").is_file(), kind
