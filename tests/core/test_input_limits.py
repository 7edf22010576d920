"""Inputs bounded before they are expanded: YAML aliases, nesting, tags, sizes and number
widths in rules, experiments and strategy files and --rule values; numbers outside their
range refused at parse time; error lines quote short excerpts only."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.core import csvfile, yaml_lines
from sim.core.errors import UserError
from sim.core.options import OptionSet
from sim.core.yaml_lines import compose

pytestmark = pytest.mark.usefixtures("fake_game_registered")


def alias_bomb(levels: int, key: str = "hand_size") -> str:
    """A rule value of nested aliases: 9 ** levels values from a ~230-byte file."""
    parts = ["&a [x,x,x,x,x,x,x,x,x]"]
    for previous, name in zip("abcdefghij", "bcdefghijk"[:levels - 1]):
        parts.append(f"&{name} [" + ",".join([f"*{previous}"] * 9) + "]")
    return f"{key}: [" + ", ".join(parts) + "]\n"


def one_error(result) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr
    assert len(lines[0]) < 400, lines[0]
    return lines[0]


def run_cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_the_seven_level_alias_rules_file_is_refused_small_and_fast(tmp_path):
    """A 238-byte file of seven levels of aliases (531 MB and a 17.5 MB error line if
    expanded) is refused with one short line, exit 2, in a fresh process whose peak memory
    stays far below 300 MB."""
    rules = tmp_path / "bomb.yaml"
    rules.write_text(alias_bomb(7))
    assert len(rules.read_bytes()) < 240
    probe = textwrap.dedent(f"""
        import resource, subprocess, sys
        done = subprocess.run([sys.executable, "-m", "sim.cli", "--rules", {str(rules)!r},
                               "--games", "10", "--out", {str(tmp_path / "run")!r}],
                              capture_output=True, text=True)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        print(done.returncode, peak, repr(done.stderr))
    """)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout.split(" ", 2)
    code, peak_kb, stderr = int(out[0]), int(out[1]), eval(out[2])
    assert code == 2 and stderr.count("\n") == 1 and len(stderr) < 300, stderr
    assert "expands to more than 50,000 values" in stderr
    assert peak_kb < 300_000, f"peak {peak_kb} KB"
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("text, words", [
    (alias_bomb(5), "expands to more than"),
    ("hand_size: &a [1, *a]\n", "contains itself"),
    ("hand_size: " + "[" * 5000 + "]" * 5000 + "\n", "nested more than 32 levels"),
    ("hand_size: !!python/object/apply:os.system ['echo hi']\n", "YAML tag '!!python/"),
    ("hand_size: !!python/name:os.system\n", "is not allowed"),
    ("hand_size: !custom 3\n", "YAML tag '!custom'"),
    ("hand_size: " + "9" * 5000 + "\n", "a number of 5,000 characters"),
    ("hand_size: " + "9" * 41 + ".5\n", "a number of 43 characters"),
    ("hand_size: '" + "x" * 20_000 + "'\n", "a value of 20,000 characters"),
    ("\n".join(f"k{i}: &a{i} [*a{i - 1}]" if i else "k0: &a0 [1]" for i in range(300)),
     "more than 200 aliases"),
])
def test_a_hostile_rules_file_is_one_short_line(tmp_path, text, words):
    rules = tmp_path / "rules.yaml"
    rules.write_text(text)
    line = one_error(run_cli("--rules", rules, "--games", "10", "--out", tmp_path / "run"))
    assert words in line and str(rules) in line


def test_the_same_limits_hold_for_rule_overrides_experiments_and_strategy_files(tmp_path):
    line = one_error(run_cli("--rule", "hand_size=!!python/object/apply:os.system ['x']",
                             "--games", "10"))
    assert "is not allowed" in line and "--rule" in line
    exp = tmp_path / "exp.yaml"
    exp.write_text("e:\n  players: [4]\n  games: 10\n  rules:\n    " + alias_bomb(6))
    line = one_error(run_cli("experiment", "e", "--file", exp, "--out", tmp_path / "x"))
    assert "expands to more than" in line and str(exp) in line
    strategy = tmp_path / "s.yaml"
    strategy.write_text("cardsim_strategy: 1\ngame: peer-to-peer\nweights: !!python/object:x {}\n")
    line = one_error(run_cli("--team-a", f"@{strategy}", "--games", "10",
                             "--out", tmp_path / "y"))
    assert "YAML tag" in line


def test_merge_keys_and_a_few_aliases_still_work():
    root = compose("d: &d {seed: 7}\nx:\n  <<: *d\n  games: 10\n", "f.yaml")
    assert yaml_lines.located(root, "f.yaml").plain()["x"] == {"seed": 7, "games": 10}


def test_an_error_about_a_large_value_quotes_a_short_excerpt(tmp_path):
    from sim.games.peer_to_peer.rules import OPTIONS

    rules = tmp_path / "r.yaml"
    rules.write_text("hand_size: [" + ", ".join(["abcdefgh"] * 5000) + "]\n")
    with pytest.raises(UserError) as caught:
        OPTIONS.resolve(str(rules))
    assert len(str(caught.value)) < 300 and "..." in str(caught.value)
    assert isinstance(OPTIONS, OptionSet)


def test_a_card_file_larger_than_the_limit_is_refused_before_it_is_read(tmp_path, monkeypatch):
    monkeypatch.setattr(csvfile, "MAX_TEXT_BYTES", 1000)
    cards = tmp_path / "cards.csv"
    cards.write_text("id,name\n" + "1,x\n" * 1000)
    line = one_error(run_cli("--cards", cards, "--games", "10", "--out", tmp_path / "r"))
    assert "larger than 1,000 bytes" in line


@pytest.mark.parametrize("args, words", [
    (["--games", "1e999"], "must be at most 1e+12, got 1e999"),
    (["--games", "9" * 5000], "must be at most 1e+12"),
    (["--seed", str(2**64)], "between 0 and 2**63-1"),
    (["--seed", "9" * 5000], "2**63-1"),
    (["--players", "1e999"], "at most"),
    (["trace", "--game-index", "9" * 5000], "--game-index"),
    (["matchups", "--strategies", "greedy,random", "--players", "7"], "must be at most 6, got 7"),
    (["--threads", "5000"], "must be at most 4,096, got 5000"),
    (["tune", "--budget", "1e999", "--out", "x.yaml"], "--budget"),
    (["report", "x", "--out", "y", "--threshold", "1e999"], "--threshold"),
])
def test_numbers_out_of_range_are_refused_at_parse_time(args, words):
    assert words in one_error(run_cli(*args))


def test_experiment_numbers_out_of_range_are_refused(tmp_path):
    exp = tmp_path / "exp.yaml"
    exp.write_text(f"e:\n  players: [4]\n  games: 10\n  seed: {2**64}\n")
    assert "seed" in one_error(run_cli("experiment", "e", "--file", exp))
    exp.write_text("e:\n  players: [4]\n  games: 1e999\n")
    assert "games" in one_error(run_cli("experiment", "e", "--file", exp))
