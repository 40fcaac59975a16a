"""Answers from the facts store: lookups, formulas, rankings, year comparisons, negative answers.

All arithmetic is Decimal in Python (qa.formulas, qa.data.rounding); no number is
ever invented. A value comes from the year's own report or, when that does not
give it, from the previous-year column of the next year's report (the evidence
says so). Without a value: `negative_report` when the corpus has neither the
company-year's report nor any figure of that year for the company, else
`negative_value` (the report is there but does not give the value).

    lookup         the value as the report prints it, with its unit (text fields too);
                   several fields at once (销售费用和管理费用分别是多少) are listed together
    formula        the formula, every operand with its unit, the result (value "10.04%", "0.36");
                   operands come from the asked year, prev() ones from the year before in the
                   same report when it has them
    ranking        of one company's several fields, answered as a lookup (rankings over companies: qa.data.statistics)
    compare_years  the values of the asked years and 相同/不相同 (value), and how a number changed

Which fact answers when several do is decided by what each fact is (qa.data.fact_pick:
scope, statement kind, period kind), then the store's preference order
(search.sqlite_facts.PREFERENCE); an answer taken from the next year's report's
previous-year column says so in its evidence.

>>> answerer = DataAnswerer(open_fact_store(settings), FormulaBook.load(), AnswerTemplates.load())
>>> answerer.run(analysis).value
'10.04%'
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING

from core.fields import FieldDictionary
from core.folding import fold_field
from core.language import rule_language
from core.quotes import find_quoted
from core.rulebook import per_book
from core.units import plain
from core.vocabulary import vocabulary
from qa.answers import AnswerTemplates
from qa.data.fact_pick import Asked, explain, fits_period, rank_facts
from qa.data.rounding import MAX_DIGITS, NumberStyle, convert_unit, fixed_point, round_at_place
from qa.formulas import Formula, FormulaBook, FormulaError, Operand, traditional_form
from qa.records import Analysis, Answer, Evidence, OutputRequest
from search.backend import FactLookup, FactStore

if TYPE_CHECKING:  # the store's look-ups hand over DataFrames
    import pandas as pd

_PUNCTUATION = per_book(lambda: vocabulary("punctuation"))  # rules/punctuation.yaml
_LIST_SEPARATORS = per_book(lambda: "|".join(map(re.escape, _PUNCTUATION["list_separators"])))


TRACED = 3  # candidates per field an answer's trace lists


@dataclass(frozen=True)
class _Found:
    """One fact chosen to answer for one field and year."""

    field: str  # canonical
    shown: str  # the name as the question wrote it
    row: dict
    runners_up: tuple[dict, ...] = ()  # the next best candidates, for the trace

    @property
    def number(self) -> Decimal | None:
        return self.row["number"]

    @property
    def unit(self) -> str:
        return self.row["unit"] or ""

    @property
    def printed(self) -> str:
        """The value as the source prints it when that is the stored number ("45137586000.0",
        stock code "002155"), else the stored value (scaled, signed: "(1,234)" in 千元 -> "-1234000")."""
        number, raw = self.number, self.row["raw"]
        if number is not None and raw:
            flat = raw
            for mark in _PUNCTUATION["thousands_separators"]:
                flat = flat.replace(mark, "")
            flat = flat.strip()
            try:
                if Decimal(flat) == number:
                    return flat
            except InvalidOperation:
                pass
        return self.row["value"]


class DataAnswerer:
    """Answers the question types routed to "data" (rules/question_types.yaml) from a FactStore; `run` is the
    entry point. A formula or compare_years question is computed; any other type is a look-up.

    Field names and synonyms come from the formula book's field dictionary
    (rules/fields.yaml); wording from the answer templates (rules/answers.yaml).
    """

    def __init__(
        self,
        store: FactStore,
        formulas: FormulaBook,
        templates: AnswerTemplates,
        fields: FieldDictionary | None = None,
    ):
        fields = fields or formulas.fields
        if fields is None:
            raise ValueError("DataAnswerer needs the field dictionary (rules/fields.yaml)")
        self.store = store
        self.formulas = formulas
        self.templates = templates
        self.fields = fields
        self._reports: _Reports | None = None

    def run(self, analysis: Analysis) -> Answer:
        """The answer to one analysed data question."""
        kind = _kind(analysis)
        company = self._company(analysis)
        years = self._years(analysis, company)
        if company is None or not years:
            return self._negative_report(analysis, self._shown_company(analysis), years)
        if kind == "formula":
            return self._formula(analysis, company, max(years))
        if kind == "compare_years":
            return self._compare(analysis, company, sorted(set(years)))
        if len(years) > 1:  # 2020年和2021年的X分别是多少: one answer per year, in order
            return _joined(
                analysis,
                [self._lookup(analysis, company, y) for y in sorted(years)],
                self.templates.common["joiner"],
            )
        return self._lookup(analysis, company, years[0])

    def lookups(self, analysis: Analysis) -> list[FactLookup]:
        """The store look-ups `run` starts with for this analysis, so a batch's can be sent at once
        (search.prefetch.PrefetchedFacts); a look-up made only when these find nothing is not foreseen."""
        company = self._company(analysis)
        years = self._years(analysis, company)
        if company is None or not years:
            return []
        kind = _kind(analysis)
        if kind == "formula":
            formula = self.formulas.get(analysis.formula, analysis.fields[0] if analysis.fields else "")
            if formula is None or formula.prefer_reported:
                return []
            return [
                self._request(
                    company,
                    {max(years) + op.offset for op in formula.operands()},
                    {op.field for op in formula.operands()},
                )
            ]
        if kind == "compare_years":
            wanted = self._wanted_fields(analysis)
            return [self._request(company, set(years), {wanted[0][0]})] if wanted else []
        wanted = self._quoted_labels(analysis) or self._wanted_fields(analysis)
        return [self._request(company, {year}, {field for field, _ in wanted}) for year in sorted(set(years))]

    # -- lookup ------------------------------------------------------------------------------------

    def _lookup(self, analysis: Analysis, company: str, year: int) -> Answer:
        lang, words = self._lang(analysis)
        # A row label the question quotes (「長期前払費用」) is looked up as written first: the field
        # dictionary may only know a part of it (前払費用).
        asked = Asked.of(analysis)
        found, missing = self._fetch(company, year, self._quoted_labels(analysis), asked)
        if not found:
            found, missing = self._fetch(company, year, self._wanted_fields(analysis), asked)
        shown_company = self._shown_company(analysis)
        if not found:
            return self._not_found(
                analysis, company, year, [s for _, s in missing] or list(analysis.keywords)
            )
        shown = [self._show_value(f, analysis.output) for f in found]
        if len(found) == 1 and not missing:
            f, (value, unit) = found[0], shown[0]
            if self._is_text(f):
                text = self.templates.render(
                    "lookup_text", lang, company=shown_company, year=year, field=f.shown, value=value
                )
            else:
                text = self.templates.render(
                    "lookup", lang, company=shown_company, year=year, field=f.shown, value=value, unit=unit
                )
        else:
            values = words["sep"].join(f"{f.shown}{words['is']}{v}{u}" for f, (v, u) in zip(found, shown))
            text = self.templates.render(
                "lookup_several", lang, company=shown_company, year=year, values=values
            )
            if missing:
                text += self.templates.negative(
                    "negative_value",
                    analysis,
                    company=shown_company,
                    years=year,
                    field=words["list"].join(s for _, s in missing),
                )
        return self._answer(
            analysis,
            text,
            "lookup:facts",
            self.templates.common["joiner"].join(v for v, _ in shown),
            found,
            unit=shown[0][1] if len(shown) == 1 else "",
        )

    def _show_value(self, found: _Found, output: OutputRequest) -> tuple[str, str]:
        """(value, unit) as the answer shows them: as printed, unless the question asks for a unit or precision."""
        number, unit = found.number, found.unit or self._default_unit(found.field)
        if number is None or self._is_text(found):
            return found.printed, ""
        convert = bool(output.unit) and output.unit != unit
        if not (convert or output.digits is not None or output.round_at):
            return found.printed, unit  # 是多少元 asks for the unit it already has
        try:
            if output.round_at:
                number = round_at_place(number, output.round_at)
            if convert:
                number, unit = convert_unit(number, unit, output.unit), output.unit
        except ValueError:  # a unit or place that does not fit this value (万元 of a head count)
            return found.printed, unit
        digits = _digits(output, None)
        if digits is None:
            return plain(number), unit  # converted or rounded: no longer as printed, so no trailing zeros
        return NumberStyle(digits).format(number), unit

    # -- formula -----------------------------------------------------------------------------------

    def _formula(self, analysis: Analysis, company: str, year: int) -> Answer:
        lang, words = self._lang(analysis)
        shown_company = self._shown_company(analysis)
        formula = self.formulas.get(analysis.formula, analysis.fields[0] if analysis.fields else "")
        if formula is None:
            return self._not_found(
                analysis, company, year, [analysis.formula or self.templates.common["formula"]]
            )
        if formula.prefer_reported:
            reported = self._reported(analysis, formula, company, year)
            if reported is not None:
                return reported
        operands, found = self._operands(formula, company, year, Asked.of(analysis))
        missing = [
            op.label(words["prev"])
            for op in formula.operands()
            if operands.get(op) is None and op.field not in formula.optional
        ]
        if missing:
            return self._not_found(analysis, company, year, missing)
        try:
            result = formula.evaluate({op: (f.number if f else None) for op, f in operands.items()})
        except FormulaError:  # operands are all there (checked above): a divisor is 0
            field = formula.name + self._aside(words["zero"])
            text = self.templates.negative(
                "negative_value", analysis, company=shown_company, years=year, field=field
            )
            return self._answer(analysis, text, "negative:formula_undefined", None, found)
        style, value, shown = self._result(formula, result, analysis.output)
        text = self.templates.render(
            "formula",
            lang,
            company=shown_company,
            year=year,
            formula=formula.name,
            expression=formula.right_side(words["prev"]),
            operands=words["sep"].join(
                op.label(words["prev"])
                + (words["missing"] if f is None else f"{words['is']}{f.printed}{f.unit}")
                for op, f in ((op, operands.get(op)) for op in formula.operands())
            ),
            result=shown,
        )
        return self._answer(
            analysis, text, "formula:facts", value, found, unit="%" if style.percent else formula.unit
        )

    def _result(self, formula: Formula, result: float, output: OutputRequest) -> tuple[NumberStyle, str, str]:
        """How a formula's result is printed: its style, the value, and the value shown with its unit."""
        percent = formula.percent if output.percent is None else output.percent
        style = NumberStyle(_digits(output, formula.precision), percent)
        value = style.format(result)
        shown = value + ("" if style.percent else formula.unit)
        # A share asked without saying ratio or percent: the formula's ratio (FinGLM's convention) and the
        # percentage annual reports print shares in (研发人员数量占公司总人数的比例（%）), since readers expect either.
        if output.percent is None and not style.percent and not formula.unit and output.share:
            shown += self._aside(NumberStyle(style.digits, percent=True).format(result))
        return style, value, shown

    def _operands(
        self, formula: Formula, company: str, year: int, asked: Asked = Asked()
    ) -> tuple[dict[Operand, _Found | None], list[_Found]]:
        """Each operand's fact: the asked year's, and prev() from the same report when it has the value."""
        frame = self._lookup_frame(
            company,
            {year + op.offset for op in formula.operands()},
            {op.field for op in formula.operands()},
            asked,
        )
        current_report = None
        chosen: dict[Operand, _Found | None] = {}
        for op in sorted(formula.operands(), key=lambda o: -o.offset):  # this year's first
            rows = [r for r in frame if r["canonical"] == op.field and r["year"] == year + op.offset]
            if op.offset and current_report is not None:
                rows.sort(key=lambda r: r["report_year"] != current_report)  # stable: store order otherwise
            row = rows[0] if rows else None
            if row is not None and not op.offset and current_report is None:
                current_report = row["report_year"]
            chosen[op] = _Found(op.field, op.label(), row) if row is not None else None
        return chosen, [f for f in chosen.values() if f is not None]

    def _reported(self, analysis: Analysis, formula: Formula, company: str, year: int) -> Answer | None:
        """A per-share figure or ratio the report prints under the formula's name, if it does."""
        for name in (formula.name, *formula.aliases):
            field = self.fields.canonical(name)
            if field is None:
                continue
            found, _ = self._fetch(company, year, [(field, name)], Asked.of(analysis))
            if found:
                lang, _ = self._lang(analysis)
                value, unit = self._show_value(found[0], analysis.output)
                text = self.templates.render(
                    "lookup",
                    lang,
                    company=self._shown_company(analysis),
                    year=year,
                    field=found[0].shown,
                    value=value,
                    unit=unit,
                )
                return self._answer(analysis, text, "formula:reported", value, found)
        return None

    # -- compare years -----------------------------------------------------------------------------

    def _compare(self, analysis: Analysis, company: str, years: list[int]) -> Answer:
        lang, words = self._lang(analysis)
        wanted = self._wanted_fields(analysis)
        shown_company = self._shown_company(analysis)
        if not wanted:
            return self._negative_value(analysis, shown_company, years[-1], analysis.keywords)
        field, shown_field = wanted[0]
        frame = self._lookup_frame(company, set(years), {field}, Asked.of(analysis))
        found: list[_Found] = []
        for year in years:
            rows = [r for r in frame if r["year"] == year]
            if not rows:
                return self._not_found(analysis, company, year, [shown_field])
            found.append(_Found(field, shown_field, rows[0]))
        shown = [self._show_value(f, analysis.output) for f in found]
        text_field = any(self._is_text(f) for f in found)
        keys = [_same_key(f, text_field) for f in found]
        years_text = words["list"].join(words["year"].format(year=y) for y in years)
        if len(set(keys)) == 1:
            value, unit = shown[-1]
            text = self.templates.render(
                "compare_same",
                lang,
                company=shown_company,
                years=years_text,
                field=shown_field,
                value=f"{value}{unit}",
            )
            return self._answer(analysis, text, "compare_years:facts", self.templates.common["same"], found)
        values = words["sep"].join(
            f"{words['year'].format(year=y)}{words['is']}{v}{u}" for y, (v, u) in zip(years, shown)
        )
        if analysis.asks == "difference" and not text_field:
            return self._difference(analysis, found, years, values)
        if not text_field:
            change = found[-1].number - found[0].number
            values += (
                words["sep"]
                + words["vs"].format(year=years[0])
                + (f"{words['up' if change > 0 else 'down']}{fixed_point(abs(change))}{found[-1].unit}")
            )
            if found[0].number:
                values += self._aside(NumberStyle(2, True).format(change / abs(found[0].number)))
        text = self.templates.render(
            "compare_changed", lang, company=shown_company, years=years_text, field=shown_field, values=values
        )
        return self._answer(analysis, text, "compare_years:facts", self.templates.common["changed"], found)

    def _difference(self, analysis: Analysis, found: list[_Found], years: list[int], values: str) -> Answer:
        """比…增加了多少: the later year's value minus the earlier's (value), with both values."""
        lang, words = self._lang(analysis)
        change = found[-1].number - found[0].number
        unit = found[-1].unit or self._default_unit(found[-1].field)
        text = self.templates.render(
            "compare_difference",
            lang,
            company=self._shown_company(analysis),
            field=found[-1].shown,
            year=years[-1],
            base_year=years[0],
            direction=words["up" if change >= 0 else "down"],
            change=f"{fixed_point(abs(change))}{unit}",
            values=values,
        )
        return self._answer(analysis, text, "compare_years:difference", fixed_point(change), found)

    # -- shared ------------------------------------------------------------------------------------

    def _fetch(
        self, company: str, year: int, wanted: list[tuple[str, str]], asked: Asked = Asked()
    ) -> tuple[list[_Found], list[tuple[str, str]]]:
        """The preferred fact of each wanted (canonical, shown) field in the year, and the ones not found."""
        frame = self._lookup_frame(company, {year}, {field for field, _ in wanted}, asked)
        found, missing = [], []
        for field, shown in wanted:
            rows = [r for r in frame if r["canonical"] == field]
            if rows:
                found.append(_Found(field, shown, rows[0], tuple(rows[1:TRACED])))
            else:
                missing.append((field, shown))
        return found, missing

    def _lookup_frame(
        self, company: str, years: set[int], fields: set[str], asked: Asked = Asked()
    ) -> list[dict]:
        """Candidate facts best first (qa.data.fact_pick: scope, statement, period, then the store's order), each
        with the canonical field it stands for; only facts of the period asked (a quarter is not the year to date,
        nor the year); `asked.parent`: the question asks for the parent company's figures."""
        owner = self._owners(fields)
        home = {
            name: self.fields.fields[field].statement
            for name, field in owner.items()
            if field in self.fields.fields
        }
        rows = rank_facts(
            [
                dict(r)  # a copy: "canonical" is added below, and a prefetched look-up's rows are shared
                for r in self.store.lookup(company, sorted(years), list(owner))
                if fits_period(r, asked)
            ],
            asked.parent,
            home,
        )
        for row in rows:
            row["canonical"] = owner.get(row["field"], row["field"])
        # A percentage where the field is an amount (売上高比（％） next to 営業利益) goes last.
        rows.sort(key=lambda r: (r["unit"] == "%") != (self._default_unit(r["canonical"]) == "%"))
        return rows

    def _request(self, company: str, years: set[int], fields: set[str]) -> FactLookup:
        """The store look-up `_lookup_frame` makes for these fields in these years."""
        return FactLookup(company, tuple(sorted(years)), tuple(self._owners(fields)))

    def _owners(self, fields: set[str]) -> dict[str, str]:
        """Each name a report may print for one of `fields` -> that field, in look-up order (the first field
        listing a name owns it)."""
        owner: dict[str, str] = {}
        for field in sorted(fields):
            for name in self._names(field):
                owner.setdefault(name, field)
        return owner

    def _names(self, field: str) -> list[str]:
        """How reports may label a field: its canonical name, synonyms, their Traditional and NFKC forms."""
        definition = self.fields.fields.get(field)
        written = [field, *(definition.synonyms if definition else ())]
        return list(
            dict.fromkeys(
                written
                + [traditional_form(w) for w in written]
                + [unicodedata.normalize("NFKC", w) for w in written]
            )
        )

    def _wanted_fields(self, analysis: Analysis) -> list[tuple[str, str]]:
        """(canonical, the question's word for it) for each field asked; row labels in quotes when none is known.

        The question's word is spelled as rules/fields.yaml lists it when it differs only by
        spacing or 的 (每股的经营现金流量 -> 每股经营现金流量)."""
        wanted = []
        for field in dict.fromkeys(analysis.fields):
            written = next((k for k in analysis.keywords if self.fields.canonical(k) == field), field)
            definition = self.fields.fields.get(field)
            listed = (definition.name, *definition.synonyms) if definition else ()
            wanted.append((field, next((w for w in listed if fold_field(w) == fold_field(written)), written)))
        if not wanted:  # a label the dictionary does not know (「原材料及び貯蔵品」): look it up as written
            wanted = [(k, k) for k in analysis.keywords if k]
        return wanted

    def _quoted_labels(self, analysis: Analysis) -> list[tuple[str, str]]:
        """Row labels the question quotes (「…」, “…”), up to the first 、 (「原材料及び貯蔵品、流動資産」:
        the label, then where it is). Questions quoting a label within given sources go to qa.data.cells."""
        text = analysis.question.text
        quoted = {q.word for q in find_quoted(text)}
        labels = [re.split(_LIST_SEPARATORS.value(), k)[0] for k in analysis.keywords if k in quoted]
        return [(label, label) for label in dict.fromkeys(labels) if label]

    def _is_text(self, found: _Found) -> bool:
        definition = self.fields.fields.get(found.field)
        return (definition is not None and definition.kind == "text") or found.number is None

    def _default_unit(self, field: str) -> str:
        definition = self.fields.fields.get(field)
        return definition.unit if definition else ""

    def _company(self, analysis: Analysis) -> str | None:
        if analysis.company is None:
            return None
        return self._reports_of().resolve(
            analysis.company.name, analysis.company.short_name, analysis.company.code
        )

    def _years(self, analysis: Analysis, company: str | None) -> list[int]:
        if analysis.years:
            return list(dict.fromkeys(analysis.years))
        latest = self._reports_of().latest(company)
        return [latest] if latest is not None else []

    def _shown_company(self, analysis: Analysis) -> str:
        if analysis.company is not None:
            return analysis.company.short_name or analysis.company.name
        if analysis.candidates:
            return "/".join(c.short_name or c.name for c in analysis.candidates)
        return self._lang(analysis)[1]["unknown_company"]

    def _reports_of(self) -> _Reports:
        if self._reports is None:
            self._reports = _Reports(self.store.reports())
        return self._reports

    def _not_found(self, analysis: Analysis, company: str, year: int, fields: list[str]) -> Answer:
        """No value: the report of that year is not in the corpus, or it does not give the value."""
        shown_company = self._shown_company(analysis)
        if not self._reports_of().covers(company, year):
            return self._negative_report(analysis, shown_company, [year])
        return self._negative_value(analysis, shown_company, year, fields)

    def _negative_report(self, analysis: Analysis, company: str, years) -> Answer:
        text = self.templates.negative("negative_report", analysis, company=company, years=years)
        return self._answer(analysis, text, "negative:no_report", None, [])

    def _negative_value(self, analysis: Analysis, company: str, year, fields) -> Answer:
        text = self.templates.negative(
            "negative_value",
            analysis,
            company=company,
            years=year,
            field=self._lang(analysis)[1]["list"].join(fields),
        )
        return self._answer(analysis, text, "negative:no_value", None, [])

    def _lang(self, analysis: Analysis) -> tuple[str, dict[str, str]]:
        """The answer's language and its joining words (rules/answers.yaml `words`); zh when not known."""
        lang = rule_language(analysis.language)
        return lang, self.templates.words[lang]

    def _aside(self, text: str) -> str:
        return self.templates.common["aside"].format(text=text)

    def _answer(
        self,
        analysis: Analysis,
        text: str,
        route: str,
        value: str | None,
        found: list[_Found],
        unit: str = "",
    ) -> Answer:
        lang, words = self._lang(analysis)
        evidence = []
        for f in found:
            row = f.row
            note = ""
            if row["report_year"] != row["year"]:
                note = self._aside(words["from_next"].format(year=row["report_year"]))
            period = self._aside(row["period"]) if row["period"] else ""
            printed = row["raw"] or row["value"]
            line = self.templates.common["evidence"].format(
                company=row["company"],
                year=row["year"],
                field=row["field"],
                period=period,
                printed=printed,
                note=note,
            )
            evidence.append(Evidence.of_fact(row, line))
        documents = list(dict.fromkeys(e.doc for e in evidence if e.doc))
        trace = [
            f"{f.shown} #{i}: {explain(row)}"
            for f in found
            for i, row in enumerate((f.row, *f.runners_up), 1)
        ]
        return Answer.to(
            analysis,
            text,
            route,
            value=value,
            documents=documents,
            evidence=evidence,
            trace=trace,
            unit=unit,
        )


