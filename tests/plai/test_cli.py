"""The simulate CLI with PLAI (click's CliRunner): run --json keys, trace, cards, --seat,
--strategy, and one-line errors."""
import json

import polars as pl
import pytest
from click.testing import CliRunner

from sim.cli import main

SEAT_KEYS = {"win_rate", "ci_low", "ci_high"}


@pytest.fixture(scope="module")
def run3(runner, tmp_path_factory):
    out = tmp_path_factory.mktemp("plai_cli") / "run"
    result = runner.invoke(main, ["--game", "plai", "--players", "3", "--games", "300",
                                  "--seed", "5", "--json", "--out", str(out), "--no-progress",
                                  "--threads", "1", "--seat", "0=bluffer:rate=0.3",
                                  "--strategy", "aggressive"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout), out


def test_json_has_the_peer_to_peer_keys_and_the_plai_ones(run3):
    summary, out = run3
    for key in ("game", "players", "games", "seed", "wall_seconds", "games_per_second",
                "run_dir", "draw_rate", "all_lose_rate", "seats", "maintainers_win_rate",
                "stalemate_rate", "mean_turns"):
        assert key in summary, key
    assert (summary["game"], summary["players"], summary["games"], summary["seed"]) == \
        ("plai", 3, 300, 5)
    assert set(summary["seats"]) == {"0", "1", "2"}
    games = pl.read_parquet(f"{out}/games/*.parquet")
    assert games.height == 300
    for seat, rate in summary["seats"].items():
        assert set(rate) == SEAT_KEYS
        wins = ((games["outcome"] == 0) & (games["winner"] == int(seat))).sum()
        assert rate["win_rate"] == pytest.approx(wins / 300)
        assert rate["ci_low"] <= rate["win_rate"] <= rate["ci_high"]
    assert summary["maintainers_win_rate"] == pytest.approx((games["outcome"] == 1).mean())
    assert summary["stalemate_rate"] == pytest.approx((games["outcome"] == 2).mean())
    assert summary["mean_turns"] == pytest.approx(games["turns"].cast(pl.Float64).mean())


def test_seat_and_strategy_reach_the_manifest(run3):
    _, out = run3
    manifest = json.loads((out / "manifest.json").read_text())
    chosen = {seat: s["name"] for seat, s in manifest["strategies"].items()}
    assert chosen == {"seat0": "bluffer", "seat1": "aggressive", "seat2": "aggressive"}
    assert manifest["strategies"]["seat0"]["params"] == {"rate": 0.3}
    assert "--seat 0=bluffer:rate=0.3" in manifest["command_line"]


def test_trace_replays_a_game_of_the_run(runner, run3):
    _, out = run3
    games = pl.read_parquet(f"{out}/games/*.parquet").sort("game_index")
    row = games.row(7, named=True)
    result = runner.invoke(main, ["trace", "--game", "plai", "--players", "3", "--seed", "5",
                                  "--game-index", "7", "--seat", "0=bluffer:rate=0.3",
                                  "--strategy", "aggressive"])
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "seat 0: bluffer:rate=0.3, seat 1: aggressive, seat 2: aggressive" in text
    assert "turn 1: seat 0" in text
    want = (f"seat {row['winner']} wins" if row["outcome"] == 0 else
            "the maintainers win" if row["outcome"] == 1 else "stalemate")
    assert f"result: {want} after {row['turns']} turns" in text


def test_trace_inherits_game_options_from_the_group(runner):
    result = runner.invoke(main, ["--game", "plai", "--players", "2", "trace", "--game-index",
                                  "0", "--strategy", "random"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("PLAI, 2 players") and "seat 1: random" in result.stdout


def test_cards_prints_the_plai_card_file(runner):
    result = runner.invoke(main, ["cards", "--game", "plai"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert "RECONSTRUCTION" in lines[0]
    assert "id,name,type,strength,numeral,copies,effect" in lines
    assert any("GDPR Fine" in line for line in lines)


def test_report_command_on_a_plai_run(runner, run3, tmp_path):
    _, out = run3
    result = runner.invoke(main, ["report", str(out), "--out", str(tmp_path / "rep")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "rep" / "plai_seats.csv").is_file()
    assert (tmp_path / "rep" / "plai_card_fights.csv").is_file()


def test_help_shows_the_seat_options(runner):
    result = runner.invoke(main, ["--help"])
    assert "--seat N=NAME" in result.stdout and "--strategy NAME" in result.stdout
    assert "--game plai" in result.stdout


BAD = {
    "team on plai": (["--game", "plai", "--team-a", "random"], "--team-a/--team-b choose"),
    "team b on plai": (["--game", "plai", "--team-b", "random"], "use --seat N=SPEC"),
    "seat on p2p": (["--seat", "0=random"], "peer-to-peer has teams"),
    "strategy on p2p": (["--strategy", "random"], "field '--strategy'"),
    "seat without =": (["--game", "plai", "--seat", "random"], "expected N=NAME"),
    "seat not a number": (["--game", "plai", "--seat", "x=random"], "expected N=NAME"),
    "seat empty spec": (["--game", "plai", "--seat", "1="], "expected N=NAME"),
    "seat twice": (["--game", "plai", "--seat", "1=random", "--seat", "1=cautious"],
                   "seat 1 is given twice"),
    "seat beyond players": (["--game", "plai", "--players", "2", "--seat", "2=random"],
                            "no seat 'seat2' in a 2-player game"),
    "unknown strategy": (["--game", "plai", "--strategy", "nosuch"], "unknown strategy 'nosuch'"),
    "unknown parameter": (["--game", "plai", "--seat", "0=bluffer:speed=2"], "speed"),
    "six players": (["--game", "plai", "--players", "6"], "played by 2, 3, 4, 5 players"),
    "trace team on plai": (["trace", "--game", "plai", "--game-index", "0", "--team-a", "x"],
                           "--team-a/--team-b choose"),
}


@pytest.mark.parametrize("args,needle", list(BAD.values()), ids=list(BAD))
def test_bad_options_are_one_line_errors(runner, args, needle, tmp_path):
    args = args + (["--games", "10", "--out", str(tmp_path / "r")] if args[0] != "trace" else [])
    result = runner.invoke(main, args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr
    assert needle in lines[0]
    assert not (tmp_path / "r").exists()


def test_resume_refuses_seat_options(runner, run3):
    _, out = run3
    result = runner.invoke(main, ["--resume", str(out), "--seat", "0=random"])
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "--seat" in result.stderr
