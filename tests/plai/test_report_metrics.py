"""PLAI report metrics on small hand-made tables (answers worked out by hand), the per-card
fight counts from trace rows, and a report rendered from a small real PLAI run."""
import math

import numpy as np
import polars as pl
import pytest

from reports.registry import Context, game_metrics, list_metrics, select_metrics
from sim.core.stats import wilson
from sim.core.game import resolve_game
from sim.games.plai import constants as c
from sim.games.plai.fight_stats import FIELDS, fights_of_trace

CTX = Context(game="plai", threshold_pp=2.0, card_ids=["a", "b"], card_names=["Alpha", "Beta"])
METRICS = {m.name: m for m in list_metrics()}
PLAI_METRICS = game_metrics("plai")
COUNTERS = ("fund_family", "fund_regional", "fund_venture", "regional_attacked",
            "regional_attack_won", "venture_attacked", "venture_attack_won", "takeovers",
            "takeovers_won", "bluffs_called")


def table(rows, players=2, pairing="weighted x2"):
    """Rows as dicts -> a merged games table like reports.load makes for PLAI."""
    out = []
    for i, r in enumerate(rows):
        row = dict(game_index=i, run=0, players=players, pairing=pairing, variant="n/a",
                   outcome=c.OUT_SEAT, winner=0, first_seat=0, turns=10,
                   **dict.fromkeys(COUNTERS, 0))
        row.update(r)
        out.append(row)
    return pl.DataFrame(out).with_columns(pl.col("players").cast(pl.Int64),
                                          pl.col("outcome", "winner", "first_seat").cast(pl.Int8),
                                          pl.col("turns").cast(pl.Int16))


def run(name, games, ctx=CTX):
    return METRICS[name].compute(games, ctx)


SEAT, MAINT, STALE = c.OUT_SEAT, c.OUT_MAINTAINERS, c.OUT_STALEMATE
# 10 games at 2 players: seat 0 wins 4, seat 1 wins 2, maintainers 3, stalemate 1
TEN = ([dict(winner=0, turns=t) for t in (10, 20, 30, 40)]
       + [dict(winner=1, turns=t) for t in (50, 60)]
       + [dict(outcome=MAINT, winner=-1, turns=t) for t in (5, 7, 9)]
       + [dict(outcome=STALE, winner=-1, turns=400)])


def test_registry_has_the_plai_metrics_and_skips_them_for_peer_to_peer():
    assert [m.name for m in PLAI_METRICS] == [
        "plai_seats", "plai_first_player", "plai_outcomes", "plai_length", "plai_fundings",
        "plai_takeovers", "plai_card_fights"]
    ok, skipped = select_metrics("plai", table(TEN).columns)
    assert [m.name for m in ok] == [m.name for m in PLAI_METRICS if m.name != "plai_card_fights"]
    assert dict(skipped)["plai_card_fights"] == "missing column(s): card_att_*"
    ok, _ = select_metrics("peer-to-peer", table(TEN).columns)
    assert not any(m.name.startswith("plai_") for m in ok)


# ------------------------------------------------------------------ seats, first player
def test_seat_win_rates_and_shares():
    t = run("plai_seats", table(TEN))
    assert t["seat"].to_list() == [0, 1]
    s0, s1 = t.iter_rows(named=True)
    assert (s0["games"], s0["decided"], s0["wins"], s1["wins"]) == (10, 6, 4, 2)
    assert s0["win_rate"] == pytest.approx(0.4) and s1["win_rate"] == pytest.approx(0.2)
    assert (s0["win_lo"], s0["win_hi"]) == pytest.approx(wilson(4, 10)[1:])
    assert s0["share_rate"] == pytest.approx(4 / 6) and s0["fair"] == 0.5
    assert (s0["share_lo"], s0["share_hi"]) == pytest.approx(wilson(4, 6)[1:])
    assert s0["edge_diff"] == pytest.approx(4 / 6 - 0.5)
    assert s0["verdict"] == "undecided"  # n = 6: the interval crosses the threshold
    texts = [f.text for f in METRICS["plai_seats"].findings(t, CTX)]
    assert "Seat 0" in texts[0] and "1/2" in texts[0] and "n = 6" in texts[0]


