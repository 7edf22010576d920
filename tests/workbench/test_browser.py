"""The workbench's page in a real headless browser (Debian's chromium + chromium-driver,
through selenium), against the real server (uvicorn on a free port, one per module).

Peer-to-Peer plays for real here with small caps (the kernels compile once per session;
the numba cache is warm after the first run). ``.ci/run`` installs chromium-driver.
"""
from __future__ import annotations

import re
import shutil
import threading
import time
from pathlib import Path

import httpx2
import polars as pl
import pytest

from sim import api
from sim.core.errors import UserError
from sim.core.request import GameRequest
from sim.workbench import inputs
from sim.workbench.bench import Settings
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
    report = httpx2.get(link.get_attribute("href"), timeout=30)
    assert report.status_code == 200 and "<html" in report.text.lower()

    # its answers on the page, each with an example game from the edit's games
    row = browser.find_element(
        "css selector", '#answers tr[data-question="all_lose"][data-players="4"]')
    row.find_element("css selector", "button.show-example").click()
    opened = until(lambda: row.find_elements("css selector", "a.open-example"), 120)[0]
    index = int(opened.get_attribute("data-game"))
    edit = pl.read_parquet(Path(snap.run_dirs[4]["edit"]) / "games" / "*.parquet")
    assert edit.filter(pl.col("game_index") == index)["winner"].item() == 3   # all lose
    assert row.find_element("css selector", ".example").text.startswith(
        f"a game everyone lost, from the edit's games: game {index}: everyone lost in round")
    assert opened.get_attribute("href").endswith(f"/game/{snap.id}/4/{index}")


def test_open_a_changed_game_side_by_side_at_its_first_divergence(server, browser):
    """The designer's loop of a card edit: the card table beside the results, the
    difference's interval drawn look by look, the changed games by kind, one of them
    opened in the game viewer (baseline and edit on the same seed and game index), stepped
    from the setup to the first place the two games differ: the decision that differs."""
    address, _, bench = server
    open_page(browser, address)
    # wide: the card table and the results side by side; narrow: one column, results first
    cards, results = (browser.find_element("id", i).rect for i in ("cards-box", "run-box"))
    assert cards["x"] + cards["width"] <= results["x"]
    assert results["y"] < cards["y"] + cards["height"]
    browser.set_window_size(900, 1000)
    try:
        cards, results = (browser.find_element("id", i).rect for i in ("cards-box", "run-box"))
        assert results["y"] + results["height"] <= cards["y"]
    finally:
        browser.set_window_size(1400, 1000)

    type_into(cell(browser, card_row(browser, "TE13"), "value"), "10")
    set_run_options(browser, games=60_000, width=1.5, chunk=3000)
    browser.find_element("id", "run").click()
    drawn = set()

    def looks_drawn():
        """the looks' plot grows as the looks arrive"""
        count, state = browser.execute_script(
            "const s = document.querySelector('#looks svg[data-players=\"4\"]');"
            "return [s ? s.querySelectorAll('g[data-look]').length : 0,"
            " document.body.dataset.state || ''];")
        drawn.add(count)
        return state in ("decided", "capped", "stopped", "error")

    until(looks_drawn, 300, 0.02)
    assert browser.execute_script("return document.body.dataset.state") in ("decided", "capped")
    comparison = bench.comparisons[browser.execute_script("return document.body.dataset.comparison")]
    assert max(drawn) == comparison.looks and len(drawn - {0}) >= 2   # drawn look by look
    marks = browser.find_elements("css selector", '#looks svg g[data-look] g[data-headline]')
    assert len(marks) == comparison.looks * 3                # every headline at every look

    # the changed games by kind, as the tally has them
    kinds = browser.find_elements("css selector", '#changed .changed-point[data-players="4"] details')
    tally = comparison.tallies[4].changed()
    assert [(k.get_attribute("data-from"), k.get_attribute("data-to"),
             int(k.get_attribute("data-count"))) for k in kinds] == \
        [(k["from"], k["to"], k["count"]) for k in tally]
    kind = next(k for k in kinds if "all-lose" in k.get_attribute("data-to"))
    kind.find_element("css selector", "summary").click()
    kind.find_element("css selector", "button.more").click()
    links = until(lambda: len(kind.find_elements("css selector", "a.game")) ==
                  int(kind.get_attribute("data-count")) and
                  kind.find_elements("css selector", "a.game"), 30)
    # a game of that kind whose two sides part after the setup (in many, the edited card
    # changes a starting venture's choice at the setup already): the viewer's own reading
    plan = comparison.plan
    sides = [GameRequest(game=plan.game, players=4, cards=side.cards,
                         rules_file=side.rules_file) for side in (plan.baseline, plan.edit)]
    parting = {int(link.get_attribute("data-game")): link for link in links[:40]}
    parting = {index: (link, api.compare_games(sides[0], seed=plan.seed, game_index=index,
                                               compare=sides[1])) for index, link in
               parting.items()}
    index, (link, divergence) = next(item for item in parting.items() if item[1][1].step > 0)

    # the viewer opens in a new tab: the same game index, baseline and edit side by side,
    # at their first difference; from the setup, step forward to it
    home = browser.current_window_handle
    link.click()
    until(lambda: len(browser.window_handles) == 2, 30)
    browser.switch_to.window(next(h for h in browser.window_handles if h != home))
    try:
        until(lambda: browser.execute_script("return document.body.dataset.ready") == "1", 120)
        assert f"game {index}" in browser.title
        step = lambda: int(browser.execute_script("return document.body.dataset.step"))  # noqa: E731
        diverged = int(browser.find_element("css selector", "nav#steps button.diverged")
                       .get_attribute("data-step"))
        assert step() == diverged == divergence.step          # it opens there
        browser.find_element("css selector", 'nav#steps button[data-step="0"]').click()
        assert step() == 0
        while step() < diverged:
            assert not browser.find_elements("css selector", "li.divergent")
            browser.find_element("id", "next").click()
        marked = browser.find_elements("css selector", "li.divergent")
        assert 1 <= len(marked) <= 2                           # the line, in each column
        seen = [(m.find_element("css selector", ".text").text,
                 [r.text for r in m.find_elements("css selector", "details tr.chosen")])
                for m in marked]
        assert len(seen) == 1 or seen[0] != seen[1]           # the words or the choice differ
        # a decision: its options open beside it, or its words name the rule's decision
        assert any(m.find_elements("css selector", "details.decision[open]") or
                   re.search(r"\(D[1-5]\)", m.text) for m in marked), seen
    finally:
        browser.close()
        browser.switch_to.window(home)


