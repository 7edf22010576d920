"""The first screen of report.html in headless Chromium (1280 x 800) shows the answers table.

The answers table colours each row by its answer (balanced green, imbalance red, not
decided amber, a plain rate blue; reports/render.py CSS): the screenshot's first screen
must hold those row colours over a good part of its area, and the row colours must start
near the top (the table opens the report, before any configuration table)."""
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from reports.build import write_report
from reports.synthetic import write_run

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
ROW_COLOURS = {"balanced": (0xE3, 0xF4, 0xE1), "imbalance": (0xFB, 0xE0, 0xDE),
               "not decided": (0xFF, 0xF0, 0xD6), "rate": (0xE4, 0xEE, 0xF8)}


def chromium() -> str | None:
    for name in CHROMIUM_NAMES:
        if shutil.which(name):
            return shutil.which(name)
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


def screenshot(html: Path, shot: Path, profile: Path, size=(1280, 800)) -> np.ndarray:
    binary = chromium()
    if binary is None:
        pytest.skip("no chromium binary (install: apt-get install -y chromium)")
    profile.mkdir(exist_ok=True)
    cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--hide-scrollbars", f"--user-data-dir={profile}", f"--screenshot={shot}",
           f"--window-size={size[0]},{size[1]}", html.resolve().as_uri()]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert shot.is_file(), f"chromium wrote no screenshot (rc={proc.returncode}): {proc.stderr[-2000:]}"
    import matplotlib.image as mpimg

    return (mpimg.imread(str(shot))[..., :3] * 255).round().astype(int)


def row_colour_rows(img: np.ndarray) -> dict[str, np.ndarray]:
    """Per answer colour, the screen rows (y) where it fills at least a fifth of the width."""
    out = {}
    for name, rgb in ROW_COLOURS.items():
        hit = (np.abs(img - np.array(rgb)).sum(axis=2) <= 6)
        out[name] = np.flatnonzero(hit.mean(axis=1) > 0.2)
    return out


def first_screen_shows_answers(img: np.ndarray) -> bool:
    rows = row_colour_rows(img)
    covered = np.unique(np.concatenate(list(rows.values())))
    return covered.size > 0.25 * img.shape[0] and covered.min() < 0.35 * img.shape[0] \
        and sum(r.size > 0 for r in rows.values()) >= 2


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    base = tmp_path_factory.mktemp("screen")
    runs = [write_run(base / "p3", players=3, games=3000, seed=3, p_a=0.45, p_b=0.3),
            write_run(base / "p5", players=5, games=3000, seed=5)]
    write_report([str(r) for r in runs], str(base / "out"))
    return base / "out" / "report.html"


def test_first_screen_shows_the_answers_table(report, tmp_path):
    img = screenshot(report, tmp_path / "shot.png", tmp_path / "profile")
    assert img.shape[:2] == (800, 1280)
    assert first_screen_shows_answers(img)
    html = report.read_text()
    assert html.index('id="answers"') < html.index('id="configuration"')
    assert html.index("<table") > html.index('id="answers"')     # the first table is it


def test_the_check_fails_on_a_page_that_opens_with_configuration(report, tmp_path):
    """The same report with its configuration section moved to the top (as before issue
    25): the check above says no."""
    html = report.read_text()
    start, end = html.index('<section id="configuration">'), html.index("</section></body>")
    config = html[start:end + len("</section>")]
    body = html.index("<h1>")
    moved = html[:body] + config + html[body:start] + html[end + len("</section>"):]
    page = tmp_path / "moved.html"
    page.write_text(moved)
    img = screenshot(page, tmp_path / "moved.png", tmp_path / "profile2")
    assert not first_screen_shows_answers(img)
