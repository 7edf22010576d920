"""Each report metric on small hand-made tables whose answers are worked out by hand."""
import math

import polars as pl
import pytest

from reports.registry import Context, game_metrics, list_metrics, select_metrics
from sim.core.stats import diff_ci, wilson
from reports.wording import ABOVE, BELOW, UNDECIDED, WITHIN, judge, verdict
from sim.core.wording import SMALL, level_of

CARDS = ["c0", "c1", "c2", "c3"]
CTX = Context(game="peer-to-peer", threshold_pp=2.0, card_ids=CARDS,
              card_names=["Card Zero", "Card One", "Card Two", "Card Three"])

DEFAULTS = dict(first_marker=0, rounds=10, unhappy=0, score_a=0, score_b=0, sent_score_a=0,
                sent_venture_a=0, sent_deck_a=0, sent_score_b=0, sent_venture_b=0, sent_deck_b=0,
                contests=0, **{f"contests_{step}_{t}": 0 for step in (
                    "won", "higher_won", "tiebreak_won", "domain_won", "marker_won")
                    for t in "ab"})


def table(rows, players=4, pairing="greedy vs greedy", compensation="n/a", seat_teams=None):
    """Rows as dicts (winner required) -> a merged games table like reports.load makes."""
    if seat_teams is None:
        seat_teams = {1: [0], 2: [0, 1], 3: [0, 0, 1, 1], 4: [0, 0, 1, 1]}[players]
    teams = (seat_teams + [-1] * 6)[:6]
    out = []
    for r in rows:
        row = dict(DEFAULTS, players=players, pairing=pairing, variant=compensation,
                   strategy_a="greedy", strategy_b="random" if players > 1 else "")
        for s in range(6):
            row[f"start_card_{s}"] = -1
            row[f"seat_team_{s}"] = teams[s]
        row.update(r)
        out.append(row)
    schema = {"players": pl.Int64, "winner": pl.Int8, "first_marker": pl.Int8, "rounds": pl.Int16,
              **{f"start_card_{s}": pl.Int16 for s in range(6)},
              **{f"seat_team_{s}": pl.Int8 for s in range(6)}}
    df = pl.DataFrame(out)
    return df.with_columns([pl.col(c).cast(t) for c, t in schema.items() if c in df.columns])


def W(*codes, **extra):
    return [dict(winner=c, **extra) for c in codes]


METRICS = {m.name: m for m in list_metrics()}


def run(name, games, ctx=CTX):
    return METRICS[name].compute(games, ctx)


# ------------------------------------------------------------------ registry
def test_registry_lists_every_metric_module_in_order():
    """Each game registers the metric modules of its own package (its report_metrics hook)."""
    p2p = game_metrics("peer-to-peer")
    assert [m.name for m in p2p] == [
        "outcomes", "team_balance", "contest_steps", "compensation", "first_marker", "all_lose",
        "game_length", "score_margin", "card_start_delta", "card_fate", "destinations"]
    assert all(m.compute.__module__.startswith("sim.games.peer_to_peer.report_metrics.") for m in p2p)
    plai = game_metrics("plai")
    assert plai and all(m.name.startswith("plai_") for m in plai)
    assert all(m.compute.__module__.startswith("sim.games.plai.report_metrics.") for m in plai)
    assert [m.name for m in list_metrics()] == [m.name for m in p2p + plai]
    for m in list_metrics():
        assert m.title and m.description


def test_registry_skips_metrics_by_missing_columns():
    cols = table(W(0)).columns
    ok, skipped = select_metrics("plai", cols)       # PLAI's metrics on a Peer-to-Peer table
    assert ok == [] and {n for n, _ in skipped} == {m.name for m in game_metrics("plai")}
    assert all(why.startswith("missing column(s): ") for _, why in skipped)
    ok, skipped = select_metrics("peer-to-peer", [c for c in cols if c != "first_marker"])
    assert dict(skipped) == {"first_marker": "missing column(s): first_marker",
                             "card_fate": "missing column(s): fate_*"}
    ok, skipped = select_metrics("peer-to-peer", cols + ["fate_c0"])
    assert skipped == [] and len(ok) == 11


