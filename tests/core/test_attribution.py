"""Attribution by counterfactual replays (sim/core/attribution.py, the games' swaps.py):
the swaps keep the random numbers (the same decks are dealt), the paired delta method is
exact where it must be, and the causes come out where the rules put them: the default
deck's team-B edge on its starting cards, none for starting decks that are copies, the
PLAI 2-player seat-0 edge on moving first."""
import csv

import numpy as np
import polars as pl
import pytest

from sim.core.attribution import (
    EXCHANGE, contrast, explain, fraction_text, main_cause, sample_size,
)
from sim.core.game import configure, resolve_game
from sim.games.peer_to_peer import constants as k
from sim.games.peer_to_peer.cards import default_cards_path
from sim.games.peer_to_peer.engine_kernel import EV_DEAL, EV_DRAW
from sim.games.peer_to_peer.measures import team_balance_measure
from sim.games.peer_to_peer.swaps import SWAPS
from sim.games.plai.measures import seat_share

P2P = resolve_game("peer-to-peer")


def _variant(config, cause):
    (swap,) = [s for s in SWAPS if s.cause == cause]
    (label, variant), = swap.variants(config)
    return variant


def _events(config, game_index, codes):
    events, row, _ = config.trace_events(3, game_index)
    return [tuple(int(x) for x in e) for e in events if e[1] in codes], row


# ----------------------------------------------------------------------------- the swaps
@pytest.mark.parametrize("game_index", range(6))
def test_starting_card_swap_deals_the_same_decks_to_the_other_team(game_index):
    config = configure("peer-to-peer", 4)
    swapped = _variant(config, "start_cards")
    before, row = _events(config, game_index, (EV_DEAL, EV_DRAW))
    after, row2 = _events(swapped, game_index, (EV_DEAL, EV_DRAW))
    deals = [e for e in before if e[1] == EV_DEAL]
    assert deals[:2] == [e for e in after if e[1] == EV_DEAL][:2]   # the same customers
    partner = {}   # each S card and the other team's card dealt in its place
    start = config.cards.start
    for a, b in zip(before, after):
        if a[1] == EV_DRAW and a[0] == 0:     # setup's hands (S4)
            assert a[2] == b[2] and start[a[3]] == a[2] and start[b[3]] == 1 - a[2]
            partner[a[3]] = b[3]
    # the card dealt in place of an S card is its counterpart: the same place in id order
    ids = {t: [c for c in range(config.cards.n) if start[c] == t] for t in (0, 1)}
    for card, other in partner.items():
        t = start[card]
        assert ids[1 - t].index(other) == ids[t].index(card)
    assert row["first_marker"] == row2["first_marker"]


@pytest.mark.parametrize("rule", ["random", "A", "B"])
def test_first_marker_swap_gives_the_same_draw_to_the_other_team(rule):
    config = configure("peer-to-peer", 4, rule_overrides=(f"first_marker={rule}",))
    swapped = _variant(config, "first_marker")
    for game_index in range(8):
        before, row = _events(config, game_index, (EV_DEAL, EV_DRAW))
        after, row2 = _events(swapped, game_index, (EV_DEAL, EV_DRAW))
        def setup(events):   # the hands (S4) and the first row (S5)
            return ([e for e in events if e[0] == 0]
                    + [e for e in events if e[1] == EV_DEAL][:2])

        assert setup(before) == setup(after)        # the same deal
        assert row2["first_marker"] == 1 - row["first_marker"]


def test_swaps_do_not_apply_where_they_mean_nothing():
    solo = configure("peer-to-peer", 1)
    assert all(not s.variants(solo) for s in SWAPS)
    four = configure("peer-to-peer", 4)
    (compensation,) = [s for s in SWAPS if s.cause == "compensation"]
    assert compensation.variants(four) == []
    three = compensation.variants(configure("peer-to-peer", 3))
    assert [label for label, _ in three] == ["odd_team_compensation=extra_venture_empty",
                                            "odd_team_compensation=none"]


def test_plai_rotation_moves_the_first_seat_and_its_cards():
    config = configure("plai", 3)
    (swap,) = [s for s in resolve_game("plai").swaps if s.cause == "turn_order"]
    variants = [v for _, v in swap.variants(config)]
    base = config.run_chunk(2, 0, 50, 1)
    for shift, variant in enumerate(variants, 1):
        games = variant.run_chunk(2, 0, 50, 1)
        assert (games["first_seat"] == (base["first_seat"] + shift) % 3).all()


