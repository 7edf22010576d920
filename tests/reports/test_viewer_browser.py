"""The game viewer in a real headless browser (Debian's chromium + chromium-driver, through
selenium): open the side-by-side page of the Technology 13 -> 10 edit at its first step,
step forward to the first difference and see the decision that differs."""
from __future__ import annotations

import shutil

import pytest

from sim import api

from card_edits import edited_cards

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="needs Debian's chromium and chromium-driver (apt-get install -y chromium-driver)")


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--no-first-run", "--disable-background-networking", "--disable-sync",
                 "--window-size=1400,1000",
                 f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield driver
    driver.quit()


def _open(browser, path, step: int | None = None):
    browser.get(path.as_uri() + (f"#step={step}" if step is not None else ""))
    assert browser.execute_script("return document.body.dataset.ready") == "1"


def _step(browser) -> int:
    return int(browser.execute_script("return document.body.dataset.step"))


def test_step_forward_to_the_first_difference_and_see_the_differing_decision(browser, tmp_path):
    cards = edited_cards(tmp_path, "TE13", 10)
    page = tmp_path / "game26.html"
    page.write_text(api.viewer(seed=1, game_index=26, compare={"cards": str(cards)}),
                    encoding="utf-8")
    _open(browser, page, step=0)
    assert _step(browser) == 0
    assert "first differ in Round 1" in browser.find_element("id", "divergence").text
    assert not browser.find_elements("css selector", "li.divergent")
    browser.find_element("id", "next").click()            # the setup -> round 1
    assert _step(browser) == 1
    marked = browser.find_elements("css selector", "li.divergent")
    assert len(marked) == 2                               # the same line in both columns
    base, edit = marked
    assert base.find_element("css selector", ".text").text == edit.find_element(
        "css selector", ".text").text == ("team A's hand before it commits: Technology 2, "
                                          "Science 3, Information 4, Service 1")
    # the differing decision is open: the edited team A takes the option only it has
    taken = [row.text for row in edit.find_elements("css selector", "details[open] tr.chosen")]
    assert taken and ("Technology 2 + Science 3 + Information 4 + Service 1 for Technology 13"
                      in taken[0])
    assert not base.find_elements(
        "xpath", ".//td[contains(., 'Service 1 for Technology 13')]")
    # the step list marks the round, the button and the arrow keys move on
    button = browser.find_element("css selector", 'nav#steps button[data-step="1"]')
    assert "diverged" in button.get_attribute("class") and "current" in button.get_attribute("class")
    browser.find_element("id", "next").click()
    assert _step(browser) == 2 and not browser.find_elements("css selector", "li.divergent")
    browser.find_element("id", "goto-divergence").click()
    assert _step(browser) == 1


def test_a_page_opens_at_the_first_difference_and_reaches_every_round(browser, tmp_path):
    cards = edited_cards(tmp_path, "TE13", 10)
    page = tmp_path / "game26.html"
    page.write_text(api.viewer(seed=1, game_index=26, compare={"cards": str(cards)}),
                    encoding="utf-8")
    _open(browser, page)
    assert _step(browser) == 1                            # opened at the difference
    buttons = browser.find_elements("css selector", "nav#steps button")
    for button in buttons:
        button.click()
        assert _step(browser) == int(button.get_attribute("data-step"))
        assert browser.find_elements("css selector", "section.column li.line")
    assert _step(browser) == len(buttons) - 1
    assert browser.find_element("id", "next").get_attribute("disabled")
