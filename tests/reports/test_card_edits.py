"""One card-file diff (reports/card_edits.field_changes) for both the report's header and
simulate compare's edit: cards matched by id in any case, field by field."""
from __future__ import annotations

import pytest

from reports.card_edits import changes, field_changes
from sim.core.csvfile import file_sha256
from sim.core.errors import UserError
from sim.studies.compare import card_changes

BEFORE = """# the default
id,name,domain,value
TE13,Technology 13,Technology,13
FI2,Finance 2,Finance,2
OP1,Open Protocol,any,0
"""
AFTER = """id,name,domain,value
# comments and layout do not count
te13, Technology 13 ,Technology,10
OP1,Open Protocol,any,0
MK9,Marketing 9,Marketing,9
"""


def test_the_diff_names_each_field_a_removed_and_an_added_card(tmp_path):
    before, after = tmp_path / "before.csv", tmp_path / "after.csv"
    before.write_text(BEFORE)
    after.write_text(AFTER)
    found = field_changes(before, after)
    assert found == {"changes": [{"card": "TE13", "name": "Technology 13", "field": "value",
                                  "baseline": "13", "edit": "10"}],
                     "added": ["MK9"], "removed": ["FI2"]}
    assert changes(before, after) == ["TE13 value: 13 -> 10", "FI2: not in this file",
                                      "MK9: only in this file"]
    # simulate compare's edit is the same diff of the two runs' files
    manifest = {path: {"path": str(path), "sha256": file_sha256(str(path))}
                for path in (before, after)}
    edit = card_changes(manifest[before], manifest[after])
    assert {k: edit[k] for k in ("changes", "added", "removed")} == found
    assert edit["note"] is None and not edit["same"]


def test_a_file_without_an_id_column_is_refused_in_both(tmp_path):
    before, after = tmp_path / "before.csv", tmp_path / "after.csv"
    before.write_text(BEFORE)
    after.write_text("name,domain,value\nTechnology 13,Technology,10\n")
    with pytest.raises(UserError, match="no header with an 'id' column"):
        field_changes(before, after)
    manifest = {path: {"path": str(path), "sha256": file_sha256(str(path))}
                for path in (before, after)}
    note = card_changes(manifest[before], manifest[after])["note"]
    assert "cannot be read as card tables" in note and "'id' column" in note