def test_seat_rows_stop_at_the_player_count_and_a_big_edge_is_called():
    games = table([dict(winner=0)] * 900 + [dict(winner=1)] * 100 + [dict(winner=2)] * 500,
                  players=3, pairing="weighted x3")
    t = run("plai_seats", games)
    assert t["seat"].to_list() == [0, 1, 2]
    assert t["verdict"].to_list() == ["above", "below", "undecided"]  # 60 %, 6.7 %, 33.3 %
    levels = [f.level for f in METRICS["plai_seats"].findings(t, CTX)]
    assert levels[:2] == ["imbalance", "imbalance"]


def test_first_player_counts_places_from_the_first_seat():
    # first_seat 1 in the last 3 games: there seat 1 moved first
    rows = [dict(winner=0), dict(winner=0), dict(winner=1),
            dict(winner=1, first_seat=1), dict(winner=1, first_seat=1), dict(winner=0, first_seat=1),
            dict(outcome=MAINT, winner=-1, first_seat=1)]
    t = run("plai_first_player", table(rows))
    first, second = t.iter_rows(named=True)
    assert (first["position"], first["wins"], first["decided"], first["games"]) == (0, 4, 6, 7)
    assert (second["position"], second["wins"]) == (1, 2)
    text = METRICS["plai_first_player"].findings(t, CTX)[0].text
    assert "The first player" in text


def test_there_is_a_word_for_every_place_of_the_largest_game():
    from sim.games.plai.game import GAME
    from sim.games.plai.report_metrics.plai_first_player import ORDINALS

    assert len(ORDINALS) >= max(GAME.player_counts)


def test_every_place_in_turn_order_is_named_in_words():
    rows = [dict(winner=w % 5) for w in range(40)]
    t = run("plai_first_player", table(rows, players=5))
    texts = " ".join(f.text for f in METRICS["plai_first_player"].findings(t, CTX))
    for place in ("second", "third", "fourth", "fifth"):
        assert f"the player moving {place}" in texts.lower()
    assert "4th" not in texts and "5th" not in texts


def test_no_startup_win_gives_no_data():
    t = run("plai_seats", table([dict(outcome=MAINT, winner=-1)] * 3))
    assert t["decided"].to_list() == [0, 0] and t["wins"].to_list() == [0, 0]
    assert all(math.isnan(v) for v in t["share_rate"].to_list())
    assert set(t["verdict"].to_list()) == {"no_data"}
    assert [f.level for f in METRICS["plai_seats"].findings(t, CTX)] == ["info", "info"]


# ------------------------------------------------------------------ outcomes, length
def test_outcomes_maintainers_and_stalemates():
    t = run("plai_outcomes", table(TEN))
    r = t.row(0, named=True)
    assert (r["games"], r["seat_wins"], r["maintainer_wins"], r["stalemates"]) == (10, 6, 3, 1)
    assert r["maintainers_win_rate"] == pytest.approx(0.3)
    assert r["stalemate_rate"] == pytest.approx(0.1)
    assert (r["stalemate_lo"], r["stalemate_hi"]) == pytest.approx(wilson(1, 10)[1:])
    text = METRICS["plai_outcomes"].findings(t, CTX)[0].text
    lo, hi = wilson(3, 10)[1:]
    assert f"30.0 % [{100 * lo:.1f}, {100 * hi:.1f}]" in text and "10.0 % [" in text
    # the answer says why the maintainers win so seldom: the rules it follows from
    (answer,) = METRICS["plai_outcomes"].answers(t, CTX)
    (cause,) = answer.causes
    assert "PLAI-T6" in cause["words"] and "same turn" in cause["words"]


def test_a_rare_outcome_prints_an_interval_of_width_not_a_point():
    """17 maintainer wins in 20,000 games: 0.08 % [0.05, 0.14], not 0.1 % [0.1, 0.1]."""
    rows = [dict(outcome=MAINT, winner=-1)] * 17 + [dict(winner=0)] * (20_000 - 17)
    t = run("plai_outcomes", table(rows))
    assert "0.08 % [0.05, 0.14]" in METRICS["plai_outcomes"].findings(t, CTX)[0].text


