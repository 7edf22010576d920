"""write_report end to end on small synthetic run directories (data contract layout)."""
import json
import re
import shutil
import subprocess
from pathlib import Path

import polars as pl
import pytest

from reports.build import write_report
from reports.load import load_runs
from reports.registry import list_metrics
from reports.synthetic import CARD_IDS, write_run
from sim.core.errors import UserError

METRIC_NAMES = [m.name for m in list_metrics()]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("runs")
    return {
        "p4": write_run(base / "p4", players=4, games=300, seed=11),
        "p3ev": write_run(base / "p3ev", players=3, games=300, seed=12, p_a=0.6, p_b=0.15),
        "p3none": write_run(base / "p3none", players=3, games=300, seed=13, compensation="none"),
        "solo": write_run(base / "solo", players=1, games=100, seed=14),
        "p2gr": write_run(base / "p2gr", players=2, games=200, seed=15, strategies=("greedy", "random")),
    }


@pytest.fixture(scope="module")
def report(runs, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    result = write_report([str(p) for p in runs.values()], str(out))
    return out, result


def test_writes_html_markdown_and_one_csv_per_metric(report):
    out, result = report
    assert (out / "report.html").is_file() and (out / "report.md").is_file()
    p2p = [name for name in METRIC_NAMES if not name.startswith("plai_")]
    assert sorted(result["tables"]) == sorted(p2p + ["why_lose"])   # and why everyone loses
    for name in p2p:
        assert (out / f"{name}.csv").is_file()
    assert result["runs"] == 5 and result["games"] == 1200
    assert result["skipped"] == {}   # PLAI's metrics are PLAI's to register
    assert set(result["plots"]) >= {"outcomes", "all_lose", "game_length", "card_start_delta",
                                    "compensation"}


def test_csv_counts_match_the_parquet(report, runs):
    out, _ = report
    raw = pl.read_parquet(Path(runs["p4"]) / "games" / "*.parquet")
    csv = pl.read_csv(out / "outcomes.csv")
    row = csv.filter((pl.col("players") == 4) & (pl.col("outcome") == "B_win")).row(0, named=True)
    assert row["count"] == raw.filter(pl.col("winner") == 1).height
    assert row["games"] == 300
    comp = pl.read_csv(out / "compensation.csv")
    assert sorted(comp["variant"]) == ["extra_venture", "none"]


def test_html_is_self_contained_with_every_plot_embedded(report):
    out, result = report
    text = (out / "report.html").read_text(encoding="utf-8")
    assert "http://" not in text and "https://" not in text
    assert "<script" not in text.lower() and "<link" not in text.lower()
    embedded = text.count('<img src="data:image/png;base64,')
    assert embedded == len(result["plots"]) >= 5
    assert len(re.findall(r"<img\b", text)) == embedded          # no other kind of image
    assert "@media print" in text and "<style>" in text


def test_html_header_states_seed_games_hash_and_rule_options(report, runs):
    out, _ = report
    text = (out / "report.html").read_text(encoding="utf-8")
    header = text.split("</header>")[0]
    manifest = json.loads((Path(runs["p4"]) / "manifest.json").read_text())
    assert manifest["cards"]["sha256"] in header
    assert "11, 12, 13, 14, 15" in header            # seeds
    assert "1,200" in header                        # games
    assert "customer_patience" in header and "unhappy_limit" in header
    assert "extra_venture" in header and "none" in header


def test_wording_in_report_calls_the_planted_imbalance(report):
    out, result = report
    # p3ev planted A 60 % vs B 15 %: A's share of decisive games is about 80 %
    called = [f["text"] for f in result["findings"]
              if f["metric"] == "team_balance" and f["level"] == "imbalance"]
    assert any(t.startswith("3 players, greedy vs greedy, extra_venture") for t in called)
    assert result["imbalances"] >= 1
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "whole 95 % interval lies beyond ±2 pp" in html


def test_markdown_links_the_plot_files(report):
    out, result = report
    md = (out / "report.md").read_text(encoding="utf-8")
    for name in result["plots"]:
        assert f"(plots/{name}.png)" in md
        assert (out / "plots" / f"{name}.png").stat().st_size > 1000


def test_threshold_is_configurable(runs, tmp_path):
    result = write_report([str(runs["p3ev"])], str(tmp_path), threshold_pp=50.0)
    assert result["imbalances"] == 0
    assert "±50 pp" in (tmp_path / "report.html").read_text(encoding="utf-8")


def _copy_with(src, dst, **changes):
    shutil.copytree(src, dst)
    m = json.loads((Path(dst) / "manifest.json").read_text())
    for key, value in changes.items():
        if key == "sha256":
            m["cards"]["sha256"] = value
        elif key == "rules":
            m["rules"].update(value)
        else:
            m[key] = value
    (Path(dst) / "manifest.json").write_text(json.dumps(m))
    return dst


def test_refuses_different_card_files_unless_allow_mixed(runs, tmp_path):
    other = _copy_with(runs["p4"], tmp_path / "other", sha256="f" * 64, seed=99)
    with pytest.raises(UserError, match="card file differs") as err:
        write_report([str(runs["p4"]), str(other)], str(tmp_path / "out"))
    assert "--allow-mixed" in str(err.value)    # the command line's flag, not only Python's
    result = write_report([str(runs["p4"]), str(other)], str(tmp_path / "out"), allow_mixed=True)
    assert result["mixed"] and "card file differs" in result["mixed"][0]
    html = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert "Mixed runs merged on request (allow_mixed)" in html
    assert "Mixed runs merged on request" in (tmp_path / "out" / "report.md").read_text()


def test_merges_a_card_file_resaved_with_other_line_endings_and_comments(runs, tmp_path):
    """Two runs whose card files differ only in line endings, a byte-order mark and a
    comment played the same cards: they merge. Once a file no longer holds what its run
    played, nothing says they are the same, and the report refuses."""
    from sim.core.csvfile import file_sha256

    text = "id,value\nTE1,1\nTE2,2\n"
    lf, crlf = tmp_path / "lf.csv", tmp_path / "crlf.csv"
    lf.write_text(text, encoding="utf-8", newline="")
    crlf.write_bytes(b"\xef\xbb\xbf# saved by a spreadsheet\r\n"
                     + text.replace("\n", "\r\n").encode())
    cards = json.loads((runs["p4"] / "manifest.json").read_text())["cards"]
    a = _copy_with(runs["p4"], tmp_path / "a", seed=97,
                   cards={**cards, "path": str(lf), "sha256": file_sha256(lf)})
    b = _copy_with(runs["p4"], tmp_path / "b", seed=96,
                   cards={**cards, "path": str(crlf), "sha256": file_sha256(crlf)})
    result = write_report([str(a), str(b)], str(tmp_path / "out"))
    assert not result["mixed"]
    crlf.write_bytes(crlf.read_bytes().replace(b"TE2,2", b"TE2,3"))
    with pytest.raises(UserError, match="card file differs"):
        write_report([str(a), str(b)], str(tmp_path / "out2"))


def test_refuses_different_rule_options(runs, tmp_path):
    other = _copy_with(runs["p4"], tmp_path / "other", rules={"customer_patience": 3}, seed=98)
    with pytest.raises(UserError) as err:
        write_report([str(runs["p4"]), str(other)], str(tmp_path / "out"))
    assert "rule option customer_patience differs" in str(err.value)
    assert err.value.field == "rules"


def test_compensation_and_players_differ_on_purpose(runs):
    rs = load_runs([str(runs["p3ev"]), str(runs["p3none"]), str(runs["p4"])])
    assert rs.mixed == [] and rs.total_games == 900
    assert sorted(set(rs.collect()["variant"])) == ["extra_venture", "n/a", "none"]
    assert "odd_team_compensation" not in rs.common_rules and "customer_patience" in rs.common_rules


def test_bad_inputs_are_user_errors(runs, tmp_path):
    with pytest.raises(UserError, match="no manifest.json"):
        write_report([str(tmp_path)], str(tmp_path / "out"))
    with pytest.raises(UserError, match="given twice"):
        write_report([str(runs["p4"]), str(runs["p4"])], str(tmp_path / "out"))
    with pytest.raises(UserError, match="non-negative"):
        write_report([str(runs["p4"])], str(tmp_path / "out"), threshold_pp=-1)
    copy = _copy_with(runs["p4"], tmp_path / "copy")       # same seed and settings
    with pytest.raises(UserError, match="copies"):
        write_report([str(runs["p4"]), str(copy)], str(tmp_path / "out"))
    plai = _copy_with(runs["p4"], tmp_path / "plai", game="plai", seed=5)
    with pytest.raises(UserError, match="different games"):
        write_report([str(runs["p4"]), str(plai)], str(tmp_path / "out"))
    broken = tmp_path / "broken"
    (broken / "games").mkdir(parents=True)
    (broken / "manifest.json").write_text('{"game": "peer-to-peer",\n  "players": }')
    with pytest.raises(UserError) as err:
        write_report([str(broken)], str(tmp_path / "out"))
    assert err.value.line == 2 and str(err.value).startswith("error: ")


def test_other_game_skips_every_p2p_metric(runs, tmp_path):
    """A Peer-to-Peer table labelled PLAI: only PLAI's own metrics are asked, and each is
    skipped for the columns it misses (Peer-to-Peer's metrics are not PLAI's to run)."""
    from reports.registry import game_metrics

    plai = _copy_with(runs["p4"], tmp_path / "plai", game="plai")
    result = write_report([str(plai)], str(tmp_path / "out"))
    assert result["tables"] == {}
    assert set(result["skipped"]) == {m.name for m in game_metrics("plai")}
    assert "Metrics not applicable" in (tmp_path / "out" / "report.html").read_text()


def test_incomplete_run_is_noted(runs, tmp_path):
    part = _copy_with(runs["solo"], tmp_path / "part", complete=False, games=1000)
    write_report([str(part)], str(tmp_path / "out"))
    assert "marked incomplete" in (tmp_path / "out" / "report.html").read_text()


def test_mixed_card_lists_are_reindexed(tmp_path):
    """With allow_mixed and a card file whose order differs, start_card indices follow ids."""
    a = write_run(tmp_path / "a", players=2, games=50, seed=1)
    b = write_run(tmp_path / "b", players=2, games=50, seed=2, card_sha="e" * 64)
    m = json.loads((b / "manifest.json").read_text())
    m["cards"]["ids"] = list(reversed(CARD_IDS))
    (b / "manifest.json").write_text(json.dumps(m))
    result = write_report([str(a), str(b)], str(tmp_path / "out"), allow_mixed=True)
    delta = pl.read_csv(result["tables"]["card_start_delta"])
    raw_b = pl.read_parquet(b / "games" / "*.parquet")
    first = int(raw_b["start_card_0"][0])          # index into b's reversed list
    cid = m["cards"]["ids"][first]
    assert delta.filter(pl.col("card_id") == cid)["starts"].sum() >= 1
    assert set(delta["card_id"]) <= set(CARD_IDS)


# ------------------------------------------------------------------ real browser
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def _chromium():
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def test_report_renders_in_headless_chromium(report, tmp_path):
    binary = _chromium()
    if binary is None:
        pytest.skip("no chromium binary on PATH (install: apt-get install -y chromium)")
    out, _ = report
    shot = tmp_path / "shot.png"
    profile = tmp_path / "profile"
    profile.mkdir()
    cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={profile}", f"--screenshot={shot}", "--window-size=1200,2000",
           (out / "report.html").resolve().as_uri()]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert shot.is_file(), f"chromium wrote no screenshot (rc={proc.returncode}): {proc.stderr[-2000:]}"
    import matplotlib.image as mpimg
    img = mpimg.imread(str(shot))[..., :3]
    assert img.shape[:2] == (2000, 1200)
    assert img.std() > 0.05                       # not a blank page
    not_white = (img < 0.9).any(axis=2).mean()
    assert 0.02 < not_white < 0.9                 # text and tables, not a solid fill