# ------------------------------------------------------------------ outcomes
def test_outcomes_rates_and_wilson_intervals():
    games = pl.concat([table(W(0, 0, 0, 0, 1, 1, 1, 2, 3, 3)),
                       table(W(4, 4, 3), players=1, pairing="greedy (solo)")])
    t = run("outcomes", games)
    four = {r["outcome"]: r for r in t.filter(pl.col("players") == 4).iter_rows(named=True)}
    assert list(four) == ["A_win", "B_win", "draw", "all_lose", "timeout"]
    assert [four[k]["count"] for k in four] == [4, 3, 1, 2, 0]
    assert four["A_win"]["rate"] == 0.4
    assert four["A_win"]["lo"] == pytest.approx(0.1682, abs=1e-4)   # Wilson 4/10
    assert four["A_win"]["hi"] == pytest.approx(0.6873, abs=1e-4)
    assert four["timeout"]["rate"] == 0.0 and four["timeout"]["lo"] == 0.0
    solo = {r["outcome"]: r["rate"] for r in t.filter(pl.col("players") == 1).iter_rows(named=True)}
    assert solo == {"all_lose": pytest.approx(1 / 3), "solo_win": pytest.approx(2 / 3),
                    "timeout": 0.0}
    # no games at 3 players -> no rows, not zero rows pretending to be data
    assert t.filter(pl.col("players") == 3).height == 0


def test_outcomes_rate_of_one():
    t = run("outcomes", table(W(*[0] * 10)))
    a = t.filter(pl.col("outcome") == "A_win").row(0, named=True)
    assert (a["rate"], a["hi"]) == (1.0, 1.0)
    assert a["lo"] == pytest.approx(10 / (10 + 1.959964 ** 2), rel=1e-6)


def test_outcomes_empty_table():
    t = run("outcomes", table(W(0)).head(0))
    assert t.height == 0 and "rate" in t.columns


# ------------------------------------------------------------------ team balance
def test_team_balance_larger_team_share_and_verdicts():
    games = pl.concat([
        table(W(*[0] * 6, *[1] * 2, 2, 3), players=3, compensation="extra_venture"),  # 6 of 8
        table(W(*[0] * 300, *[1] * 100)),                   # 4p: 75 %, clearly above
        table(W(*[0] * 100, *[1] * 300), players=2, seat_teams=[0, 1]),  # below
        table(W(4, 3), players=1, seat_teams=[0]),            # solo: not part of it
    ])
    t = run("team_balance", games)
    assert t["players"].to_list() == [2, 3, 4]
    r3 = t.filter(pl.col("players") == 3).row(0, named=True)
    assert (r3["games"], r3["a_wins"], r3["b_wins"], r3["decisive"]) == (10, 6, 2, 8)
    assert (r3["team_a_players"], r3["team_b_players"]) == (2, 1)
    assert r3["a_share_rate"] == 0.75
    assert r3["a_edge_diff"] == pytest.approx(0.25)
    assert r3["verdict"] == UNDECIDED          # Wilson 6/8 = 40.9 %..92.9 %
    assert t.filter(pl.col("players") == 4)["verdict"][0] == ABOVE
    assert t.filter(pl.col("players") == 2)["verdict"][0] == BELOW
    texts = [f.text for f in METRICS["team_balance"].findings(t, CTX)]
    assert "larger team A" in texts[1] and "not decided" in texts[1]
    assert "called an imbalance" in texts[2] and "Wilson" in texts[2]


def test_team_balance_within_threshold_and_configurable_threshold():
    t = run("team_balance", table(W(*[0] * 5000, *[1] * 5000)))
    assert t["verdict"][0] == WITHIN          # 50 % +- 0.98 pp
    wide = run("team_balance", table(W(*[0] * 5300, *[1] * 4700)))
    assert wide["verdict"][0] == ABOVE        # 53 % [52.0, 54.0] beyond 2 pp
    strict = Context(game="peer-to-peer", threshold_pp=5.0)
    assert run("team_balance", table(W(*[0] * 5300, *[1] * 4700)), strict)["verdict"][0] == WITHIN


def test_team_balance_no_decisive_games():
    t = run("team_balance", table(W(3, 3, 2)))
    r = t.row(0, named=True)
    assert r["decisive"] == 0 and math.isnan(r["a_share_rate"]) and r["verdict"] == "no_data"


