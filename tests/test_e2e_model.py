"""The same journeys on the embedded model (bench/journeys.py): the model proposes each
turn's plan, code validates it, and the user sees the same behaviour as without a model."""

from __future__ import annotations

import shutil

import pytest
from playwright.sync_api import Browser

from bench.journeys import CHROMIUM, JOURNEYS, run_journey

pytestmark = pytest.mark.skipif(
    shutil.which(CHROMIUM) is None, reason="Debian's chromium is not installed (.ci/run does it)"
)


@pytest.mark.parametrize("name", list(JOURNEYS), ids=[j.__name__ for j in JOURNEYS.values()])
def test_journey_on_the_embedded_model(browser: Browser, name: str) -> None:
    run_journey(browser, JOURNEYS[name], no_llm=False)
