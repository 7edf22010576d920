"""Plot helpers: moved to sim.core.plots (game metrics use them too)."""
from sim.core.plots import *  # noqa: F401,F403
from sim.core.plots import COLORS, MAX_PANELS, Figure, FigureCanvasAgg, new_figure, to_png  # noqa: F401