def test_the_pace_plot_draws_baseline_and_edit_on_one_plot(server, browser):
    """After a comparison, the game's pace: per panel of the game's curves one plot with
    both sides' means (and bands), as the comparison's snapshot has them."""
    address, _, bench = server
    open_page(browser, address)
    type_into(cell(browser, card_row(browser, "TE13"), "value"), "10")
    set_run_options(browser, games=4000, width=50, chunk=2000)
    browser.find_element("id", "run").click()
    until(lambda: browser.execute_script("return document.body.dataset.state") in (
        "decided", "capped", "stopped", "error"), 300)
    assert browser.execute_script("return document.body.dataset.state") in ("decided", "capped")
    comparison = bench.comparisons[browser.execute_script("return document.body.dataset.comparison")]
    pace = comparison.snapshot()["pace"]["4"]
    assert pace["unit"] == "round" and set(pace["sides"]) == {"baseline", "edit"}
    point = browser.find_element("css selector", '#pace .pace-point[data-players="4"]')
    assert point.is_displayed()
    plots = point.find_elements("css selector", "svg.pace-plot")
    assert [p.get_attribute("data-panel") for p in plots] == \
        [panel["name"] for panel in pace["panels"]] + ["games still running"]
    differs = False
    for plot, panel in zip(plots, pace["panels"]):
        for curve in panel["curves"]:
            lines = {}
            for side in ("baseline", "edit"):   # both sides in the same plot
                path = plot.find_element(
                    "css selector", f'path[data-side="{side}"][data-curve="{curve["name"]}"]')
                drawn = path.get_attribute("d")
                shown = [v for v in pace["sides"][side]["curves"][curve["name"]]["mean"]
                         if v is not None]
                assert len(re.findall(r"[ML]", drawn)) == len(shown) > 1   # a point a round
                assert plot.find_elements(
                    "css selector", f'polygon[data-band="{side} {curve["name"]}"]')
                lines[side] = drawn
            differs = differs or lines["baseline"] != lines["edit"]
    assert differs                      # the edit changed the games, so their pace
    running = plots[-1].find_elements("css selector", "path[data-side]")
    assert sorted(p.get_attribute("data-side") for p in running) == ["baseline", "edit"]


