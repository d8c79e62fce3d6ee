"""The one order parser: order mail text -> :class:`~turnproc.orders.orders.ParsedOrders`.

Used by the mail acknowledgement and by the turn engine, so both always agree on
what a line means. Pure (standard library only) and it never raises on player
input: every mistake becomes a :class:`~turnproc.orders.orders.Problem` whose
``code`` is one of :data:`~turnproc.orders.problems.PROBLEMS`.

The work is split by what each part owns: :mod:`.grammar` (how each order is
written), :mod:`.reader` (lines, tokens and fields), :mod:`turnproc.rules.checks` (the game
state, limits and duplicates) and :mod:`.problems` (the codes and their words).
The decisions below are this module's docstring so they stay in one place.

Decisions where the rulebook (rules.md §4.1, rules.md §6) leaves room (players read
them in docs/orders.md):

* **Where orders start** (:mod:`.mailshape`). A *header block* is a run of
  GAME, EMPIRE and TURN lines (blank and comment lines between are fine)
  holding GAME or EMPIRE; ``TURN`` lines directly above it belong to it. Quoted
  lines never make one. A block is a *form* when an EMPIRE line in it has a
  placeholder password (below). The *reply line* is the first line a mail
  program puts above the mail being answered (see "Where orders end"). The
  header :func:`parse_mail` starts at is the first of:
  (a) the first block that is not a form, above the reply line (the player's
  own, even below a whole pasted report: its order form is a form);
  (b) the first block that is not a form anywhere (the player wrote below the
  mail they answer: bottom-posting);
  (c) the last form above the reply line (the player copied the form without
  putting the password in: ``placeholder_password`` says so).
  With none, nothing is read and ``missing_game`` / ``missing_empire`` are
  reported, with ``header_only_quoted`` on the first quoted line that would be
  a GAME or EMPIRE line unquoted (a top-posted reply to a report). :func:`parse_orders`
  reads from line 1 and accepts header lines too.
* **Where orders end.** At the first of: a line that is exactly ``--`` or
  ``-- `` (signature); a line whose first word is ``END``; a reply line: an
  attribution ("On ... wrote:", and "Am ... schrieb ...:", "Le ... a écrit :",
  "El ... escribió:", "Il giorno ... ha scritto:", "Op ... schreef ...:", also
  wrapped over two lines as Gmail does), "-----Original Message-----" (and
  its German, French, Spanish, Italian, Dutch and "Forwarded message" forms),
  Outlook's block (a ``From:``/``Von:`` line with ``Sent:``/``Gesendet:``/``Date:``
  within the next three lines), and a line of five or more underscores right
  above such a block; a phone's signature on a line of its own ("Sent from
  my iPhone", "Get Outlook for Android", ...: :func:`.mailshape.mobile_signature`).
  Nothing after is read, so nothing after gets a problem. Reply lines only
  end orders in :func:`parse_mail`; a bare order list has no mail around it.
* **Copies of the host's mails** (:func:`.mailshape._host_copies`). A copy
  starts at the first line of a mail the host sends a player (the report's
  ``STAR CHASE - game ... report``; the HTML report as text: ``<game> - turn
  n`` with ``<empire name> (<code>) - rank r, v VP.`` next; the welcome's,
  the acknowledgement's, each answer's and notice's) and ends with the host's
  signature (``-- `` then ``turnproc ...`` and the lines saying where the
  rules are), a report's with its order form's END (and that signature or
  those lines under it); without either, above the next header block with a
  password, or at the end of the mail. None of it is read, wherever it sits:
  no header block in it is the header (the welcome's example), and reading
  from a header above skips it whole (its order form too) and goes on below
  it. The order form inside a copy is the player's: it may be the header
  (filled in with the password, or under rule (b)/(c) above). An order
  form's heading alone (``Order form for turn n``) is skipped as a copy of
  one line.
* **What was skipped.** ``ParsedOrders.skipped`` lists the stretches not read,
  in line order, first and last lines never blank, each with a
  :class:`~turnproc.orders.orders.SkipReason`: above the header, stretches of
  quoted lines are ``quoted``, from a reply line on ``reply_header``, each
  copy of a host's mail (its order form included) ``host_report``, the rest
  ``before_header`` (the whole mail when it has no header); quoted lines
  among the orders are ``quoted`` (one stretch across blank lines), copies
  among them ``host_report``; what follows the end is one stretch: ``end``
  (after the END line), ``signature`` or ``reply_header`` (from that line on).
* **Passwords.** Everything after the empire code. A password wrapped in
  ``<`` ``>`` whose inside is a word for a password (``<password>``,
  ``<your password>``, ``<pw>``, ``<passwort>``, ...), empty, or more than one
  word is the order form's placeholder: ``placeholder_password`` (a header
  error, instead of ``missing_password``) and no password is taken. Any other
  ``<...>`` password is taken without the brackets with the warning
  ``password_in_brackets``: passwords are generated by the host
  (:mod:`turnproc.accounts.passwords`) and never hold ``<`` or ``>``, so ``<k7mq2rtx>`` is
  the form's brackets kept around the real password.
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
  line is part of it.
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
  spaces removed, at most :data:`~turnproc.orders.grammar.MAX_MESSAGE_LENGTH` characters. Text with
  control characters or line/paragraph separators is ``bad_text``. Leading
  commas before the text are separators, not text.
* **Keywords.** ``COLONIZE`` is accepted for COLONISE. The mail commands
  (REPORT, ORDERS, CLEAR, WAIT, HELP, PASSWORD, ADDRESS, CONFIRM, VACATION,
  BACK, QUIT, JOIN) go on a line of their own anywhere after the header, with
  what :mod:`.commands` says each takes; each is collected once, in order of
  first appearance (given again differently: ``duplicate_command``, the later
  line counts). A mistyped keyword gets "did you mean" like an order's.
* **No header, only a request.** A mail with no header block whose first line
  read (not quoted, above any reply line, signature or report) is ``HELP``
  alone or a ``JOIN`` line is read from that line, and no ``missing_game`` /
  ``missing_empire`` is reported: the help and sign-up requests of people who
  play nowhere yet need no header.
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

from dataclasses import dataclass

from ..rules.checks import KnownSystems, check_orders
from ..rules.state import GameState
from .commands import HEADERLESS
from .grammar import HEADER_WORDS
from .mailshape import Shape, mail_shape, quoted_header_line, unread
from .orders import Header, ParsedOrders, Skipped, SkipReason
from .reader import Run, first_word, quote, read_lines, split_lines

__all__ = ["parse_mail", "parse_orders", "parse_header", "shape_mail", "ShapedMail"]


def _tail(lines: list[str], stop: int, reason: SkipReason) -> list[Skipped]:
    """Everything from ``stop`` on, as one stretch (when it is not all blank)."""
    filled = [i for i in range(stop, len(lines)) if lines[i].strip()]
    return [Skipped(filled[0] + 1, filled[-1] + 1, reason)] if filled else []


def _parse(
    lines: list[str],
    start: int | None,
    marks: list[SkipReason | None] | None,
    state: GameState | None,
    empire: str | None,
    known: KnownSystems | None = None,
) -> ParsedOrders:
    """Read ``lines`` from ``start``; ``marks`` (from :func:`.mailshape.mail_shape`)
    only for a whole mail, None for bare order lines."""
    mail = marks is not None
    request = False
    if marks is not None and start is None:
        start = _request_start(lines, marks)
        request = start is not None
    run = Run(mail=mail)
    stop = read_lines(run, lines, start, marks) if start is not None else None
    result = run.result
    before: list[Skipped] = []
    if marks is not None:
        above = len(lines) if start is None else start
        before = unread(lines, marks, 0, above, SkipReason.BEFORE_HEADER)
    result.skipped = before + result.skipped + (_tail(lines, *stop) if stop is not None else [])
    header = result.header
    if mail and not request:
        if start is None:
            quoted = quoted_header_line(lines)
            if quoted is not None:
                run.problem(quoted + 1, "header_only_quoted", lines[quoted])
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
    result.problems.sort(key=lambda p: p.line)
    return result


def _request_start(lines: list[str], marks: list[SkipReason | None]) -> int | None:
    """The line a header-less mail's request (HELP, JOIN) starts on, if it has one."""
    for index, line in enumerate(lines):
        mark = marks[index]
        if line in ("--", "-- ") or mark is SkipReason.REPLY_HEADER or mark is SkipReason.HOST_REPORT:
            return None
        word = first_word(line)
        if mark is not None or not word:
            continue
        if word == "END":
            return None
        # "HELP" alone: "help me, my orders bounced" is a question for the GM, not a request.
        alone = len(line.split()) == 1
        return index if word in HEADERLESS and (alone or word != "HELP") else None
    return None


