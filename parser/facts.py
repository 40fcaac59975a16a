"""Tables to long-form facts (one value of one field for one period) and row sentences for search.

>>> facts, chunks = table_facts(table, DocumentMeta("cn/600519_2021", company="贵州茅台酒股份有限公司", year=2021))
>>> facts[0].field, facts[0].period, facts[0].year, facts[0].value, facts[0].unit
('货币资金', '期末余额', 2021, '51810243607.11', '元')
>>> chunks[0].text
'货币资金期末余额为51,810,243,607.11元；货币资金期初余额为36,091,090,060.90元。'

The year of a column comes from its label: an explicit year ("2021年",
"2021年12月31日", "令和3年3月期", "民國112年", the end of "自…至…"), else
a word for this or last period (本期/期末余额/当事業年度 -> the report's
year; 上期/期初余额/前事業年度 -> the year before). Tables whose rows are
periods ("2019年3月31日残高") are read the other way round.

A row chunk's titles are the table's heading path, then the heading rows above
it (a label and no values) that no total row has closed yet: "その他" under
"流動負債" gets (..., "①【貸借対照表】", "負債の部", "流動負債").
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from dataclasses import field as dataclass_field

from core.dates import CURRENT_PERIOD, PRIOR_PERIOD, dated_year, explicit_year, iso_date
from core.folding import nfkc
from core.language import JA, rule_language
from core.records import RECORD_KIND, Chunk, DocumentMeta, Fact, ParsedDocument, Table
from core.rulebook import pattern_per_book, per_book
from core.statements import shared_statement_rules
from core.units import (
    find_unit,
    header_name,
    is_dash,
    is_per_share,
    is_unit,
    is_unit_statement,
    parentheses_negative,
    parse_quantity,
    plain,
    scale_of,
)
from core.vocabulary import vocabulary
from core.workbook_layout import workbook_cell
from parser.limits import TableBudget
from parser.prose_tables import HEADINGS_ROW, open_point, prose_rows
from parser.records import record_rows, record_text
from parser.settings import TableLimits
from parser.tables import column_period, runs_on

_WORDS = per_book(lambda: vocabulary("facts"))  # rules/facts.yaml
_CHANGE = pattern_per_book(lambda: re.compile(_WORDS["change"]))
_OPENING = pattern_per_book(lambda: re.compile(_WORDS["opening"]))
_SECONDARY_ROW = pattern_per_book(lambda: re.compile(_WORDS["secondary_row"]))
_FISCAL_YEAR = pattern_per_book(lambda: re.compile(_WORDS["fiscal_year"]))
NOTE_HEADER = pattern_per_book(
    lambda: re.compile(_WORDS["note_header"], re.IGNORECASE)
)  # the note column's header
_NUMBERING = pattern_per_book(lambda: re.compile(_WORDS["numbering"]))
_CIRCLED = re.compile(r"^[\u2460-\u2473\u3251-\u325f\u32b1-\u32bf]\s*")
_LEAD_WORDS = pattern_per_book(lambda: re.compile(_WORDS["lead_words"]))
_ACCOUNT_CODE = re.compile(r"^[0-9][0-9X]{3}\s+(?=\D)")
_NOTE_REFS = pattern_per_book(lambda: re.compile(_WORDS["note_refs"]))
_TRAILING_UNIT = pattern_per_book(lambda: re.compile(_WORDS["trailing_unit"]))
# A trailing note on how the row is signed: "营业利润（亏损以“－”号填列）", "…当期純損失（△）".
_SIGN_NOTE = pattern_per_book(lambda: re.compile(_WORDS["sign_note"]))
# Japanese statements may print expense lines with △ as deductions; the expense itself is a
# positive amount (as XBRL records it), so in tables that do that for most expense lines the
# △ on an expense line is presentation, not sign.
_EXPENSE = pattern_per_book(lambda: re.compile(_WORDS["expense"]))
_TRIANGLES = per_book(lambda: _WORDS["triangles"])
_HEADING_DEPTH = 3  # heading rows kept above a row (負債の部 > 流動負債 > …): deeper ones are rarely closed
_TOTAL_ROW = pattern_per_book(lambda: re.compile(_WORDS["total_row"]))
_PART = pattern_per_book(lambda: re.compile(_WORDS["part"]))
# "〃" under a unit ("百万円") repeats it; DITTO marks that in a unit column.
_DITTO = per_book(lambda: frozenset(_WORDS["ditto"]))
DITTO = per_book(lambda: _WORDS["ditto_mark"])
_PERCENT_UNITS = per_book(lambda: tuple(_WORDS["percent_units"]))
# "…は、次のとおりであります。": where a caption's subject ends
_CAPTION_SUBJECT = pattern_per_book(lambda: re.compile(_WORDS["caption_subject"]))
NO_LABEL = -1  # the label column of a table without row labels: its caption names its one field


@dataclass(frozen=True)
class _Column:
    index: int
    period: str
    unit: str
    kind: str  # "value" | "note" | "unit"


def clean_field(label: str) -> str:
    """A row label as a field name: no numbering, 其中/加/减, account codes, note marks, spaces, trailing unit.

    >>> clean_field("1.营业收入"), clean_field("其中：营业成本"), clean_field("（一）货币资金（注1）")
    ('营业收入', '营业成本', '货币资金')
    >>> clean_field("１株当たり当期純利益（円）"), clean_field("1100 現金及約當現金"), clean_field("①売上高")
    ('1株当たり当期純利益', '現金及約當現金', '売上高')
    >>> clean_field('三、营业利润（亏损以“－”号填列）'), clean_field("経常利益又は経常損失（△）")
    ('营业利润', '経常利益又は経常損失')
    """
    text = _CIRCLED.sub("", label.strip())
    text = nfkc(text).strip()
    for _ in range(3):
        before = text
        text = _ACCOUNT_CODE.sub("", text)
        text = _NUMBERING.sub("", text)
        text = _LEAD_WORDS.sub("", text)
        if text == before:
            break
    text = _NOTE_REFS.sub("", text)
    text = re.sub(r"\s+", "", text).strip(_WORDS["label_strip"])
    if text.startswith(_WORDS["label_brackets"][0]) and text.endswith(_WORDS["label_brackets"][1]):
        text = text[1:-1]
    match = _TRAILING_UNIT.search(text)
    if match and is_unit(match.group(1)) and match.start() > 0:
        text = text[: match.start()]
    match = _SIGN_NOTE.search(text)
    if match and match.start() > 0:
        text = text[: match.start()]
    return text


def period_year(label: str, report_year: int | None) -> int | None:
    """The year a column label stands for, given the report's year; None when it does not say.

    >>> period_year("本期发生额", 2021), period_year("期初余额", 2021), period_year("前事業年度", 2020)
    (2021, 2020, 2019)
    >>> period_year("第92期 (2015年度)/2016年３月", 2020), period_year("自 2018年4月1日 至 2019年3月31日", None)
    (2016, 2019)
    """
    year = explicit_year(label)
    if year is not None:
        return year
    if report_year is None:
        return None
    text = nfkc(label)
    if _CHANGE.search(text):
        return report_year  # "本年比上年增减", "前期比": this year's change on the year before
    if PRIOR_PERIOD.search(text):
        return report_year - 1
    if CURRENT_PERIOD.search(text):
        return report_year
    return None


def _label_column(frame) -> int:
    """The first column that holds words rather than numbers or account codes; NO_LABEL when the only such
    column states units or none is there, behind a first column of figures: a caption over a row of values
    ("研究開発費は、次のとおり" | 4,686 | 百万円) or a table whose header rows name every value (女性労働者の割合)."""
    j = _first_words(frame)
    unit_column = j > 0 and all(_unit_cell(v) is not None for v in frame.iloc[:, j] if str(v))
    no_words = j == 0 and not _wordy(frame, 0)
    return NO_LABEL if (unit_column or no_words) and len(frame.columns) > 1 and _figures(frame, 0) else j


def _first_words(frame) -> int:
    """The first column that holds words rather than numbers or account codes (0 when none does)."""
    return next((j for j in range(len(frame.columns)) if _wordy(frame, j)), 0)


def _wordy(frame, j: int) -> bool:
    """Whether at least half the filled cells of column j are words (one filled at least)."""
    cells = [str(v) for v in frame.iloc[:, j] if str(v)]
    wordy = sum(
        1 for v in cells if parse_quantity(v) is None and not is_dash(v) and re.search(_WORDS["wordy"], v)
    )
    return bool(cells) and wordy * 2 >= len(cells)


def _caption(table: Table) -> str:
    """The field a table without row labels is about: its caption's subject, or else its heading's."""
    return caption_field(table.title or (table.titles or ("",))[-1])


def _figures(frame, j: int) -> bool:
    """Whether every filled cell of column j is a figure or a nil dash (and one is filled)."""
    cells = [str(v) for v in frame.iloc[:, j] if str(v)]
    return bool(cells) and all(parse_quantity(v) is not None or is_dash(v) for v in cells)


def caption_field(caption: str) -> str:
    """The field a caption names for a table without row labels: its subject before "は、次のとおり".

    >>> caption_field("※３ 一般管理費及び当期製造費用に含まれる研究開発費は、次のとおりです。"), caption_field("提出会社")
    ('一般管理費及び当期製造費用に含まれる研究開発費', '提出会社')
    """
    text = clean_field(caption)
    subject = _CAPTION_SUBJECT.value().search(text)
    return text[: subject.start()] if subject and subject.start() > 0 else text


def _last_part_unit(label: str) -> str:
    last = nfkc(label.rsplit("/", 1)[-1].strip())
    if last.endswith("%") and not is_unit(last):
        return "%"  # 占比% / 增减%: a header ending in the sign states its column's unit, as 占比(%) does
    return last if is_unit(last) else find_unit(label)


def _columns(table: Table, label_col: int) -> list[_Column]:
    frame = table.frame
    out = []
    for j in range(label_col + 1, len(frame.columns)):
        period = column_period(str(frame.columns[j]))
        cells = [str(v) for v in frame.iloc[:, j] if str(v)]
        if NOTE_HEADER.match(period.rsplit("/", 1)[-1].replace(" ", "")):
            kind = "note"
        elif cells and all(_unit_cell(v) is not None for v in cells):
            kind = "unit"
        else:
            kind = "value"
        unit = _last_part_unit(period) if period else ""
        if not unit and kind == "value":
            # "36,917 百万円" at the top of a column states the unit of the cells below it.
            first = next((parse_quantity(v) for v in cells if parse_quantity(v) is not None), None)
            unit = first.stated_unit if first is not None and first.stated_unit else ""
        out.append(_Column(j, period, unit, kind))
    return out


def _unit_cell(text: str) -> str | None:
    """The unit a cell of a unit column states ("百万円", "（千株）"), DITTO for "〃", None for anything else."""
    flat = nfkc(text).strip()
    if flat.strip(_WORDS["bracket_chars"]) in _DITTO.value():
        return DITTO.value()
    if is_unit_statement(flat):
        return find_unit(flat)
    return flat if is_unit(flat) else None


def _header_unit(value_cols: list[_Column]) -> str:
    """The one amount unit some column headers state ("第29期/2016年３月/百万円" beside "第30期/2017年３月"): the
    unit of every year column that states none; "" when the headers state none or several."""
    units = {c.unit for c in value_cols if c.unit and c.unit not in _PERCENT_UNITS.value()}
    return next(iter(units)) if len(units) == 1 else ""


def _cell_unit(row_unit: str, column: _Column, table_unit: str, per_share: bool) -> str:
    if column.unit in _PERCENT_UNITS.value():
        return column.unit
    unit = row_unit or column.unit or table_unit
    if per_share and not row_unit:
        scaled = scale_of(unit) if unit else None
        return scaled[1] if scaled else unit
    return unit


def _fact_value(text: str, unit: str, bracketed_negative: bool):
    """(value, number, unit, stated unit) of a cell."""
    if is_dash(text):
        return "-", None, "", ""
    date = iso_date(text)
    if date:
        return date, None, "", ""
    quantity = parse_quantity(text, unit, parentheses_negative=bracketed_negative)
    if quantity is not None:
        return quantity.value, quantity.number, quantity.unit, quantity.stated_unit
    return text, None, "", ""


def current_year(tables: list[Table]) -> int | None:
    """The year the document's own labels give "this period" ("当連結会計年度（自 2019年4月1日 至 2020年3月31日）").

    Pass it to `table_facts` so a column headed only 当期 / 本期 gets the same
    year as the dated columns of the same document.
    """
    votes: Counter = Counter()
    for table in tables:
        labels = [column_period(str(c)) for c in table.frame.columns] + [table.title]
        for label in labels:
            text = nfkc(label)
            if CURRENT_PERIOD.search(text) and not PRIOR_PERIOD.search(text):
                year = dated_year(text)  # a dated period: 当連結会計年度末（2021年満期） names a maturity
                if year is not None:
                    votes[year] += 1
    return votes.most_common(1)[0][0] if votes else None


def named_by_start(tables: list[Table], meta: DocumentMeta) -> bool:
    """Whether a Japanese document names fiscal years by the year they start in (2019年度 for April 2019 to March
    2020): its undated N年度 column labels reach the year before the report's own year (the year its fiscal year
    ends in) but not that year. Questions, and dated labels (2019年度/2020年3月), use the year it ends in.
    """
    if meta.language != "ja" or not meta.year:
        return False
    years = {_fiscal_year(str(c)) for table in tables for c in table.frame.columns}
    return meta.year - 1 in years and meta.year not in years


def by_fiscal_end(facts: list[Fact], tables: list[Table], meta: DocumentMeta) -> list[Fact]:
    """The facts with the year of each undated N年度 period made N+1 when the document names fiscal years by their
    start (named_by_start), so they carry the year the fiscal year ends in, as dated labels and questions do.
    Call it once `meta.year` is known (ingestion reads it from any page after parsing)."""
    if not named_by_start(tables, meta):
        return facts
    return [replace(f, year=f.year + 1) if f.year and _fiscal_year(f.period) == f.year else f for f in facts]


def _fiscal_year(label: str) -> int | None:
    """N of an undated "N年度" label; None for any other."""
    text = nfkc(label)
    found = _FISCAL_YEAR.search(text)
    return int(found.group(1)) if found and dated_year(text) is None else None


def add_tables(doc: ParsedDocument, tables: list[Table], limits: TableLimits | None = None) -> None:
    """Put the tables, their facts and their row chunks into `doc`; one odd table never loses the others.

    Each table is first held to `limits` (parser/limits.py): one cut or skipped is a warning on `doc`."""
    budget = TableBudget(limits or TableLimits())
    tables = [admitted for admitted in map(budget.admit, tables) if admitted is not None]
    doc.warnings += budget.warnings
    report_year = current_year(tables)
    rules = shared_statement_rules()
    for i, table in enumerate(tables):
        kind = rules.classify(
            tuple(table.titles) + (table.title,),
            _first_rows(table),
            doc.meta.language,
            tuple(str(c) for c in table.frame.columns[1:]),
        )
        table.statement, table.scope = kind.statement, kind.scope
        try:
            facts, chunks = table_facts(table, doc.meta, report_year, _continued_point(tables, i))
        except Exception as exc:  # noqa: BLE001 - the document's other tables still count
            doc.warnings.append(
                f"page {table.page}: no facts from table {table.table_id} ({type(exc).__name__}: {exc})"
            )
            continue
        doc.facts += facts
        doc.chunks += chunks
    doc.tables = len(tables)
    doc.table_list = tables  # ingest writes these to the tables workbook


def _continued_point(tables: list[Table], i: int) -> str:
    """The point a prose table left open at the foot of the page before (its name row, its passages on this
    page), when tables[i] is the first on its page and may run on from the last table of that page."""
    if i == 0 or tables[i - 1].page == tables[i].page or tables[i].cell_ids is not None:
        return ""
    before = tables[i - 1]
    return open_point(before.frame) if runs_on(before, tables[i]) else ""


def _first_rows(table: Table, rows: int = 2) -> tuple[str, ...]:
    """The table's first rows as text (a statement may print its own name there)."""
    frame = table.frame
    return tuple(" ".join(str(v) for v in frame.iloc[i] if str(v)) for i in range(min(rows, len(frame))))


