"""The one order parser: order mail text -> :class:`~turnproc.rules.orders.ParsedOrders`.

Used by the mail acknowledgement and by the turn engine, so both always agree on
what a line means. Pure (standard library only) and it never raises on player
input: every mistake becomes a :class:`~turnproc.rules.orders.Problem` whose
``code`` is one of :data:`~turnproc.rules.problems.PROBLEMS`.

The work is split by what each part owns: :mod:`.grammar` (how each order is
written), :mod:`.reader` (lines, tokens and fields), :mod:`.checks` (the game
state, limits and duplicates) and :mod:`.problems` (the codes and their words).
The decisions below are this module's docstring so they stay in one place.

Decisions where the rulebook (rules.md §4.1, rules.md §6) leaves room (players read
them in docs/orders.md):

* **Where orders start.** :func:`parse_mail` starts at the first line whose first
  word is ``GAME`` or ``EMPIRE`` (so a report pasted above the header is
  ignored); ``TURN`` lines directly above that line (blank and comment lines
  between are fine) belong to the header too. With no GAME or EMPIRE line at
  all, nothing is read and ``missing_game`` / ``missing_empire`` are reported.
  :func:`parse_orders` reads from line 1 and accepts header lines too.
* **Header.** GAME, EMPIRE and TURN in any order. ``GAME`` takes the rest of the
  line as the game name; ``EMPIRE`` a 3-letter code and then the rest of the line
  as the password (case kept). Repeating a header line with the same value is
  harmless (game names compare ignoring case); a different value is the error
  ``conflicting_header`` and the first value is kept. A header line after the
  first order is still used (warning ``late_header``). Passwords are masked in
  ``Problem.text``. Problems that belong to no line (missing GAME or EMPIRE when
  there is no header line) have line 0.
* **Ignored lines.** Blank lines; lines whose first non-space character is ``>``
  (quoted) or ``#`` (comment). Comments run only whole lines: ``#`` later in a
  line is part of it. A line that is exactly ``--`` or ``-- `` (a signature) and a
  line whose first word is ``END`` end the orders; the rest is ignored.
* **Fields.** Separated by runs of spaces, tabs, commas or any other white
  space (non-breaking spaces included); keywords and codes are
  case-insensitive (ASCII only). ``-`` (also – or —) is an explicitly blank field,
  as on the turnsheet. If a line has more fields than the action uses, blank
  ones are dropped first; if it has fewer, the action's optional field is left
  out. So ``NEWCRS 101 5`` = ``NEWCRS 101 - 5`` builds 5 at 101, while
  ``NEWCRS 5`` = ``NEWCRS - - 5`` builds 5 at BASE (same for NEWFTR and NEWCOL:
  with one field it is always NUMBER; ``NEWCRS 101 -`` is missing NUMBER). With a
  game state, ``NEWCRS 101`` where 101 is your system is stored but warned
  about (``number_is_system``).
* **Numbers.** NUMBER is a whole number of at most 9 digits, ``0``/``ALL`` (all)
  or ``AB-n`` (all but n); every NUMBER field accepts all three. TECH's levels
  must be 1 or more and default to 1 (``TECH WEAPONS`` = ``TECH WEAPONS 1``);
  RETREAT's parts must be 1, 2 or 3 and default to 1. Both are stored as
  ``Quantity(count=k)``. System codes are 3-5 digits, 100 and up.
* **Techs** are accepted by their names in :class:`~turnproc.rules.state.Tech`
  and the aliases in :data:`~turnproc.rules.state.TECH_NAMES` (case, ``_``, ``-`` and ``.`` ignored);
  two-word forms like ``LIFE SUPPORT``, ``BP INCOME``, ``CULTURAL LEVEL`` work.
* **Text.** NAME takes the rest of the line after the system code, trimmed, case
  and inner spacing kept, 1 to 24 characters (more is ``name_too_long``).
  MESSAGE takes the rest of the line after ALL or the empire code, with trailing
  spaces removed, at most :data:`~turnproc.rules.grammar.MAX_MESSAGE_LENGTH` characters. Text with
  control characters or line/paragraph separators is ``bad_text``. Leading
  commas before the text are separators, not text.
* **Keywords.** ``COLONIZE`` is accepted for COLONISE. The mail commands REPORT,
  ORDERS, CLEAR and WAIT stand alone on a line anywhere after the header; each is
  collected once, in order of first appearance.
* **Limits.** Only stored lines count: the 17th slot-using order is
  ``too_many_slots``, the 3rd NAME ``too_many_names`` (both errors). A second
  stance for the same system, a second BASE or HOME, a second NAME for the same
  system are stored with a warning: the later line wins.
* **State checks** run only when a state is given and the empire (argument, or
  the EMPIRE header) is in ``state.empires``. Every system code must be one the
  empire knows (owns or has seen), else ``unknown_system`` - the same words
  whether the system exists or not. Actions that need WHERE/FROM owned get
  ``not_owned``; but if an earlier stored MOVE, ASSAULT, DEEP or COLONISE throw in
  the same orders goes into that system, a slot action is kept with the warning
  ``not_owned_yet`` (stances, BASE, HOME and NAME need it owned at turn start).
  DEEP, DISTSQ and RETREAT may not target a planet or belt
  (``target_is_planet``). MOVE, ASSAULT, MOVEF, MOVECOL, COLONISE (throw),
  RETREAT and AMBUSH from a system you own must follow a link (``not_linked``;
  links never change during a turn). MOVEF, MOVECOL and RETREAT into a system you
  do not own now are warned about (``target_not_owned``). GIFT and MESSAGE
  need an empire of the game; GIFT not to yourself (``gift_to_self`` is checked
  whenever the empire is known); a MESSAGE to yourself is allowed. FROM and TO
  must differ for the moving actions, COLONISE, RETREAT and AMBUSH
  (``same_system``, a syntax check).
"""