class _Reports:
    """The company-years the store covers, by company, with short names and codes to resolve companies."""

    def __init__(self, rows: list[dict]):
        self.years: dict[str, set[int]] = {}
        self.by_alias: dict[str, str] = {}
        for row in rows:
            self.years.setdefault(row["company"], set()).add(int(row["year"]))
            for alias in (row["short_name"], row["code"]):
                if alias:
                    self.by_alias.setdefault(alias, row["company"])

    def resolve(self, name: str, short_name: str = "", code: str = "") -> str:
        """The company's name in the store: its full name, or the one its short name or code belongs to."""
        if name in self.years:
            return name
        for alias in (short_name, code):
            if alias and alias in self.by_alias:
                return self.by_alias[alias]
        return name

    def covers(self, company: str, year: int) -> bool:
        return year in self.years.get(company, ())

    def latest(self, company: str | None) -> int | None:
        if company:
            years = self.years.get(company, set())
        else:
            years = set().union(*self.years.values()) if self.years else set()
        return max(years) if years else None


def _kind(analysis: Analysis) -> str:
    """What the answer computes: the question's type, except where it names too little for that."""
    if analysis.type == "ranking" and analysis.company is not None and not (analysis.top_n or analysis.rank):
        return "lookup"  # 某公司X和Y分别是多少: several fields of one company, not a ranking
    if analysis.type == "compare_years" and len(set(analysis.years)) < 2:
        return "lookup"
    return analysis.type


def frame_rows(frame: pd.DataFrame) -> list[dict]:
    """Rows as dicts of Python values (DataFrame.to_dict goes row by row through pandas: slow)."""
    columns = list(frame.columns)
    return [dict(zip(columns, values)) for values in frame.to_numpy(dtype=object).tolist()]


def _joined(analysis: Analysis, answers: list[Answer], joiner: str) -> Answer:
    values = [a.value for a in answers if a.value is not None]
    routes = {a.route for a in answers}
    return Answer.to(
        analysis,
        "".join(a.answer for a in answers),
        routes.pop() if len(routes) == 1 else "lookup:facts",
        value=joiner.join(values) if values else None,
        documents=list(dict.fromkeys(d for a in answers for d in a.documents)),
        evidence=[e for a in answers for e in a.evidence],
    )


def _digits(output: OutputRequest, default: int | None) -> int | None:
    """The decimals the question asks for, when NumberStyle can keep that many; else `default`."""
    return output.digits if output.digits is not None and 0 <= output.digits <= MAX_DIGITS else default


def _same_key(found: _Found, text: bool):
    if text:
        return "".join(str(found.row["value"]).split())
    return found.number
