"""The order desk (docs/orders.md, "The order desk"), in a real headless
Chromium on the site served over HTTP on loopback, Pyodide's files from the
site itself: what the page says of every line is what ``turnproc check-orders``
says of it, for order sets drawn by hypothesis and for the order-mail corpus;
the mail its ``mailto:`` link writes is accepted by the real intake with the
same verdicts; no request leaves the site; and a site without Pyodide still
lets the player write and copy orders.

One browser and one Pyodide start serve the module (the xdist group keeps its
tests in one worker): starting Pyodide is most of the page's time.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.desk import (
    DeskGame,
    DeskPage,
    chromium_browser,
    expected_page,
    mail_from_link,
    new_page,
    pyodide_dir,
    serve,
)
from tests.test_check_orders import order_lines, said
from turnproc.reports.checker import CheckError, check_orders_offline, read_report

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("order-desk")]

SAMPLES = Path(__file__).resolve().parent.parent / "docs" / "samples"
CORPUS = sorted((Path(__file__).parent / "mail" / "corpus").glob("*.eml"))
PHONE, DESKTOP = (390, 844), (1280, 900)


class Session:
    """The game, its site on loopback, and one Chromium page on its desk."""

    def __init__(self, game: DeskGame, served: Any, context: Any, page: DeskPage) -> None:
        self.game, self.served, self.context, self.page = game, served, context, page
        self.requests: list[tuple[str, str, str | None]] = []
        context.on("request", lambda r: self.requests.append((r.method, r.url, r.post_data)))

    @property
    def url(self) -> str:
        return f"{self.served.origin}/orders/index.html"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium_browser() as running:
        yield running


@pytest.fixture(scope="module")
def desk(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    pyodide = pyodide_dir()
    game = DeskGame(tmp_path_factory.mktemp("desk"), pyodide)
    try:
        with serve(game.site) as served:
            context, page = new_page(browser, *PHONE, has_touch=True)
            session = Session(game, served, context, DeskPage(page))
            session.page.open(session.url, game.report)
            yield session
            context.close()
    finally:
        game.close()


def judged_alike(desk: Session, orders: str) -> None:
    shown = desk.page.type_orders(orders)
    try:
        checked = check_orders_offline(read_report(desk.game.json), shown.mail)
    except CheckError as exc:
        assert shown.rows == [f"Cannot be checked: {exc}"]
        return
    rows, summary = expected_page(checked.text)
    assert shown.rows == rows, f"check-orders said:\n{checked.text}"
    assert shown.summary == summary, f"check-orders said:\n{checked.text}"


def rule_set_2(data: dict[str, Any]) -> st.SearchStrategy[str]:
    """Rule set 2's orders (rules.md): the fleet reserve, BOMBARD, LINK, probes, tech trading."""
    own = [s["code"] for s in data["systems"]]
    known = sorted({s["code"] for s in data["map"]["systems"]})
    n = st.one_of(st.integers(0, 12).map(str), st.just("ALL"))
    return st.one_of(
        st.builds(
            lambda w, a, b: f"{w} {a} {b}",
            st.sampled_from(["BOMBARD", "LINK", "PROBE", "FIND"]),
            st.sampled_from(own),
            st.sampled_from(known),
        ),
        st.builds(
            lambda w, a, k: f"{w} {a} {k}",
            st.sampled_from(["LAYUP", "RESERVE", "RECOVER"]),
            st.sampled_from(own),
            n,
        ),
        st.builds(
            lambda w, e, t: f"{w} {e} {t}",
            st.sampled_from(["TRADE", "TAKE"]),
            st.sampled_from(["VEG", "ZAP", "XYZ"]),
            st.sampled_from(["WEAPONS", "DRIVE", "SCANNER"]),
        ),
    )


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
@settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_the_page_says_what_check_orders_says(
    desk: Session, size: tuple[int, int], data: st.DataObject
) -> None:
    desk.page.page.set_viewport_size({"width": size[0], "height": size[1]})
    line = st.one_of(order_lines(desk.game.data), rule_set_2(desk.game.data))
    judged_alike(desk, "\n".join(data.draw(st.lists(line, min_size=1, max_size=16), label="orders")))


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_the_page_says_what_check_orders_says_of_the_mail_corpus(
    desk: Session, size: tuple[int, int], tmp_path: Path
) -> None:
    """The mails real clients send (tests/mail/corpus), pasted whole into the
    orders box, against the report of the game they were written for."""
    from tests.factories import make_game
    from turnproc.app import open_app
    from turnproc.config import Config
    from turnproc.mail.mime import message_text, parse_message
    from turnproc.reports.render import render_report_documents
    from turnproc.storage.db import transaction
    from turnproc.storage.queries import get_empire, get_game
    from turnproc.turns.run import report_for

    desk.page.page.set_viewport_size({"width": size[0], "height": size[1]})
    app = open_app(
        Config(
            database_url=f"sqlite:///{tmp_path / 'corpus.db'}",
            maildir_in=tmp_path / "in",
            maildir_out=tmp_path / "out",
        )
    )
    try:
        with transaction(app.sessions) as session:
            game = make_game(session)
            _, data = report_for(session, game, get_empire(session, get_game(session, "corpus"), "RIG"), None)
    finally:
        app.close()
    report = tmp_path / "corpus-RIG.json"
    report.write_text(render_report_documents(data).json, encoding="utf-8")
    page = desk.page.page
    page.set_input_files("#file", str(report))
    try:
        for eml in CORPUS:
            text = message_text(parse_message(eml.read_bytes()))
            shown = desk.page.type_orders(text)
            assert shown.mail.rstrip() == text.replace("\r\n", "\n").rstrip() or not re.search(
                r"^\s*GAME\s", text, re.I | re.M
            ), eml.name
            try:
                checked = check_orders_offline(read_report(report.read_text(encoding="utf-8")), shown.mail)
            except CheckError as exc:
                assert shown.rows == [f"Cannot be checked: {exc}"], eml.name
                continue
            rows, summary = expected_page(checked.text)
            assert (shown.rows, shown.summary) == (rows, summary), (
                f"{eml.name}; check-orders said:\n{checked.text}"
            )
    finally:
        page.set_input_files("#file", str(desk.game.report))


