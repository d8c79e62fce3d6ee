"""Jinja rendering of every mail kind: one template folder per kind.

Each folder holds ``subject.txt``, ``body.txt`` and optionally ``body.html``.
Undefined names are errors (StrictUndefined), and HTML is autoescaped, so a
player's text can never break a template or inject markup.
"""

from __future__ import annotations

import base64
import json
import re
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from ..runtime import jsontext
from ..runtime.resources import templates_dir
from .nearmap import NearLayout, near_layout, near_svg
from .schema import OwnSystemRow, PressRow, ReportContext, RoundupRow, upgrade_report
from .svgmap import ascii_map, compact_legend, svg_map

__all__ = [
    "Rendered",
    "render",
    "environment",
    "ReportDocuments",
    "SharedParts",
    "render_report_documents",
    "clip",
    "marks",
    "wrap",
    "press_heading",
    "MAP_CID",
    "NEAR_CID",
    "stored_context",
    "render_report_text",
    "render_subject",
    "subject_renderer",
    "report_subject",
    "report_json",
]

#: The Content-ID of the map picture in a report mail; the HTML shows it as
#: ``<img src="cid:...">``, which Gmail and Outlook display (inline SVG they do not).
MAP_CID = "map@report.turnproc"
#: The Content-ID of the neighbourhood map (:mod:`.nearmap`), the picture a phone shows at full size.
NEAR_CID = "near@report.turnproc"


@dataclass(frozen=True)
class Rendered:
    subject: str
    text: str
    html: str | None


class _DataEnvironment(jinja2.Environment):
    """Templates over JSON data: ``row.name`` reads a dict's key first.

    Jinja's own order is the Python attribute, then the key: every lookup in
    a report (about a thousand) raised and caught an AttributeError first. A
    dict's methods (``techs.items()``, ``s.get(...)``) are still found when
    no key has their name."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


@lru_cache(maxsize=4)
def environment(path: Path | None = None) -> jinja2.Environment:
    env = _DataEnvironment(
        # The mails' folders are under mail/ (a mail is named by its kind alone:
        # "ack/subject.txt"); the public pages and the order desk beside it.
        loader=jinja2.FileSystemLoader(
            [str((path or templates_dir()) / "mail"), str(path or templates_dir())]
        ),
        undefined=jinja2.StrictUndefined,
        autoescape=jinja2.select_autoescape(enabled_extensions=("html",), default_for_string=False),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # Templates ship with the package and do not change under a running
        # host: no file check on every mail rendered.
        auto_reload=False,
    )
    env.filters["signed"] = lambda n: f"{n:+d}"
    env.filters["clip"] = clip
    env.filters["wrap"] = wrap
    env.filters["marks"] = marks
    env.filters["press_heading"] = press_heading
    return env


_RTL = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]")


def clip(value: object, width: int) -> str:
    """Player text for a plain-text column: cut to ``width`` characters, and
    isolated when it holds right-to-left script, so a Hebrew or Arabic name
    cannot reorder the rest of the line."""
    text = " ".join(str(value).split())
    if len(text) > width:
        text = text[: width - 1] + "\u2026"
    if _RTL.search(text):
        text = "\u2068" + text + "\u2069"
    return text


def wrap(value: object, width: int = 96, indent: str = "  ") -> str:
    """A long sentence or press message folded for a plain-text mail; very long
    words are broken so no line runs off the screen."""
    text = clip(value, 10_000)
    if len(text) <= width:
        # Already one line, its whitespace made single by clip: what textwrap
        # would give back, at a fraction of its cost (most of a report's lines).
        return text
    return textwrap.fill(
        text, width=width, subsequent_indent=indent, break_long_words=True, break_on_hyphens=False
    )


def marks(system: OwnSystemRow) -> str:
    """Short flags for a system row: BASE, HOME, blockaded, sticky, no-supply."""
    out = []
    if system.get("base"):
        out.append("BASE")
    if system.get("home"):
        out.append("HOME")
    if system.get("blockaded"):
        out.append("blockaded")
    if system.get("sticky"):
        out.append("sticky")
    if not system.get("in_supply", True):
        out.append("no-supply")
    return " ".join(out)


def press_heading(message: PressRow, viewer: str) -> str:
    """Who wrote a press message and to whom, from the reader's side:
    ``From RIG to you (private)``, ``From you to ORI (private)``, ``From RIG to all``."""
    sender = "you" if message["from"] == viewer else message["from"]
    if not message.get("private"):
        return f"From {sender} to all"
    to = "you" if message["to"] == viewer else message["to"]
    return f"From {sender} to {to} (private)"


def render_subject(kind: str, context: Mapping[str, object]) -> str:
    """Only the subject line of a mail of ``kind`` (what the outbox row shows
    before the mail is built); the same line the whole rendering gives."""
    return _subject_renderer(kind)(context)


def subject_renderer(kind: str) -> Callable[[Mapping[str, Any]], str]:
    """:func:`render_subject` for ``kind``, its template looked up now, once:
    what renders with it later, a thousand reports of a turn, looks nothing
    up in Jinja's template cache."""
    template = environment().get_template(f"{kind}/subject.txt")
    upgrade = kind == "report"

    def subject(context: Mapping[str, Any]) -> str:
        line = template.render(stored_context(context) if upgrade else context).strip()
        return " ".join(line.split())

    return subject