# ------------------------------------------------------------------ compensation
def test_compensation_side_by_side_only_with_two_modes():
    games = pl.concat([
        table(W(*[0] * 6, *[1] * 4), players=3, compensation="extra_venture"),
        table(W(*[0] * 8, *[1] * 2, 3, 3), players=3, compensation="none"),
        table(W(0, 1), players=4),                               # even count: n/a
        table(W(0, 1), players=5, compensation="extra_venture",  # only one mode at 5
              seat_teams=[0, 0, 0, 1, 1, 1]),
    ])
    t = run("compensation", games)
    assert t.select("players", "variant").rows() == [(3, "extra_venture"), (3, "none")]
    ev, none = t.iter_rows(named=True)
    assert (ev["a_share_rate"], none["a_share_rate"]) == (0.6, 0.8)
    assert none["all_lose_rate"] == pytest.approx(2 / 12) and ev["all_lose_rate"] == 0.0
    assert none["reference_mode"] == "extra_venture"
    d, lo, hi = diff_ci(8, 10, 6, 10)
    assert none["vs_reference_diff"] == pytest.approx(0.2)
    assert (none["vs_reference_lo"], none["vs_reference_hi"]) == (pytest.approx(lo), pytest.approx(hi))
    assert math.isnan(ev["vs_reference_diff"])
    text = METRICS["compensation"].findings(t, CTX)[1].text
    assert "Against extra_venture the share changes by +20.0 pp" in text


def test_compensation_single_mode_gives_empty_table_and_says_why():
    t = run("compensation", table(W(0, 1), players=3, compensation="extra_venture"))
    assert t.height == 0
    (f,) = METRICS["compensation"].findings(t, CTX)
    assert "at least two different modes" in f.text


# ------------------------------------------------------------------ first marker
def test_first_marker_holder_share_and_team_a_cross_check():
    rows = (W(0, 0, 0, first_marker=0) + W(1, first_marker=1) + W(0, 0, first_marker=1)
            + W(1, 1, first_marker=0) + W(2, first_marker=0))
    t = run("first_marker", table(rows))
    r = t.row(0, named=True)
    assert (r["decisive"], r["holder_wins"]) == (8, 4)
    assert r["holder_share_rate"] == 0.5
    assert (r["games_a_marker"], r["a_wins_a_marker"], r["games_b_marker"], r["a_wins_b_marker"]) == (6, 3, 3, 2)
    assert r["a_marker_delta_diff"] == pytest.approx(0.5 - 2 / 3)
    assert r["verdict"] == UNDECIDED


def test_first_marker_always_a_leaves_cross_check_empty():
    t = run("first_marker", table(W(*[0] * 500, *[1] * 100, first_marker=0)))
    r = t.row(0, named=True)
    assert r["games_b_marker"] == 0 and math.isnan(r["a_marker_delta_diff"])
    assert r["verdict"] == ABOVE and r["holder_share_rate"] == pytest.approx(500 / 600)
    assert "Cross-check" not in METRICS["first_marker"].findings(t, CTX)[0].text


# ------------------------------------------------------------------ all lose
def test_all_lose_rate_and_end_round():
    games = pl.concat([
        table([dict(winner=3, rounds=5), dict(winner=3, rounds=7), dict(winner=0, rounds=10),
               dict(winner=1, rounds=12)]),
        table(W(0, 1, 2), players=2, seat_teams=[0, 1]),
    ])
    t = run("all_lose", games)
    four = t.filter(pl.col("players") == 4).row(0, named=True)
    assert (four["games"], four["all_lose"], four["all_lose_rate"]) == (4, 2, 0.5)
    assert four["end_round_mean"] == 6.0 and four["end_round_median"] == 6.0
    # sd = sqrt(2), se = 1, t(0.975, 1) = 12.7062
    assert four["end_round_lo"] == pytest.approx(6 - 12.7062, abs=1e-3)
    assert four["end_round_hi"] == pytest.approx(6 + 12.7062, abs=1e-3)
    two = t.filter(pl.col("players") == 2).row(0, named=True)
    assert two["all_lose_rate"] == 0.0 and two["all_lose_lo"] == 0.0
    assert two["end_round_mean"] is None
    texts = [f.text for f in METRICS["all_lose"].findings(t, CTX)]
    assert "round" not in texts[0].split("losing")[1]       # no end round without such games
    assert "on average in round 6.00" in texts[1]


