"""The sample report and acknowledgements in the docs are what the demo produces.

``docs/make_samples.py`` plays the demo game and sends a few order mails
through the real intake; this test runs it and compares the result with
docs/samples/ and with the copies embedded in the docs
(``<!-- sample: NAME -->``). After a deliberate change to the reports, the
acknowledgement or the demo, bring the docs up to date with

    pytest tests/docs --update-golden      (or: python docs/make_samples.py)

and read the diff: it is what players will see.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.docs.mdblocks import DOCS


def make_samples_module() -> ModuleType:
    name = "turnproc_docs_make_samples"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, DOCS / "make_samples.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # plays the demo
def test_samples_in_the_docs_match_the_demo(tmp_path: Path, update_golden: bool) -> None:
    ms = make_samples_module()
    samples = ms.make_samples(tmp_path)
    assert set(samples) == set(ms.TEXT_SAMPLES) | {f"site/{name}" for name in ms.SITE_FILES}
    if update_golden:
        ms.write(samples)
    problems = ms.differences(samples)
    assert not problems, (
        "\n".join(problems)
        + "\nUpdate with: pytest tests/docs --update-golden (needs Chromium for the screenshot)"
    )


def test_the_samples_are_shown_in_the_docs() -> None:
    ms = make_samples_module()
    text = "".join(p.read_text(encoding="utf-8") for p in ms.doc_files())
    shown = {name for name, _ in ms.embedded(text)}
    assert shown <= set(ms.TEXT_SAMPLES), (
        f"embedded samples that make_samples.py does not make: {shown - set(ms.TEXT_SAMPLES)}"
    )
    for name in ms.TEXT_SAMPLES:
        assert name in shown or f"samples/{name}" in text, (
            f"docs/samples/{name} is neither embedded nor linked"
        )
    for name in [*ms.SCREENSHOTS, *ms.SITE_SCREENSHOTS]:
        assert f"samples/{name}" in text


def test_png_text_chunks_round_trip() -> None:
    ms = make_samples_module()
    png = (DOCS / "samples" / "report.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    marked = ms.png_with_text(png, "check", "value")
    assert ms.png_text(marked)["check"] == "value"
    assert ms.png_text(marked)[ms.PNG_KEY] == ms.png_text(png)[ms.PNG_KEY]