@dataclass(frozen=True)
class _TableReading:
    """What every row of one table is read with: its cells as Python rows, its label and value columns, the
    years its labels stand for, its units and how it prints negatives."""

    table: Table
    meta: DocumentMeta
    cells: list[list]
    ids: list[list] | None  # the source's own cell ids (HTML reports), row by row
    this_year: int | None
    label_col: int  # NO_LABEL: none
    labels: list[str]  # each row's label ("" without a label column)
    unit_cols: list[int]
    value_cols: list[_Column]
    period_kinds: dict[int, str]  # by column index
    header_unit: str
    language: str  # core.language.rule_language of the document's: the row sentences' wording
    bracketed_negative: bool
    title_year: int | None
    chunk_titles: tuple[str, ...]
    label_header: str
    label_facts: bool  # a table of mostly words: its row labels are values too
    deducted: bool  # expense lines printed as deductions (△) are positive amounts
    movement_year: list[int | None]

    @classmethod
    def of(cls, table: Table, meta: DocumentMeta, report_year: int | None) -> _TableReading:
        frame = table.frame
        cells = frame.to_numpy(dtype=object).tolist()  # read cell by cell: rows of Python values
        label_col = _label_column(frame)
        if label_col == NO_LABEL and not _caption(table):
            # nothing names the figures: read them as before, by their first words
            label_col = _first_words(frame)
        labels = ["" if label_col == NO_LABEL else str(row[label_col]) for row in cells]
        columns = _columns(table, label_col)
        value_cols = [c for c in columns if c.kind == "value"]
        header_unit = _header_unit(value_cols)
        language = rule_language(meta.language)
        bracketed_negative = parentheses_negative(
            language,
            (
                str(cells[i][c.index])
                for i in range(len(frame))
                for c in value_cols
                if not _secondary_row(labels[i])
            ),
            (table.unit, header_unit, *(c.unit for c in value_cols)),
        )
        this_year = report_year if report_year is not None else meta.year
        label_header = (
            "" if label_col == NO_LABEL else clean_field(column_period(str(frame.columns[label_col])))
        )
        return cls(
            table=table,
            meta=meta,
            cells=cells,
            ids=None if table.cell_ids is None else table.cell_ids.to_numpy(dtype=object).tolist(),
            this_year=this_year,
            label_col=label_col,
            labels=labels,
            unit_cols=[c.index for c in columns if c.kind == "unit"],
            value_cols=value_cols,
            period_kinds={c.index: shared_statement_rules().period_kind(c.period) for c in value_cols},
            header_unit=header_unit,
            language=language,
            bracketed_negative=bracketed_negative,
            title_year=period_year(table.title, this_year) if table.title else None,
            chunk_titles=tuple(table.titles)
            + ((table.title,) if table.title and table.title not in table.titles else ()),
            label_header=label_header,
            label_facts=bool(label_header) and _mostly_text(frame, value_cols),
            deducted=language == JA
            and _expenses_shown_deducted(frame, labels, value_cols, bracketed_negative),
            movement_year=_movement_years(labels),
        )

    def page(self, row: int) -> int:
        row_pages = self.table.frame.attrs.get("row_pages")
        return row_pages[row] if row_pages else self.table.page

    def fact(self, **values) -> Fact:
        """A fact of this table: its company, document, table, statement kind and scope, and `values`."""
        meta, table = self.meta, self.table
        return Fact(
            company=meta.company,
            short_name=meta.short_name,
            code=meta.code,
            doc_id=meta.doc_id,
            table=table.table_id,
            statement=table.statement,
            scope=table.scope,
            **values,
        )

    def chunk(self, row: int | str, text: str, titles: tuple[str, ...], page: int, **values) -> Chunk:
        """The search chunk of one row of this table (or of a passage or record read from its rows)."""
        meta = self.meta
        return Chunk(
            chunk_id=f"{meta.doc_id}#r{self.table.table_id}-{row}",
            doc_id=meta.doc_id,
            text=text,
            titles=titles,
            page_start=page,
            page_end=page,
            company=meta.company,
            year=meta.year,
            **values,
        )


