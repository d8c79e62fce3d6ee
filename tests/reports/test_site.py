"""A game's public pages (``turnproc site GAME DIR``, docs/gm-handbook.md "Public
pages"): every local link resolves, Chromium renders every page without a
console message, and fog of war holds (rules.md §14): no position, no system
name, no private press, no turn the GM has not released, no address.
"""

from __future__ import annotations

import datetime as dt
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.browser import console_lines, render_page
from tests.factories import make_game
from turnproc.app import App, open_app
from turnproc.cli import main
from turnproc.config import Config
from turnproc.games.publish import write_site
from turnproc.intake import submit_orders
from turnproc.reports.site import PLOTTED, Announcement, PublicGame, Standing, site_files, vp_plot
from turnproc.runtime.resources import public_docs
from turnproc.storage import models as m
from turnproc.storage.db import transaction
from turnproc.turns.run import run_turn

NOW = dt.datetime(2026, 1, 5, 12, 0, tzinfo=dt.timezone.utc)
GAME_PAGES = ("index.html", "turns.html", "press.html", "announcements.html")
PLAYERS = {"RIG": "rig.player@corpus.example", "VEG": "veg.player@corpus.example"}
SECRETS = ("SECRET-PLAN-7", "Hidden Haven", "STAGED-NEWS-9", *PLAYERS.values())


def _orders(session: object, game: m.Game, code: str, text: str) -> None:
    empire = next(e for e in game.empires if e.code == code)
    parsed, _ = submit_orders(session, game, empire, text, NOW)  # type: ignore[arg-type]
    assert not parsed.errors, parsed.errors


@pytest.fixture
def app(sqlite_url: str, tmp_path: Path) -> App:
    config = Config(database_url=sqlite_url, maildir_in=tmp_path / "in", maildir_out=tmp_path / "out")
    app = open_app(config)
    with transaction(app.sessions) as session:
        game = make_game(session, emails=PLAYERS)
        _orders(
            session,
            game,
            "RIG",
            "MESSAGE ALL Rigel greets the galaxy\nMESSAGE VEG SECRET-PLAN-7\n"
            "NAME 101 Hidden Haven\nMOVE 101 103 2",
        )
        _orders(session, game, "VEG", "MESSAGE ALL Vega answers")
        run_turn(session, game, config, NOW)
        # Turn 2 waits for the GM's release: nothing of it is public yet.
        game.hold = True
        _orders(session, game, "VEG", "MESSAGE ALL STAGED-NEWS-9")
        run_turn(session, game, config, NOW + dt.timedelta(days=7))
        assert session.scalar(select(m.TurnRecord.staged).where(m.TurnRecord.number == 2)) is True
    return app


@pytest.fixture
def site(app: App, tmp_path: Path) -> Path:
    folder = tmp_path / "site"
    with transaction(app.sessions) as session:
        write_site(session, "corpus", folder, NOW)
    app.close()
    return folder


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if key in ("href", "src") and value is not None:
                self.links.append(value)
            if key == "id" and value is not None:
                self.ids.add(value)