# ------------------------------------------------------------------ game length
def test_game_length_by_how_the_game_ended():
    t = run("game_length", table([dict(winner=0, rounds=4), dict(winner=1, rounds=6),
                                  dict(winner=2, rounds=8), dict(winner=3, rounds=10)]))
    by = {r["ended"]: r for r in t.iter_rows(named=True)}
    assert list(by) == ["all", "scored", "all_lose"]
    assert (by["all"]["games"], by["all"]["rounds_mean"]) == (4, 7.0)
    assert (by["scored"]["rounds_mean"], by["scored"]["rounds_median"]) == (6.0, 6.0)
    assert by["scored"]["rounds_lo"] == pytest.approx(6 - 4.302653 * 2 / math.sqrt(3), abs=1e-4)
    assert by["all_lose"]["games"] == 1 and math.isnan(by["all_lose"]["rounds_lo"])
    assert (by["all"]["rounds_min"], by["all"]["rounds_max"]) == (4, 10)


# ------------------------------------------------------------------ score margin
def test_score_margin_scored_games_only():
    t = run("score_margin", table([dict(winner=0, score_a=10, score_b=7),
                                   dict(winner=1, score_a=5, score_b=9),
                                   dict(winner=2, score_a=6, score_b=6),
                                   dict(winner=3, score_a=0, score_b=20)]))
    r = t.row(0, named=True)
    assert r["games"] == 3
    assert r["margin_mean"] == pytest.approx(-1 / 3)
    assert r["abs_margin_mean"] == pytest.approx(7 / 3)
    assert (r["level_scores"], r["level_rate"]) == (1, pytest.approx(1 / 3))
    assert (r["margin_min"], r["margin_max"]) == (-4, 3)


# ------------------------------------------------------------------ per-card start delta
def _card_games():
    s = lambda a, b: {"start_card_0": a, "start_card_1": b}  # noqa: E731
    return table([dict(winner=0, **s(0, 1)), dict(winner=0, **s(0, 2)),
                  dict(winner=1, **s(2, 1)), dict(winner=2, **s(3, 2))],
                 players=2, seat_teams=[0, 1])


def test_card_start_delta_against_games_without_the_card():
    t = run("card_start_delta", _card_games())
    by = {r["card_id"]: r for r in t.iter_rows(named=True)}
    assert set(by) == {"c0", "c1", "c2", "c3"}
    # (starts, wins_with, obs_without, wins_without), worked out by hand
    assert {k: (r["starts"], r["wins_with"], r["obs_without"], r["wins_without"]) for k, r in by.items()} == {
        "c0": (2, 2, 4, 1), "c1": (2, 1, 4, 1), "c2": (3, 0, 2, 1), "c3": (1, 0, 6, 3)}
    assert by["c0"]["delta_diff"] == pytest.approx(0.75)
    assert by["c2"]["delta_diff"] == pytest.approx(-0.5) and by["c2"]["with_rate"] == 0.0
    _, lo, hi = diff_ci(2, 2, 1, 4)
    assert (by["c0"]["delta_lo"], by["c0"]["delta_hi"]) == (pytest.approx(lo), pytest.approx(hi))
    assert by["c0"]["card_name"] == "Card Zero"


def test_card_start_delta_card_missing_in_a_group_and_solo():
    solo = table([dict(winner=4, start_card_0=1), dict(winner=3, start_card_0=1),
                  dict(winner=4, start_card_0=2)], players=1, pairing="greedy (solo)")
    t = run("card_start_delta", pl.concat([_card_games(), solo], how="vertical_relaxed"))
    s = {r["card_id"]: r for r in t.filter(pl.col("players") == 1).iter_rows(named=True)}
    assert (s["c1"]["starts"], s["c1"]["wins_with"], s["c1"]["obs_without"], s["c1"]["wins_without"]) == (2, 1, 1, 1)
    assert s["c1"]["delta_diff"] == pytest.approx(-0.5)
    assert s["c0"]["starts"] == 0 and s["c0"]["verdict"] == "no_data"   # never a start in solo
    assert math.isnan(s["c0"]["delta_diff"])


def test_card_start_delta_findings_list_only_called_imbalances():
    many = table([dict(winner=0, start_card_0=0, start_card_1=1)] * 400
                 + [dict(winner=1, start_card_0=2, start_card_1=3)] * 400, players=2, seat_teams=[0, 1])
    t = run("card_start_delta", many)
    fs = METRICS["card_start_delta"].findings(t, CTX)
    assert "4 called an imbalance" in fs[0].text and "associations" in fs[0].text
    assert len(fs) == 5 and all(f.level == "imbalance" for f in fs[1:])


