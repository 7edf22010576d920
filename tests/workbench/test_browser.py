"""The workbench's page in a real headless browser (Debian's chromium + chromium-driver,
through selenium), against the real server (uvicorn on a free port, one per module).

Peer-to-Peer plays for real here with small caps (the kernels compile once per session;
the numba cache is warm after the first run). ``.ci/run`` installs chromium-driver.
"""
from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import httpx
import pytest

from sim import api
from sim.core.errors import UserError
from sim.workbench import inputs
from sim.workbench.app import Settings
from sim.workbench.server import make_server

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="needs Debian's chromium and chromium-driver (apt-get install -y chromium-driver)")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    start = tmp_path_factory.mktemp("workbench-start")
    settings = Settings(start_dir=start, game="peer-to-peer", max_games=200_000,
                        idle_seconds=20)
    uvicorn_server, sock, address = make_server(settings, "127.0.0.1", 0)
    thread = threading.Thread(target=uvicorn_server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not uvicorn_server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert uvicorn_server.started, "uvicorn did not start"
    bench = uvicorn_server.config.app.state.bench
    yield address, start, bench
    uvicorn_server.should_exit = True
    thread.join(timeout=60)


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
    driver.set_script_timeout(30)
    yield driver
    driver.quit()


def until(condition, seconds: float = 120, step: float = 0.05):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"timed out after {seconds} s waiting for {condition.__doc__ or condition}")


def open_page(browser, address: str, game: str | None = None):
    browser.get(address)
    until(lambda: browser.execute_script("return document.body.dataset.ready === '1'"), 30)
    if game:
        from selenium.webdriver.support.ui import Select

        browser.execute_script("document.body.dataset.ready = ''")
        Select(browser.find_element("id", "game")).select_by_value(game)
        until(lambda: browser.execute_script("return document.body.dataset.ready === '1'"), 30)


def cell(browser, row: int, column: str):
    return browser.find_element(
        "css selector", f'#cards-table tbody tr[data-row="{row}"] td[data-col="{column}"] input')


def type_into(element, text: str) -> None:
    from selenium.webdriver.common.keys import Keys

    element.send_keys(Keys.CONTROL, "a")
    element.send_keys(Keys.DELETE)
    element.send_keys(text)


def set_run_options(browser, games: int, width: float, chunk: int) -> None:
    type_into(browser.find_element("id", "games"), str(games))
    type_into(browser.find_element("id", "width"), str(width))
    type_into(browser.find_element("id", "chunk"), str(chunk))


def card_row(browser, card_id: str) -> int:
    rows = browser.execute_script(
        "return Array.from(document.querySelectorAll('#cards-table tbody tr'))"
        ".map(tr => tr.querySelector('td[data-col=\"id\"] input').value)")
    return rows.index(card_id)


def test_edit_a_card_run_watch_the_interval_narrow_see_the_verdict_save_and_reload(
        server, browser):
    address, start, bench = server
    open_page(browser, address)
    headers = [th.text for th in browser.find_elements("css selector", "#cards-table thead th")]
    assert headers[1:] == ["id", "name", "domain", "value", "kind", "start", "effect"]
    row = card_row(browser, "TE7")
    type_into(cell(browser, row, "value"), "12")
    set_run_options(browser, games=60_000, width=1, chunk=2000)
    browser.find_element("id", "run").click()

    widths = []

    def width_of_team_a():
        """the team A difference width in the results table"""
        text, state = browser.execute_script(  # one read: the page redraws the table
            "const c = document.querySelector("
            "'table.point tr[data-headline=\"team A win rate\"] td.width');"
            "return [c ? c.textContent : '', document.body.dataset.state || ''];")
        if text not in ("", "–") and (not widths or widths[-1] != text):
            widths.append(text)
        return state in ("decided", "capped", "stopped", "error")

    until(width_of_team_a, 300, 0.02)
    state = browser.execute_script("return document.body.dataset.state")
    assert state in ("decided", "capped"), browser.find_element("id", "status").text
    numbers = [float(w) for w in widths]
    assert len(numbers) >= 2, widths          # the interval appeared, then changed
    assert numbers[-1] < numbers[0]           # and narrowed
    difference = browser.find_element(
        "css selector", 'table.point tr[data-headline="team A win rate"] td.ci').text
    assert difference.startswith("[") and difference != "–"
    verdict = browser.find_element("id", "verdict")
    assert verdict.is_displayed() and "Verdict" in verdict.text
    assert "team A win" in verdict.text and "4 players" in verdict.text
    snap = next(iter(c for c in bench.comparisons.values() if c.plan.game == "peer-to-peer"))
    assert snap.state == state

    # save, and read the file back with the CLI's loader
    type_into(browser.find_element("id", "cards-name"), "te7-at-12.csv")
    browser.find_element("id", "save").click()
    until(lambda: "saved" in browser.find_element("id", "save-status").text, 30)
    config = api.configure("peer-to-peer", 4, str(start / "te7-at-12.csv"))
    assert int(config.cards.value[list(config.cards.ids).index("TE7")]) == 12
    until(lambda: "--cards te7-at-12.csv" in browser.find_element("id", "command").text, 30)
    browser.find_element("id", "copy").click()
    until(lambda: browser.find_element("id", "copy-status").text, 10)

    # the balance report of that comparison
    browser.find_element("id", "report").click()
    link = until(lambda: browser.find_element("id", "report-link").is_displayed()
                 and browser.find_element("id", "report-link"), 300)
    report = httpx.get(link.get_attribute("href"), timeout=30)
    assert report.status_code == 200 and "<html" in report.text.lower()


