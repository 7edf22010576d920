"""Property-based fuzzing of PLAI card CSVs and experiments.yaml.

Every generated input either gives one clean error line and exit code 2 (and no run
directory), or is valid and runs. Nothing crashes, hangs or leaves a partial run.
"""
from pathlib import Path

import pytest
import yaml
from fuzz_support import assert_clean_outcome, fresh_dir, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.games.plai.game import GAME as PLAI

FUZZ = settings(max_examples=500, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
PLAI_LINES = Path(PLAI.default_cards_path()).read_text().splitlines()

cell_text = st.one_of(
    st.sampled_from(["", "0", "-1", "-99", "3", "1e3", "x", "I", "II", "III", "IV", "adversary",
                     "use_case", "buzzword", "special", "market_event", "monster", "negate",
                     "negate 2", "all_draw", "all_draw 2", "steal_random x", "0", "100000",
                     "discard_random_rival_played 1", "\"", " ", "#"]),
    st.text(max_size=12),
)



@pytest.fixture(scope="module", autouse=True)
def warm_kernels():
    for game, players in (("plai", "3"), ("peer-to-peer", "2")):
        result = run_cli(["--game", game, "--players", players, "--games", "3", "--out",
                          str(fresh_dir()), "--no-progress"])
        assert result.exit_code == 0, result.output


@st.composite
def mutated_plai_file(draw):
    lines = list(PLAI_LINES)
    for _ in range(draw(st.integers(1, 4))):
        if len(lines) < 3:
            break
        i = draw(st.integers(1, len(lines) - 1))
        kind = draw(st.sampled_from(["cell", "drop_line", "dup_line", "insert", "header"]))
        if kind in ("cell", "header"):
            i = 1 if kind == "header" else i
            cells = lines[i].split(",")
            cells[draw(st.integers(0, len(cells) - 1))] = draw(cell_text)
            lines[i] = ",".join(cells)
        elif kind == "drop_line":
            del lines[i]
        elif kind == "dup_line":
            lines.insert(i, lines[i])
        else:
            lines.insert(i, draw(st.text(max_size=40)))
    return "\n".join(lines) + "\n"


@FUZZ
@given(text=mutated_plai_file(), players=st.sampled_from(["2", "3", "5"]))
def test_malformed_plai_card_files(text, players):
    out = fresh_dir()
    path = out.parent / "plai.csv"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    result = run_cli(["--game", "plai", "--players", players, "--games", "3", "--cards",
                      str(path), "--out", str(out), "--no-progress"])
    assert_clean_outcome(result, out, f"PLAI card file ({players} players):\n{text[:2000]}")


BASE_EXPERIMENT = {
    "game": "peer-to-peer", "players": [2], "games": 4, "seed": 1,
    "strategies": {"A": "greedy", "B": "random"},
    "rules": {"customer_patience": 2},
    "card_overrides": {"TE12.value": 11},
    "sweep": {"rule.hand_size": [4, 5]},
    "metrics": ["imbalance"],
}
yaml_scalar = st.one_of(st.integers(-5, 50), st.booleans(), st.none(), st.floats(allow_nan=True),
                        st.sampled_from(["plai", "peer-to-peer", "greedy", "builder:threshold=x",
                                         "nobody", "TE99.value", "SV1.kind", "rule.nope",
                                         "card.TE12.value", "imbalance", "1e9", "[", "{"]),
                        st.text(max_size=10))
yaml_value = st.one_of(yaml_scalar, st.lists(yaml_scalar, max_size=3),
                       st.dictionaries(st.text(max_size=12) | st.sampled_from(
                           ["A", "B", "TE12.value", "rule.hand_size", "customer_patience"]),
                           yaml_scalar, max_size=3))


@st.composite
def mutated_experiment(draw):
    experiment = dict(BASE_EXPERIMENT)
    for _ in range(draw(st.integers(1, 3))):
        action = draw(st.sampled_from(["set", "delete", "add"]))
        if action == "delete" and experiment:
            experiment.pop(draw(st.sampled_from(sorted(experiment))))
        elif action == "set" and experiment:
            experiment[draw(st.sampled_from(sorted(experiment)))] = draw(yaml_value)
        else:
            experiment[draw(st.text(min_size=1, max_size=10))] = draw(yaml_value)
    text = yaml.safe_dump({"fz": experiment}, sort_keys=False)
    if draw(st.booleans()) and draw(st.integers(0, 9)) == 0:  # sometimes break the syntax
        cut = draw(st.integers(0, len(text)))
        text = text[:cut] + draw(st.sampled_from(["\n  - [", ": :", "\t", "{", "'"])) + text[cut:]
    return text


@FUZZ
@given(text=mutated_experiment())
def test_malformed_experiments_yaml(text):
    out = fresh_dir()
    path = out.parent / "experiments.yaml"
    path.write_text(text)
    result = run_cli(["experiment", "fz", "--file", str(path), "--games", "3", "--out", str(out),
                      "--no-progress", "--no-report"])
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"crashed with {result.exception!r} on:\n{text}")
    assert result.exit_code in (0, 2), f"exit {result.exit_code}: {result.output}\n{text}"
    if result.exit_code == 2:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:"), f"{result.stderr!r}\n{text}"
        assert not out.exists() or not any(out.iterdir()), f"partial output for:\n{text}"