def test_the_mailto_mail_is_accepted_with_the_same_verdicts(desk: Session) -> None:
    """The mail the send link writes, mailed as it is, gets from the real
    intake the rows the page showed."""
    desk.page.page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    base = desk.game.data["empire"]["base"]
    link = desk.game.data["systems"][0]["links"][0]
    shown = desk.page.type_orders(
        f"MOVE {base} {link} 2\nBUILD {base} 1\nNEWCRS {base} two\nLINK {base} 999\nTAX"
    )
    href = desk.page.page.get_attribute("#send", "href")
    assert href.startswith("mailto:turns@turnproc.example?subject=Orders%20six%20turn%202&body=GAME%20six")
    ack = desk.game.ack(mail_from_link(href))
    assert "ERROR" in "".join(shown.rows) and "OK" in "".join(shown.rows)
    assert said(ack)["rows"] == shown.rows
    assert "Orders received" in ack


def test_tapping_a_system_shows_what_it_can_order(desk: Session) -> None:
    """The system sheet: what the report knows and the order form's "can:"
    lines, and a tap on a whole order puts it on the orders."""
    page = desk.page.page
    page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    desk.page.type_orders("")
    row = desk.game.data["systems"][0]
    page.locator(f"circle[data-code='{row['code']}']").tap()
    sheet = page.inner_text("#sheet")
    assert "yours" in sheet and f"links {' '.join(map(str, row['links']))}" in sheet
    from turnproc.reports.orderform import system_lines

    assert "\n".join(system_lines(row)) in sheet
    suggestion = page.locator("#sheet button").first
    order = suggestion.inner_text().removeprefix("+ ")
    suggestion.tap()
    page.wait_for_function(f"document.getElementById('mail').value.includes({order!r})")
    assert order in page.input_value("#orders")


