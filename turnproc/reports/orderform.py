"""The order form at the end of every report: the header of the next order
mail, then, as comment lines, what the empire can order from where.

Comment lines (``#`` first) are not read by the one parser
(:mod:`turnproc.orders.reader`, docs/orders.md), so a player may send the form
back as it is and only add order lines, or take the ``#`` off a line. One
system costs two or three lines, so a thirty-system empire's form is still
short enough for a mail. Lines stay under :data:`WIDTH` characters: a mail
program that folds a long line would turn the rest of a comment into an
order line.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from .schema import OwnSystemRow, ReportBody

__all__ = ["order_form", "system_lines", "fold"]

#: The costs a player needs at hand while filling the form in (rules.md §6).
COSTS = (
    "# Costs: MOVE 1 BP, NEWCRS 10, NEWFTR 3, NEWCOL 20, BUILD 5, GROW 4 BP",
    "# each; TECH costs treasury BP.",
)
#: What rule set 2 adds to them (rules.md §19).
COSTS_V2 = (
    "# Rule set 2: LAYUP 1 BP, RESERVE 1, RECOVER 3 a cruiser, BOMBARD 2,",
    "# LINK 5 x distance squared, PROBE 2 (a new probe), FIND 1; TAKE",
    "# costs treasury BP.",
)
WIDTH = 72


@dataclass(frozen=True)
class _RuleSet2:
    """What rule set 2's hints need of a report context (:func:`_v2_view`)."""

    enemy_planets: set[int]
    """Planets another empire holds, as the report sees them."""
    hyperspace: int
    """The empire's Hyperspace level."""


def _ships(row: OwnSystemRow) -> str:
    parts = []
    for n, one, many in (
        (row["cruisers"], "cruiser", "cruisers"),
        (row["fighters"], "fighter", "fighters"),
        (row["colony_ships"], "colony ship", "colony ships"),
    ):
        if n:
            parts.append(f"{n} {one if n == 1 else many}")
    return ", ".join(parts) or "no ships"


def system_lines(row: OwnSystemRow, v2: _RuleSet2 | None = None) -> list[str]:
    """One own system in the form: what is there, its links, and the orders
    it can give this turn with their limits (rules.md §6.1–6.10); with ``v2``
    (:func:`_v2_view`), rule set 2's orders there too (rules.md §19)."""
    code = row["code"]
    marks = " ".join(m for m, on in (("BASE", row.get("base")), ("HOME", row.get("home"))) if on)
    links = " ".join(str(n) for n in row["links"]) or "none"
    head = (
        f"# {code} {row['type']}{' ' + marks if marks else ''}: {_ships(row)}; pop "
        f"{row['pop']}/{row['limit']}, ind {row['industry']}"
    )
    can: list[str] = []
    first_link = row["links"][0] if row["links"] else "TO"
    if row["cruisers"]:
        can.append(f"MOVE {code} {first_link} {row['cruisers']}")
    if row["fighters"]:
        can.append(f"MOVEF {code} TO N")
    if row["colony_ships"]:
        can.append(f"COLONISE {code}" + (" TO" if row["pop"] else " [TO]"))
    if row.get("blockaded"):
        can.append("(blockaded: builds nothing)")
    else:
        most = min(row["pop"], row["industry"])
        if most:
            can.append(f"NEWCRS/NEWFTR/NEWCOL {code} N (N up to {most})")
        if row["industry"] < row["limit"]:
            can.append(f"BUILD {code} N")
        if row["pop"] < row["limit"]:
            can.append(f"GROW {code} N")
    if v2 is not None:
        can += _v2_can(row, v2)
    lines = fold(head, "", "#   ")
    lines += fold(f"links {links}", "#   ", "#     ")
    if can:
        # Folded between suggestions only: NUL holds each one's words together.
        joined = ", ".join(c.replace(" ", "\0") for c in can)
        lines += [line.replace("\0", " ") for line in fold(joined, "#   can: ", "#     ", hyphens=False)]
    return lines