def test_length_in_turns_by_how_the_game_ended():
    t = run("plai_length", table(TEN))
    rows = {r["ended"]: r for r in t.iter_rows(named=True)}
    assert list(rows) == ["all", "seat_win", "maintainers", "stalemate"]
    assert rows["all"]["games"] == 10
    assert rows["all"]["turns_mean"] == pytest.approx(631 / 10)
    assert rows["seat_win"]["turns_mean"] == pytest.approx(35.0)
    assert rows["seat_win"]["turns_median"] == 35.0
    assert (rows["maintainers"]["turns_min"], rows["maintainers"]["turns_max"]) == (5, 9)
    assert rows["maintainers"]["turns_mean"] == pytest.approx(7.0)
    sd = np.std([5, 7, 9], ddof=1)
    assert rows["maintainers"]["turns_sd"] == pytest.approx(sd)
    assert rows["maintainers"]["turns_lo"] < 7.0 < rows["maintainers"]["turns_hi"]
    assert rows["stalemate"]["games"] == 1 and math.isnan(rows["stalemate"]["turns_lo"])


def test_length_without_stalemates_has_no_stalemate_row():
    t = run("plai_length", table(TEN[:9]))
    assert t["ended"].to_list() == ["all", "seat_win", "maintainers"]


# ------------------------------------------------------------------ fundings, takeovers
def test_fundings_attacked_and_who_won():
    games = table([dict(fund_family=3, fund_regional=4, regional_attacked=2, regional_attack_won=1,
                        fund_venture=1, venture_attacked=1),
                   dict(fund_family=5, fund_venture=3)])
    t = run("plai_fundings", games)
    rows = {r["funding"]: r for r in t.iter_rows(named=True)}
    assert list(rows) == ["family", "regional", "venture"]
    fam, reg, ven = rows["family"], rows["regional"], rows["venture"]
    assert (fam["fundings"], fam["per_game_mean"], fam["attacked"]) == (8, 4.0, 0)
    assert fam["attacked_share_rate"] is None
    assert (reg["fundings"], reg["attacked"], reg["attack_won"], reg["funder_won"]) == (4, 2, 1, 1)
    assert reg["attacked_share_rate"] == pytest.approx(0.5)
    assert reg["attacker_won_rate"] == pytest.approx(0.5)
    assert (ven["fundings"], ven["attacked"], ven["attack_won"], ven["funder_won"]) == (4, 1, 0, 1)
    assert ven["attacked_share_rate"] == pytest.approx(0.25)
    assert ven["attacker_won_rate"] == pytest.approx(0.0)


def test_takeovers_and_bluffs():
    games = table([dict(takeovers=2, takeovers_won=1, bluffs_called=1, regional_attacked=2),
                   dict(),
                   dict(takeovers=1, takeovers_won=1, bluffs_called=2, venture_attacked=1)])
    r = run("plai_takeovers", games).row(0, named=True)
    assert (r["games"], r["games_with_takeover"], r["takeovers"], r["takeovers_won"]) == (3, 2, 3, 2)
    assert r["any_takeover_rate"] == pytest.approx(2 / 3)
    assert r["takeovers_mean"] == pytest.approx(1.0)
    assert r["takeover_won_rate"] == pytest.approx(2 / 3)
    assert (r["fights"], r["bluffs_called"]) == (6, 3)
    assert r["bluffs_called_mean"] == pytest.approx(1.0)
    assert r["bluff_called_per_fight_rate"] == pytest.approx(0.5)


# ------------------------------------------------------------------ per-card fights
def _row(code, a=0, b=0, d=0, e=0):
    return [1, code, a, b, d, e]


