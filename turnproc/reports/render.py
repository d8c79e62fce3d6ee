"""Jinja rendering of every mail kind: one template folder per kind.

Each folder holds ``subject.txt``, ``body.txt`` and optionally ``body.html``.
Undefined names are errors (StrictUndefined), and HTML is autoescaped, so a
player's text can never break a template or inject markup.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2

from ..resources import templates_dir

__all__ = ["Rendered", "render", "environment"]


@dataclass(frozen=True)
class Rendered:
    subject: str
    text: str
    html: str | None


@lru_cache(maxsize=4)
def environment(path: Path | None = None) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(path or templates_dir())),
        undefined=jinja2.StrictUndefined,
        autoescape=jinja2.select_autoescape(enabled_extensions=("html",), default_for_string=False),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["signed"] = lambda n: f"{n:+d}"
    return env


def render(kind: str, context: dict[str, Any]) -> Rendered:
    env = environment()
    subject = env.get_template(f"{kind}/subject.txt").render(context).strip()
    text = env.get_template(f"{kind}/body.txt").render(context)
    try:
        html_template = env.get_template(f"{kind}/body.html")
    except jinja2.TemplateNotFound:
        html = None
    else:
        html = html_template.render(context)
    return Rendered(subject=" ".join(subject.split()), text=text, html=html)