def test_a_bad_cell_shows_the_cli_error_beside_it(server, browser, tmp_path):
    address, _, _ = server
    open_page(browser, address)
    row = card_row(browser, "SV2")
    type_into(cell(browser, row, "value"), "two")
    error = until(lambda: browser.find_elements(
        "css selector", f'#cards-table tbody tr[data-row="{row}"] td[data-col="value"] .cell-error'),
        30)
    # the loader's own words for the same file
    state = httpx2.get(address + "api/state", timeout=30).json()
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
    rebinding = httpx2.get(address + "api/state", headers={"Host": f"attacker.example:{port}"},
                           timeout=30)
    cross_site = httpx2.post(address + "api/validate", json={},
                             headers={"Origin": "http://attacker.example"}, timeout=30)
    own = httpx2.get(address + "api/state", timeout=30)
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
    assert labels == [f"seat {s} win rate" for s in range(seats)] + ["maintainers win rate",
                                                                     "stalemate rate"]


def start_sv1_edit(browser, address, games, width, chunk) -> str:
    """Open the page, set Service 1's value to 2 and start the comparison: its id."""
    open_page(browser, address)
    set_run_options(browser, games=games, width=width, chunk=chunk)
    type_into(cell(browser, card_row(browser, "SV1"), "value"), "2")
    browser.find_element("id", "run").click()
    return until(lambda: browser.execute_script("return document.body.dataset.comparison"), 30)


def test_a_closed_page_stops_its_comparison(server, browser):
    address, _, bench = server
    ident = start_sv1_edit(browser, address, games=200_000, width=0.01, chunk=2000)
    comparison = bench.comparisons[ident]
    until(lambda: comparison.looks >= 1, 120)
    browser.get("about:blank")                   # the page goes away
    until(lambda: not comparison.running, 30)
    assert comparison.state == "stopped"
    assert comparison.reason.startswith("stopped on the page")   # the page said so, no timeout
    assert comparison.looks < comparison.looks_planned


def _start_long_run(browser, address, bench):
    """A comparison that runs for minutes unless stopped, after one card edit."""
    ident = start_sv1_edit(browser, address, games=200_000, width=0.01, chunk=2000)
    comparison = bench.comparisons[ident]
    until(lambda: comparison.looks >= 1, 120)
    return comparison


def test_a_server_that_stops_answering_mid_run_is_an_error_and_the_edits_stay(server,
                                                                              browser):
    address, _, bench = server
    comparison = _start_long_run(browser, address, bench)
    # the server goes away: every request of the page fails as a stopped server's would
    browser.execute_script("window.fetch = () => Promise.reject(new TypeError('Failed to fetch'))")
    until(lambda: browser.execute_script("return document.body.dataset.state === 'error'"), 30)
    assert "does not answer" in browser.find_element("id", "status").text
    assert browser.find_element("id", "run").is_enabled()
    assert not browser.find_element("id", "stop").is_enabled()
    assert cell(browser, card_row(browser, "SV1"), "value").get_attribute("value") == "2"
    comparison.stop()
    until(lambda: not comparison.running, 30)


def test_a_hung_server_mid_run_is_an_error_after_the_polls_timeout(server, browser):
    address, _, bench = server
    comparison = _start_long_run(browser, address, bench)
    # the server hangs (as under SIGSTOP): a request is never answered, only abandoned
    browser.execute_script(
        "pollTimeoutSeconds = 1;"
        "window.fetch = (path, options) => new Promise((resolve, reject) => {"
        "  if (options && options.signal) options.signal.addEventListener('abort',"
        "    () => reject(new DOMException('aborted', 'AbortError')));"
        "});")
    until(lambda: browser.execute_script("return document.body.dataset.state === 'error'"), 30)
    assert "did not answer for 1 s" in browser.find_element("id", "status").text
    assert browser.find_element("id", "run").is_enabled()
    assert cell(browser, card_row(browser, "SV1"), "value").get_attribute("value") == "2"
    comparison.stop()
    until(lambda: not comparison.running, 30)