def test_an_interval_near_zero_is_printed_with_enough_decimals_to_show_its_width(tmp_path):
    """All-lose in about 1 of 1,000 of 20,000 games: its Wilson interval (about 0.06 to
    0.16 %) prints with the decimals it needs, never as a point such as 0.1 % [0.1, 0.1]."""
    run = write_run(tmp_path / "rare", players=4, games=20000, seed=5, p_a=0.5, p_b=0.4959,
                    p_draw=0.002, p_all_lose=0.0011)
    write_report([str(run)], str(tmp_path / "out"))
    text = (tmp_path / "out" / "report.md").read_text()
    cells = re.findall(r"(\d+\.\d+) % \[(\d+\.\d+), (\d+\.\d+)\]", text)
    assert cells and all(lo != hi for _, lo, hi in cells), [c for c in cells if c[1] == c[2]]


@pytest.mark.parametrize("lo, hi, digits, scale, expected", [
    (0.449, 0.451, 1, 100.0, 1),              # 44.9 to 45.1: one decimal tells them apart
    (0.00053, 0.00136, 1, 100.0, 2),          # 0.05 to 0.14 %, not 0.1 to 0.1
    (0.0, 0.00019, 1, 100.0, 2),              # 0 of 20,000: 0.00 to 0.02 %
    (-0.0000001, 0.0000001, 1, 100.0, 4),     # -0.0 and +0.0 are one point: as far as it goes
    (0.5, 0.5, 1, 100.0, 1),                  # a point is a point
])
def test_interval_digits(lo, hi, digits, scale, expected):
    from sim.core.wording import interval_digits

    assert interval_digits(lo, hi, digits, scale) == expected


def test_a_report_of_an_edited_card_file_lists_its_changes_from_the_default(tmp_path):
    """The header names what the card file changes (card, field, default -> this file),
    not only its path and sha256; a report of the default cards has no such line."""
    from sim import api
    from sim.games.peer_to_peer.cards import default_cards_path

    edited = tmp_path / "edited.csv"
    edited.write_text(default_cards_path().read_text().replace("SV2,Service 2,Service,2,",
                                                               "SV2,Service 2,Service,3,"))
    run = api.run(game="peer-to-peer", players=4, games=20, seed=1, out=tmp_path / "run",
                  threads=1, progress=False, cards=str(edited)).run_dir
    api.report([run], tmp_path / "rep", replay_games=0, stronger_play=0)
    text = (tmp_path / "rep" / "report.md").read_text()
    assert ("**Card edits:** 1 change from the default card file (card field: default -> this "
            "file): SV2 value: 2 -> 3") in text
    plain = api.run(game="peer-to-peer", players=4, games=20, seed=1, out=tmp_path / "plain",
                    threads=1, progress=False).run_dir
    api.report([plain], tmp_path / "plain-rep", replay_games=0, stronger_play=0)
    assert "Card edits" not in (tmp_path / "plain-rep" / "report.md").read_text()
