"""The ``simulate`` command line. It only parses options and calls ``sim.api``.

Imports stay light at module level (click and the standard library) so ``simulate --help``
never loads numba, polars or a game kernel.

- ``common``: what every command shares (option types and groups, one-line errors, this
  invocation's command line);
- ``run``: the ``simulate`` group, whose bare invocation plays a run, and ``warm``;
- ``answers``: trace, report, compare, ablate, balance-report;
- ``studies``: matchups, tune, distill, skill;
- ``experiments``: experiment, check, autobalance;
- ``tools``: cards, strategies, workbench.
"""
from sim.cli.run import main
from sim.cli import answers, experiments, studies, tools  # noqa: F401  (they add main's commands)

__all__ = ["main"]