def test_a_server_gone_before_a_report_an_example_a_download_or_a_run_is_said(server,
                                                                              browser):
    """Each button's request fails as a stopped server's would: the page says the server
    is gone instead of waiting for an answer forever."""
    address, _, _ = server
    open_page(browser, address)
    browser.execute_script(
        "current = 'gone';"
        "showAnswers({answers: [{question: 'all_lose', players: 4, title: 'Why all lose',"
        "             where: '4 players', words: 'mostly the deck'}],"
        "             examples: ['all_lose'], side: 'edit'}, 'gone');"
        "window.fetch = () => Promise.reject(new TypeError('Failed to fetch'));")

    def gone():
        """the page's state is error"""
        return browser.execute_script("return document.body.dataset.state === 'error'")

    def again():
        browser.execute_script("document.body.dataset.state = '';"
                               "document.getElementById('status').textContent = ''")

    browser.execute_script("report()")
    until(lambda: "does not answer" in browser.find_element("id", "report-status").text, 30)
    assert gone()
    again()
    button = browser.find_element("css selector", "#answers button.show-example")
    button.click()
    until(lambda: "does not answer" in browser.find_element(
        "css selector", "#answers .example").text, 30)
    assert gone() and button.is_enabled()
    for name in ("download-cards", "download-rules", "run"):
        again()
        browser.find_element("id", name).click()
        until(gone, 30)
        assert "does not answer" in browser.find_element("id", "status").text, name
    assert browser.find_element("id", "run").is_enabled()


def test_leaving_the_page_mid_run_or_with_unsaved_edits_asks_first(server, browser):
    address, _, bench = server
    leave = ("const e = new Event('beforeunload', {cancelable: true});"
             "window.dispatchEvent(e); return e.defaultPrevented;")
    open_page(browser, address)
    assert browser.execute_script(leave) is False          # nothing to lose yet
    type_into(cell(browser, card_row(browser, "SV1"), "value"), "2")
    assert browser.execute_script(leave) is True           # an unsaved edit
    type_into(browser.find_element("id", "cards-name"), "kept.csv")
    browser.find_element("id", "save").click()
    until(lambda: "saved" in browser.find_element("id", "save-status").text, 30)
    assert browser.execute_script(leave) is False          # saved
    comparison = _start_long_run(browser, address, bench)
    type_into(browser.find_element("id", "cards-name"), "kept-while-running.csv")
    browser.find_element("id", "save").click()             # saved, but still running
    until(lambda: "saved" in browser.find_element("id", "save-status").text, 30)
    assert browser.execute_script(leave) is True
    browser.find_element("id", "stop").click()
    until(lambda: not comparison.running, 30)


def test_switching_the_game_with_unsaved_edits_asks_first_and_keeps_them_on_no(server,
                                                                               browser):
    from selenium.webdriver.support.ui import Select

    address, _, _ = server
    open_page(browser, address)
    row = card_row(browser, "TE13")
    type_into(cell(browser, row, "value"), "10")
    browser.execute_script("window.asked = []; window.confirm = (words) => "
                           "{ window.asked.push(words); return false; }")
    Select(browser.find_element("id", "game")).select_by_value("plai")
    time.sleep(0.5)
    assert len(browser.execute_script("return window.asked")) == 1
    assert "unsaved edits" in browser.execute_script("return window.asked[0]")
    assert browser.find_element("id", "game").get_attribute("value") == "peer-to-peer"
    assert cell(browser, row, "value").get_attribute("value") == "10"   # kept
    browser.execute_script("document.body.dataset.ready = ''; window.confirm = () => true")
    Select(browser.find_element("id", "game")).select_by_value("plai")
    until(lambda: browser.execute_script("return document.body.dataset.ready === '1'"), 30)
    assert browser.find_element("id", "game").get_attribute("value") == "plai"


def test_a_seed_beyond_two_to_the_53_is_played_as_typed(server, browser):
    address, _, bench = server
    open_page(browser, address)
    set_run_options(browser, games=2000, width=50, chunk=2000)
    type_into(browser.find_element("id", "seed"), "9007199254740993")
    browser.find_element("id", "run").click()
    ident = until(lambda: browser.execute_script("return document.body.dataset.comparison"), 30)
    until(lambda: not bench.comparisons[ident].running, 120)
    assert bench.comparisons[ident].plan.seed == 9007199254740993
    until(lambda: "--seed 9007199254740993" in browser.find_element("id", "command").text, 30)
    until(lambda: browser.execute_script("return document.body.dataset.state") in (
        "decided", "capped", "stopped"), 60)     # the page has seen the run end: Run is back
    type_into(browser.find_element("id", "seed"), "9223372036854775808")   # 2**63
    browser.find_element("id", "run").click()
    problem = until(lambda: browser.find_element("id", "problem").is_displayed()
                    and browser.find_element("id", "problem").text, 30)
    assert "2**63-1" in problem and "9223372036854775808" in problem


