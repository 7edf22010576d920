"""weighted: a plain weight vector for sweeps and searches to tune.

Each parameter is one weight (both phases); the defaults reproduce greedy. Features are
documented in sim/games/peer_to_peer/features.py.
"""
from sim.core.strategy import Strategy

PARAMS = {
    "value": 1.0,          # customer value
    "waited": 0.0,         # rounds the customer waited
    "urgent": 0.0,         # customer turns unhappy this round unless served
    "cards": -0.01,        # cards spent
    "risk": 0.0,           # the target is the row's top customer (a likely contest)
    "contest_lose": 0.0,   # retarget away from a contest it would lose
    "score": 1.0,          # destination: score pile
    "venture": 0.0,        # destination: a seat
    "deck": 0.0,           # destination: develop into deck / hand / discard
    "score_remaining": 0.0,  # score x customer deck size (negative: score late)
}


def _weights(p):
    return {
        "commit.value": p["value"], "commit.waited": p["waited"], "commit.urgent": p["urgent"],
        "commit.cards": p["cards"], "commit.top_customer": p["risk"],
        "commit.contest_lose": p["contest_lose"],
        "dest.score": p["score"], "dest.venture": p["venture"],
        "dest.develop_deck": p["deck"], "dest.develop_hand": p["deck"],
        "dest.develop_discard": p["deck"], "dest.score_remaining": p["score_remaining"],
    }


STRATEGY = Strategy(
    name="weighted",
    summary="a tunable weight vector over customer value, waiting, cards, risk and destinations",
    weights=_weights,
    params=PARAMS,
)
