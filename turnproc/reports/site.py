"""A game's public pages: pure functions from what is public about a game to
the files of a static site (``turnproc site GAME DIR``, docs/gm-handbook.md).

Public means what every empire's report shows every other empire
(rules.md §14): the roundup of codes, names, VP and ranks, press to ALL, and
the GM's announcements; and the rules. Nothing here sees a position, a fleet, a purse
or a private message: :class:`PublicGame` has no field that could hold one,
and gathering it from the database (:mod:`turnproc.games.publish`) is the one
place that decides what goes in. The pages need no JavaScript: the plot of VP
over time is an SVG drawn here.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from markupsafe import Markup

from .render import environment
from .schema import RoundupRow

__all__ = [
    "Standing",
    "Press",
    "Announcement",
    "PublicGame",
    "PLOTTED",
    "PLOT_FONT",
    "PRESS_TURNS",
    "site_files",
    "turn_page",
    "vp_plot",
    "doc_page",
]

#: Empires drawn in the VP plot: the best at the latest turn (the tables list all).
PLOTTED = 10
#: Turns whose press ``press.html`` shows, the newest; every turn's own page
#: (``turns/N.html``) shows that turn's. A page of every turn's press would
#: grow with the game: at 1,000 empires a turn can carry 1,000 messages.
PRESS_TURNS = 3
#: The plot's numbers, in units of its 480-unit-wide drawing: 11.9 pixels on a
#: 390-pixel screen (358 pixels for the drawing), 16 on a wide one.
PLOT_FONT = 16

_COLOURS = (
    "#1b6ac9",
    "#d1451b",
    "#2a9d3a",
    "#8e44ad",
    "#c98a00",
    "#0f8b8d",
    "#b8336a",
    "#5b5b5b",
    "#7a5c1e",
    "#3d4db7",
)


@dataclass(frozen=True)
class Standing:
    """The roundup after one turn (turn 0: the start of the game)."""

    turn: int
    rows: list[RoundupRow]
    """Each empire's ``code``, ``name``, ``vp``, ``rank``, ``active``, best first."""


@dataclass(frozen=True)
class Press:
    """A MESSAGE to ALL (rules.md §6.19): every empire read it in its report."""

    turn: int
    sender: str
    text: str


@dataclass(frozen=True)
class Announcement:
    """A message of the GM to every player."""

    turn: int
    subject: str
    text: str


@dataclass(frozen=True)
class PublicGame:
    name: str
    turn: int
    """The turn whose orders are being collected."""
    finished: bool
    deadline: str | None
    standings: list[Standing]
    """Oldest first, the latest last; only turns the players have their
    reports of. Every such turn's, or only those whose pages are written."""
    press: list[Press] = field(default_factory=list)
    """Oldest first: at least that of the turns whose pages are written, and
    of the newest :data:`PRESS_TURNS` turns."""
    announcements: list[Announcement] = field(default_factory=list)
    vp: dict[int, dict[str, int]] = field(default_factory=dict)
    """Turn → each empire's VP after it, for every turn the players have their
    reports of: the plot and the list of turns. Empty: the standings' own."""

    def vp_by_turn(self) -> dict[int, dict[str, int]]:
        """:attr:`vp`, or the standings' VP when it is empty."""
        return self.vp or {s.turn: {r["code"]: int(r["vp"]) for r in s.rows} for s in self.standings}


