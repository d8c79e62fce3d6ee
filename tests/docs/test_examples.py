"""Every order example in the docs goes through the real parser.

How the docs mark examples (the fence's info string; GitHub shows none of it):

```` ```orders ````
    Must parse without errors or warnings.
```` ```orders warn=target_not_owned ````
    No errors; exactly these warnings (comma-separated, in line order).
```` ```orders-wrong code=unknown_action ````
    Wrong on purpose: exactly these problem codes, errors and warnings, in line order.
``empire=BET``
    Parse as this empire (default ALF); a block with a GAME or EMPIRE line is
    parsed as a whole mail and its EMPIRE line says who.
``file=orders.txt``
    Also a file the GM's handbook session uses (tests/docs/test_cli_documented.py).
``owns=104,102``
    The empire owns these systems too, and so knows their neighbours (the
    prose around the example says so).
``techs=hyperspace:9``, ``reserve=4``, ``others=109:BET``
    The empire has these tech levels, or this many cruisers in the reserve;
    another empire owns these systems (the prose says so).
```` ```reply ````
    The acknowledgement's words for the nearest order example above it: every
    line is one of its ``ERROR [code] message`` / ``WARNING [code] message``.

Examples are parsed against the two-empire galaxy of
``docs/examples/two-empires.toml`` at turn 1, so system codes in the docs are
codes of that map: Alfheim Concord (ALF) holds 100 and its planet 101.
"""

from __future__ import annotations

import re

import pytest

from tests.docs.mdblocks import DOCS, Block, blocks, doc_paths
from turnproc.orders.orders import Action, MailCommand, ParsedOrders, Problem
from turnproc.orders.parser import parse_mail, parse_orders
from turnproc.orders.problems import PROBLEMS
from turnproc.orders.vocabulary import Reason
from turnproc.reports.narrative import REASONS
from turnproc.rules.state import GameState, Tech
from turnproc.scenario import load_scenario_file

EXAMPLE_GALAXY = DOCS / "examples" / "two-empires.toml"
KINDS = {"orders", "orders-wrong"}
ATTRS = {
    "orders": {"warn", "empire", "owns", "file", "techs", "reserve", "others"},
    "orders-wrong": {"code", "empire", "owns", "techs", "reserve", "others"},
}


def example_state(
    empire: str, owns: list[int], techs: str = "", reserve: int = 0, others: str = ""
) -> GameState:
    state = load_scenario_file(EXAMPLE_GALAXY).state
    for pair in _codes(others):
        code, owner = pair.split(":")
        state.systems[int(code)].owner = owner
    for code in owns:
        # Owning a system shows it and its neighbours (Scanner 1).
        state.systems[code].owner = empire
        state.seen.setdefault(empire, set()).update({code, *state.neighbours(code)})
    for pair in _codes(techs):
        name, level = pair.split(":")
        state.empires[empire].techs[Tech[name.upper()]] = int(level)
    state.empires[empire].reserve = reserve
    return state


def all_blocks() -> list[Block]:
    return [b for path in doc_paths() for b in blocks(path)]


def order_blocks() -> list[Block]:
    return [b for b in all_blocks() if b.kind in KINDS]


def _codes(value: str) -> list[str]:
    return [c for c in value.split(",") if c]


def parse_block(block: Block) -> ParsedOrders:
    attrs = block.attrs
    empire = attrs.get("empire", "ALF")
    owns = [int(c) for c in _codes(attrs.get("owns", ""))]
    state = example_state(
        empire, owns, attrs.get("techs", ""), int(attrs.get("reserve", "0")), attrs.get("others", "")
    )
    # A header only in quoted text is still a mail (docs/orders.md, header_only_quoted).
    stripped = [line.lstrip("> \t") for line in block.text.splitlines()]
    first_words = {line.split()[0].upper() for line in stripped if line.split()}
    if first_words & {"GAME", "EMPIRE"}:
        return parse_mail(block.text, state)
    return parse_orders(block.text, state, empire)


def reply_line(problem: Problem) -> str:
    """How the acknowledgement words a problem (intake.handle._line_results)."""
    return f"{problem.severity.value.upper()} [{problem.code}] {problem.message}"


def test_the_docs_have_order_examples() -> None:
    assert len(order_blocks()) >= 40