@dataclass(frozen=True)
class _Row:
    """One table row as read with what the rows above it carry down."""

    index: int
    label: str
    label_id: str  # the source's id of the label cell ("" without ids)
    field: str  # its field name: the label cleaned, the row above's without a label, under a unit heading
    unit: str  # the unit a unit column, a unit row, the label or the heading above states
    per_share: bool
    titles: tuple[str, ...]  # the chunk's titles: the table's, then the heading rows above still open
    page: int
    negative_brackets: bool  # brackets mark negatives (not in a row of secondary figures)
    year: int | None  # a row that is a date ("2019年3月31日残高")
    opening: bool  # an opening balance: the balance at the end of the year before


@dataclass
class _Carried:
    """What the rows read so far carry down to the next: the field, the last unit heading, the heading rows
    no total row has closed, the stated units, and the cell ids already read (a merged cell counts once)."""

    field: str = ""
    section: tuple[str, str, bool] = ("", "", False)  # (field, unit, per share) of a label-only row
    headings: list[str] = dataclass_field(default_factory=list)
    unit_above: str = ""  # the unit column's last stated unit, which "〃" repeats
    unit_row: str = ""  # the unit the last row stating only a unit in a value cell gave
    seen_ids: set[str] = dataclass_field(default_factory=set)

    def enter(self, reading: _TableReading, i: int) -> _Row:
        """Row `i` read with what the rows above carry down; updates what it carries further."""
        cells = reading.cells[i]
        label = reading.labels[i]
        self.field = clean_field(label) or self.field
        titles = reading.chunk_titles + tuple(self.headings)
        unit = self._stated_unit(reading, cells) or find_unit(label)
        per_share = is_per_share(label)
        if label and not any(str(cells[c.index]) for c in reading.value_cols):
            self.section = (self.field, find_unit(label), per_share)
            _open_heading(self.headings, clean_field(label))
        elif self.section[1] and self.field != self.section[0]:
            # Rows under a heading that states a unit ("基本每股盈餘(元)" / "本期淨利  10.64") are
            # figures of that heading, in its unit.
            self.field = f"{self.section[0]}/{clean_field(label) or self.field}"
            unit = unit or self.section[1]
            per_share = per_share or self.section[2]
        row_year = explicit_year(label)
        return _Row(
            index=i,
            label=label,
            label_id=str(reading.ids[i][reading.label_col])
            if reading.ids is not None and reading.label_col != NO_LABEL
            else "",
            field=self.field,
            unit=unit,
            per_share=per_share,
            titles=titles,
            page=reading.page(i),
            # Brackets in a row of secondary figures are no negatives; a row without a label goes on the one above.
            negative_brackets=reading.bracketed_negative and not _secondary_row(label or self.field),
            year=row_year,
            opening=row_year is None and bool(_OPENING.search(nfkc(label))),
        )

    def _stated_unit(self, reading: _TableReading, cells: list) -> str:
        """The unit a unit column or a unit row states for this row ("" when none does)."""
        stated = next((_unit_cell(str(cells[j])) for j in reading.unit_cols if str(cells[j])), "") or ""
        # A unit column states its unit at the top and repeats it with 〃 or not at all (a blank cell).
        self.unit_above = self.unit_above if stated in (DITTO.value(), "") else stated
        texts = [t for t in (nfkc(str(cells[c.index])).strip() for c in reading.value_cols) if t]
        if len(texts) == 1 and is_unit(texts[0]):
            self.unit_row = texts[0]  # " | 人 | |" alone in a row: the unit of the rows below, until the next
        return self.unit_above or self.unit_row

    def leave(self, row: _Row) -> None:
        """A total row closes its heading and the ones opened under it."""
        _close_heading(self.headings, clean_field(row.label))


