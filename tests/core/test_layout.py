"""A document's page layout file: boxes survive a write and a read; a damaged file is a one-line error."""

from __future__ import annotations

import pytest

from core.errors import StoreError
from core.layout import read_layout, write_layout
from core.records import Box


def test_boxes_survive_a_write_and_a_read_rounded_to_a_tenth_of_a_point(tmp_path):
    boxes = [
        Box(2, "line", "电子信箱：ir@example-tech.cn", 72.04, 90.55, 260.21, 101.3),
        Box(5, "cell", "241,986,307.90", 318.1738, 211.286, 378.2218, 220.286),
    ]
    write_layout(tmp_path / "doc.json", boxes)
    again = read_layout(tmp_path / "doc.json")
    assert [(b.page, b.kind, b.text) for b in again] == [(b.page, b.kind, b.text) for b in boxes]
    assert (again[1].x0, again[1].top, again[1].x1, again[1].bottom) == (318.2, 211.3, 378.2, 220.3)


def test_no_boxes_leave_no_file_and_remove_an_old_one(tmp_path):
    path = tmp_path / "doc.json"
    write_layout(path, [Box(1, "line", "x", 0, 0, 1, 1)])
    write_layout(path, [])
    assert not path.exists() and read_layout(path) == []


@pytest.mark.parametrize(
    "text, reason",
    [
        ("{not json", "damaged layout file"),
        ('{"version": 9, "boxes": []}', "not a layout file of version 1"),
        ('{"version": 1, "boxes": [[1, "word", "x", 0, 0, 1, 1]]}', "box 1 is not"),
        ('{"version": 1, "boxes": [[1, "line", "x", 0, 0]]}', "box 1 is not"),
    ],
)
def test_a_damaged_file_is_an_error_naming_it(tmp_path, text, reason):
    path = tmp_path / "doc.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(StoreError) as error:
        read_layout(path)
    assert reason in str(error.value) and str(path) in str(error.value)
