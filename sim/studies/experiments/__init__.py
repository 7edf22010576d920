"""Experiments: named configurations and sweeps from experiments.yaml, run with common
random numbers, checked against thresholds (``simulate check``) and searched for card
changes that meet targets (``simulate autobalance``, in sim.studies.autobalance).

    >>> from sim.studies import experiments
    >>> exp = experiments.get("card_value_sweep", "experiments.yaml")
    >>> result = experiments.run_experiment(exp, games=2000)
"""
from sim.studies.experiments.schema import (DEFAULT_FILE, Condition, Experiment, Point, get,  # noqa: F401
                                    load)
from sim.studies.experiments.run import ExperimentResult, run_experiment  # noqa: F401
from sim.studies.experiments.check import CheckResult, check_experiment  # noqa: F401
