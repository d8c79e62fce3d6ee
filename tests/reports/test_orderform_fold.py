"""The order form's and the reports' own line folding is textwrap's, line for
line: they only take a shortcut for the texts a form or a report holds
(reports/orderform.py, reports/render.py)."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from turnproc.reports.orderform import WIDTH, fold
from turnproc.reports.render import clip, wrap

WORDS = st.sampled_from(
    [
        "a",
        "MOVE",
        "38818",
        "NEWCRS/NEWFTR/NEWCOL\x00123\x00N",
        "(N\x00up\x00to\x002),",
        "x" * 64,
        "x" * 80,
        "1-2",
        "--",
        "\xa0",
        "\t",
        "",
        "ind\n2",
    ]
)
INDENTS = st.sampled_from([("", "#   "), ("#   ", "#     "), ("#   can: ", "#     ")])


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(
    words=st.lists(WORDS, max_size=30),
    sep=st.sampled_from([" ", " ", "  ", "\n"]),
    indents=INDENTS,
    hyphens=st.booleans(),
)
def test_fold_is_textwrap(words: list[str], sep: str, indents: tuple[str, str], hyphens: bool) -> None:
    text = sep.join(words)
    first, rest = indents
    expected = textwrap.wrap(
        text, WIDTH, initial_indent=first, subsequent_indent=rest, break_on_hyphens=hyphens
    )
    assert fold(text, first, rest, hyphens=hyphens) == expected


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(
    text=st.one_of(st.text(max_size=120), st.lists(WORDS, max_size=30).map(" ".join)),
    width=st.sampled_from([20, 96]),
)
def test_the_reports_wrap_is_textwrap_of_the_clipped_text(text: str, width: int) -> None:
    """reports/render.wrap gives a text that fits on one line back as it is:
    what textwrap gives for it, as for every other text."""
    expected = textwrap.fill(
        clip(text, 10_000), width=width, subsequent_indent="  ", break_long_words=True, break_on_hyphens=False
    )
    assert wrap(text, width) == expected
