"""The same journeys on the embedded model (bench/journeys.py): the model proposes each
turn's plan, code validates it, and the user sees the same behaviour as without a model."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser

from bench.journeys import CHROMIUM, JOURNEYS, run_journey

pytestmark = pytest.mark.skipif(
    shutil.which(CHROMIUM) is None, reason="Debian's chromium is not installed (.ci/run does it)"
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        yield browser
        browser.close()


@pytest.mark.parametrize("name", list(JOURNEYS), ids=[j.__name__ for j in JOURNEYS.values()])
def test_journey_on_the_embedded_model(browser: Browser, name: str) -> None:
    run_journey(browser, JOURNEYS[name], no_llm=False)