# ----------------------------------------------------------------------------- statistics
def test_contrast_of_identical_games_is_exactly_zero():
    rng = np.random.default_rng(1)
    num = (rng.random(500) < 0.4).astype(float)
    den = np.ones(500)
    c = contrast([(num, den), (num, den)], [0.5, -0.5], 0.5)
    assert c["est"] == 0 and c["lo"] == 0 and c["hi"] == 0


def test_contrast_of_a_mirror_accounts_for_the_whole_edge():
    rng = np.random.default_rng(2)
    num = (rng.random(2000) < 0.6).astype(float)
    den = np.ones(2000)
    c = contrast([(num, den), (1 - num, den)], [0.5, -0.5], 0.5)
    assert c["est"] == pytest.approx(num.mean() - 0.5)
    assert c["fraction"] == pytest.approx(1.0) and c["fraction_hi"] - c["fraction_lo"] < 1e-9


def test_contrast_interval_covers_a_known_difference():
    """Paired games that agree but for a known share: the interval is about the truth."""
    rng = np.random.default_rng(3)
    n = 20_000
    x = (rng.random(n) < 0.45).astype(float)
    flip = rng.random(n) < 0.1
    y = np.where(flip, 1 - x, x)
    c = contrast([(x, np.ones(n)), (y, np.ones(n))], [1.0, -1.0])
    assert c["lo"] < x.mean() - y.mean() < c["hi"]
    assert c["hi"] - c["lo"] < 0.02           # pairing: far narrower than two samples


def test_sample_size_keeps_the_replays_within_the_run():
    assert sample_size(200_000, 2) == 100_000
    assert sample_size(1_000, 2) == 1_000          # the floor, capped at the run
    assert sample_size(10_000, 4, fraction=0.25) == 2_000
    assert sample_size(10, 0) == 0


# ----------------------------------------------------------------------------- the causes
def test_default_deck_team_b_edge_is_the_starting_cards():
    config = configure("peer-to-peer", 2)
    games = config.run_chunk(1, 0, 12_000, 2)
    measure = team_balance_measure(2)
    causes = {c.cause: c for c in explain(config, 1, games, measure, SWAPS, threads=2)}
    start, marker = causes["start_cards"], causes["first_marker"]
    assert start.kind == EXCHANGE and start.lo > 0 and start.fraction > 0.6
    assert marker.lo < 0 < marker.hi or abs(marker.share) < 0.01
    assert main_cause(list(causes.values())).cause == "start_cards"


def test_an_edge_the_strategies_make_is_traced_to_them():
    """Team A greedy against team B expert: the edge is the players', and the strategies
    swap (each team plays the other's strategy on the same deals) says so; with one
    strategy on both teams it does not apply."""
    (swap,) = [s for s in SWAPS if s.cause == "strategies"]
    assert swap.variants(configure("peer-to-peer", 4)) == []
    config = configure("peer-to-peer", 4, strategies={"A": "greedy", "B": "expert"})
    ((_, swapped),) = swap.variants(config)
    assert swapped.strategies["A"][0] == "expert" and swapped.strategies["B"][0] == "greedy"
    searching = configure("peer-to-peer", 4, strategies={"A": "search:k=2,n=2", "B": "expert"})
    ((_, swapped),) = swap.variants(searching)   # the search budget moves with its strategy
    assert swapped.search[:, 0].tolist() == [0, 1] and searching.search[:, 0].tolist() == [1, 0]
    games = config.run_chunk(1, 0, 1500, 2)
    causes = explain(config, 1, games, team_balance_measure(4), SWAPS, threads=2)
    main = main_cause(causes)
    assert main.cause == "strategies" and main.fraction > 0.7, [c.sentence() for c in causes]


def test_a_seat_edge_the_strategies_make_is_traced_to_them():
    """PLAI, seat 0 weighted against two expert seats: rotating the strategies through
    the seats accounts for the seats' edge."""
    plai = resolve_game("plai")
    (swap,) = [s for s in plai.swaps if s.cause == "strategies"]
    assert swap.variants(configure("plai", 3)) == []
    config = configure("plai", 3, strategies={"seat0": "weighted"})
    labels = [label for label, _ in swap.variants(config)]
    assert labels == ["strategies moved 1 seat on", "strategies moved 2 seats on"]
    games = config.run_chunk(1, 0, 1500, 2)
    measure = seat_share(1, 3)   # seat 1 gains from the weak seat 0
    causes = {c.cause: c for c in explain(config, 1, games, measure, plai.swaps, threads=2)}
    assert causes["strategies"].lo > 0 and causes["strategies"].fraction > 0.7


