"""A document's tables held to `TableLimits` before anything is made of them (facts, row chunks, the tables
workbook), whichever parser found them (PDF ruled or unruled tables, HTML tables).

A cell longer than `cell_chars` is cut (its first characters are what a reader sees of it anyway); a table
with too many columns or cells, a row with too many characters, or a table past the file's budget of text
(`expanded_bytes`: an HTML cell with colspan=1000 repeats its text a thousand times) is skipped. Each is one
warning naming the table, which the ingest prints with the file's name.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from core.records import Table
from parser.settings import TableLimits


class TableBudget:
    """The limits of one document's tables; `warnings` says what was cut or skipped, table by table.

    >>> import pandas as pd
    >>> budget = TableBudget(TableLimits(cell_chars=5))
    >>> table = budget.admit(Table("t1", 3, pd.DataFrame([["营业收入", "1234567890"]], columns=["项目", "2022"])))
    >>> table.frame.iloc[0, 1], budget.warnings
    ('12345', ['table t1 (page 3): 1 cell longer than 5 characters cut to 5'])
    """

    def __init__(self, limits: TableLimits):
        self.limits = limits
        self.chars_left = limits.expanded_bytes
        self.warnings: list[str] = []

    def admit(self, table: Table) -> Table | None:
        """The table, its over-long cells cut; None (with a warning) when it breaks a limit."""
        limits, frame = self.limits, table.frame
        rows, columns = frame.shape
        if columns > limits.columns:
            return self._skip(table, f"{columns:,} columns, over the limit of {limits.columns:,}")
        if rows * columns > limits.cells:
            return self._skip(table, f"{rows * columns:,} cells, over the limit of {limits.cells:,}")
        values = frame.to_numpy(dtype=object, copy=True)
        lengths = np.fromiter(map(_length, values.ravel()), dtype=np.int64, count=values.size).reshape(
            values.shape
        )
        labels = [str(label) for label in frame.columns]
        long_cells = int((lengths > limits.cell_chars).sum()) + sum(
            len(x) > limits.cell_chars for x in labels
        )
        if long_cells:
            table = self._cut(table, values, labels, lengths)
            lengths = np.minimum(lengths, limits.cell_chars)
            self._warn(
                table,
                f"{long_cells:,} cell{'s' if long_cells > 1 else ''} longer than {limits.cell_chars:,} "
                f"characters cut to {limits.cell_chars:,}",
            )
        longest_row = int(lengths.sum(axis=1).max()) if rows else 0
        if longest_row > limits.row_chars:
            return self._skip(
                table, f"a row of {longest_row:,} characters, over the limit of {limits.row_chars:,}"
            )
        chars = int(lengths.sum()) + sum(min(len(x), limits.cell_chars) for x in labels)
        if chars > self.chars_left:
            return self._skip(
                table, f"the file's tables pass the limit of {limits.expanded_bytes:,} characters of text"
            )
        self.chars_left -= chars
        return table

    def _cut(self, table: Table, values: np.ndarray, labels: list[str], lengths: np.ndarray) -> Table:
        limit = self.limits.cell_chars
        for at in zip(*np.nonzero(lengths > limit)):
            values[at] = values[at][:limit]
        frame = type(table.frame)(values, columns=_unique(x[:limit] for x in labels), index=table.frame.index)
        frame.attrs = dict(table.frame.attrs)
        return dataclasses.replace(
            table,
            frame=frame,
            title=table.title[:limit],
            titles=tuple(title[:limit] for title in table.titles),
        )

    def _skip(self, table: Table, why: str) -> None:
        self._warn(table, f"skipped, {why}")
        return None

    def _warn(self, table: Table, what: str) -> None:
        page = f" (page {table.page})" if table.page else ""
        self.warnings.append(f"table {table.table_id}{page}: {what}")


def _length(value) -> int:
    return len(value) if isinstance(value, str) else 0


def _unique(labels) -> list[str]:
    """Column labels cut to a length may meet: the later ones take their position, as build_table names them."""
    seen, out = set(), []
    for j, label in enumerate(labels):
        name = label if label not in seen else f"{label}#{j}"
        seen.add(name)
        out.append(name)
    return out