def vp_plot(game: PublicGame, width: int = 480, height: int = 280) -> str:
    """VP over time as an inline SVG: a line per empire (the :data:`PLOTTED` best
    at the latest turn), turns along, VP up; then its legend as an HTML list.

    The legend is HTML, not part of the drawing, so it keeps the page's font
    size on a phone; the drawing is narrow and its numbers big enough
    (:data:`PLOT_FONT`) to be 11 pixels at least when it is shrunk to a
    390-pixel screen."""
    if not game.standings:
        return ""
    vp = game.vp_by_turn()
    last = game.standings[-1].rows[:PLOTTED]
    codes = [r["code"] for r in last]
    turns = sorted(vp)
    top = max([1] + [v for by_code in vp.values() for code, v in by_code.items() if code in codes])
    left, right, upper, lower = 56, 16, 14, 44
    plot_w, plot_h = width - left - right, height - upper - lower
    span = max(1, turns[-1] - turns[0])
    font = PLOT_FONT

    def x(turn: int) -> float:
        return left + (turn - turns[0]) * plot_w / span

    def y(vp: int) -> float:
        return upper + plot_h - vp * plot_h / top

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" '
        f'aria-labelledby="vp-title" class="plot"><title id="vp-title">Victory points by turn</title>',
        f'<rect x="{left}" y="{upper}" width="{plot_w}" height="{plot_h}" fill="#fbfbfd" stroke="#c8c8d0"/>',
    ]
    for tick in _ticks(top):
        parts.append(
            f'<line x1="{left}" x2="{left + plot_w}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" stroke="#e4e4ea"/>'
        )
        parts.append(
            f'<text x="{left - 6}" y="{y(tick) + 5:.1f}" text-anchor="end" font-size="{font}">{tick}</text>'
        )
    for turn in _ticks(turns[-1], start=turns[0]):
        parts.append(
            f'<text x="{x(turn):.1f}" y="{upper + plot_h + 20}" text-anchor="middle" '
            f'font-size="{font}">{turn}</text>'
        )
    parts.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 4}" text-anchor="middle" '
        f'font-size="{font}">turn</text>'
    )
    parts.append(
        f'<text x="16" y="{upper + plot_h / 2:.1f}" font-size="{font}" '
        f'transform="rotate(-90 16 {upper + plot_h / 2:.1f})" text-anchor="middle">VP</text>'
    )
    legend = []
    for i, code in enumerate(codes):
        colour = _COLOURS[i % len(_COLOURS)]
        points = [(t, vp[t][code]) for t in turns if code in vp[t]]
        line = " ".join(f"{x(t):.1f},{y(v):.1f}" for t, v in points)
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2.5" points="{line}"/>')
        legend.append(
            f'<li><span class="swatch" style="background:{colour}"></span><code>{html.escape(code)}</code> '
            f"{html.escape(str(last[i]['name']))}</li>"
        )
    parts.append("</svg>")
    parts.append(f'<ul class="legend">{"".join(legend)}</ul>')
    return "".join(parts)


def _ticks(top: int, start: int = 0, most: int = 6) -> list[int]:
    """Round steps from ``start`` to ``top`` (at most ``most`` + 1 of them)."""
    step = 1
    while (top - start) / step > most:
        step *= 5 if str(step)[0] == "2" else 2
    return list(range(start - start % step, top + 1, step))


_LINK = re.compile(r"(!?)\[([^\]]+)\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^(\s*```)(\S*)[^\n]*$", re.MULTILINE)


def _site_links(text: str, pages: dict[str, str]) -> str:
    """Links between the docs the site has point at its pages; links to
    anything else (the GM's handbook, files of the source) keep their words only."""

    def relink(match: re.Match[str]) -> str:
        bang, words, target = match.groups()
        if bang:
            return ""  # a picture of a file the site does not carry
        path, hash_, anchor = target.partition("#")
        if not path or target.startswith(("http://", "https://", "mailto:")):
            return match.group(0)
        if path in pages:
            return f"[{words}]({pages[path]}{hash_}{anchor})"
        return words

    return _LINK.sub(relink, text)


def _slug(value: str, separator: str) -> str:
    """Heading ids as GitHub makes them, so the docs' own #anchors hold."""
    text = html.unescape(re.sub(r"<[^>]+>", "", value)).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", separator)


