"""Differential test: the numba kernels and the pure-Python reference engine play
the same seeded games and must report identical rows (every RESULT_DTYPE field) and
per-card fates. On a mismatch the message shows the first divergent trace event.

CI: 300 games per case. ``pytest -m slow``: 2,000 games per case.
"""
from __future__ import annotations

from functools import lru_cache

import pytest

from sim.games.peer_to_peer import constants as k
from sim.games.peer_to_peer.game import GAME
from sim.games.peer_to_peer.reference import Reference
from sim.games.peer_to_peer.reference import events as ev

SEED = 20261129
CI_GAMES = 300
SLOW_GAMES = 2000
PAIRS = [("greedy", "greedy"), ("random", "random"), ("builder", "greedy")]
# the default at 4 players: no noise, contest and reach weights (D2 and D3 score C_REACH)
CASES = [(players, a, b) for players in range(1, 7) for a, b in PAIRS] + [
    (4, "expert", "cautious")]
OPTION_CASES = [  # rule options off their defaults: (players, A, B, overrides)
    (3, "random", "random", ("loser_effects_spent=false",)),
    (4, "cautious", "builder", ("loser_effects_spent=false",)),
    (4, "random", "random", ("row_capacity=2",)),
    (4, "builder", "greedy", ("end_when=row_empty", "unhappy_limit=99")),
    (1, "builder", "builder", ("end_when=row_empty",)),
    (6, "cautious", "greedy", ("row_capacity=3", "customer_patience=3")),
    (3, "random", "builder", ("odd_team_compensation=extra_venture_empty",)),
    (5, "builder", "random", ("odd_team_compensation=none",)),
    (4, "random", "random", ("domain_order=[Information,Science,Technology,Service]",)),
    (2, "builder", "cautious", ("deal_in_first_round=true", "first_marker=B")),
    (4, "random", "builder", ("reshuffle_discard=false",)),
    (2, "random", "random", ("hand_size=6", "initial_row=4")),
    (1, "cautious", "greedy", ("unhappy_limit=6", "max_rounds=12")),
    # each reading option at its other value (the defaults are the cases above)
    (4, "random", "builder", ("unchosen_ventures=deck",)),
    (1, "builder", "random", ("unchosen_ventures=deck",)),
    (1, "random", "random", ("solo_spare_start_cards=out",)),
    (1, "cautious", "builder", ("solo_spare_start_cards=out", "unchosen_ventures=deck")),
    (4, "random", "random", ("contest_unpaired=tied",)),
    (2, "builder", "cautious", ("contest_unpaired=tied",)),
    (4, "cautious", "builder", ("patience_resets_wait=true",)),
    (1, "builder", "builder", ("patience_resets_wait=true", "customer_patience=1")),
    (6, "random", "cautious", ("patience_resets_wait=true", "row_capacity=3")),
]


@lru_cache(maxsize=None)
def _config(players, a, b, overrides=()):
    return GAME.configure(players=players, strategies={"A": a, "B": b},
                          rule_overrides=overrides)


def _kernel_row(record) -> dict:
    return {name: int(record[name]) for name in k.RESULT_DTYPE.names}


def _names(config):
    return config.cards.ids


def _say(event, names) -> str:
    rnd, code, a, b, c, d = event
    return f"{ev.describe(event, names)}"


def first_divergence(config, seed: int, game_index: int) -> str:
    """Both traces of one game, compared event by event: the first difference in words."""
    kernel_events, _, _ = config.trace_events(seed, game_index)
    kernel = [tuple(int(x) for x in e) for e in kernel_events]
    ours = Reference(config).play(seed, game_index, trace=True).events
    names = _names(config)
    for i, (x, y) in enumerate(zip(kernel, ours)):
        if x != y:
            break
    else:
        if len(kernel) == len(ours):
            return "the traces are identical (the difference is in the result row only)"
        i = min(len(kernel), len(ours))
    lines = [f"first divergent event #{i} (round, code, a, b, c, d); cards: "
             + ", ".join(f"{j}={names[j]}" for j in sorted(
                 {v for e in kernel[max(0, i - 6):i + 2] + ours[max(0, i - 6):i + 2]
                  for v in e[2:] if 0 <= v < len(names)}))]
    for j in range(max(0, i - 6), i):
        lines.append(f"   same:      {_say(kernel[j], names)}  {kernel[j]}")
    lines.append(f"   kernel:    {_say(kernel[i], names) if i < len(kernel) else '(end)'}  "
                 f"{kernel[i] if i < len(kernel) else ''}")
    lines.append(f"   reference: {_say(ours[i], names) if i < len(ours) else '(end)'}  "
                 f"{ours[i] if i < len(ours) else ''}")
    return "\n".join(lines)