def test_a_bad_cell_shows_the_cli_error_beside_it(server, browser, tmp_path):
    address, _, _ = server
    open_page(browser, address)
    row = card_row(browser, "SV2")
    type_into(cell(browser, row, "value"), "two")
    error = until(lambda: browser.find_elements(
        "css selector", f'#cards-table tbody tr[data-row="{row}"] td[data-col="value"] .cell-error'),
        30)
    # the loader's own words for the same file
    state = httpx.get(address + "api/state", timeout=30).json()
    rows = [list(r) for r in state["cards"]["rows"]]
    rows[row][state["cards"]["columns"].index("value")] = "two"
    path = tmp_path / "same.csv"
    path.write_text(inputs.CardSheet(state["cards"]["comments"], state["cards"]["columns"],
                                     rows).text())
    with pytest.raises(UserError) as caught:
        api.configure("peer-to-peer", 4, str(path))
    assert error[0].text == caught.value.message
    assert "edited-cards.csv" in browser.find_element("id", "card-error").text
    assert "bad" in browser.find_element(
        "css selector", f'#cards-table tbody tr[data-row="{row}"] td[data-col="value"]'
    ).get_attribute("class")


def test_a_path_outside_the_start_directory_is_refused(server, browser):
    address, start, _ = server
    open_page(browser, address)
    type_into(browser.find_element("id", "cards-name"), "../escaped.csv")
    browser.find_element("id", "save").click()
    status = until(lambda: browser.find_element("id", "save-status").text, 30)
    assert "outside the workbench's directory" in status
    assert not (start.parent / "escaped.csv").exists()


def test_foreign_host_and_origin_are_refused_by_the_live_server(server):
    address, _, _ = server
    port = address.rstrip("/").rsplit(":", 1)[1]
    rebinding = httpx.get(address + "api/state", headers={"Host": f"attacker.example:{port}"},
                          timeout=30)
    cross_site = httpx.post(address + "api/validate", json={},
                            headers={"Origin": "http://attacker.example"}, timeout=30)
    own = httpx.get(address + "api/state", timeout=30)
    assert rebinding.status_code == 403 and "DNS-rebinding" in rebinding.json()["error"]
    assert cross_site.status_code == 403
    assert own.status_code == 200


def test_plai_has_its_own_columns_and_headlines(server, browser):
    address, _, _ = server
    open_page(browser, address, game="plai")
    headers = [th.text for th in browser.find_elements("css selector", "#cards-table thead th")]
    assert headers[1:5] == ["id", "name", "type", "strength"]
    assert browser.find_element("id", "strategy-seat2").get_attribute("placeholder") == \
        api.resolve_game("plai").default_strategy
    type_into(cell(browser, 0, "strength"), "5")
    set_run_options(browser, games=4000, width=50, chunk=2000)
    browser.find_element("id", "run").click()
    until(lambda: browser.execute_script("return document.body.dataset.state") in (
        "decided", "capped", "stopped", "error"), 900)   # PLAI's kernels may compile here
    assert browser.execute_script("return document.body.dataset.state") in ("decided", "capped")
    labels = [tr.get_attribute("data-headline") for tr in browser.find_elements(
        "css selector", "table.point tr[data-headline]")]
    seats = int(api.resolve_game("plai").default_players)   # the page's player count
    assert labels == [f"seat {s} win rate" for s in range(seats)] + ["maintainers win rate"]


def test_a_closed_page_stops_its_comparison(server, browser):
    address, _, bench = server
    open_page(browser, address)
    set_run_options(browser, games=200_000, width=0.01, chunk=2000)
    type_into(cell(browser, card_row(browser, "SV1"), "value"), "2")
    browser.find_element("id", "run").click()
    ident = until(lambda: browser.execute_script("return document.body.dataset.comparison"), 30)
    comparison = bench.comparisons[ident]
    until(lambda: comparison.looks >= 1, 120)
    browser.get("about:blank")                   # the page goes away
    until(lambda: not comparison.running, 30)
    assert comparison.state == "stopped"
    assert comparison.reason.startswith("stopped on the page")   # the page said so, no timeout
    assert comparison.looks < comparison.looks_planned
