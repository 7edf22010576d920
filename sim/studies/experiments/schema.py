"""experiments.yaml: named experiments, read with their YAML line numbers.

Every problem in the file is one ``UserError`` naming the file, the line and the key
(``experiment.section.key``), found from the YAML node marks before any game runs.
See docs/experiments.md for the schema.

The pieces: ``model.py`` (Experiment, Point, axes, checks, the autobalance section),
``parse.py`` (the keys and the parser of every value; the line-numbered YAML reading is
``sim.core.yaml_lines``), ``validate.py`` (every point configured once, errors at their
line). This module is their public face: ``schema.get``, ``schema.load`` and the model.
"""
from sim.studies.experiments.model import (EXPERT, TEAMS, AutobalanceSpec, Axis,  # noqa: F401
                                           CardChange, Condition, Experiment, Point, Vary,
                                           join_spec, rule_override, split_spec)
from sim.studies.experiments.parse import (AUTOBALANCE_KEYS, CONDITION_KEYS,  # noqa: F401
                                           DEFAULT_FILE, EXPERIMENT_KEYS, TUNE_KEYS, get, load,
                                           read_yaml)
from sim.studies.experiments.validate import (apply_card_changes,  # noqa: F401
                                              validate_experiment)