def test_the_map_pans_and_zooms_by_touch_and_mouse(desk: Session) -> None:
    page = desk.page.page
    page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    before = page.get_attribute("#map", "viewBox")
    page.tap("#zoomin")
    zoomed = page.get_attribute("#map", "viewBox")
    assert float(zoomed.split()[2]) < float(before.split()[2])
    box = page.locator("#map").bounding_box()
    page.mouse.move(box["x"] + 100, box["y"] + 100)
    page.mouse.down()
    page.mouse.move(box["x"] + 160, box["y"] + 130, steps=4)
    page.mouse.up()
    panned = page.get_attribute("#map", "viewBox")
    assert panned.split()[:2] != zoomed.split()[:2] and panned.split()[2:] == zoomed.split()[2:]
    page.mouse.wheel(0, 300)
    assert float(page.get_attribute("#map", "viewBox").split()[2]) > float(panned.split()[2])
    # Two fingers moving apart zoom in (pointer events, as a phone sends them).
    before_pinch = float(page.get_attribute("#map", "viewBox").split()[2])
    page.evaluate(
        '([x, y]) => { const map = document.getElementById("map");\n'
        "            const send = (type, id, dx) => map.dispatchEvent(new PointerEvent(type, {pointerId: id, "
        'pointerType: "touch",\n'
        "                clientX: x + dx, clientY: y, bubbles: true, isPrimary: id === 1}));\n"
        '            send("pointerdown", 1, -20); send("pointerdown", 2, 20);\n'
        '            send("pointermove", 2, 60); send("pointerup", 2, 60); send("pointerup", 1, -20); }',
        [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
    )
    assert float(page.get_attribute("#map", "viewBox").split()[2]) < before_pinch


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_phone_screenshots_for_the_docs(desk: Session, tmp_path: Path) -> None:
    """docs/orders.md's pictures of the desk on a phone: taken here; written
    into docs/samples/ when TURNPROC_WRITE_SAMPLES is set (else the kept ones
    must be of the phone's width)."""
    import os

    page = desk.page.page
    page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    base = desk.game.data["empire"]["base"]
    desk.page.type_orders(
        f"MOVE {base} {desk.game.data['systems'][0]['links'][0]} 2\nBUILD {base} 1\nNEWCRS {base} three"
    )
    page.set_input_files("#file", str(desk.game.report))  # the whole map again
    page.locator(f"circle[data-code='{base}']").tap()
    shots = {"desk-phone-map.png": "#mapbox", "desk-phone-orders.png": "#verdicts"}
    for name, where in shots.items():
        page.locator(where).scroll_into_view_if_needed()
        taken = page.screenshot()
        assert png_size(taken) == PHONE
        if os.environ.get("TURNPROC_WRITE_SAMPLES"):
            (SAMPLES / name).write_bytes(taken)
        assert png_size((SAMPLES / name).read_bytes())[0] == PHONE[0]


def test_the_report_opens_by_paste_and_by_drop_and_the_password_is_kept_nowhere(desk: Session) -> None:
    page = desk.page.page
    page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    # Once a report is open the desk hides the ways to open one but the picker:
    # shown again here, as on a first visit.
    page.evaluate("document.getElementById('who').textContent = ''")
    page.evaluate("document.getElementById('open').classList.remove('done')")
    page.fill("#paste", desk.game.json)
    page.click("#read")
    assert page.inner_text("#who").startswith("Empire RIG (Empire RIG), report of turn 1; orders for turn 2.")
    page.evaluate("document.getElementById('who').textContent = ''")
    page.evaluate("document.getElementById('open').classList.remove('done')")
    page.evaluate(
        'text => { const data = new DataTransfer(); data.items.add(new File([text], "RIG.json", {type: '
        '"application/json"}));\n'
        '                     document.getElementById("drop").dispatchEvent(new DragEvent("drop", '
        "{dataTransfer: data, bubbles: true, cancelable: true})); }",
        desk.game.json,
    )
    page.wait_for_function("document.getElementById('who').textContent.startsWith('Empire RIG')")
    page.evaluate("document.getElementById('open').classList.remove('done')")
    page.fill("#paste", "{not json")
    page.click("#read")
    assert page.inner_text("#problem").startswith("That is not your JSON report:")
    desk.page.type_orders("TAX", password="kept-nowhere-1")
    stored = page.evaluate("[JSON.stringify(localStorage), JSON.stringify(sessionStorage), document.cookie]")
    assert stored == ["{}", "{}", ""]
    cached = page.evaluate(
        "async () => { const out = []; for (const name of await caches.keys()) { const cache = await "
        "caches.open(name);\n"
        "                         for (const r of await cache.keys()) out.push(r.url); } return out; }"
    )
    assert not any("kept-nowhere" in url for url in cached)


def test_copy_puts_the_mail_on_the_clipboard(desk: Session) -> None:
    page = desk.page.page
    desk.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=desk.served.origin)
    shown = desk.page.type_orders("TAX")
    page.click("#copy")
    page.wait_for_function("document.getElementById('copy').textContent === 'Copied'")
    assert page.evaluate("navigator.clipboard.readText()") == shown.mail


def test_no_request_leaves_the_site_and_the_report_stays(desk: Session) -> None:
    """Chromium's log of every request the page made while it worked (the
    tests above, run first): all to the site's own origin, all GETs with no
    body, none carrying the report; and the page logged no error."""
    assert desk.requests, "no requests were logged"
    origin = desk.served.origin + "/"
    for method, url, body in desk.requests:
        assert url.startswith((origin, "data:", "blob:")), url
        assert method == "GET" and not body, (method, url)
    for method, path, length in desk.served.requests:
        assert method == "GET" and length == 0, (method, path)
        assert path.startswith("/orders/"), path
    empire = desk.game.data["empire"]
    assert not any(empire["name"] in url or "balance" in url for _, url, _ in desk.requests)
    assert desk.page.errors == []


def test_once_loaded_the_desk_works_offline(desk: Session) -> None:
    """The offline copy (orders/cache.js): with the network gone, the page
    opens again, its checker loads, and lines are judged."""
    page = desk.page.page
    desk.context.set_offline(True)
    try:
        desk.page.open(desk.url, desk.game.report)
        assert page.evaluate("window.orderDesk.judge !== null"), page.inner_text("#status")
        judged_alike(desk, "TAX\nFOO 1")
    finally:
        desk.context.set_offline(False)


def test_without_pyodide_the_page_says_so_and_orders_can_still_be_written(
    browser: Any, tmp_path: Path
) -> None:
    game = DeskGame(tmp_path, None)
    try:
        with serve(game.site) as served:
            _, raw = new_page(browser, *PHONE, has_touch=True)
            page = DeskPage(raw)
            page.open(f"{served.origin}/orders/index.html", game.report)
            assert "could not be loaded" in raw.inner_text("#status")
            shown = page.type_orders("TAX\nFOO")
            assert shown.mail == "GAME six\nEMPIRE RIG sesame\nTURN 2\nTAX\nFOO\nEND\n"
            assert shown.rows == ["Not checked: the checker could not be loaded."]
            assert raw.get_attribute("#send", "href").startswith("mailto:turns@turnproc.example?")
            assert not (game.site / "orders" / "pyodide").exists()
            assert page.errors == []
    finally:
        game.close()