def _parsed(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def test_every_local_link_resolves(site: Path) -> None:
    pages = {
        p.relative_to(site).as_posix(): _parsed(p) for p in [*site.glob("*.html"), *site.glob("turns/*.html")]
    }
    assert set(pages) == {*GAME_PAGES, "rules.html", "orders.html", "turns/0.html", "turns/1.html"}
    broken = []
    checked = 0
    for name, page in pages.items():
        for link in page.links:
            if re.match(r"^[a-z]+:", link):
                continue  # another site's page: not ours to check
            path, _, anchor = link.partition("#")
            target = (site / name).parent / path if path else site / name
            if not target.is_file():
                broken.append(f"{name}: {link} (no file {path})")
            elif (
                anchor
                and target.suffix == ".html"
                and anchor not in pages[target.resolve().relative_to(site.resolve()).as_posix()].ids
            ):
                broken.append(f"{name}: {link} (no id {anchor} in {target.name})")
            checked += 1
    assert not broken, "\n".join(broken)
    assert checked > 200  # the rules' cross-references are among them


@pytest.mark.slow
def test_every_page_renders_in_chromium_without_console_messages(site: Path, tmp_path: Path) -> None:
    for page in sorted([*site.glob("*.html"), *site.glob("turns/*.html")]):
        png = tmp_path / f"{page.parent.name}-{page.stem}.png"
        log = render_page(page, png, width=390, height=1200)
        assert console_lines(log) == [], f"{page.name}: {console_lines(log)}"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_fog_of_war_holds_on_every_page(site: Path) -> None:
    """rules.md §14: the pages show what every report shows everyone, nothing more."""
    texts = {
        p.relative_to(site).as_posix(): p.read_text(encoding="utf-8")
        for p in [*site.iterdir(), *site.glob("turns/*")]
        if p.is_file()
    }
    for name, text in texts.items():
        for secret in SECRETS:
            assert secret not in text, f"{name} shows {secret!r}"
    for name in GAME_PAGES:
        text = re.sub(r"<[^>]+>", " ", texts[name])
        # System codes are 100 and up; VP, ranks and turns here are small.
        assert not [n for n in re.findall(r"\b\d{3,5}\b", text) if int(n) >= 100 and n != "2026"], (
            f"{name} shows a system code"
        )
        for word in ("cruiser", "fighter", "balance", "treasury", "industry", "population"):
            assert word not in text.lower(), f"{name} speaks of {word}"
    for name in ("press.html", "turns/1.html"):
        assert "Rigel greets the galaxy" in texts[name] and "Vega answers" in texts[name], name


def test_the_staged_turn_is_not_public_until_released(site: Path) -> None:
    turns = (site / "turns.html").read_text(encoding="utf-8")
    assert 'id="turn-1"' in turns and 'id="turn-0"' in turns and 'id="turn-2"' not in turns
    assert sorted(p.name for p in (site / "turns").iterdir()) == ["0.html", "1.html", "1.json"]
    assert "After turn 1." in (site / "index.html").read_text(encoding="utf-8")


def test_the_command_writes_the_pages(app: App, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "turnproc.toml"
    config.write_text(f'database_url = "{app.config.database_url}"\n', encoding="utf-8")
    app.close()
    assert main(["--config", str(config), "site", "corpus", str(tmp_path / "www")]) == 0
    assert "7 files" in capsys.readouterr().out
    assert (tmp_path / "www" / "index.html").is_file()
    assert main(["--config", str(config), "site", "nosuch", str(tmp_path / "www")]) == 1
    assert "no game named 'nosuch'" in capsys.readouterr().err


def _standings(turns: int, empires: int) -> list[Standing]:
    codes = [f"E{chr(65 + i // 26)}{chr(65 + i % 26)}" for i in range(empires)]
    return [
        Standing(
            t,
            [
                {"code": c, "name": f"Empire {c}", "vp": t * (i + 1), "rank": empires - i, "active": True}
                for i, c in reversed(list(enumerate(codes)))
            ],
        )
        for t in range(turns + 1)
    ]


def test_the_plot_draws_the_best_empires_and_says_so() -> None:
    table = _standings(turns=5, empires=PLOTTED + 3)
    svg = vp_plot(PublicGame("big", 6, False, None, table))
    assert svg.count("<polyline") == PLOTTED
    files = site_files(PublicGame("big", 6, False, None, table), {})
    assert f"The plot shows the {PLOTTED} best empires after turn 5" in files["index.html"]


def test_announcements_are_shown_and_escaped() -> None:
    """The hook for the GM's announcements: whatever publish.announcements
    returns is on its page, as text."""
    note = Announcement(3, "Turn 4 moves to <Sunday>", "The deadline moves.\n\nHave fun.")
    files = site_files(PublicGame("g", 4, False, None, _standings(3, 2), announcements=[note]), public_docs())
    page = files["announcements.html"]
    assert "Turn 4 moves to &lt;Sunday&gt;" in page and "<p>Have fun.</p>" in page
