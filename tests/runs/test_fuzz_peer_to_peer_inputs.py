"""Property-based fuzzing of Peer-to-Peer card CSVs and rules YAML.

Every generated input either gives one clean error line and exit code 2 (and no run
directory), or is valid and runs. Nothing crashes, hangs or leaves a partial run.
"""

import pytest
from fuzz_support import assert_clean_outcome, fresh_dir, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.games.peer_to_peer.cards import default_cards_path
from sim.games.peer_to_peer.rules import OPTIONS

FUZZ = settings(max_examples=500, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
DEFAULT_LINES = default_cards_path().read_text().splitlines()

cell_text = st.one_of(
    st.sampled_from(["", "0", "-1", "99", "100", "1e3", "x", "A", "B", "C", "venture", "group",
                     "any", "Service", "service", "Marketing", "shift", "shift 0", "shift 2",
                     "shift x", "develop moon", "develop deck", "boost 99", "dual_domain any",
                     "tiebreak 3", "wild_domain", "\"", "a,b", "SV1", " ", "\t", "#"]),
    st.text(max_size=12),
)


@st.composite
def mutated_card_file(draw):
    lines = list(DEFAULT_LINES)
    for _ in range(draw(st.integers(1, 4))):
        if len(lines) < 3:
            break
        kind = draw(st.sampled_from(["cell", "drop_line", "dup_line", "insert", "truncate",
                                     "header"]))
        i = draw(st.integers(1, len(lines) - 1))
        if kind == "cell":
            cells = lines[i].split(",")
            j = draw(st.integers(0, len(cells) - 1))
            cells[j] = draw(cell_text)
            lines[i] = ",".join(cells)
        elif kind == "drop_line":
            del lines[i]
        elif kind == "dup_line":
            lines.insert(i, lines[i])
        elif kind == "insert":
            lines.insert(i, draw(st.text(max_size=40)))
        elif kind == "truncate":
            lines = lines[:i]
        else:
            cells = lines[1].split(",")
            cells[draw(st.integers(0, len(cells) - 1))] = draw(cell_text)
            lines[1] = ",".join(cells)
    return "\n".join(lines) + draw(st.sampled_from(["\n", "", "\n\n"]))



@pytest.fixture(scope="module", autouse=True)
def warm_kernel():
    result = run_cli(["--games", "3", "--out", str(fresh_dir()), "--no-progress"])
    assert result.exit_code == 0, result.output


@FUZZ
@given(text=mutated_card_file())
def test_malformed_card_files(text):
    out = fresh_dir()
    path = out.parent / "cards.csv"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    result = run_cli(["--games", "3", "--cards", str(path), "--out", str(out), "--no-progress"])
    assert_clean_outcome(result, out, f"card file:\n{text[:2000]}")


@FUZZ
@given(data=st.binary(max_size=300))
def test_arbitrary_bytes_as_card_file(data):
    out = fresh_dir()
    path = out.parent / "cards.csv"
    path.write_bytes(data)
    result = run_cli(["--games", "3", "--cards", str(path), "--out", str(out), "--no-progress"])
    assert_clean_outcome(result, out, f"bytes {data!r}")
    assert result.exit_code == 2  # no byte string this short is a valid deck


yaml_scalar = st.one_of(st.integers(-5, 300), st.booleans(), st.none(), st.floats(allow_nan=True),
                        st.sampled_from(["random", "A", "B", "none", "extra_venture", "yes",
                                         "[1, 2", "{1: 3}", "{9: 1}", "Service", "[]"]),
                        st.text(max_size=10))
yaml_value = st.one_of(yaml_scalar, st.lists(yaml_scalar, max_size=5),
                       st.dictionaries(st.one_of(st.integers(0, 8), st.text(max_size=4)),
                                       yaml_scalar, max_size=4))
option_key = st.one_of(st.sampled_from(sorted(OPTIONS.options)), st.text(max_size=15))


def _yaml_line(key, value) -> str:
    import yaml

    return yaml.safe_dump({key: value}, default_flow_style=True).strip()[1:-1]


@FUZZ
@given(entries=st.lists(st.tuples(option_key, yaml_value), max_size=4),
       garbage=st.one_of(st.just(""), st.text(max_size=30)))
def test_malformed_rules_yaml(entries, garbage):
    out = fresh_dir()
    path = out.parent / "rules.yaml"
    body = "\n".join(_yaml_line(k, v) for k, v in entries)
    path.write_text(body + ("\n" + garbage if garbage else "") + "\n")
    result = run_cli(["--games", "3", "--rules", str(path), "--out", str(out), "--no-progress"])
    assert_clean_outcome(result, out, f"rules file:\n{path.read_text()}")
