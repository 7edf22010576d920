"""The per-card fight columns the kernel writes (card_att_<k>, card_att_won_<k>,
card_def_<k>, card_def_won_<k>) against the trace-derived counts of
sim.games.plai.fight_stats.fights_of_trace, the test oracle: a card counts once per fight
and side; a negate (PLAI-F2) for the side that played it; the maintainers' help cards
(PLAI-T7, D6) for the attack they joined."""
import numpy as np
import pytest

from sim import api
from sim.games.plai import constants as c
from sim.games.plai.engine_kernel import trace_game
from sim.games.plai.fight_stats import FIELDS, fights_of_trace
from sim.games.plai.game import TRACE_CAPACITY

SEED = 11
GAMES = 120
# the default strategy, and a mix that bluffs, negates and helps more often
STRATEGIES = ({"all": "weighted"},
              {"all": "random", "seat0": "aggressive", "seat1": "bluffer"})


def _oracle(config, start, count):
    n_cards = config.card_table.shape[1]
    rows = np.zeros((TRACE_CAPACITY, c.TRACE_WIDTH), dtype=np.int32)
    out = np.zeros(1, dtype=c.RESULT_DTYPE)
    counts = np.zeros((count, 4, n_cards), dtype=np.int64)
    fights = np.zeros(count, dtype=np.int64)
    for j in range(count):
        n = trace_game(SEED, start + j, *config._args(), rows, out)
        assert n < TRACE_CAPACITY
        counts[j], fights[j], _ = fights_of_trace(rows[:n], n_cards)
    return counts, fights


@pytest.mark.parametrize("players", (2, 3, 4, 5))
@pytest.mark.parametrize("strategies", STRATEGIES, ids=("weighted", "mixed"))
def test_kernel_card_fight_counts_equal_the_trace_oracle(players, strategies):
    config = api.configure(game="plai", players=players, strategies=strategies)
    out, kernel = config.play(SEED, 500, GAMES, card_fights=True)
    expected, fights = _oracle(config, 500, GAMES)
    assert fights.sum() > 0
    assert np.array_equal(kernel.astype(np.int64), expected)
    per_game = (out["regional_attacked"].astype(np.int64) + out["venture_attacked"]
                + out["takeovers"])
    assert np.array_equal(per_game, fights)
    # the columns are the same games as without them (the counts change no outcome)
    assert np.array_equal(config.play(SEED, 500, GAMES), out)


def test_run_chunk_has_every_card_column_in_fields_order():
    config = api.configure(game="plai", players=3)
    table = config.run_chunk(SEED, 40, 30)
    n_cards = config.card_table.shape[1]
    names = [f"{f}_{k}" for f in FIELDS for k in range(n_cards)]
    assert table.columns[0] == "game_index" and table.columns[-len(names):] == names
    _, kernel = config.play(SEED, 40, 30, card_fights=True)
    assert np.array_equal(table["card_def_won_4"].to_numpy(), kernel[:, 3, 4])
    assert (table["card_att_won_0"] <= table["card_att_0"]).all()


def test_card_ids_above_the_bitmask_are_counted_once_per_fight(tmp_path):
    """A card file with more than 64 cards (ids are card rows): ids of 64 and more take
    the stamped path instead of the bitmask, and the counts still equal the trace oracle."""
    from sim.games.plai.game import GAME

    lines = GAME.default_cards_path().read_text().splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("id,"))
    rows = []
    for copy in range(3):   # every card three times over, as three different cards
        for line in lines[header + 1:]:
            card_id, name, rest = line.split(",", 2)
            rows.append(f"{int(card_id) + 100 * copy},{name} {copy},{rest}")
    path = tmp_path / "triple.csv"
    path.write_text("\n".join(lines[:header + 1] + rows) + "\n")
    config = api.configure(game="plai", players=4, cards=str(path))
    assert config.card_table.shape[1] > 64
    _, kernel = config.play(SEED, 0, 60, card_fights=True)
    expected, fights = _oracle(config, 0, 60)
    assert fights.sum() > 0 and expected[:, :, 64:].sum() > 0
    assert np.array_equal(kernel.astype(np.int64), expected)