from __future__ import annotations

from .checks import KnownSystems, check_orders
from .grammar import HEADER_WORDS
from .orders import Header, ParsedOrders
from .reader import Run, first_word, mail_start, quote, read_lines, split_lines
from .state import GameState

__all__ = ["parse_mail", "parse_orders", "parse_header"]


def _parse(
    text: str, state: GameState | None, empire: str | None, mail: bool, known: KnownSystems | None = None
) -> ParsedOrders:
    run = Run(mail=mail)
    lines = split_lines(text)
    start = mail_start(lines) if mail else 0
    if start is not None:
        read_lines(run, lines, start)
    header = run.result.header
    if mail:
        if "GAME" not in run.header_seen:
            run.problem(header.line, "missing_game")
        if "EMPIRE" not in run.header_seen:
            run.problem(header.line, "missing_empire")
    if state is not None and header.empire is not None and header.empire not in state.empires:
        line, shown = run.header_lines["EMPIRE"]
        run.problem(line, "unknown_empire", shown, value=quote(header.empire), hint="")
    if state is not None and header.turn is not None and header.turn != state.turn:
        line, shown = run.header_lines["TURN"]
        run.problem(line, "wrong_turn", shown, value=header.turn, turn=state.turn)
    code = empire.upper() if empire is not None else header.empire
    check_orders(run, state, code, known)
    run.result.problems.sort(key=lambda p: p.line)
    return run.result


def parse_mail(
    text: str, state: GameState | None = None, empire: str | None = None, known: KnownSystems | None = None
) -> ParsedOrders:
    """Parse a whole order mail: header, orders and mail commands.

    Without ``empire`` the EMPIRE header's code is used for the state checks.
    ``known`` (from :func:`~turnproc.rules.checks.known_systems`) saves working
    out again which systems the empire knows when many mails are parsed
    against one state.
    """
    return _parse(text, state, empire, mail=True, known=known)


def parse_orders(
    lines_text: str, state: GameState | None = None, empire: str | None = None, known: KnownSystems | None = None
) -> ParsedOrders:
    """Parse order lines (no header needed; header lines are accepted too)."""
    return _parse(lines_text, state, empire, mail=False, known=known)


def parse_header(text: str) -> Header:
    """Just the mail's header (GAME, EMPIRE, TURN): what intake needs to find
    the game and check the password before the orders are read against the
    game. Gives the same header as :func:`parse_mail`."""
    lines = split_lines(text)
    start = mail_start(lines)
    if start is None:
        return Header()
    stop = start
    while stop < len(lines):
        stripped = lines[stop].strip()
        if stripped and not stripped.startswith(("#", ">")) and first_word(lines[stop]) not in HEADER_WORDS:
            break
        stop += 1
    if any(first_word(line) in HEADER_WORDS for line in lines[stop:]):
        # A header line after the first order still counts (late_header), and
        # END or a signature may hide it again: only the whole parse knows.
        return _parse(text, None, None, mail=True).header
    return _parse("\n".join(lines[:stop]), None, None, mail=True).header