def copied_starts(path):
    """The default cards with team B's S cards replaced by copies of team A's."""
    lines = [line for line in default_cards_path().read_text().splitlines()
             if not line.startswith("#")]
    rows = list(csv.DictReader(lines))
    out = [r for r in rows if r["start"] != "B"]
    for r in rows:
        if r["start"] == "A":
            out.append({**r, "id": r["id"] + "-B", "name": r["name"] + " (B)", "start": "B"})
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(out)
    return path


def test_copied_starting_decks_blame_no_starting_cards(tmp_path):
    config = configure("peer-to-peer", 4, cards=str(copied_starts(tmp_path / "copies.csv")))
    games = config.run_chunk(1, 0, 6000, 2)
    causes = {c.cause: c for c in explain(config, 1, games, team_balance_measure(4), SWAPS,
                                          threads=2)}
    start = causes["start_cards"]
    assert start.share == 0 and start.lo == 0 and start.hi == 0   # the very same games
    decided = games.filter(pl.col("winner").is_in([k.WIN_A, k.WIN_B]))
    share = (decided["winner"] == k.WIN_A).mean()
    assert abs(share - 0.5) < 0.03


def test_plai_two_player_seat_zero_edge_is_moving_first():
    config = configure("plai", 2)
    games = config.run_chunk(1, 0, 3000, 2)   # the edge is 2-4 points: 1,500 games are too few
    causes = explain(config, 1, games, seat_share(0, 2), resolve_game("plai").swaps, threads=2)
    (turn,) = causes
    assert turn.cause == "turn_order" and turn.lo > 0
    assert turn.fraction == pytest.approx(1.0)
    # every seat plays the same strategy, so rotating the turn order evens the seats in
    # every game: the words say so, not "100 % [100, 100]"
    assert "[100, 100]" not in turn.sentence()
    assert "all of it in every game" in turn.sentence()


def test_a_fraction_with_an_interval_is_printed_with_it():
    assert fraction_text(0.84, 0.61, 1.07) == "84 % [61, 107]"
    assert fraction_text(1.0, 1.0, 1.0).startswith("all of it in every game")
    assert fraction_text(float("nan"), float("nan"), float("nan")) == ""
    # clearly more than the whole edge: said so, not as "1282 % [181, 2382]"
    assert fraction_text(12.82, 1.81, 23.82) == (
        "more than the whole edge (12.8 times it, [1.8, 23.8]): other differences between "
        "the sides pull the other way")


def test_a_compare_cause_names_the_replayed_games_it_is_measured_on():
    # the rate under another mode comes from the replayed games, not from the pooled
    # rows: the words say how many, so a different number reads as a sample difference
    from sim.core.attribution import COMPARE, Cause

    cause = Cause("compensation", "the mode", COMPARE, -0.21, -0.23, -0.19, value=0.473,
                  variant="extra_venture", games=5000)
    words = cause.sentence()
    assert words.startswith("under extra_venture: 47.3 % on the 5,000 replayed games")
    assert "-21.0 points" in words


def test_the_share_of_an_edge_within_noise_is_not_given():
    # one side wins 51 of 100 games: the edge's interval holds 0, and a share of it would
    # be a ratio over almost nothing
    win = np.array([1.0] * 51 + [0.0] * 49)
    base = (win, np.ones(100))
    swapped = (win[::-1].copy(), np.ones(100))
    c = contrast([base, swapped], [0.5, -0.5], even=0.5)
    assert c["edge_lo"] < 0 < c["edge_hi"]
    words = fraction_text(c["fraction"], c["fraction_lo"], c["fraction_hi"], c["edge_lo"],
                          c["edge_hi"])
    assert words.startswith("no share: the edge of the replayed games is within noise")
    assert "%" not in words


