"""The order desk's files (``turnproc site``, docs/gm-handbook.md "The order
desk"): the Python the page runs is found by following the imports of
turnproc/reports/judge.py, is the standard library and turnproc only, and
takes every module of the rules the checks use; the Pyodide copied in must be
the pinned release."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from turnproc.reports.desk import (
    PYODIDE_FILES,
    PYODIDE_VERSION,
    DeskError,
    desk_files,
    module_bundle,
    pure_modules,
    write_desk,
)


def test_the_bundle_holds_what_the_verdicts_import() -> None:
    names = set(pure_modules())
    assert {
        "turnproc.reports.judge",
        "turnproc.orders.parser",
        "turnproc.rules.checks",
        "turnproc.rules.verdicts",
        "turnproc.rules.costs",
        "turnproc.reports.orderform",
        "turnproc.reports.rebuild",
    } <= names
    # Packages come with their modules; nothing of the host beyond what is needed.
    assert {"turnproc", "turnproc.reports", "turnproc.rules"} <= names
    assert not any(
        n.startswith(("turnproc.storage", "turnproc.mail", "turnproc.intake"))
        or n == "turnproc.reports.render"
        for n in names
    )
    with zipfile.ZipFile(io.BytesIO(module_bundle())) as bundle:
        assert sorted(bundle.namelist()) == sorted(
            str(p.relative_to(p.parents[len(n.split(".")) - (1 if p.name != "__init__.py" else 0)])).replace(
                "\\", "/"
            )
            for n, p in pure_modules().items()
        )
    assert (
        module_bundle.__wrapped__() == module_bundle.__wrapped__()
    )  # the same code, the same bytes (uncached)


def test_a_module_that_imports_beyond_the_standard_library_is_refused() -> None:
    with pytest.raises(
        DeskError,
        match=r"turnproc\.reports\.render imports (jinja2|markupsafe):"
        r" the order desk runs the standard library only",
    ):
        pure_modules("turnproc.reports.render")


def test_the_page_names_the_host_and_escapes_what_it_embeds() -> None:
    files = desk_files("</script><b>x", "Star Chase host <turns@example.org>", True)
    page = files["index.html"].decode()
    config = page.split('<script id="config" type="application/json">')[1].split("</script>")[0]
    assert json.loads(config) == {"game": "</script><b>x", "host": "turns@example.org", "pyodide": "pyodide/"}
    assert "&lt;/script&gt;&lt;b&gt;x" in page.split("<title>")[1]
    assert (
        json.loads(
            desk_files("six", "turns@example.org", False)["index.html"]
            .decode()
            .split('type="application/json">')[1]
            .split("</script>")[0]
        )["pyodide"]
        is None
    )


def _release(folder: Path, version: str) -> Path:
    folder.mkdir()
    for name in PYODIDE_FILES:
        (folder / name).write_bytes(b"x")
    (folder / "package.json").write_text(json.dumps({"name": "pyodide", "version": version}))
    return folder


def test_the_pinned_release_is_copied_in(tmp_path: Path) -> None:
    written = write_desk(
        tmp_path / "site" / "orders",
        "six",
        "turns@example.org",
        _release(tmp_path / "pyodide", PYODIDE_VERSION),
    )
    names = {p.relative_to(tmp_path / "site" / "orders").as_posix() for p in written}
    assert names == {"index.html", "desk.js", "desk.css", "cache.js", "turnproc.zip"} | {
        f"pyodide/{n}" for n in PYODIDE_FILES
    }


def test_another_release_or_a_wrong_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(
        DeskError, match=f"holds pyodide 0.1.0; the order desk is written for {PYODIDE_VERSION}"
    ):
        write_desk(tmp_path / "orders", "six", "turns@example.org", _release(tmp_path / "old", "0.1.0"))
    with pytest.raises(DeskError, match="is not an unpacked pyodide package"):
        write_desk(tmp_path / "orders", "six", "turns@example.org", tmp_path)


def test_every_page_of_the_site_links_to_the_desk() -> None:
    from turnproc.reports.site import PublicGame, site_files

    files = site_files(
        PublicGame(name="six", turn=2, finished=False, deadline=None, standings=[]),
        {"rules.md": "# Rules\n\nText."},
    )
    pages = [name for name in files if name.endswith(".html")]
    assert len(pages) >= 5
    assert all('href="orders/index.html"' in files[name] for name in pages)


def test_the_handbook_names_the_pinned_release() -> None:
    handbook = (Path(__file__).resolve().parents[2] / "docs" / "gm-handbook.md").read_text(encoding="utf-8")
    assert f"npm install --prefix /opt/turnproc-pyodide pyodide@{PYODIDE_VERSION}" in handbook
    assert f"version {PYODIDE_VERSION} of the npm package" in handbook.replace("\n", " ")


def test_the_welcome_names_the_desk_when_the_site_has_an_address(tmp_path: Path) -> None:
    import datetime as dt
    from email import message_from_bytes, policy

    from sqlalchemy import select

    from tests.factories import make_game
    from turnproc.accounts.passwordkey import load_key
    from turnproc.app import open_app
    from turnproc.config import Config, load_config
    from turnproc.outgoing.mails import queue_welcome
    from turnproc.outgoing.reportmail import mail_bytes
    from turnproc.storage import models as m
    from turnproc.storage.db import transaction

    (tmp_path / "turnproc.toml").write_text(
        'site_url = "https://starchase.example/games/"\n', encoding="utf-8"
    )
    assert load_config(tmp_path / "turnproc.toml").site_url == "https://starchase.example/games/"
    texts = []
    for site_url in ("https://starchase.example/games/", ""):
        app = open_app(
            Config(
                database_url=f"sqlite:///{tmp_path / f'{bool(site_url)}.db'}",
                maildir_in=tmp_path / "in",
                maildir_out=tmp_path / "out",
                site_url=site_url,
            )
        )
        try:
            with transaction(app.sessions) as session:
                game = make_game(session)
                queue_welcome(
                    session,
                    app.config,
                    game,
                    dt.datetime(2026, 3, 2, tzinfo=dt.timezone.utc),
                    empire="RIG",
                    empire_name="Rigel",
                    recipient="ann@example.org",
                    sealed_password=load_key(app.config).seal("pw"),
                    why="new",
                    deadline=None,
                    example="GAME corpus",
                    report="(report)",
                    modules="",
                )
                mail = session.scalars(select(m.OutboxMail).where(m.OutboxMail.kind == "welcome")).one()
                raw = mail_bytes(
                    session, mail, app.config.from_address, app.config.site_url, load_key(app.config)
                )
            texts.append(
                str(
                    message_from_bytes(raw, policy=policy.default)
                    .get_body(preferencelist=("plain",))
                    .get_content()
                )
            )  # type: ignore[union-attr]
        finally:
            app.close()
    assert "The order desk:      https://starchase.example/games/corpus/orders/\n" in texts[0]
    assert "order desk" not in texts[1]