def table_facts(
    table: Table, meta: DocumentMeta, report_year: int | None = None, continues: str = ""
) -> tuple[list[Fact], list[Chunk]]:
    """Long-form facts of every value cell, and one search chunk of sentences per row that has values.

    `report_year` (default meta.year) is the year 本期/当期/期末 columns stand for. Every fact carries the
    table's statement kind and scope (as add_tables sets them) and its column's period kind. `continues`: the
    point a prose table on the page before left open (parser/prose_tables.py `open_point`).
    """
    if table.frame.empty:
        return [], []
    reading = _TableReading.of(table, meta, report_year)
    # A table without row labels is about what its caption (or else its heading) names.
    carried = _Carried(field=_caption(table) if reading.label_col == NO_LABEL else "")
    facts: list[Fact] = []
    chunks: list[Chunk] = []
    for i in range(len(table.frame)):
        row = carried.enter(reading, i)
        row_facts, sentences = _row_facts(reading, row, carried.seen_ids)
        facts.extend(row_facts)
        carried.leave(row)
        if sentences:
            end = _WORDS["sentence_joiner"][reading.language]
            chunks.append(
                reading.chunk(
                    i,
                    end.join(sentences) + _WORDS["sentence_end"],
                    row.titles,
                    row.page,
                    kind="table",
                    cell_id=row.label_id or (row_facts[0].cell_id if table.cell_ids is not None else ""),
                )
            )
    return facts, _section_chunks(reading, continues) or chunks