#: :func:`subject_renderer` per kind, looked up once: a poll queues a thousand answers.
_subject_renderer = lru_cache(maxsize=64)(subject_renderer)


def report_subject(context: Mapping[str, Any]) -> str:
    return render_subject("report", context)


@lru_cache(maxsize=64)
def _html_template(env: jinja2.Environment, kind: str) -> jinja2.Template | None:
    """The kind's HTML body, or None: Jinja keeps the templates it found, not
    the one it did not, and an acknowledgement (text only) would otherwise
    cost a look on disk and an exception per mail."""
    try:
        return env.get_template(f"{kind}/body.html")
    except jinja2.TemplateNotFound:
        return None


def render(kind: str, context: Mapping[str, object]) -> Rendered:
    env = environment()
    subject = env.get_template(f"{kind}/subject.txt").render(context).strip()
    text = env.get_template(f"{kind}/body.txt").render(context)
    html_template = _html_template(env, kind)
    html = None if html_template is None else html_template.render(context)
    return Rendered(subject=" ".join(subject.split()), text=text, html=html)


@dataclass(frozen=True)
class ReportDocuments:
    """One empire's report in every format the mail carries."""

    subject: str
    text: str
    html: str
    """For the mail: the map is the ``cid:`` picture (:data:`MAP_CID`)."""
    svg: str
    json: str
    png: bytes
    near_png: bytes | None
    """The neighbourhood map for the mail (``cid:`` :data:`NEAR_CID`); None when the empire knows
    no system."""
    near: NearLayout | None

    def page(self) -> str:
        """The HTML as a page of its own (a file, a browser): the maps are the SVG
        drawings themselves, as data URIs, since there is no mail to hold a picture."""
        page = self.html
        for cid, svg in ((MAP_CID, self.svg), (NEAR_CID, near_svg(self.near) if self.near else None)):
            if svg is not None:
                data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
                page = page.replace(f'src="cid:{cid}"', f'src="data:image/svg+xml;base64,{data}"', 1)
        return page


class SharedParts:
    """Report parts that are the same for every empire of a turn (the roundup),
    rendered once: in a thousand-empire game the roundup is most of each report."""

    def __init__(self) -> None:
        self._roundups: dict[str, tuple[str, Markup]] = {}
        self._last: tuple[list[RoundupRow], tuple[str, Markup]] | None = None

    def roundup(self, rows: list[RoundupRow]) -> tuple[str, Markup]:
        # The contexts of one turn share one roundup list object (TurnView):
        # recognise it without serialising a thousand rows again.
        if self._last is not None and self._last[0] is rows:
            return self._last[1]
        key = json.dumps(rows, sort_keys=True)
        if key not in self._roundups:
            self._roundups[key] = _roundup(rows)
        self._last = (rows, self._roundups[key])
        return self._roundups[key]


