"""``--hold``: weights a learning command leaves alone (``simulate distill``, ``simulate
tune``), named as the command line names them.

``hold`` is ``"NAME[=VALUE],..."``, a list of such items, or a mapping of name to value
(None: the base's). A weight is held at VALUE from the first policy on, or without one at
the base's. A name without its phase (``commit.high_card`` for Peer-to-Peer's
``early.commit.high_card`` and ``late.commit.high_card``) holds it in every phase.
"""
from __future__ import annotations

import difflib
from typing import Any, Mapping, Sequence

import numpy as np

from sim.core.errors import UserError


def held_weights(hold: Any, names: Sequence[str]) -> tuple[tuple[int, float | None], ...]:
    """The held weights as (index into ``names``, value or None), in weight order; an
    unknown name or a value that is not a finite number is refused with what to give."""
    if hold is None:
        return ()
    if isinstance(hold, Mapping):
        items = [(str(name), value) for name, value in hold.items()]
    else:
        parts = str(hold).split(",") if isinstance(hold, str) else [str(x) for x in hold]
        items = []
        for part in (p.strip() for p in parts):
            if part:
                name, sep, value = part.partition("=")
                items.append((name.strip(), value.strip() if sep else None))
    names = list(names)
    held: dict[int, float | None] = {}
    for name, value in items:
        if value is not None:
            try:
                value = float(value)
            except (TypeError, ValueError):
                raise UserError(f"{name}={value}: the value must be a number",
                                field="--hold") from None
            if not np.isfinite(value):
                raise UserError(f"{name}: the value must be finite", field="--hold")
        matches = [i for i, full in enumerate(names) if full == name or full.endswith("." + name)]
        if not matches:
            close = difflib.get_close_matches(name, names, n=3)
            raise UserError(f"'{name}' is not a weight of this game's strategies"
                            + (f" (did you mean {', '.join(close)}?)" if close else ""),
                            field="--hold")
        for i in matches:
            held[i] = value
    return tuple(sorted(held.items()))


def held_settings(held: Sequence[tuple[int, float | None]],
                  names: Sequence[str]) -> dict[str, float | None]:
    """``held`` by weight name, as the file's settings record it."""
    return {names[index]: value for index, value in held}


def held_text(hold: Mapping[str, float | None], by: str = "the fit") -> str:
    """The held weights (name -> value, None: the base's), as a command's summary and
    report name them: in --hold's own words."""
    return f"held out of {by}: " + ", ".join(
        name if value is None else f"{name}={value:g}" for name, value in hold.items())


def held_vector(vector: Any, held: Sequence[tuple[int, float | None]]) -> np.ndarray:
    """A float copy of ``vector`` with each weight held at a value set to it (a weight held
    at the base's keeps its own)."""
    vector = np.array(vector, dtype=np.float64)
    for index, value in held:
        if value is not None:
            vector[index] = value
    return vector


def held_mask(size: int, held: Sequence[tuple[int, float | None]]) -> np.ndarray:
    """True at each held weight of a vector of ``size`` weights."""
    mask = np.zeros(size, dtype=bool)
    mask[[index for index, _ in held]] = True
    return mask