# ------------------------------------------------------------------ card fate
def test_card_fate_shares_with_rate_one_and_zero():
    games = table([dict(winner=0, fate_c0=3, fate_c1=0), dict(winner=0, fate_c0=4, fate_c1=0),
                   dict(winner=0, fate_c0=2, fate_c1=0)])
    t = run("card_fate", games.with_columns(pl.col("fate_c0", "fate_c1").cast(pl.Int8)))
    c0 = {r["fate"]: r for r in t.filter(pl.col("card_id") == "c0").iter_rows(named=True)}
    assert list(c0) == ["scored", "venture", "group_deck", "unhappy", "never_dealt"]  # no row/out seen
    assert c0["scored"]["count"] == 2 and c0["scored"]["rate"] == pytest.approx(2 / 3)
    assert c0["unhappy"]["rate"] == pytest.approx(1 / 3) and c0["venture"]["rate"] == 0.0
    c1 = t.filter((pl.col("card_id") == "c1") & (pl.col("fate") == "never_dealt")).row(0, named=True)
    assert (c1["rate"], c1["hi"]) == (1.0, 1.0)
    assert c1["card_name"] == "Card One"
    wide = METRICS["card_fate"].display(t, CTX)
    assert wide.height == 2 and "scored %" in wide.columns


def test_card_fate_out_appears_when_present():
    games = table([dict(winner=4, fate_c0=9), dict(winner=3, fate_c0=7)], players=1)
    t = run("card_fate", games.with_columns(pl.col("fate_c0").cast(pl.Int8)))
    assert t.filter(pl.col("fate") == "out")["rate"].to_list() == [0.5]
    assert t.filter(pl.col("fate") == "group_deck")["rate"].to_list() == [0.5]


# ------------------------------------------------------------------ destinations
def test_destination_mix_per_team():
    games = table([dict(winner=0, sent_score_a=2, sent_venture_a=1, sent_deck_a=1,
                        sent_score_b=0, sent_venture_b=3, sent_deck_b=0),
                   dict(winner=1, sent_score_a=0, sent_venture_a=1, sent_deck_a=0,
                        sent_score_b=1, sent_venture_b=0, sent_deck_b=0)],
                  players=2, seat_teams=[0, 1])
    t = run("destinations", games)
    a = {r["destination"]: r for r in t.filter(pl.col("team") == "A").iter_rows(named=True)}
    assert {k: r["share_rate"] for k, r in a.items()} == {
        "score": pytest.approx(0.4), "venture": pytest.approx(0.4), "deck": pytest.approx(0.2)}
    assert a["score"]["sent_mean"] == 1.0 and a["score"]["customers_won"] == 5
    assert a["score"]["strategy"] == "greedy"
    b = {r["destination"]: r["share_rate"] for r in t.filter(pl.col("team") == "B").iter_rows(named=True)}
    assert b == {"score": pytest.approx(0.25), "venture": pytest.approx(0.75), "deck": 0.0}
    solo = run("destinations", table(W(4), players=1))
    assert set(solo["team"]) == {"A"}


# ------------------------------------------------------------------ wording
@pytest.mark.parametrize("lo,hi,t,expected", [
    (0.021, 0.05, 2, ABOVE), (-0.05, -0.021, 2, BELOW), (-0.019, 0.019, 2, WITHIN),
    (0.01, 0.03, 2, UNDECIDED), (-0.03, 0.0, 2, UNDECIDED), (0.01, 0.03, 0.5, ABOVE),
    (0.01, 0.03, 3, WITHIN)])
def test_verdict_needs_the_whole_interval_beyond_the_threshold(lo, hi, t, expected):
    assert verdict(lo, hi, t) == expected


def test_sentence_states_the_interval_and_the_rule():
    p, lo, hi = wilson(560, 1000)
    code, text = judge("4 players", "A's share", p, lo, hi, 1000, centre=0.5, centre_words="50 %",
                       threshold_pp=2.0, method="Wilson", above_words="A is favoured",
                       below_words="B is favoured")
    assert code == ABOVE
    assert "56.0 %" in text and "95 % Wilson interval 52.9 % to 59.0 %" in text
    assert "whole interval lies more than 2 pp above 50 %" in text and "n = 1,000" in text
    code, text = judge("4 players", "A's share", 0.51, 0.49, 0.53, 1000, centre=0.5,
                       centre_words="50 %", threshold_pp=2.0, method="Wilson",
                       above_words="x", below_words="y")
    assert code == UNDECIDED and "not decided" in text and "imbalance" in text