def _row_facts(reading: _TableReading, row: _Row, seen_ids: set[str]) -> tuple[list[Fact], list[str]]:
    """The facts of one row (its label's too, in a table of words) and their sentences; a cell id already
    read (a merged cell) is skipped."""
    facts: list[Fact] = []
    sentences: list[str] = []
    if reading.label_facts and row.label and not (row.label_id and row.label_id in seen_ids):
        seen_ids.add(row.label_id)
        value, _, _, _ = _fact_value(row.label, "", reading.bracketed_negative)
        facts.append(
            reading.fact(
                year=reading.title_year or reading.this_year or 0,
                field=reading.label_header,
                value=value,
                raw=row.label,
                page=row.page,
                cell_id=row.label_id,
            )
        )
    for column in reading.value_cols:
        text = str(reading.cells[row.index][column.index])
        if not text:
            continue
        cell_id = str(reading.ids[row.index][column.index]) if reading.ids is not None else ""
        if cell_id and cell_id in seen_ids:
            continue
        if cell_id:
            seen_ids.add(cell_id)
        # without the source's own cell ids, the cell's place in the table's workbook sheet
        found = _cell_fact(reading, row, column, text, cell_id or workbook_cell(row.index, column.index))
        if found is not None:
            facts.append(found[0])
            sentences.append(found[1])
    return facts, sentences


