"""The order form's own line folding is textwrap's, line for line: it only
takes a shortcut for the texts a form holds (reports/orderform.py)."""

from __future__ import annotations

import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st

from turnproc.reports.orderform import WIDTH, fold

WORDS = st.sampled_from(["a", "MOVE", "38818", "NEWCRS/NEWFTR/NEWCOL\x00123\x00N", "(N\x00up\x00to\x002),", "x" * 64, "x" * 80,
                         "1-2", "--", "\xa0", "\t", "", "ind\n2"])  # fmt: skip
INDENTS = st.sampled_from([("", "#   "), ("#   ", "#     "), ("#   can: ", "#     ")])


@settings(max_examples=2000, deadline=None)
@given(words=st.lists(WORDS, max_size=30), sep=st.sampled_from([" ", " ", "  ", "\n"]), indents=INDENTS, hyphens=st.booleans())
def test_fold_is_textwrap(words: list[str], sep: str, indents: tuple[str, str], hyphens: bool) -> None:
    text = sep.join(words)
    first, rest = indents
    expected = textwrap.wrap(text, WIDTH, initial_indent=first, subsequent_indent=rest, break_on_hyphens=hyphens)
    assert fold(text, first, rest, hyphens=hyphens) == expected
