"""Sentences that do not overclaim: moved to sim.core.wording (game metrics use it too)."""
from sim.core.wording import *  # noqa: F401,F403
from sim.core.wording import ABOVE, BELOW, NO_DATA, UNDECIDED, WITHIN, judge, level_of, verdict  # noqa: F401
