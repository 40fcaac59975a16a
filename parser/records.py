"""Key-value tables read as records: each value with the label it belongs to, as one "record" chunk.

Annual reports state who their controlling shareholder, actual controller and
auditors are in small tables of words, in two layouts:

- label | value pairs down two columns (名称 | 中国贵州茅台酒厂（集团）有限责任公司 /
  单位负责人或法定代表人 | 丁雄军 …); the table finder takes the first pair for a header row,
  so it is read as a pair too unless it is a column heading word (项目 | 内容);
- labels across the first row and one record per row below (控股股东名称 | 法定代表人 |
  成立日期 … / 中国平安保险（集团）股份有限公司 | 马明哲 | 1988年3月21日 …); a row that fills
  only its first two cells is a label | value pair (a remark under the record);
- label | value pairs in the second and third columns under a group label down the first
  (公司聘请的会计师事务所（境内） | 签字会计师姓名 | 童文光 张科 杨舒), one record per group.

Read as figures, both gave broken sentences (the header's value stood as a period:
"成立日期中国贵州茅台酒厂（集团）有限责任公司为1998-01-24"). A record chunk writes one
`label：value` pair per line instead, so a question about one field finds the line whose
label names it (qa/text/answer.py `record_pairs`). Tables of figures, and tables whose
columns are periods, are not records: they stay facts and row sentences.

>>> import pandas as pd
>>> frame = pd.DataFrame([["成立日期", "1998-01-24"]], columns=["名称", "中国贵州茅台酒厂（集团）有限责任公司"])
>>> record_rows(frame)
[[('名称', '中国贵州茅台酒厂（集团）有限责任公司'), ('成立日期', '1998-01-24')]]
"""

from __future__ import annotations

import re

from core.dates import CURRENT_PERIOD, PRIOR_PERIOD, explicit_year
from core.folding import nfkc
from core.rulebook import pattern_per_book, per_book
from core.units import is_dash, parse_quantity
from core.vocabulary import vocabulary
from parser.tables import column_period, is_placeholder

_WORDS = per_book(lambda: vocabulary("tables"))  # rules/tables.yaml
RECORD_SEPARATOR = per_book(lambda: vocabulary("punctuation")["record_separator"])
_HEADER_WORDS = pattern_per_book(
    lambda: re.compile(f"^(?:{'|'.join(map(re.escape, _WORDS['header_words']))})$")
)
_PERIOD_LIKE = pattern_per_book(lambda: re.compile(_WORDS["period_like"]))


def record_rows(frame) -> list[list[tuple[str, str]]]:
    """The (label, value) pairs of each record of a key-value table, or [] when the table is not one."""
    headers = [column_period(str(c)) for c in frame.columns]
    rows = [[_cell(frame.iat[i, j]) for j in range(len(headers))] for i in range(len(frame))]
    if len(headers) < 2 or not rows or not _mostly_words(rows) or any(_is_period(h) for h in headers):
        return []
    if len(headers) == 2:
        pairs = [(headers[0], headers[1])] if all(headers) and not _HEADER_WORDS.match(headers[1]) else []
        return [[*pairs, *((label, value) for label, value in rows if label and value)]]
    if not all(headers[:2]):
        return []
    previous = [headers[0]] + [cells[0] for cells in rows[:-1]]
    if sum(not cells[0] or cells[0] == before for cells, before in zip(rows, previous)) * 2 >= len(rows):
        return _grouped([headers, *rows])
    if not all(headers) or any(is_placeholder(str(c)) for c in frame.columns):
        return []
    records = []
    for cells in rows:
        filled = [j for j, text in enumerate(cells) if text]
        if filled == [0, 1]:  # a remark under the record: its own label and value
            records.append([(cells[0], cells[1])])
        elif len(filled) >= 2:
            records.append([(headers[j], cells[j]) for j in filled])
    return records


def _grouped(rows: list[list[str]]) -> list[list[tuple[str, str]]]:
    """Label | value pairs in columns 2 and 3 under a group label down the first column (printed once per group, or
    repeated on each row): one record per group."""
    records: list[list[tuple[str, str]]] = []
    group = None
    for cells in rows:
        if cells[0] and cells[0] != group or not records:
            group = cells[0]
            records.append([])
        value = " ".join(text for text in cells[2:] if text)
        if cells[1] and value:
            records[-1].append((cells[1], value))
    return [pairs for pairs in records if pairs]


def record_text(pairs: list[tuple[str, str]]) -> str:
    """A record as its chunk writes it: one `label：value` line per pair."""
    return "\n".join(f"{label}{RECORD_SEPARATOR.value()}{value}" for label, value in pairs)


def _cell(value) -> str:
    return re.sub(r"\s*\n\s*", "", str(value)).strip()


def _mostly_words(rows: list[list[str]]) -> bool:
    """More than half of the filled cells are words, not amounts or dashes."""
    cells = [text for cells in rows for text in cells if text and not is_dash(text)]
    words = sum(1 for text in cells if parse_quantity(text) is None)
    return bool(cells) and words * 2 > len(cells)


def _is_period(header: str) -> bool:
    """A column of a year or period (2021年, 本期, 当事業年度): its cells are figures of that period."""
    flat = nfkc(header).strip()
    return bool(
        _PERIOD_LIKE.match(flat)
        or explicit_year(flat) is not None
        or CURRENT_PERIOD.search(flat)
        or PRIOR_PERIOD.search(flat)
    )