def _cell_fact(
    reading: _TableReading, row: _Row, column: _Column, text: str, cell_id: str
) -> tuple[Fact, str] | None:
    """The fact of one value cell and its sentence; None when it has no field to be asked by."""
    fact_field, period = row.field, column.period
    year = period_year(period, reading.this_year) if period else None
    if year is None and row.year is not None:
        # Rows that are dates: each column names the field ("その他/百万円" is その他).
        fact_field, period, year = clean_field(header_name(column.period)) or row.field, row.label, row.year
    kind = reading.period_kinds[column.index]
    if year is None:
        title_year = reading.title_year
        movement = reading.movement_year[row.index]
        year = movement or (title_year if title_year is not None else reading.this_year)
        if movement and not kind:
            kind = "change"  # a movement between two dated balances: what changed in the year, not a balance
    if row.opening and year:
        year -= 1  # an opening balance is the balance at the end of the year before
    # One year column's header stating the unit states it for the other years' columns.
    unit = _cell_unit(
        row.unit,
        column,
        reading.table.unit or (reading.header_unit if explicit_year(column.period) else ""),
        row.per_share,
    )
    value, number, unit, stated = _fact_value(text, unit, row.negative_brackets)
    if (
        reading.deducted
        and number is not None
        and number < 0
        and _EXPENSE.search(row.field)
        and _deduction_mark(text, reading.bracketed_negative)
    ):
        number = -number
        value = plain(number)
    if not fact_field:
        return None
    fact = reading.fact(
        year=year or 0,
        field=fact_field,
        value=value,
        number=number,
        unit=unit,
        raw=text,
        period=period,
        page=row.page,
        cell_id=cell_id,
        period_kind=kind,
    )
    shown = text if number is None else f"{text}{stated if stated not in text else ''}"
    return fact, _sentence(reading.language, fact_field, period, shown)


