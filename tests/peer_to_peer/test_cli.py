"""The simulate CLI with the real Peer-to-Peer game (click's CliRunner)."""
import json

import polars as pl
import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.games.peer_to_peer.cards import default_cards_path

HEADER = "id,name,domain,value,kind,start,effect"


@pytest.fixture(scope="module")
def default_rows():
    lines = default_cards_path().read_text().splitlines()
    return [line for line in lines if line and not line.startswith("#")][1:]


def _write(tmp_path, rows, header=HEADER, name="cards.csv"):
    path = tmp_path / name
    path.write_text("\n".join([header, *rows]) + "\n")
    return str(path)


def _replace(rows, card_id, column, value):
    cols = HEADER.split(",")
    out = []
    for row in rows:
        cells = row.split(",")
        if cells[0] == card_id:
            cells[cols.index(column)] = value
        out.append(",".join(cells))
    return out


def test_json_summary_has_the_stable_keys(runner, tmp_path):
    result = runner.invoke(main, ["--games", "2e3", "--json", "--out", str(tmp_path / "r"),
                                  "--no-progress"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    for key in ("game", "players", "games", "seed", "wall_seconds", "games_per_second",
                "run_dir", "teams", "draw_rate", "all_lose_rate", "mean_rounds"):
        assert key in summary
    assert summary["games"] == 2000 and summary["players"] == 4
    for team in ("A", "B"):
        rate = summary["teams"][team]
        assert rate["ci_low"] <= rate["win_rate"] <= rate["ci_high"]
    games = pl.read_parquet(f"{summary['run_dir']}/games/*.parquet")
    assert games.height == 2000
    expected_all_lose = (games["winner"] == 3).mean()
    assert summary["all_lose_rate"] == pytest.approx(expected_all_lose)


def test_the_summary_says_why_everyone_loses(runner, tmp_path):
    """The unhappy customers of the all-lose games by cause (P2P-R5), as the report's "Why
    everyone loses" counts them, on the line under the everyone-loses rate."""
    result = runner.invoke(main, ["--games", "2e3", "--json", "--out", str(tmp_path / "r"),
                                  "--no-progress"])
    assert result.exit_code == 0, result.output
    why = json.loads(result.stdout)["why_all_lose"]
    games = pl.read_parquet(str(tmp_path / "r" / "games" / "*.parquet"))
    lost = games.filter(pl.col("winner") == 3)
    counts = {c["cause"]: int(lost[f"unhappy_{c['cause']}"].sum()) for c in why["causes"]}
    assert why["all_lose_games"] == lost.height > 0
    assert why["unhappy_customers"] == sum(counts.values()) > 0
    for c in why["causes"]:
        assert c["share"] == pytest.approx(counts[c["cause"]] / sum(counts.values()))
        assert c["lo"] <= c["share"] <= c["hi"]
    assert why["main_cause"] == max(counts, key=counts.get)
    text = runner.invoke(main, ["--resume", str(tmp_path / "r"), "--no-progress"])
    lines = text.output.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("everyone loses"))
    assert lines[at + 1] == f"  why: {why['words']}"
    assert why["words"].startswith(("mostly " + why["main_cause"],
                                    "most often " + why["main_cause"]))


def test_a_run_no_team_won_prints_strict_json_and_no_balance(runner, tmp_path):
    """One round a game: every game times out, no team wins, so there is no team-balance
    answer (null, not NaN, which JSON does not allow) and the table says so."""
    result = runner.invoke(main, ["--games", "500", "--rule", "max_rounds=1", "--json",
                                  "--out", str(tmp_path / "r"), "--no-progress"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output, parse_constant=lambda name: pytest.fail(name))
    assert doc["timeout_rate"] == 1.0 and doc["team_balance"] is None
    saved = (tmp_path / "r" / "summary.json").read_text()
    assert "NaN" not in saved and json.loads(saved)["team_balance"] is None
    table = runner.invoke(main, ["--games", "500", "--rule", "max_rounds=1",
                                 "--out", str(tmp_path / "t"), "--no-progress"])
    assert table.exit_code == 0 and "nan" not in table.output.lower(), table.output
    assert "no answer, no game was won by a team" in table.output


def test_cards_command_prints_the_default_file(runner):
    result = runner.invoke(main, ["cards", "--game", "peer-to-peer"])
    assert result.exit_code == 0
    assert "reconstruction" in result.stdout.splitlines()[0].lower()
    assert HEADER in result.stdout


def test_trace_names_cards_and_ends_with_scoring(runner):
    result = runner.invoke(main, ["trace", "--seed", "3", "--game-index", "17"])
    assert result.exit_code == 0, result.output
    assert "Round 1" in result.stdout and "Scoring" in result.stdout
    assert "Service" in result.stdout or "Technology" in result.stdout


def test_a_run_and_a_trace_name_the_card_file_and_rules_they_played(runner, tmp_path,
                                                                       default_rows):
    """An edit's summary, JSON and trace name its card file (path and SHA-256 start) and
    its rule changes, so they never look like the baseline's; the default's summary adds
    nothing, its trace names the default file."""
    from sim.core.csvfile import file_sha256

    cards = _write(tmp_path, _replace(default_rows, "TE12", "value", "11"))
    sha = file_sha256(cards)
    args = ["--games", "300", "--no-progress", "--cards", cards, "--rule", "customer_patience=3"]
    text = runner.invoke(main, [*args, "--out", str(tmp_path / "edit")])
    assert text.exit_code == 0, text.output
    assert f"played with cards: {cards} (sha256 {sha[:12]}…); --rule customer_patience=3" in text.output
    doc = json.loads(runner.invoke(main, [*args, "--json", "--out", str(tmp_path / "j")]).output)
    assert doc["cards"] == {"path": cards, "sha256": sha}
    assert doc["rule_overrides"] == ["customer_patience=3"] and doc["rules_file"] is None
    base = runner.invoke(main, ["--games", "300", "--no-progress", "--out", str(tmp_path / "b")])
    assert base.exit_code == 0 and "played with" not in base.output
    trace = runner.invoke(main, ["trace", "--game-index", "0", "--cards", cards])
    assert trace.output.splitlines()[1] == f"cards: {cards} (sha256 {sha[:12]}…)"
    trace = runner.invoke(main, ["trace", "--game-index", "0"])
    assert "cards: the default card file (tech-deck-reconstruction.csv" in trace.output


BAD_FILES = {
    "unknown domain": (lambda rows: _replace(rows, "SV2", "domain", "Marketing"), "domain"),
    "unknown kind": (lambda rows: _replace(rows, "SV2", "kind", "building"), "kind"),
    "unknown effect": (lambda rows: _replace(rows, "SV10", "effect", "teleport 2"), "effect"),
    "duplicate id": (lambda rows: _replace(rows, "SV3", "id", "SV2"), "id"),
    "value not an integer": (lambda rows: _replace(rows, "TE5", "value", "five"), "value"),
    "S cards not 5 per team": (lambda rows: _replace(rows, "SV1", "start", ""), "start"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_card_file_is_one_line_naming_file_line_and_field(runner, tmp_path, default_rows,
                                                              case):
    change, field = BAD_FILES[case]
    path = _write(tmp_path, change(default_rows))
    result = runner.invoke(main, ["--games", "10", "--cards", path, "--out",
                                  str(tmp_path / "r"), "--no-progress"])
    assert result.exit_code == 2
    message = result.stderr.strip()
    assert len(message.splitlines()) == 1 and "Traceback" not in result.output
    assert path in message and f"'{field}'" in message
    if case != "S cards not 5 per team":  # a whole-file check names no single row
        assert f"{path}:" in message


def test_missing_column_is_an_error(runner, tmp_path, default_rows):
    without_start = [",".join(r.split(",")[:5] + r.split(",")[6:]) for r in default_rows]
    path = _write(tmp_path, without_start, header="id,name,domain,value,kind,effect")
    result = runner.invoke(main, ["--games", "10", "--cards", path, "--no-progress"])
    assert result.exit_code == 2
    assert "'start'" in result.stderr and path in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_the_effect_column_is_optional(runner, tmp_path, default_rows):
    without_effect = [",".join(r.split(",")[:6]) for r in default_rows]
    path = _write(tmp_path, without_effect, header="id,name,domain,value,kind,start",
                  name="plain.csv")
    ok = runner.invoke(main, ["--games", "10", "--cards", path, "--out", str(tmp_path / "ok"),
                              "--no-progress"])
    assert ok.exit_code == 0, ok.output


def test_too_few_venture_cards_for_the_player_count(runner, tmp_path, default_rows):
    rows = default_rows
    for card in ("SV10", "SV11", "SV12", "SV13", "TE10", "TE11", "TE12", "TE13"):
        rows = _replace(rows, card, "kind", "group")   # without their venture effects (P2P-E)
        rows = _replace(rows, card, "effect", "")
    path = _write(tmp_path, rows)
    fine = runner.invoke(main, ["--games", "10", "--players", "4", "--cards", path, "--out",
                                str(tmp_path / "r4"), "--no-progress"])
    assert fine.exit_code == 0, fine.output  # 8 ventures are enough for 4 seats
    result = runner.invoke(main, ["--games", "10", "--players", "5", "--cards", path, "--out",
                                  str(tmp_path / "r5"), "--no-progress"])
    assert result.exit_code == 2
    assert "venture" in result.stderr and path in result.stderr


@pytest.mark.parametrize("args, needle", [
    (["--rule", "nonsense=3"], "nonsense"),
    (["--rule", "customer_patience=zero"], "customer_patience"),
    (["--players", "7"], "players"),
    (["--team-a", "nobody"], "greedy"),
    (["--team-a", "builder:speed=3"], "threshold"),
    (["--games", "1.5e"], "--games"),
])
def test_bad_options_are_one_line_errors(runner, tmp_path, args, needle):
    result = runner.invoke(main, ["--games", "10", "--out", str(tmp_path / "r"), "--no-progress",
                                  *args])
    assert result.exit_code == 2
    assert needle in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("slot", ["C", "seat0", "all"])
def test_a_strategy_for_a_team_the_game_lacks_is_refused(slot):
    """Peer-to-Peer's strategies are keyed A and B (either case): any other key would
    silently play the default, so it is refused (as PLAI refuses a seat it lacks)."""
    from sim.core.errors import UserError
    from sim.core.game import configure

    with pytest.raises(UserError, match=f"no team '{slot}'.*keyed A and B"):
        configure("peer-to-peer", 4, strategies={slot: "greedy"})
    assert configure("peer-to-peer", 4, strategies={"a": "greedy"}).strategies["A"][0] == \
        "greedy"


def test_compare_says_a_strategy_file_was_edited_between_two_runs(tmp_path):
    """The same strategy name (@FILE) with other weights: compare names the change, which
    the names alone would hide."""
    from sim import api

    strategy = tmp_path / "mine.yaml"
    strategy.write_text("cardsim_strategy: 1\ngame: peer-to-peer\nname: mine\nbase: greedy\n"
                        "weights:\n  early.commit.cards: -1.0\n")
    for out in ("a", "b"):
        api.run(games=300, strategies={"A": f"@{strategy}"}, out=tmp_path / out, threads=1,
                progress=False)
        strategy.write_text(strategy.read_text().replace("-1.0", "-2.0"))
    result = api.compare(tmp_path / "a", tmp_path / "b")
    assert not result.changes["same"]
    assert "a strategy file was edited between the runs" in result.to_text()