def test_fights_of_trace_counts_cards_once_per_fight_and_side():
    rows = np.array([
        _row(c.EV_TURN),
        _row(c.EV_NEGATE, 0, 7),                      # outside a fight: not counted
        _row(c.EV_ATTACK, 0, 1, c.MODE_REAL, c.FIGHT_REGIONAL),
        _row(c.EV_PLAY, c.SIDE_ATTACK, 2, 0),
        _row(c.EV_PLAY, c.SIDE_ATTACK, 2, 0),         # a second copy: same fight, once
        _row(c.EV_PLAY, c.SIDE_ATTACK, 5, -1),        # maintainers' help joins the attack
        _row(c.EV_DEFEND, 1, c.MODE_REAL),
        _row(c.EV_PLAY, c.SIDE_DEFENSE, 3, 1),
        _row(c.EV_NEGATE, 1, 7),                      # the defender's negate
        _row(c.EV_FIGHT, c.SIDE_DEFENSE, 5, 5, c.WHY_STRENGTH),
        _row(c.EV_SPOILS, 1, 2, -1),
        _row(c.EV_ATTACK, 1, 0, c.MODE_REAL, c.FIGHT_TAKEOVER),
        _row(c.EV_PLAY, c.SIDE_ATTACK, 3, 1),
        _row(c.EV_NEGATE, 1, 7),                      # the attacker's negate
        _row(c.EV_DEFEND, 0, c.MODE_NONE),
        _row(c.EV_FIGHT, c.SIDE_ATTACK, 3, 0, c.WHY_UNDEFENDED),
    ], dtype=np.int32)
    counts, fights, att_wins = fights_of_trace(rows, 8)
    assert (fights, att_wins) == (2, 1)
    got = {name: {k: int(v) for k, v in enumerate(counts[i]) if v} for i, name in enumerate(FIELDS)}
    assert got == {"card_att": {2: 1, 3: 1, 5: 1, 7: 1}, "card_att_won": {3: 1, 7: 1},
                   "card_def": {3: 1, 7: 1}, "card_def_won": {3: 1, 7: 1}}
    none, f0, w0 = fights_of_trace(rows[:2], 8)
    assert (f0, w0, int(none.sum())) == (0, 0, 0)


def _cards(att0=0, att_won0=0, def1=0, def_won1=0):
    return {"card_att_0": att0, "card_att_won_0": att_won0, "card_def_0": 0, "card_def_won_0": 0,
            "card_att_1": 0, "card_att_won_1": 0, "card_def_1": def1, "card_def_won_1": def_won1}


def test_card_fight_contribution_with_against_without():
    games = table([dict(regional_attacked=2, regional_attack_won=1, **_cards(1, 1, 2, 1)),
                   dict(venture_attacked=2, venture_attack_won=2, **_cards(2, 2, 0, 0)),
                   dict(regional_attacked=5)])       # not replayed: its card columns are null
    nulls = {k: None for k in _cards()}
    games = games.with_columns(*(pl.when(pl.col("game_index") == 2).then(None)
                                 .otherwise(pl.col(k)).alias(k) for k in nulls))
    t = run("plai_card_fights", games)
    rows = {(r["side"], r["card"]): r for r in t.iter_rows(named=True)}
    assert list(rows) == [("attack", "a"), ("defense", "b")]   # never-played pairs dropped
    att, dfn = rows[("attack", "a")], rows[("defense", "b")]
    assert (att["name"], att["games"], att["games_counted"], att["fights"], att["played"],
            att["won"]) == ("Alpha", 3, 2, 4, 3, 3)
    assert att["with_rate"] == 1.0 and att["without_rate"] == 0.0
    assert att["contribution_diff"] == 1.0
    assert (dfn["played"], dfn["won"]) == (2, 1)
    assert dfn["with_rate"] == 0.5 and dfn["without_rate"] == 0.0
    assert dfn["contribution_diff"] == 0.5
    assert dfn["contribution_lo"] <= 0.5 <= dfn["contribution_hi"]
    texts = [f.text for f in METRICS["plai_card_fights"].findings(t, CTX)]
    assert "Alpha (card a)" in texts[0] and "+100.0 pp" in texts[0] and "2 of 3 games, replayed" in texts[0]
    fig = METRICS["plai_card_fights"].plot(t, games, CTX)
    assert fig is not None
    every = run("plai_card_fights", games.filter(pl.col("game_index") < 2))
    assert every["games"].to_list() == every["games_counted"].to_list() == [2, 2]
    text = METRICS["plai_card_fights"].findings(every, CTX)[0].text
    assert "in all 2 games" in text and "replayed" not in text


