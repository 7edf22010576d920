"""Why everyone loses (P2P-R5): the unhappy customers of all-lose games, from replays.

For each all-lose game replayed through the trace kernel (the same game: seed, game index
and configuration), every customer that turned unhappy: its value and domain, how many
rounds it waited in the row (the round it turned unhappy minus the round it was dealt;
with patience_resets_wait a save restarts the count, which this reads as the first deal),
and whether any team could have assisted it: the trace records, once both teams passed in
that round, the first subset of each team's hand that could legally assist each row
customer (with the team's unused effects; EV_COULD). ``unreachable`` = no team's hand had
one, so no play of that round could have saved it.

A replay, not a per-game column: the engine's result columns do not record this (the
Peer-to-Peer kernels were being split while this was written); the report replays a capped
sample of each run's all-lose games and says how many.
"""
from __future__ import annotations

import polars as pl

from sim.core.game import WhyLoseReplay
from sim.games.peer_to_peer import constants as k

ALL_LOSE = k.ALL_LOSE


def unhappy_customers(config, seed: int, indices) -> pl.DataFrame:
    """One row per unhappy customer of the replayed games ``indices`` (all-lose games):
    game_index, card (index), value, domain, dealt, unhappy_round, wait, reachable_a,
    reachable_b, unreachable, winner (the replay's outcome, to check it is the stored game)."""
    from sim.games.peer_to_peer.engine_kernel import EV_COULD, EV_DEAL, EV_UNHAPPY

    rows = []
    for game_index in indices:
        events, result, _ = config.trace_events(seed, int(game_index))
        dealt: dict[int, int] = {}
        could: dict[tuple[int, int, int], bool] = {}     # (round, team, customer) -> any subset
        for rnd, code, a, b, c, _ in events.tolist():
            if code == EV_DEAL:
                dealt.setdefault(a, rnd)
            elif code == EV_COULD:
                could[(rnd, a, b)] = could.get((rnd, a, b), False) or c != 0
            elif code == EV_UNHAPPY:
                ra, rb = could.get((rnd, 0, a)), could.get((rnd, 1, a))
                rows.append({"game_index": int(game_index), "card": a,
                             "value": int(config.cards.value[a]),
                             "domain": k.DOMAIN_NAMES[int(config.cards.domain[a])],
                             "dealt": dealt.get(a, 1), "unhappy_round": rnd,
                             "wait": rnd - dealt.get(a, 1),
                             "reachable_a": ra, "reachable_b": rb,
                             "unreachable": not (bool(ra) or bool(rb)),
                             "winner": int(result["winner"])})
    schema = {"game_index": pl.Int64, "card": pl.Int64, "value": pl.Int64, "domain": pl.Utf8,
              "dealt": pl.Int64, "unhappy_round": pl.Int64, "wait": pl.Int64,
              "reachable_a": pl.Boolean, "reachable_b": pl.Boolean, "unreachable": pl.Boolean,
              "winner": pl.Int64}
    return pl.DataFrame(rows, schema=schema)


# GAME.why_lose: which outcome code is "everyone loses" and how to replay those games
WHY_LOSE = WhyLoseReplay(code=ALL_LOSE, replay=unhappy_customers)