def compare(config, seed: int, start: int, count: int) -> list[str]:
    """Play games start .. start+count-1 on both engines; a report of the first mismatch."""
    records, fates = config.play(seed, start, count)
    engine = Reference(config)
    mismatches = []
    for i in range(count):
        result = engine.play(seed, start + i)
        kernel = _kernel_row(records[i])
        fields = {f: (kernel[f], result.row[f]) for f in kernel if kernel[f] != result.row[f]}
        kernel_fates = [int(x) for x in fates[i]]
        cards = {config.cards.ids[c]: (kernel_fates[c], result.fates[c])
                 for c in range(len(kernel_fates)) if kernel_fates[c] != result.fates[c]}
        if set(result.row) != set(kernel):
            fields["(field set)"] = (sorted(kernel), sorted(result.row))
        if fields or cards:
            mismatches.append(start + i)
            if len(mismatches) == 1:
                report = [f"game {start + i}: fields (kernel, reference) {fields}",
                          f"fates (kernel, reference) {cards}",
                          first_divergence(config, seed, start + i)]
    if mismatches:
        return [f"{len(mismatches)} of {count} games differ (first: {mismatches[:10]})"] + report
    return []


def _check(players, a, b, games, overrides=()):
    config = _config(players, a, b, overrides)
    problems = compare(config, SEED, 0, games)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("players,a,b", CASES)
def test_engines_agree(players, a, b):
    _check(players, a, b, CI_GAMES)


@pytest.mark.slow
@pytest.mark.parametrize("players,a,b", CASES)
def test_engines_agree_slow(players, a, b):
    _check(players, a, b, SLOW_GAMES)


@pytest.mark.parametrize("players,a,b,overrides", OPTION_CASES)
def test_engines_agree_with_rule_options(players, a, b, overrides):
    _check(players, a, b, 150, overrides)


@pytest.mark.slow
@pytest.mark.parametrize("players,a,b,overrides", OPTION_CASES)
def test_engines_agree_with_rule_options_slow(players, a, b, overrides):
    _check(players, a, b, 1000, overrides)


@pytest.mark.parametrize("players,a,b", [(1, "random", "random"), (4, "builder", "greedy"),
                                         (5, "random", "random")])
def test_traces_agree_event_by_event(players, a, b):
    """Stronger than the rows: the whole trace of a few games, event by event."""
    config = _config(players, a, b)
    engine = Reference(config)
    for game in range(25):
        kernel_events, _, _ = config.trace_events(SEED, game)
        kernel = [tuple(int(x) for x in e) for e in kernel_events]
        assert kernel == engine.play(SEED, game, trace=True).events, \
            first_divergence(config, SEED, game)


def test_a_divergence_is_reported_with_its_first_event(monkeypatch):
    """The harness itself: a deliberately wrong reference rule is caught and located."""
    from sim.games.peer_to_peer.reference import round as ref_round

    config = _config(4, "greedy", "greedy")
    original = ref_round.refresh

    def refresh_one_short(t, team):  # draws one card too few in round 3
        original(t, team)
        if t.round == 3 and team.hand:
            team.discard.put(team.hand.pop())

    monkeypatch.setattr(ref_round, "refresh", refresh_one_short)
    problems = compare(config, SEED, 0, 20)
    assert problems and "games differ" in problems[0]
    assert "first divergent event" in problems[-1]
    assert "kernel:" in problems[-1] and "reference:" in problems[-1]


# ---------------------------------------------------------------- strategies as data
# A strategy is a weight vector, so vectors no named strategy uses reach the features
# and decisions the baselines rarely touch (D5 overflow, D6 saves, phase switches).

def _with_weights(config, weights_a, weights_b):
    from sim.games.peer_to_peer.game import PeerToPeerConfig

    return PeerToPeerConfig(players=config.players, cards=config.cards, rules=config.rules,
                            strategies=config.strategies,
                            weights={"A": weights_a, "B": weights_b})