def test_pooled_sources_replay_each_with_its_own_games_and_pool_the_pairs():
    """Two runs of seeds 1 and 2 pooled: the starting cards' share is the contrast of both
    runs' games against both runs' replays, each paired with its own (computed here from
    replay(), the games the unit); a copy of one source pooled with itself keeps its
    estimate and narrows its interval by about the square root of 2."""
    from sim.core.attribution import Source, explain_pooled, replay

    config = configure("peer-to-peer", 2)
    measure = team_balance_measure(2)
    (start,) = [s for s in SWAPS if s.cause == "start_cards"]
    ((_, swapped),) = start.variants(config)
    games = {seed: config.run_chunk(seed, 0, n, 1) for seed, n in ((1, 3000), (2, 2000))}
    pooled = {c.cause: c for c in explain_pooled(
        [Source(config, seed, games[seed]) for seed in (1, 2)], measure, SWAPS)}
    joined = [measure.arrays(pl.concat(tables)) for tables in (
        [games[1], games[2]], [replay(swapped, 1, 3000, 1), replay(swapped, 2, 2000, 1)])]
    expect = contrast(joined, [0.5, -0.5], measure.even)
    sign = 1 if joined[0][0].sum() / joined[0][1].sum() > measure.even else -1
    got = pooled["start_cards"]
    assert got.games == 5000   # games replayed: one variant
    lo, hi = (expect["lo"], expect["hi"]) if sign > 0 else (-expect["hi"], -expect["lo"])
    assert (got.share, got.lo, got.hi) == pytest.approx((sign * expect["est"], lo, hi),
                                                        abs=1e-12)
    single = {c.cause: c for c in explain(config, 1, games[1], measure, SWAPS)}
    twice = {c.cause: c for c in explain_pooled(
        [Source(config, 1, games[1]), Source(config, 1, games[1])], measure, SWAPS)}
    for cause, c in single.items():
        assert twice[cause].share == pytest.approx(c.share, abs=1e-12)
        assert (c.hi - c.lo) / (twice[cause].hi - twice[cause].lo) == pytest.approx(
            2 ** 0.5, rel=1e-3)


def test_a_summary_says_too_few_replays_rather_than_no_cause():
    """The summary's line under an edge: its main cause; or, when the replayed games' own
    edge is within noise, that they were too few to trace it (not that no swap explains
    it, which would blame the game); or, when they show the edge and no swap takes it, that
    no declared swap explains it."""
    from sim.core.wording import balance_line

    def balance(edge, edge_lo, edge_hi, share, lo, hi):
        cause = {"cause": "turn_order", "kind": "exchange", "label": "the turn order",
                 "share": share, "lo": lo, "hi": hi, "edge": edge, "edge_lo": edge_lo,
                 "edge_hi": edge_hi, "fraction": share / edge, "fraction_lo": lo / edge,
                 "fraction_hi": hi / edge}
        return {"words": "a small edge against seat 0 (0.3 points), inside the ±2 band",
                "value": 0.3302, "lo": 0.3282, "hi": 0.3323, "replayed": 25000,
                "causes": [cause], "main_cause": cause if lo > 0 else None}

    noisy = balance_line(balance(0.004, -0.002, 0.009, 0.004, -0.002, 0.009), "seat balance",
                         "seat 0's share")
    assert noisy.splitlines()[1] == (
        "  cause not traced: the edge of the 25,000 games replayed per swap is within noise "
        "(0.4 points [-0.2, 0.9]); the turn order takes 0.4 points [-0.2, 0.9] of it; a "
        "report with more --replay-games can tell")
    elsewhere = balance_line(balance(0.02, 0.01, 0.03, 0.001, -0.004, 0.006), "seat balance",
                             "seat 0's share")
    assert elsewhere.splitlines()[1] == (
        "  no swap the game declares explains it (25,000 games replayed per swap)")
    older = balance(0.004, -0.002, 0.009, 0.004, -0.002, 0.009)   # a summary before the
    for key in ("edge", "edge_lo", "edge_hi"):                     # edge was kept
        older["causes"][0].pop(key)
    assert balance_line(older, "seat balance", "seat 0's share").splitlines()[1] == (
        "  no swap the game declares explains it (25,000 games replayed per swap)")
    found = balance_line(balance(0.02, 0.01, 0.03, 0.02, 0.012, 0.028), "seat balance",
                         "seat 0's share")
    assert found.splitlines()[1].startswith("  main cause: the turn order, 2.0 points [1.2, 2.8]")