def _roundup(rows: list[RoundupRow]) -> tuple[str, Markup]:
    env = environment()
    return env.get_template("report/roundup.txt").render(roundup=rows), Markup(
        env.get_template("report/roundup.html").render(roundup=rows)
    )


def stored_context(stored: Mapping[str, Any]) -> ReportContext:
    """A report context as the templates need it: one stored in an older
    schema version (a player may ask for an old report again) is upgraded
    (:func:`turnproc.reports.schema.upgrade_report`); the JSON stays as it was stored."""
    return upgrade_report(stored)


def _report_extras(context: ReportContext, shared: SharedParts | None) -> dict[str, object]:
    # Without parts shared between reports (one report built alone, as the
    # outbox's builders do), nothing is looked up or kept.
    roundup_text, roundup_html = (
        shared.roundup(context["roundup"]) if shared else _roundup(context["roundup"])
    )
    return {"ascii_map": ascii_map(context), "roundup_text": roundup_text, "roundup_html": roundup_html}


def report_json(context: Mapping[str, Any]) -> str:
    """The JSON report. Compact: it is for programs, and in a big game every
    byte is mailed a thousand times."""
    return jsontext.dumps(context, sort_keys=True)


def render_report_text(stored: Mapping[str, Any], shared: SharedParts | None = None) -> str:
    """Only the plain text of a report (no map picture): what the GM previews
    and a welcome mail quotes. The same text the report mail carries.
    ``stored``: a report context, or one read back from storage (any schema version)."""
    context = stored_context(stored)
    extra = {
        **_report_extras(context, shared),
        "map_src": "",
        "map_width": 0,
        "map_height": 0,
        "near_src": "",
        "near_width": 0,
    }
    return environment().get_template("report/body.txt").render({**context, **extra})


def render_report_documents(
    stored: Mapping[str, Any], shared: SharedParts | None = None, links: dict[str, str] | None = None
) -> ReportDocuments:
    """Every format of one report; ``links`` (:func:`turnproc.reports.links.game_links`)
    puts the footer with the rulebook's and the site's addresses under the
    order form, as the report mail has it (not part of the stored report: the
    GM may set ``site_url`` after the turn ran). ``stored``: a report context,
    or one read back from storage (any schema version)."""
    # Here, not at the top: Pillow and resvg draw the mail's pictures, and
    # `turnproc report` renders the text alone.
    from .mapimage import png_map, png_size
    from .pixelmap import near_png  # (as above)

    data = report_json(stored)
    context = stored_context(stored)
    svg = svg_map(context)
    # A game big enough for a bulletin mails a thousand pictures a night: the
    # compact one, its legend printed beside it (rules.md §5.1); the SVG
    # attached is the whole map still.
    compact = "bulletin" in context
    png = png_map(context, compact=compact)
    width, height = png_size(png)
    # The neighbourhood map, shown at 1:1 where a phone shows the whole map a fifth of its size.
    near = near_layout(context)
    near_picture = near_png(near) if near else None
    extra = {
        **_report_extras(context, shared),
        "map_src": f"cid:{MAP_CID}",
        "map_width": width,
        "map_height": height,
        "map_legend": compact_legend(context) if compact else [],
        "near_src": f"cid:{NEAR_CID}" if near else "",
        "near_width": near.width if near else 0,
        **({"links": links} if links is not None else {}),
    }
    rendered = render("report", {**context, **extra})
    assert rendered.html is not None
    return ReportDocuments(rendered.subject, rendered.text, rendered.html, svg, data, png, near_picture, near)