def _weight_cases(n):
    import numpy as np

    from sim.games.peer_to_peer import features as F

    venture = F.DEFAULT_WEIGHTS.copy()  # always to a seat: overflow (D5) every time
    venture[F.D_VENTURE] = venture[F.NF + F.D_VENTURE] = 5.0
    cases = [("always-venture", p, venture, venture) for p in (2, 4, 6)]
    rs = np.random.default_rng(7)
    for i in range(n):
        pair = []
        for _ in range(2):
            w = rs.normal(0.0, 1.0, F.N_WEIGHTS) * (rs.random(F.N_WEIGHTS) < 0.6)
            w[F.SWITCH] = float(rs.integers(-1, 30))
            pair.append(w)
        cases.append((f"random-vector-{i}", int(rs.integers(1, 7)), *pair))
    return cases


@pytest.mark.parametrize("case", _weight_cases(8), ids=lambda c: f"{c[0]}-{c[1]}p")
def test_engines_agree_for_weight_vectors(case):
    _, players, weights_a, weights_b = case
    config = _with_weights(_config(players, "greedy", "greedy"), weights_a, weights_b)
    problems = compare(config, SEED, 0, 150)
    assert not problems, "\n".join(problems)


@pytest.mark.slow
@pytest.mark.parametrize("case", _weight_cases(24), ids=lambda c: f"{c[0]}-{c[1]}p")
def test_engines_agree_for_weight_vectors_slow(case):
    _, players, weights_a, weights_b = case
    config = _with_weights(_config(players, "greedy", "greedy"), weights_a, weights_b)
    problems = compare(config, SEED, 0, 1000)
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------- Open Protocol worth 0

def _open_protocol_zero_deck(tmp_path) -> str:
    """The default card file with Open Protocol A and B worth 0 (P2P-C3's other value): extra
    cards worth 0 make contests reach P2P-R2c's unpaired step often."""
    from sim.games.peer_to_peer.cards import default_cards_path

    text = default_cards_path().read_text()
    for cid, name, team in (("OPA", "Open Protocol A", "A"), ("OPB", "Open Protocol B", "B")):
        text = text.replace(f"{cid},{name},any,5,group,{team},", f"{cid},{name},any,0,group,{team},")
    path = tmp_path / "old-deck.csv"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("players,a,b,overrides", [
    (4, "greedy", "greedy", ("contest_unpaired=tied",)),
    (4, "random", "builder", ("contest_unpaired=longer_wins",)),
    (3, "cautious", "random", ("contest_unpaired=tied", "patience_resets_wait=true")),
    (6, "builder", "greedy", ("contest_unpaired=tied", "unchosen_ventures=deck")),
])
def test_engines_agree_with_open_protocol_worth_0(players, a, b, overrides, tmp_path):
    config = GAME.configure(players=players, strategies={"A": a, "B": b},
                            cards=_open_protocol_zero_deck(tmp_path), rule_overrides=overrides)
    problems = compare(config, SEED, 0, 150)
    assert not problems, "\n".join(problems)
    records, _ = config.play(SEED, 0, 150)
    unpaired = records["contests_unpaired_won_a"].sum() + records["contests_unpaired_won_b"].sum()
    assert unpaired > 0  # the unpaired step was reached, so the option was exercised


# ---------------------------------------------------------------- card values up to 99

def test_engines_agree_when_customers_are_worth_up_to_99(tmp_path):
    """Card files allow values up to 99 (P2P-C); the kernel's D2 filters subsets by value
    only for rows below 63, so these rows take its unfiltered path. Ventures x7 (capped
    at 99), group cards x3: hands still reach the high customers."""
    import numpy as np

    from sim.games.peer_to_peer.cards import default_cards_path

    lines = default_cards_path().read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if not line.startswith("#"))   # the header
    header = lines[at].split(",")
    value, kind = header.index("value"), header.index("kind")
    rows = []
    for line in lines[at + 1:]:
        cells = line.split(",")
        scale = 7 if cells[kind] == "venture" else 3
        cells[value] = str(min(99, int(cells[value]) * scale))
        rows.append(",".join(cells))
    path = tmp_path / "high.csv"
    path.write_text("\n".join(lines[:at + 1] + rows) + "\n")
    config = GAME.configure(players=4, strategies={"A": "greedy", "B": "builder"},
                            cards=str(path))
    problems = compare(config, SEED, 0, 150)
    assert not problems, "\n".join(problems)
    # the high customers were in play: some worth 63 or more were won
    _, fates = config.play(SEED, 0, 150)
    high = config.cards.value >= 63
    won = np.isin(fates[:, high], [k.FATE_SCORE_A, k.FATE_SCORE_A + 1, k.FATE_VENTURE_A,
                                   k.FATE_VENTURE_A + 1])
    assert high.any() and won.any()
