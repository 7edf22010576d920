"""Games the simulator plays. Each sub-package exposes a ``GAME`` object (see sim/game.py)."""