def doc_page(text: str, pages: dict[str, str]) -> str:
    """One of the docs (Markdown) as the HTML of a site page's body; ``pages``
    maps the docs the site carries (``rules.md``) to their pages (``rules.html``)."""
    return _doc_page(text, tuple(sorted(pages.items())))


# Kept for the process's life: the worker refreshes the pages after every
# turn, and the docs it carries are the installed ones (Markdown took half a
# second of a thousand-empire game's refresh).
@functools.lru_cache(maxsize=16)
def _doc_page(text: str, page_items: tuple[tuple[str, str], ...]) -> str:
    pages = dict(page_items)
    # Here, not at the top: only the public pages need Markdown, and every
    # start of the worker and of each command would pay for importing it.
    import markdown

    # Fences keep their language word only: "orders-wrong code=x" is for the docs tests.
    text = _FENCE.sub(lambda m: m.group(1) + m.group(2), _site_links(text, pages))
    return str(
        markdown.markdown(
            text,
            extensions=["tables", "fenced_code", "sane_lists", "toc"],
            extension_configs={"toc": {"slugify": _slug}},
            output_format="html",
        )
    )


def site_files(game: PublicGame, docs: dict[str, str], turns: Iterable[int] | None = None) -> dict[str, str]:
    """Files of the game's site, by name: the standings with the VP plot
    (``index.html``), the list of turns (``turns.html``), a page per turn in
    ``turns`` (``turns/N.html``: its standings and its press; None: every
    turn's), the newest press, the GM's announcements, a page per doc in
    ``docs`` (name ``rules.md`` → its Markdown text) and the style sheet."""
    env = environment()
    pages = {name: name.removesuffix(".md") + ".html" for name in docs}
    nav = [
        ("index.html", "Standings"),
        ("turns.html", "Turn by turn"),
        ("press.html", "Press"),
        ("announcements.html", "Announcements"),
        ("orders/index.html", "Order desk"),
    ] + [(pages[n], _title(docs[n])) for n in docs]
    latest = game.standings[-1] if game.standings else None
    common = {"game": game, "nav": nav, "latest": latest, "root": ""}
    recent = set(sorted(game.vp_by_turn())[-PRESS_TURNS:])
    files = {
        "index.html": env.get_template("site/index.html").render(
            common, page="index.html", plot=Markup(vp_plot(game)), plotted=PLOTTED
        ),
        "turns.html": env.get_template("site/turns.html").render(
            common, page="turns.html", turns=sorted(game.vp_by_turn())
        ),
        "press.html": env.get_template("site/press.html").render(
            common,
            page="press.html",
            press=[p for p in game.press if p.turn in recent],
            oldest=min(recent, default=0),
        ),
        "announcements.html": env.get_template("site/announcements.html").render(
            common, page="announcements.html"
        ),
        "site.css": env.get_template("site/site.css").render(),
    }
    wanted = {s.turn for s in game.standings} if turns is None else set(turns)
    for standing in game.standings:
        if standing.turn in wanted:
            files[f"turns/{standing.turn}.html"] = turn_page(game, standing, nav)
    for name, text in docs.items():
        files[pages[name]] = env.get_template("site/doc.html").render(
            common, page=pages[name], title=_title(text), body=Markup(doc_page(text, pages))
        )
    return files


def turn_page(game: PublicGame, standing: Standing, nav: list[tuple[str, str]]) -> str:
    """``turns/N.html``: the standings after turn N and the press of turn N.
    It depends on nothing of a later turn, so it is written once."""
    press = [p for p in game.press if p.turn == standing.turn]
    return str(
        environment()
        .get_template("site/turn.html")
        .render(game=game, nav=nav, latest=standing, root="../", page="", standing=standing, press=press)
    )


def _title(text: str) -> str:
    first = next((line for line in text.splitlines() if line.startswith("# ")), "# Document")
    title = first[2:].split(":")[-1].strip()
    return title[:1].upper() + title[1:]