def _section_chunks(reading: _TableReading, continues: str = "") -> list[Chunk]:
    """The chunks that replace a table's row sentences, [] when none do; `continues`: as for table_facts.

    A section printed as a table (parser/prose_tables.py): its passages, which the row sentences glued passage
    to passage, each under the point its table names above it. A key-value table: its records, whose labels the
    row sentences misread as periods. Tables with cell ids (HTML reports) keep their rows: the table-cell route
    answers from them, cell by cell.
    """
    table = reading.table
    if table.cell_ids is not None:
        return []
    prose = prose_rows(table.frame, reading.chunk_titles, continues=continues)
    if prose:
        return [
            # the name row of a point left open on the page before: on the table's first page
            reading.chunk("h", row.text, row.titles, table.page, kind="table")
            if row.row == HEADINGS_ROW
            else reading.chunk(row.row, row.text, row.titles, reading.page(row.row), kind="table")
            for row in prose
        ]
    records = record_rows(table.frame)
    return [
        reading.chunk(i, record_text(pairs), reading.chunk_titles, reading.page(0), kind=RECORD_KIND)
        for i, pairs in enumerate(records)
    ]


def _open_heading(headings: list[str], name: str) -> None:
    """A row with a label and no values heads the rows below it ("流動負債" over "その他")."""
    if name:
        headings.append(name)
        del headings[:-_HEADING_DEPTH]