@dataclass(frozen=True)
class ShapedMail:
    """A mail's text split into lines, and its shape: what :func:`parse_header`
    and :func:`parse_mail` both start from. Finding a mail's shape is a third
    of its parse, and intake reads each mail's header first and the whole
    mail later: it keeps this from the one for the other."""

    text: str
    lines: list[str]
    shape: Shape


def shape_mail(text: str) -> ShapedMail:
    lines = split_lines(text)
    return ShapedMail(text, lines, mail_shape(lines))


def _shaped(text: str, shaped: ShapedMail | None) -> ShapedMail:
    # Another text's shape would parse that other mail: never used for this one.
    return shaped if shaped is not None and shaped.text == text else shape_mail(text)


def parse_mail(
    text: str,
    state: GameState | None = None,
    empire: str | None = None,
    known: KnownSystems | None = None,
    shaped: ShapedMail | None = None,
) -> ParsedOrders:
    """Parse a whole order mail: header, orders and mail commands.

    Without ``empire`` the EMPIRE header's code is used for the state checks.
    ``known`` (from :func:`~turnproc.rules.checks.known_systems`) saves working
    out again which systems the empire knows when many mails are parsed
    against one state; ``shaped`` (:func:`shape_mail` of this ``text``), the
    mail's shape found for its header.
    """
    mail = _shaped(text, shaped)
    return _parse(mail.lines, mail.shape.start, mail.shape.marks, state, empire, known)


def parse_orders(
    lines_text: str,
    state: GameState | None = None,
    empire: str | None = None,
    known: KnownSystems | None = None,
) -> ParsedOrders:
    """Parse order lines (no header needed; header lines are accepted too)."""
    return _parse(split_lines(lines_text), 0, None, state, empire, known)


def parse_header(text: str, shaped: ShapedMail | None = None) -> Header:
    """Just the mail's header (GAME, EMPIRE, TURN): what intake needs to find
    the game and check the password before the orders are read against the
    game. Gives the same header as :func:`parse_mail`."""
    mail = _shaped(text, shaped)
    lines, shape = mail.lines, mail.shape
    start = shape.start
    if start is None:
        return Header()
    stop, words = start, shape.words
    while stop < len(lines):
        stripped = lines[stop].strip()
        if stripped and not stripped.startswith(("#", ">")) and words[stop] not in HEADER_WORDS:
            break
        stop += 1
    if any(word in HEADER_WORDS for word in words[stop:]):
        # A header line after the first order still counts (late_header), and
        # END, a signature or a reply line may hide it again: only the whole
        # parse knows.
        return _parse(lines, start, shape.marks, None, None).header
    return _parse(lines[:stop], start, shape.marks[:stop], None, None).header