def test_card_fight_finding_ranks_by_the_intervals_lower_end():
    # 200 games, 2 fights each, the attack wins one. Beta is on the attack in 150 games
    # (100 times in the won fight, 50 in the lost one): with 2/3, without 100/250 = 0.4,
    # +26.7 pp over many games. Alpha is on the attack once, in a won fight: with 1/1,
    # without 199/399, +50.1 pp from a single fight - a larger estimate, a far wider interval.
    def game(att0=0, won0=0, att1=0, won1=0):
        return dict(regional_attacked=2, regional_attack_won=1, card_att_0=att0,
                    card_att_won_0=won0, card_def_0=0, card_def_won_0=0, card_att_1=att1,
                    card_att_won_1=won1, card_def_1=0, card_def_won_1=0)
    games = table([game(1, 1, 1, 1)] + [game(0, 0, 1, 1)] * 99 + [game(0, 0, 1, 0)] * 50
                  + [game()] * 50)
    t = run("plai_card_fights", games)
    att = {r["card"]: r for r in t.filter(pl.col("side") == "attack").iter_rows(named=True)}
    assert att["a"]["contribution_diff"] == pytest.approx(1 - 199 / 399)
    assert att["b"]["contribution_diff"] == pytest.approx(2 / 3 - 0.4)
    assert att["a"]["contribution_lo"] < 0 < att["b"]["contribution_lo"]   # one fight: wide
    text = METRICS["plai_card_fights"].findings(t, CTX)[0].text
    assert "Beta (card b)" in text and "+26.7 pp" in text


# ------------------------------------------------------------------ a real run, rendered
@pytest.fixture(scope="module")
def real_report(tmp_path_factory):
    from sim import api

    base = tmp_path_factory.mktemp("plai_report")
    runs = [api.run(game="plai", players=p, games=150, seed=3, out=base / f"{p}p",
                    strategies={"all": "aggressive"}, progress=False, threads=1).run_dir
            for p in (2, 3)]
    return api.report(runs, base / "report"), base


def test_report_from_a_real_run_embeds_every_plai_plot(real_report):
    written, base = real_report
    html = (base / "report" / "report.html").read_text()
    with_plot = [m.name for m in PLAI_METRICS if m.plot is not None]
    assert len(with_plot) == 7
    # + the answers panel and the game's pace (reports/curves.py)
    assert sorted(written["plots"]) == sorted(with_plot + ["answers", "curves"])
    assert html.count("data:image/png;base64,") == len(with_plot) + 2
    for m in PLAI_METRICS:
        assert m.name not in written["skipped"]
        assert (base / "report" / f"{m.name}.csv").is_file()
    # Peer-to-Peer's metrics are Peer-to-Peer's (its report_metrics package): never run here
    assert not set(written["tables"]) & {"team_balance", "first_marker", "card_fate"}
    assert written["games"] == 300
    assert "aggressive x2" in html and "aggressive x3" in html
    assert "odd_team_compensation" not in html  # a Peer-to-Peer option, not shown for PLAI


def test_real_card_fights_agree_with_the_per_game_counters(real_report):
    written, base = real_report
    cards = pl.read_csv(base / "report" / "plai_card_fights.csv")
    # the engine counted every game: nothing replayed
    assert (cards["games_counted"] == cards["games"]).all() and cards["games"].max() == 150
    assert "all 150 games" in html_text(base)
    games = pl.concat([pl.read_parquet(base / f"{p}p" / "games" / "*.parquet") for p in (2, 3)])
    fights = games.select((pl.col("regional_attacked").cast(pl.Int64) + pl.col("venture_attacked")
                           + pl.col("takeovers")).sum()).item()
    assert cards.group_by("players").agg(pl.col("fights").first())["fights"].sum() == fights
    assert (cards["won"] <= cards["played"]).all()


def html_text(base):
    return (base / "report" / "report.html").read_text()