def test_order_fences_are_spelled_right() -> None:
    for block in all_blocks():
        if block.kind.startswith("order") or block.kind == "reply":
            assert block.kind in KINDS | {"reply"}, f"{block.where}: unknown fence {block.kind!r}"
        if block.kind in KINDS:
            unknown = set(block.attrs) - ATTRS[block.kind]
            assert not unknown, f"{block.where}: unknown fence attribute(s) {sorted(unknown)}"
            if block.kind == "orders-wrong":
                assert block.attrs.get("code"), f"{block.where}: orders-wrong needs code=..."


@pytest.mark.parametrize("block", order_blocks(), ids=lambda b: b.where)
def test_order_example(block: Block) -> None:
    parsed = parse_block(block)
    got = [p.code for p in parsed.problems]
    shown = "\n".join(f"  line {p.line}: {reply_line(p)}" for p in parsed.problems)
    if block.kind == "orders":
        assert not parsed.errors, f"{block.where}: the example has errors:\n{shown}"
        assert got == _codes(block.attrs.get("warn", "")), f"{block.where}: warnings differ:\n{shown}"
        assert parsed.orders or parsed.commands, f"{block.where}: the example holds no order"
    else:
        assert got == _codes(block.attrs["code"]), (
            f"{block.where}: expected {block.attrs['code']}, got:\n{shown}"
        )


def test_replies_quote_the_parser() -> None:
    """A ```reply block shows what the acknowledgement says for the example above it."""
    checked = 0
    for path in doc_paths():
        last: Block | None = None
        for block in blocks(path):
            if block.kind in KINDS:
                last = block
            elif block.kind == "reply":
                assert last is not None, f"{block.where}: a reply block with no order example above it"
                said = {reply_line(p) for p in parse_block(last).problems}
                for line in filter(None, (x.strip() for x in block.text.splitlines())):
                    assert line in said, (
                        f"{block.where}: the acknowledgement does not say\n  {line}\nit says:\n  "
                        + "\n  ".join(sorted(said))
                    )
                    checked += 1
    assert checked >= 10


def test_every_action_and_mail_command_has_an_example() -> None:
    seen: set[str] = set()
    for block in order_blocks():
        if block.kind == "orders":
            parsed = parse_block(block)
            seen |= {o.action.value for o in parsed.orders} | {c.value for c in parsed.commands}
    missing = {a.value for a in Action} | {c.value for c in MailCommand}
    assert not missing - seen, f"no example in the docs for {sorted(missing - seen)}"


def test_every_problem_code_is_explained_in_the_orders_guide() -> None:
    text = (DOCS / "orders.md").read_text(encoding="utf-8")
    missing = [code for code in PROBLEMS if f"`{code}`" not in text]
    assert not missing, f"docs/orders.md does not explain problem code(s) {missing}"


def test_every_failure_reason_is_in_the_rulebook_in_the_reports_words() -> None:
    text = (DOCS / "rules.md").read_text(encoding="utf-8")
    codes = [v for k, v in vars(Reason).items() if not k.startswith("_") and isinstance(v, str)]
    for code in codes:
        assert f"`{code}`" in text, f"docs/rules.md does not explain failure reason {code}"
        words = REASONS.get(code)
        assert words is not None, f"reports.narrative.REASONS has no words for {code}"
        assert words in text, f"docs/rules.md does not quote the report's words for {code}: {words!r}"


def test_every_ruling_is_written_once_and_indexed() -> None:
    """The rulings (O1, S1, ...: the engine's choices where the rules are silent)
    are written once each, as ``- **B7** ...`` in the section they belong to, and
    the index of rules.md §18 sends the reader to that section."""
    from tests.docs.test_citations import rulebook

    _, rulings = rulebook()
    assert len(rulings) > 30
    text = (DOCS / "rules.md").read_text(encoding="utf-8")
    written = re.findall(r"^- \*\*([A-Z]\d+)\*\* ", text, re.MULTILINE)
    assert sorted(written) == sorted(set(written)), "a ruling is written twice in docs/rules.md"
    index = dict(re.findall(r"^\| ([A-Z]\d+) \| .* \| \[\xa7([\d.]+)\]\(#", text, re.MULTILINE))
    assert index == rulings, (
        "the rulings index of docs/rules.md §18 disagrees with where the rulings are written"
    )