def _close_heading(headings: list[str], name: str) -> None:
    """A total row ("流動負債合計", "負債合計" for "負債の部") closes its heading and the ones opened under it."""
    if not name or not _TOTAL_ROW.search(name):
        return
    for k in range(len(headings) - 1, -1, -1):
        base = _PART.sub("", headings[k])
        if base and name.startswith(base):
            del headings[k:]
            return


def _movement_years(labels: list[str]) -> list[int | None]:
    """Rows between two dated balance rows ("2018年4月1日残高" … "2019年3月31日残高") are the
    movements of the year that ends at the later one."""
    years: list[int | None] = [None] * len(labels)
    row_dates = [explicit_year(label) for label in labels]
    if sum(1 for y in row_dates if y is not None) >= 2:
        upcoming = None
        for i in range(len(labels) - 1, -1, -1):
            upcoming = row_dates[i] if row_dates[i] is not None else upcoming
            years[i] = upcoming
    return years


def _secondary_row(label: str) -> bool:
    """A row whose label is in brackets ("(比較指標：配当込みTOPIX)", "[外、平均臨時雇用人員]") prints secondary
    figures, in brackets too: they are never negatives."""
    return bool(_SECONDARY_ROW.search(nfkc(label).strip()))


def _deduction_mark(text: str, bracketed_negative: bool) -> bool:
    """△ 1,234, or (1,234) in a table whose brackets mark negatives."""
    flat = nfkc(text).strip()
    return flat[:1] in _TRIANGLES.value() or (bracketed_negative and flat[:1] == "(" and flat[-1:] == ")")


def _expenses_shown_deducted(
    frame, labels: list[str], value_cols: list[_Column], bracketed_negative: bool
) -> bool:
    """True when this table prints expense lines as deductions, with △ or in brackets (most of them are)."""
    marked = total = 0
    for i, label in enumerate(labels):
        if not _EXPENSE.search(clean_field(label)):
            continue
        for column in value_cols:
            text = str(frame.iat[i, column.index])
            if parse_quantity(text) is not None:
                total += 1
                marked += _deduction_mark(text, bracketed_negative)
    return total > 0 and marked * 2 > total


def _mostly_text(frame, value_cols: list[_Column]) -> bool:
    cells = [str(frame.iat[i, c.index]) for c in value_cols for i in range(len(frame))]
    cells = [v for v in cells if v and not is_dash(v)]
    words = sum(1 for v in cells if parse_quantity(v) is None)
    return bool(cells) and words * 2 > len(cells)


def _sentence(language: str, field: str, period: str, value: str) -> str:
    if language == JA and not period:
        return _WORDS["sentence_unperiod"][JA].format(field=field, value=value)
    return _WORDS["sentence"][language].format(field=field, period=period, value=value)