def test_switching_the_game_mid_run_stops_the_run_and_clears_its_results(server, browser):
    from selenium.webdriver.support.ui import Select

    address, _, bench = server
    comparison = _start_long_run(browser, address, bench)
    until(lambda: browser.find_elements("css selector", "table.point"), 30)
    browser.execute_script("document.body.dataset.ready = ''; window.confirm = () => true")
    Select(browser.find_element("id", "game")).select_by_value("plai")
    until(lambda: browser.execute_script("return document.body.dataset.ready === '1'"), 30)
    until(lambda: not comparison.running, 30)
    assert comparison.state == "stopped"
    time.sleep(1)                                  # a poll in flight lands on nothing
    assert browser.find_elements("css selector", "table.point") == []
    assert browser.find_element("id", "run").is_enabled()
    assert browser.find_element("id", "status").text == "idle"
    assert browser.execute_script("return document.body.dataset.comparison") is None


def test_each_interval_says_its_level(server, browser):
    """The table's intervals are at the stopping rule's z, the balance line's at 95 %."""
    address, _, bench = server
    ident = start_sv1_edit(browser, address, games=2000, width=50, chunk=1000)
    until(lambda: not bench.comparisons[ident].running, 120)
    until(lambda: browser.execute_script(
        "return ['capped', 'decided'].includes(document.body.dataset.state)"), 30)
    z = f"{bench.comparisons[ident].z:.2f}"
    heads = [th.text for th in browser.find_elements("css selector", "table.point th")]
    assert f"baseline % [z = {z}]" in heads and f"edit % [z = {z}]" in heads
    assert f"interval (pp, z = {z})" in heads
    lines = [li.text for li in browser.find_elements("css selector", "ul.balance li")]
    assert lines and all("at 95 %" in line and f"z = {z}" in line for line in lines)
    change = [li.text for li in browser.find_elements("css selector", "ul.balance-change li")]
    assert change and all("(paired, at the table's z = " + z + ")" in line for line in change)
    # why the all-lose rate changed, by cause, at the table's z too
    causes = [li.text for li in browser.find_elements("css selector", "ul.all-lose-causes li")]
    assert causes[0].startswith("why the all-lose rate changed: ")
    assert [line.split(":")[0] for line in causes[1:]] == ["deck", "draw", "capacity",
                                                          "choice", "all causes"]
    assert all("per 1,000 games" in line and f"z = {z})" in line for line in causes[1:])
    # the finished comparison's changes under stronger play, at 95 % as simulate compare's
    seconds = browser.find_element("id", "stronger-seconds")
    seconds.clear()
    seconds.send_keys("1")
    browser.find_element("id", "stronger").click()
    until(lambda: browser.find_elements("css selector", "div.stronger li"), 600)
    head = browser.find_element("css selector", "div.stronger h4").text
    assert "with search on every side" in head and "at 95 %" in head
    stronger = [li.text for li in browser.find_elements("css selector", "div.stronger li")]
    assert any(line.startswith("team A's share of the games won by a team: the edit's change ")
               for line in stronger)


def test_the_looks_plot_spans_the_looks_so_far_not_every_planned_look(server, browser):
    address, _, bench = server
    comparison = _start_long_run(browser, address, bench)     # 100 looks planned
    until(lambda: comparison.looks >= 3, 120)
    comparison.stop()
    until(lambda: browser.execute_script("return document.body.dataset.state === 'stopped'"), 30)
    plot = browser.find_element("css selector", "svg.looks-plot")
    last = int(plot.get_attribute("data-looks"))
    assert comparison.looks_planned == 100 and last >= 3
    marks = browser.execute_script(
        "return Array.from(arguments[0].querySelectorAll('g[data-look] circle'))"
        ".map((c) => Number(c.getAttribute('cx')));", plot)
    left, right = 56, 640 - 12                                 # the plot's frame
    assert (max(marks) - left) / (right - left) > 0.2          # not squeezed into 5 %
    assert max(marks) < right