def _v2_can(row: OwnSystemRow, v2: _RuleSet2) -> list[str]:
    """Rule set 2's orders at one own system (rules.md §19.2–19.4): LAYUP where
    cruisers are, BOMBARD of a linked planet another empire holds (as the
    report sees it), LINK from a star once Hyperspace allows one."""
    code, can = row["code"], []
    star = row["type"] not in ("PL", "AB")
    if row["cruisers"]:
        can.append(f"LAYUP {code} N")
        if star:
            can += [f"BOMBARD {code} {n}" for n in row["links"] if n in v2.enemy_planets]
    if star and v2.hyperspace > 0:
        can.append(f"LINK {code} TO")
    return can


def _v2_view(context: ReportBody) -> _RuleSet2 | None:
    """What rule set 2's hints need of a report context, or None for rule set 1."""
    if context.get("ruleset", 1) < 2:
        return None
    me = context["empire"]["code"]
    planets = {
        s["code"] for s in context["map"]["systems"] if s["type"] == "PL" and s.get("owner") not in (None, me)
    }
    return _RuleSet2(planets, context["empire"]["techs"].get("HYPERSPACE", 0))


def _v2_lines(context: ReportBody) -> list[str]:
    """The empire-wide rule-set-2 hints (rules.md §19.2, 19.5, 19.6), each where it applies."""
    empire = context["empire"]
    techs = empire["techs"]
    lines = list(COSTS_V2)
    reserve, lost = empire.get("reserve", 0), empire.get("lost_in_space", 0)
    if reserve:
        lines += fold(
            f"In reserve: {reserve} cruiser{'s' if reserve != 1 else ''}; RESERVE WHERE N brings them back.",
            "# ",
            "# ",
        )
    if lost:
        most = 2 + techs.get("RECOVERY", 0)
        lines += fold(f"Lost in space: {lost}; RECOVER WHERE N brings back up to {most} a time.", "# ", "# ")
    probes = techs.get("PROBE", 0)
    if probes:
        lines += fold(
            f"Up to {probes} PROBE CODE line{'s' if probes != 1 else ''} (no slot); FIND WHERE destroys "
            "probes.",
            "# ",
            "# ",
        )
    if len(context.get("roundup") or []) > 1:
        lines += fold("TRADE TECH EMPIRE [LEVEL] offers a tech; TAKE TECH EMPIRE accepts one.", "# ", "# ")
    return lines


def fold(text: str, first: str, rest: str, *, hyphens: bool = True) -> list[str]:
    """``textwrap.wrap(text, WIDTH, initial_indent=first, subsequent_indent=rest,
    break_on_hyphens=hyphens)`` line for line, several times faster for what a
    form holds (words one space apart, none too long for a line, no hyphen):
    every report of a thousand-empire turn folds three texts a system.
    Anything else goes to textwrap itself."""
    if (
        len(first) + len(text) <= WIDTH
        and text.isprintable()
        and "  " not in text
        and text.strip(" ") == text
        and text
    ):
        return [first + text]  # one line: what textwrap returns for it
    words = text.split()
    if (
        not words
        or " ".join(words) != text
        or "-" in text
        or max(map(len, words)) > WIDTH - max(len(first), len(rest))
    ):
        return textwrap.wrap(
            text, WIDTH, initial_indent=first, subsequent_indent=rest, break_on_hyphens=hyphens
        )
    lines: list[str] = []
    line = first + words[0]
    for word in words[1:]:
        if len(line) + 1 + len(word) <= WIDTH:
            line += " " + word
        else:
            lines.append(line)
            line = rest + word
    lines.append(line)
    return lines


def order_form(context: ReportBody) -> str:
    """The form for ``context``'s empire and next turn (a report context)."""
    empire = context["empire"]
    lines = [
        f"GAME {context['game']}",
        f"EMPIRE {empire['code']} <password>",
        f"TURN {context['next_turn']}",
        "# Put your password in place of <password>, your orders above END,",
        "# one a line. Lines starting with # are not read: they say what",
        "# each of your systems can do.",
        f"# Balance {empire['balance']} BP, treasury {empire['treasury']} BP; up to 16 actions.",
        *COSTS,
    ]
    v2 = _v2_view(context)
    if v2 is not None:
        lines += _v2_lines(context)
    for row in context["systems"]:
        lines.extend(system_lines(row, v2))
    lines += ["", "END", ""]
    return "\n".join(lines)
