"""sim.core.csvfile: comments, physical line numbers and one-line errors naming file/line/field."""
import hashlib

import pytest

from sim.core.csvfile import file_sha256, read_rows
from sim.core.errors import UserError

REQUIRED = ("id", "value")
OPTIONAL = ("note",)


def write(tmp_path, text, name="cards.csv", encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return str(path)


def error_of(path, required=REQUIRED, optional=OPTIONAL) -> str:
    with pytest.raises(UserError) as caught:
        read_rows(path, required, optional)
    message = str(caught.value)
    assert "\n" not in message and message.startswith("error: ")
    return message


def test_comments_and_blank_lines_are_skipped_and_lines_are_physical(tmp_path):
    path = write(tmp_path, "# reconstruction, not the real list\n\n  id , VALUE\n"
                           "a,1\n   # a comment between rows\n\n b , 2 \n")
    rows = read_rows(path, REQUIRED, OPTIONAL)
    assert [(r.line, r.values) for r in rows] == [
        (4, {"id": "a", "value": "1", "note": ""}),
        (7, {"id": "b", "value": "2", "note": ""}),
    ]
    assert rows[0].path == path


def test_optional_column_and_any_column_order(tmp_path):
    path = write(tmp_path, "note,value,id\nhello,3,x\n")
    (row,) = read_rows(path, REQUIRED, OPTIONAL)
    assert row.values == {"id": "x", "value": "3", "note": "hello"}


def test_quoted_comma_and_multiline_cell_report_the_starting_line(tmp_path):
    path = write(tmp_path, 'id,value,note\n"a, b",1,"two\nlines"\nc,oops,\n')
    rows = read_rows(path, REQUIRED, OPTIONAL)
    assert rows[0].values["id"] == "a, b" and rows[0].values["note"] == "two\nlines"
    assert rows[1].line == 4
    with pytest.raises(UserError, match=r":4, field 'value'"):
        rows[1].get_int("value")


def test_byte_order_mark_and_spreadsheet_padding_are_accepted(tmp_path):
    path = write(tmp_path, "\ufeffid,value,,\nx,1,,\n,,,\n")
    rows = read_rows(path, REQUIRED, OPTIONAL)
    assert [r.values["id"] for r in rows] == ["x"]


def test_an_empty_extra_cell_is_an_error_unless_the_header_is_padded_too(tmp_path):
    path = write(tmp_path, "id,value\nx,1\nService, 10,\n")
    assert f"{path}:3, field 'value'" in error_of(path)


def test_missing_file(tmp_path):
    path = str(tmp_path / "nope.csv")
    assert error_of(path) == f"error: {path}: file not found"


def test_directory_is_not_a_file(tmp_path):
    assert str(tmp_path) in error_of(str(tmp_path))


def test_non_utf8_names_the_line(tmp_path):
    path = write(tmp_path, "id,value\nok,1\nbad\xe9,2\n", encoding="latin-1")
    message = error_of(path)
    assert f"{path}:3" in message and "UTF-8" in message


def test_only_comments_means_no_header(tmp_path):
    path = write(tmp_path, "# just a comment\n\n")
    message = error_of(path)
    assert path in message and "header" in message and "id, value" in message


def test_missing_required_column_names_header_line_and_field(tmp_path):
    path = write(tmp_path, "# comment\nid,note\nx,y\n")
    message = error_of(path)
    assert f"{path}:2, field 'value'" in message and "missing" in message


def test_unknown_column_names_it(tmp_path):
    path = write(tmp_path, "id,value,colour\nx,1,red\n")
    message = error_of(path)
    assert f"{path}:1, field 'colour'" in message and "unknown column" in message


@pytest.mark.parametrize("mark, words", [(";", "semicolons"), ("\t", "tabs")])
def test_a_header_of_one_column_split_by_another_separator_says_how_to_save_it(tmp_path,
                                                                              mark, words):
    path = write(tmp_path, f"id{mark}value\nx{mark}1\n")
    message = error_of(path)
    assert f"{path}:1:" in message and f"separated by {words}" in message
    assert "comma-separated" in message


def test_duplicate_column(tmp_path):
    path = write(tmp_path, "id,value,ID\nx,1,y\n")
    assert f"{path}:1, field 'id'" in error_of(path)


def test_too_few_cells_names_the_first_missing_field(tmp_path):
    path = write(tmp_path, "id,value,note\nx,1,n\ny\n")
    message = error_of(path)
    assert f"{path}:3, field 'value'" in message and "1 cells" in message


def test_too_many_cells_suggests_an_unquoted_comma(tmp_path):
    path = write(tmp_path, "id,value\nx,1\nService, 10,3\n")
    message = error_of(path)
    assert f"{path}:3, field 'value'" in message and "3 cells" in message and "comma" in message


def test_malformed_quotes_name_the_line(tmp_path):
    path = write(tmp_path, 'id,value\nx,1\n"y"z,2\n')
    assert f"{path}:3" in error_of(path)


@pytest.fixture
def row(tmp_path):
    path = write(tmp_path, "id,value,note\nx,42,\n")
    return read_rows(path, REQUIRED, OPTIONAL)[0]


def test_get_int_accepts_a_value_in_range(row):
    assert row.get_int("value", 0, 99) == 42


@pytest.mark.parametrize("lo,hi,expected", [
    (0, 9, "an integer from 0 to 9, got 42"),
    (50, None, "an integer >= 50, got 42"),
])
def test_get_int_out_of_range_says_what_was_expected(row, lo, hi, expected):
    with pytest.raises(UserError) as caught:
        row.get_int("value", lo, hi)
    assert f"{row.path}:2, field 'value'" in str(caught.value) and expected in str(caught.value)


@pytest.mark.parametrize("text", ["4.5", "ten", "1_000", "", "--3"])
def test_get_int_rejects_non_integers(tmp_path, text):
    path = write(tmp_path, f"id,value\nx,{text}\n")
    (row,) = read_rows(path, REQUIRED)
    with pytest.raises(UserError, match=rf"{path}:2, field 'value': expected an integer"):
        row.get_int("value")


def test_get_choice_is_case_insensitive_and_returns_the_canonical_spelling(tmp_path):
    path = write(tmp_path, "id,value\nx,sErViCe\ny,Sevrice\n")
    good, bad = read_rows(path, REQUIRED)
    assert good.get_choice("value", ("Service", "Science")) == "Service"
    with pytest.raises(UserError) as caught:
        bad.get_choice("value", ("Service", "Science"))
    assert f"{path}:3, field 'value'" in str(caught.value)
    assert "Service, Science" in str(caught.value) and "'Sevrice'" in str(caught.value)


def test_get_str_required(row):
    assert row.get_str("id") == "x"
    assert row.get_str("note", required=False) == ""
    with pytest.raises(UserError, match=r":2, field 'note': expected a value"):
        row.get_str("note")


def test_file_sha256_matches_hashlib_and_changes_with_content(tmp_path):
    path = write(tmp_path, "id,value\nx,1\n")
    assert file_sha256(path) == hashlib.sha256(b"id,value\nx,1\n").hexdigest()
    write(tmp_path, "id,value\nx,2\n")
    assert file_sha256(path) != hashlib.sha256(b"id,value\nx,1\n").hexdigest()
    with pytest.raises(UserError, match="nope"):
        file_sha256(tmp_path / "nope.csv")