def test_a_small_edge_inside_the_band_is_worded_as_the_answers_word_it():
    """Inside the band but excluding the centre: a small edge (edge_answer's words), not
    "balanced"; holding the centre: balanced."""
    code, text = judge("3 players", "A's share", 0.489, 0.482, 0.496, 40000, centre=0.5,
                       centre_words="50 %", threshold_pp=2.0, method="Wilson",
                       above_words="team A is favoured", below_words="team B is favoured")
    assert code == SMALL and level_of(code) == "small"
    assert text.startswith("3 players: a small edge, inside the ±2 pp band")
    assert "team B is favoured, by less than 2 pp" in text and "balanced" not in text
    code, text = judge("3 players", "A's share", 0.499, 0.49, 0.508, 40000, centre=0.5,
                       centre_words="50 %", threshold_pp=2.0, method="Wilson",
                       above_words="team A is favoured", below_words="team B is favoured")
    assert code == WITHIN and text.startswith("3 players: balanced within ±2 pp")


def test_card_start_delta_display_puts_called_imbalances_first():
    many = table([dict(winner=0, start_card_0=3, start_card_1=1)] * 400
                 + [dict(winner=2, start_card_0=0, start_card_1=2)] * 400, players=2, seat_teams=[0, 1])
    t = run("card_start_delta", many)
    shown = METRICS["card_start_delta"].display(t, CTX)
    # c3 starts only in A's won games (+100 pp), c0 and c2 only in drawn games (-50 pp against
    # the A-win games); c1 starts for B in A-won games: 0 % against 0 % in the drawn games
    assert shown["card_id"].to_list() == ["c0", "c2", "c3", "c1"]
    assert shown["verdict"].to_list() == [BELOW, BELOW, ABOVE, WITHIN]
    assert "wins_with" not in shown.columns and "wins_with" in t.columns


# ------------------------------------------------------------------ contest steps
def test_contest_steps_share_each_step_and_who_wins_there():
    rows = [dict(winner=0, contests=4, contests_won_a=3, contests_won_b=1,
                 contests_higher_won_a=2, contests_higher_won_b=1, contests_domain_won_a=1),
            dict(winner=1, contests=2, contests_won_a=0, contests_won_b=2,
                 contests_domain_won_b=1, contests_marker_won_b=1)]
    t = run("contest_steps", table(rows))
    by = {r["step"]: r for r in t.iter_rows(named=True)}
    assert by["higher card"]["decided_here"] == 3 and by["higher card"]["step_rate"] == 0.5
    assert by["domain"]["decided_here"] == 2 and by["domain"]["a_share_rate"] == 0.5
    assert by["marker"]["a_share_rate"] == 0.0
    assert by["longer list"]["decided_here"] == 0      # the rest of contests_won
    assert sum(r["decided_here"] for r in by.values()) == 6



def test_answers_panel_names_the_mode_and_keeps_the_whole_title():
    """Two answers at 3 players under two compensation modes get two labels naming the
    mode, not "3p 3p", as the report's other plots name it (fit_labels); a long question
    is wrapped, not cut."""
    from reports.figures import answers_figure
    from sim.core.plots import category, fit_labels
    from sim.core.report_metric import Answer

    question = "Is it fair between the teams? (team A's share of the games won by a team)"
    modes = ("none", "extra_venture", "extra_venture_empty")
    answers = [Answer(question, f"3 players, {mode}", "balanced", "within", 0.5, 0.48, 0.52,
                      players=3, group={"players": 3, "variant": mode}) for mode in modes]
    fig = answers_figure(answers)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == fit_labels([category(3, mode) for mode in sorted(modes)], ax)
    # broken by width after an underscore, which stays: the mode reads as written
    assert [label.replace("_\n", "_") for label in labels] == [
        "3p\nextra_venture", "3p\nextra_venture_empty", "3p\nnone"]
    assert ax.get_title().replace("\n", " ") == question


def test_grouped_points_labels_of_long_modes_do_not_run_together():
    from sim.core.plots import fit_labels, new_figure

    fig, (ax,) = new_figure(1)
    labels = [f"{p}p\n{mode}\nn=1,000" for p in (3, 5)
              for mode in ("none", "extra_venture", "extra_venture_empty")]
    fitted = fit_labels(labels, ax)
    room = ax.get_position().width * fig.get_figwidth() / len(labels)
    assert "extra_venture_empty" not in "".join(fitted)
    assert all(len(line) * 0.075 <= room for label in fitted for line in label.split("\n"))
