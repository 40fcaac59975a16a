"""pdfplumber's table finder with its search for cells indexed: the same tables, found in less time.

pdfplumber's `intersections_to_cells` takes each crossing of ruling lines in
turn, scans every later crossing for those below it and to its right, and
rebuilds the sets of edges through both crossings at each comparison: on a
statement page (hundreds of crossings) that is half of the finder's time.
`ruled_cells` groups the crossings by column and by row once, and turns each
crossing's edges into sets once; it tries the candidates in pdfplumber's
order, so it finds the same cells, in the same order. The rest of the finder
(edges merged and snapped, crossings, cells grouped into tables) is
pdfplumber's own. tests/parser/test_ruled_finder.py compares the cells with
pdfplumber's on real pages.

>>> RuledTableFinder(page, TableSettings.resolve(PDF_TABLE_SETTINGS)).tables  # as page.find_tables(...)
"""

from __future__ import annotations

from collections import defaultdict

from pdfplumber.table import Table, TableFinder, TableSettings, cells_to_tables, edges_to_intersections
from pdfplumber.utils import obj_to_bbox

Point = tuple[float, float]
Box = tuple[float, float, float, float]


class RuledTableFinder(TableFinder):
    """`pdfplumber.table.TableFinder` whose cells come from `ruled_cells`."""

    def __init__(self, page, settings: TableSettings):
        self.page = page
        self.settings = settings
        self.edges = self.get_edges()
        self.intersections = edges_to_intersections(
            self.edges, settings.intersection_x_tolerance, settings.intersection_y_tolerance
        )
        self.cells = ruled_cells(self.intersections)
        self.tables = [Table(self.page, group) for group in cells_to_tables(self.cells)]


def ruled_cells(intersections: dict[Point, dict[str, list[dict]]]) -> list[Box]:
    """pdfplumber's `intersections_to_cells(intersections)`: for each crossing, top to bottom within each column
    from left to right, the smallest cell whose four corners are crossings joined by common edges."""
    points = sorted(intersections)
    # the edges down and across through each crossing, as pdfplumber compares them (by their boxes)
    down = {p: {obj_to_bbox(edge) for edge in intersections[p]["v"]} for p in points}
    across = {p: {obj_to_bbox(edge) for edge in intersections[p]["h"]} for p in points}
    columns: dict[float, list[Point]] = defaultdict(list)  # crossings by x, top to bottom
    rows: dict[float, list[Point]] = defaultdict(list)  # crossings by top, left to right
    for point in points:
        columns[point[0]].append(point)
        rows[point[1]].append(point)
    place_in_column = {p: i for column in columns.values() for i, p in enumerate(column)}
    place_in_row = {p: i for row in rows.values() for i, p in enumerate(row)}
    cells = []
    for point in points:
        below = columns[point[0]][place_in_column[point] + 1 :]
        right = rows[point[1]][place_in_row[point] + 1 :]
        cell = _smallest_cell(point, below, right, down, across)
        if cell is not None:
            cells.append(cell)
    return cells


def _smallest_cell(
    point: Point,
    below: list[Point],
    right: list[Point],
    down: dict[Point, set[Box]],
    across: dict[Point, set[Box]],
) -> Box | None:
    """The first cell with `point` at its top left, trying corners below, then to the right, nearest first."""
    for below_point in below:
        if down[point].isdisjoint(down[below_point]):
            continue
        for right_point in right:
            if across[point].isdisjoint(across[right_point]):
                continue
            corner = (right_point[0], below_point[1])
            if (
                corner in down
                and not down[corner].isdisjoint(down[right_point])
                and not across[corner].isdisjoint(across[below_point])
            ):
                return (point[0], point[1], corner[0], corner[1])
    return None
