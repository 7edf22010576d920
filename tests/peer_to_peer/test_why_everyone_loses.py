"""Why everyone loses: each customer that turns unhappy is counted under the first true
statement of deck, draw, capacity, choice (sim/games/peer_to_peer/why_kernel.py); each
cause dominates in a deck built for it, the counts add up, and the report shows the split
with what a designer can change."""
import csv

import polars as pl
import pytest

from sim import api
from sim.core.game import configure
from sim.games.peer_to_peer.cards import default_cards_path
from sim.games.peer_to_peer.constants import UNHAPPY_CAUSES

GAMES = 1000


def deck(path, start_cards):
    """The default card file with these five S cards for each team: [(domain, value)]."""
    lines = [line for line in default_cards_path().read_text().splitlines()
             if not line.startswith("#")]
    rows = list(csv.DictReader(lines))
    out = [r for r in rows if not r["start"]]
    for team in "AB":
        for i, (domain, value) in enumerate(start_cards):
            out.append({"id": f"S{team}{i}", "name": f"Start {team}{i}", "domain": domain,
                        "value": str(value), "kind": "group", "start": team, "effect": ""})
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(out)
    return path


def causes(path, rules=(), strategies=None) -> dict[str, float]:
    config = configure("peer-to-peer", 4, cards=str(path), rule_overrides=tuple(rules),
                       strategies=strategies)
    games = config.run_chunk(5, 0, GAMES, 2)
    counts = {c: int(games[f"unhappy_{c}"].sum()) for c in UNHAPPY_CAUSES}
    total = sum(counts.values())
    assert total == int(games["unhappy"].sum()) > 100
    return {c: n / total for c, n in counts.items()}


@pytest.fixture(scope="module")
def any_domain(tmp_path_factory):
    """S cards of every value 1-5 in the `any` domain: a team's cards reach every customer."""
    return deck(tmp_path_factory.mktemp("decks") / "any.csv",
                [("any", v) for v in (1, 2, 3, 4, 5)])


def test_deck_dominates_when_the_cards_cannot_reach_the_customers(tmp_path):
    # five Service 1s: no other domain, no sum above 5
    split = causes(deck(tmp_path / "ones.csv", [("Service", 1)] * 5))
    assert split["deck"] > 0.8


def test_draw_dominates_when_the_hand_is_too_small(any_domain):
    split = causes(any_domain, ["hand_size=1"])
    assert split["draw"] > 0.6 and split["deck"] < 0.05


def test_capacity_dominates_when_too_many_customers_come(any_domain):
    # the whole group deck in hand: it reaches every customer, but not six a round
    split = causes(any_domain, ["hand_size=5", "new_customers_per_round=6"])
    assert split["capacity"] > 0.8


def test_choice_dominates_when_the_players_pass(any_domain, tmp_path):
    passer = tmp_path / "passer.yaml"
    passer.write_text("cardsim_strategy: 1\ngame: peer-to-peer\nweights:\n"
                      "  early.commit.pass: 100\n  late.commit.pass: 100\n")
    spec = f"@{passer}"
    split = causes(any_domain, ["hand_size=5"], {"A": spec, "B": spec})
    assert split["choice"] > 0.8


@pytest.mark.parametrize("players", [1, 2, 3, 5, 6])
def test_causes_add_up_to_the_unhappy_customers(players):
    games = configure("peer-to-peer", players).run_chunk(11, 0, 400, 1)
    unhappy = games["unhappy"]
    closest = sum(games[f"unhappy_{c}"] for c in UNHAPPY_CAUSES)
    assert (closest == unhappy).all()
    for team in ("a", "b") if players > 1 else ("a",):
        assert (sum(games[f"unhappy_{c}_{team}"] for c in UNHAPPY_CAUSES) == unhappy).all()
    if players == 1:
        assert all((games[f"unhappy_{c}_b"] == 0).all() for c in UNHAPPY_CAUSES)
    # the closest team's cause is the furthest of the two teams' causes
    for row in games.filter(pl.col("unhappy") == 1).head(50).iter_rows(named=True):
        own = [max(i for i, c in enumerate(UNHAPPY_CAUSES) if row[f"unhappy_{c}_{t}"])
               for t in (("a", "b") if players > 1 else ("a",))]
        assert row[f"unhappy_{UNHAPPY_CAUSES[max(own)]}"] == 1


def test_report_shows_the_split_and_the_advice(tmp_path):
    run = tmp_path / "p4"
    api.run(game="peer-to-peer", players=4, games=2000, seed=7, out=run, threads=1,
            progress=False)
    written = api.report([run], tmp_path / "rep", replay_games=0)
    assert "why_lose" in written["extra"] and "why_lose" in written["plots"]
    table = pl.read_csv(tmp_path / "rep" / "why_lose.csv")
    shares = [table[f"{c}_rate"][0] for c in UNHAPPY_CAUSES]
    assert abs(sum(shares) - 1) < 1e-9
    for c in UNHAPPY_CAUSES:
        assert table[f"{c}_lo"][0] <= table[f"{c}_rate"][0] <= table[f"{c}_hi"][0]
    (answer,) = [a for a in written["answers"] if a["key"] == "why_all_lose"]
    assert [c["cause"] for c in answer["causes"]] == list(UNHAPPY_CAUSES)
    assert all(c["advice"] for c in answer["causes"])
    html = (tmp_path / "rep" / "report.html").read_text()
    assert 'id="why_lose"' in html and "hand_size" in html