def test_an_old_run_without_card_columns_is_replayed_and_merged_with_a_new_one(real_report,
                                                                                tmp_path):
    """A run made before the engine wrote the per-card columns: its first games are
    replayed (reports/card_fights.py) and say so; the other run keeps every game."""
    import shutil

    from reports.load import load_runs
    from reports.card_fights import attach_card_fights

    _, base = real_report
    old = tmp_path / "old"
    shutil.copytree(base / "2p", old)
    for part in (old / "games").glob("*.parquet"):
        t = pl.read_parquet(part)
        t.drop([col for col in t.columns if col.startswith("card_")]).write_parquet(part)
    new = pl.concat([pl.read_parquet(p) for p in sorted((base / "2p" / "games").glob("*.parquet"))])
    rs = load_runs([str(old), str(base / "3p")])
    attach_card_fights(rs, sample=40)
    assert any("first 40 games, replayed" in note for note in rs.notes)
    games = rs.collect()
    replayed = games.filter((pl.col("run") == 0) & pl.col("card_att_0").is_not_null())
    assert replayed.height == 40
    cols = [col for col in new.columns if col.startswith("card_")]
    want = new.filter(pl.col("game_index").is_in(replayed["game_index"].implode())).sort("game_index")
    got = replayed.sort("game_index")
    for col in cols:   # the replay gives the counts the engine wrote for the same games
        assert got[col].cast(pl.Int64).to_list() == want[col].cast(pl.Int64).to_list(), col
    assert games.filter(pl.col("run") == 1)["card_att_0"].null_count() == 0
    t = METRICS["plai_card_fights"].compute(games, Context(game="plai", card_ids=rs.card_ids,
                                                           card_names=rs.card_names))
    by_players = dict(t.group_by("players").agg(pl.col("games_counted").max()).rows())
    assert by_players == {2: 40, 3: 150}


def test_card_fight_findings_and_panels_for_every_player_count():
    # the same games at 2 to 5 players: each count gets its own best card per side and its
    # own panel, not only the count whose card ranks highest over the whole table
    games = pl.concat([table([dict(regional_attacked=2, regional_attack_won=1, **_cards(1, 1, 2, 1)),
                              dict(regional_attacked=2, regional_attack_won=0, **_cards(0, 0, 0, 0))]
                             * (10 * p), players=p, pairing=f"weighted x{p}")
                       for p in (2, 3, 4, 5)])
    t = run("plai_card_fights", games)
    texts = [f.text for f in METRICS["plai_card_fights"].findings(t, CTX)]
    for p in (2, 3, 4, 5):
        assert sum(x.startswith(f"{p} players,") for x in texts) == 2    # attack and defense
    fig = METRICS["plai_card_fights"].plot(t, games, CTX)
    titles = [ax.get_title() for ax in fig.axes]
    assert [t_.split(" players")[0] for t_ in titles] == ["2", "3", "4", "5"]


def test_card_fight_figure_names_the_groups_it_leaves_out():
    from sim.games.plai.report_metrics.plai_card_fights import MAX_PLOT_PANELS
    games = pl.concat([table([dict(regional_attacked=2, regional_attack_won=1, **_cards(1, 1, 2, 1))],
                             players=3, pairing=f"pairing {i}")
                       for i in range(MAX_PLOT_PANELS + 1)])
    t = run("plai_card_fights", games)
    fig = METRICS["plai_card_fights"].plot(t, games, CTX)
    assert len(fig.axes) == MAX_PLOT_PANELS
    note = fig._suptitle.get_text()
    assert f"3 players, pairing {MAX_PLOT_PANELS}" in note and "plai_card_fights.csv" in note


def test_card_fight_figure_wraps_a_long_list_of_groups_left_out():
    from sim.games.plai.report_metrics.plai_card_fights import MAX_PLOT_PANELS
    count = MAX_PLOT_PANELS + 12
    games = pl.concat([table([dict(regional_attacked=2, regional_attack_won=1, **_cards(1, 1, 2, 1))],
                             players=3, pairing=f"pairing {i}")
                       for i in range(count)])
    t = run("plai_card_fights", games)
    fig = METRICS["plai_card_fights"].plot(t, games, CTX)
    fig.canvas.draw()
    note = fig._suptitle
    assert note.get_window_extent().width <= fig.bbox.width
    words = note.get_text().replace("\n", " ")
    assert words.count("3 players, pairing") == count - MAX_PLOT_PANELS   # every one named
