"""Answers over many companies: rankings, places, top/bottom N, counts, lists, aggregates, multi-year conditions.

Questions of type `ranking` and `statistics` (rules/question_types.yaml) come here with what
qa.understand.statistics_request read from them (Analysis.statistics). The store does the work over the
facts: a ranking by a field reads from the top of its index (FactStore.ranking), a count is
counted there (count_companies), and lists and aggregates get each company's preferred value,
already filtered by the threshold and the place filter (company_values). Python only evaluates
formulas per company (growth rates, ratios) and adds Decimals.

    rank        by a field or formula, highest or lowest; one place (第N, ties share a place) or N
                (top N lists every company tied with the N-th)
    count/list  companies meeting a threshold (大于2亿元, 不少于20%), within a place filter
                (在杭州注册: 注册地址 / 办公地址 facts containing the place)
    average/sum/median of the companies' values
    every-year top N (均位列前十) and consecutive growth or decline (连续三年增长: each of the N
                years up on the year before, so 2019-2021 needs 2018 as well)

>>> StatisticsAnswerer(store, FormulaBook.load(), AnswerTemplates.load(), place_fields=("注册地址",)).run(analysis).value
'甲公司、乙公司'
"""

from __future__ import annotations

import statistics as stats
from dataclasses import dataclass
from decimal import Decimal

from core.fields import FieldDictionary
from core.language import rule_language
from qa.answers import AnswerTemplates
from qa.data.answer import frame_rows
from qa.data.rounding import NumberStyle, fixed_point
from qa.formulas import Formula, FormulaBook, FormulaError, traditional_form
from qa.records import Analysis, Answer, Evidence, StatisticsRequest, Threshold
from search.backend import Condition, FactStore


@dataclass(frozen=True)
class _Value:
    company: str
    number: Decimal
    row: dict  # the fact (or the formula's first operand) behind it, for evidence


@dataclass(frozen=True)
class _Measure:
    """What companies are compared by: a field (with the names reports use) or a formula."""

    shown: str
    field: str = ""
    names: tuple[str, ...] = ()
    unit: str = ""  # the facts' unit a value must have ("" : any)
    shown_unit: str = ""  # the unit answers print after a value
    formula: Formula | None = None

    @property
    def percent(self) -> bool:
        return self.formula is not None and self.formula.percent


class StatisticsAnswerer:
    """Answers `ranking` and `statistics` questions from a FactStore; `run` is the entry point."""

    def __init__(
        self,
        store: FactStore,
        formulas: FormulaBook,
        templates: AnswerTemplates,
        place_fields: tuple[str, ...],
        fields: FieldDictionary | None = None,
    ):
        fields = fields or formulas.fields
        if fields is None:
            raise ValueError("StatisticsAnswerer needs the field dictionary (rules/fields.yaml)")
        self.store, self.formulas, self.templates, self.fields = store, formulas, templates, fields
        # The address fields a place filter looks in when the question names none (rules/statistics.yaml,
        # read by the question analyser: StatisticsRules.place_fields).
        self.place_fields = place_fields
        self._latest: int | None = None

    def run(self, analysis: Analysis) -> Answer:
        request = analysis.statistics or StatisticsRequest(
            top_n=analysis.top_n, rank=analysis.rank, descending=analysis.descending, ordered=True
        )
        lang = rule_language(analysis.language)
        measure = self._measure(analysis, lang)
        years = sorted(set(analysis.years)) or ([self._latest_year()] if self._latest_year() else [])
        if measure is None or not years:
            shown = (
                self._list(lang, analysis.keywords)
                or analysis.formula
                or self.templates.common["unknown_measure"]
            )
            return self._negative(analysis, years, shown)
        companies = None
        if request.places:
            names = [n for f in (request.place_fields or self.place_fields) for n in self._names(f)]
            companies = sorted(self.store.companies_with_text(names, request.places))
        named = list(dict.fromkeys(c.name for c in analysis.companies))
        latest_each = analysis.type == "ranking" and len(named) >= 2
        if latest_each:
            companies = named
        job = _Job(self, analysis, request, measure, years, companies, lang, latest_each)
        return job.answer()

    # -- shared with _Job ----------------------------------------------------------------------------

    def _measure(self, analysis: Analysis, lang: str) -> _Measure | None:
        if analysis.formula:
            formula = self.formulas.get(analysis.formula, analysis.fields[0] if analysis.fields else "")
            if formula is not None:
                return _Measure(formula.name, formula=formula)
        numeric = [
            f for f in analysis.fields if f in self.fields.fields and self.fields.fields[f].kind == "number"
        ]
        if not numeric:  # only an address (the place filter) or nothing the dictionary knows
            return None
        field = numeric[0]
        written = next((k for k in analysis.keywords if self.fields.canonical(k) == field), field)
        definition = self.fields.fields.get(field)
        unit = definition.unit if definition else ""
        # Amounts compare in the currency of the question's language (元 and 円 never mix); other
        # units are not filtered on (tables often print head counts without one).
        currencies = {words["currency"] for words in self.templates.statistics_words.values()}
        currency = self.templates.statistics_words[lang]["currency"] if unit in currencies else ""
        return _Measure(written, field, tuple(self._names(field)), currency, currency or unit)

    def _names(self, field: str) -> list[str]:
        definition = self.fields.fields.get(field)
        written = [field, *(definition.synonyms if definition else ())]
        return list(dict.fromkeys(written + [traditional_form(w) for w in written]))

    def _latest_year(self) -> int | None:
        if self._latest is None:
            years = [int(row["year"]) for row in self.store.reports()]
            self._latest = max(years) if years else None
        return self._latest

    def _list(self, lang: str, names) -> str:
        """Names joined as a list in the answer's language (rules/answers.yaml `words`)."""
        return self.templates.words[lang]["list"].join(names)

    def _negative(self, analysis: Analysis, years: list[int], shown: str) -> Answer:
        text = self.templates.negative("negative_value", analysis, company="", years=years, field=shown)
        return _answer(analysis, text, "negative:no_value", None, [])


class _Job:
    """One question's work: values from the store, then the asked operation."""

    def __init__(
        self,
        owner: StatisticsAnswerer,
        analysis: Analysis,
        request: StatisticsRequest,
        measure: _Measure,
        years: list[int],
        companies: list[str] | None,
        lang: str,
        latest_each: bool = False,
    ):
        self.o, self.a, self.r, self.m = owner, analysis, request, measure
        self.years, self.companies, self.lang, self.words = (
            years,
            companies,
            lang,
            {**owner.templates.statistics_words[lang], "list": owner.templates.words[lang]["list"]},
        )
        self.year = years[-1]
        # The companies named are ranked each by its latest asked year with a value (各公司最新一期年报:
        # the years asked belong to different companies, so no one year holds them all).
        self.latest_each = latest_each
        self.shown_year = f"{years[0]}-{years[-1]}" if latest_each and len(years) > 1 else str(self.year)

    def answer(self) -> Answer:
        r = self.r
        if r.every_year_top:
            return self._every_year_top()
        if r.consecutive:
            return self._consecutive()
        if r.operation == "count":
            return self._count()
        if r.operation in ("average", "sum", "median"):
            return self._aggregate()
        if r.operation == "list" or (r.threshold is not None and not r.is_ranking):
            return self._list()
        return self._rank()

    # -- values --------------------------------------------------------------------------------------

    def _condition(self) -> Condition | None:
        t: Threshold | None = self.r.threshold
        if t is None:
            return None
        return Condition(t.op, float(t.amount))

    def _values(self, year: int, filtered: bool = True) -> list[_Value]:
        """Each company's value in the year (within the place filter; meeting the threshold if `filtered`)."""
        m, condition = self.m, self._condition() if filtered else None
        if m.formula is None:
            frame = self.o.store.company_values(
                list(m.names), [year], unit=m.unit or None, companies=self.companies, condition=condition
            )
            return [_Value(row["company"], row["number"], row) for row in frame_rows(frame)]
        by_operand = {}
        for op in m.formula.operands():
            names = self.o._names(op.field)
            frame = self.o.store.company_values(names, [year + op.offset], companies=self.companies)
            by_operand[op] = {row["company"]: row for row in frame_rows(frame)}
        first = next(iter(by_operand.values()), {})
        values = []
        for company in sorted(set().union(*[set(rows) for rows in by_operand.values()])):
            operands = {
                op: (rows[company]["number"] if company in rows else None) for op, rows in by_operand.items()
            }
            try:
                number = m.formula.evaluate(operands)
            except FormulaError:
                continue
            if condition is None or condition.holds(number):
                row = first.get(company) or next(
                    rows[company] for rows in by_operand.values() if company in rows
                )
                values.append(_Value(company, number, row))
        return values

    def _ranked(self, year: int, limit: int) -> list[tuple[int, _Value]]:
        """(place, value) of the first `limit` places (ties share a place and all stay in)."""
        m, r = self.m, self.r
        if self.latest_each:
            values = self._ordered(self._latest_values())
        elif m.formula is None and self.companies is None and r.threshold is None:
            frame = self.o.store.ranking(list(m.names), year, limit, r.descending, unit=m.unit or None)
            values = [_Value(row["company"], row["number"], row) for row in frame_rows(frame)]
        else:
            values = sorted(
                self._values(year), key=lambda v: (-v.number if r.descending else v.number, v.company)
            )
        places = _places([v.number for v in values])
        return [(p, v) for p, v in zip(places, values) if p <= limit]

    def _latest_values(self) -> list[_Value]:
        """Each company's value in the latest asked year that has one."""
        latest: dict[str, _Value] = {}
        for year in sorted(self.years, reverse=True):
            for value in self._values(year):
                latest.setdefault(value.company, value)
        return list(latest.values())

    # -- operations ----------------------------------------------------------------------------------

    def _rank(self) -> Answer:
        r, w = self.r, self.words
        limit = max(r.rank, r.top_n, 1)
        listed = self._ranked(self.year, limit)
        order = w["high" if r.descending else "low"]
        if not listed:
            return self._none()
        if r.rank:
            at = [(p, v) for p, v in listed if p <= r.rank]
            place = max(p for p, _ in at)
            if place != r.rank and len(at) < r.rank:  # fewer companies than the place asked
                return self._fewer(len(listed))
            chosen = [v for p, v in at if p == place]
            text = (
                self.o.templates.render(
                    "statistics_place",
                    self.lang,
                    year=self.shown_year,
                    field=self.m.shown,
                    order=order,
                    rank=r.rank,
                    companies=w["list"].join(v.company for v in chosen),
                    value=self._show(chosen[0].number),
                )
                + self._scope()
            )
            return self._answered(text, "ranking:facts", w["list"].join(v.company for v in chosen), chosen)
        ranking = w["list"].join(f"{p}.{v.company}{self._aside(self._show(v.number))}" for p, v in listed)
        text = (
            self.o.templates.render(
                "ranking",
                self.lang,
                year=self.shown_year,
                field=self.m.shown,
                order=order,
                top_n=len(listed),
                ranking=ranking,
            )
            + self._scope()
        )
        if r.top_n and len(listed) < r.top_n:
            text += self.o.templates.render(
                "statistics_fewer", self.lang, count=len(listed), year=self.year, field=self.m.shown
            )
        values = [v for _, v in listed]
        return self._answered(text, "ranking:facts", w["list"].join(v.company for v in values), values)

    def _count(self) -> Answer:
        m = self.m
        if m.formula is None:
            count = self.o.store.count_companies(
                list(m.names),
                self.year,
                unit=m.unit or None,
                companies=self.companies,
                condition=self._condition(),
            )
        else:
            count = len(self._values(self.year))
        text = (
            self.o.templates.render(
                "statistics_count",
                self.lang,
                year=self.year,
                field=m.shown,
                condition=self._condition_text(),
                count=count,
            )
            + self._scope()
        )
        return _answer(self.a, text, "statistics:facts", str(count), [])

    def _list(self) -> Answer:
        values = self._ordered(self._values(self.year))
        return self._listed(
            values,
            self.o.templates.render(
                "statistics_list",
                self.lang,
                year=self.year,
                field=self.m.shown,
                condition=self._condition_text(),
                count=len(values),
                companies=self._named(values),
            ),
        )

    def _aggregate(self) -> Answer:
        values = self._values(self.year)
        if not values:
            return self._none()
        numbers = [v.number for v in values]
        how = self.r.operation
        result = {
            "sum": lambda: sum(numbers, Decimal(0)),
            "average": lambda: sum(numbers, Decimal(0)) / len(numbers),
            "median": lambda: Decimal(stats.median(numbers)),
        }[how]()
        value = self._show(result, digits=2)
        text = (
            self.o.templates.render(
                "statistics_aggregate",
                self.lang,
                year=self.year,
                field=self.m.shown,
                condition=self._condition_text(),
                count=len(values),
                aggregate=self.words[how],
                value=value,
            )
            + self._scope()
        )
        return _answer(self.a, text, "statistics:facts", _bare(value), [])

    def _every_year_top(self) -> Answer:
        n = self.r.every_year_top
        kept: dict[str, _Value] | None = None
        for year in self.years:
            top = {v.company: v for _, v in self._ranked(year, n)}
            kept = top if kept is None else {c: v for c, v in top.items() if c in kept}
        values = self._ordered((kept or {}).values())
        order = self.words["high" if self.r.descending else "low"]
        return self._listed(
            values,
            self.o.templates.render(
                "statistics_every_year",
                self.lang,
                years=f"{self.years[0]}-{self.years[-1]}",
                field=self.m.shown,
                order=order,
                n=n,
                count=len(values),
                companies=self._named(values),
            ),
        )

    def _consecutive(self) -> Answer:
        n = self.r.consecutive if self.r.consecutive > 0 else max(1, self.years[-1] - self.years[0])
        span = list(range(self.year - n, self.year + 1))
        by_year = {y: {v.company: v for v in self._values(y, filtered=False)} for y in span}
        values = []
        for company in sorted(by_year[self.year]):
            series = [by_year[y].get(company) for y in span]
            if any(v is None for v in series):
                continue
            steps = [b.number - a.number for a, b in zip(series, series[1:])]
            if all(s > 0 if self.r.rising else s < 0 for s in steps):
                values.append(by_year[self.year][company])
        values = self._ordered(values)
        return self._listed(
            values,
            self.o.templates.render(
                "statistics_consecutive",
                self.lang,
                years=f"{span[1]}-{span[-1]}",
                field=self.m.shown,
                n=n,
                direction=self.words["up" if self.r.rising else "down"],
                count=len(values),
                companies=self._named(values),
            ),
        )

    def _ordered(self, values) -> list[_Value]:
        """Companies listed by value, the asked end first (then by name)."""
        return sorted(values, key=lambda v: (-v.number if self.r.descending else v.number, v.company))

    # -- wording -------------------------------------------------------------------------------------

    def _listed(self, values: list[_Value], text: str) -> Answer:
        names = self.words["list"].join(v.company for v in values)
        return self._answered(text + self._scope(), "statistics:facts", names or None, values)

    def _named(self, values: list[_Value]) -> str:
        shown = self.words["list"].join(f"{v.company}{self._aside(self._show(v.number))}" for v in values)
        return shown or self.words["none"]

    def _aside(self, text: str) -> str:
        return self.o.templates.common["aside"].format(text=text)

    def _show(self, number: Decimal, digits: int | None = None) -> str:
        if self.m.formula is not None:
            style = NumberStyle(self.m.formula.precision if digits is None else digits, self.m.percent)
            return style.format(number) + ("" if self.m.percent else self.m.formula.unit)
        shown = NumberStyle(digits).format(number) if digits is not None else fixed_point(number)
        return shown + self.m.shown_unit

    def _condition_text(self) -> str:
        t = self.r.threshold
        if t is None:
            return ""
        amount = (
            NumberStyle(None, True).format(t.amount) if t.unit == "%" else f"{fixed_point(t.amount)}{t.unit}"
        )
        return f"{self.words['ops'][t.op]}{amount}"

    def _scope(self) -> str:
        if not self.r.places:
            return ""
        either = self.o.templates.common["either"]
        fields = either.join(self.r.place_fields) if self.r.place_fields else self.words["registered"]
        return self.words["places"].format(fields=fields, places="/".join(self.r.places))

    def _fewer(self, count: int) -> Answer:
        text = self.o.templates.render(
            "statistics_fewer", self.lang, count=count, year=self.year, field=self.m.shown
        )
        return _answer(self.a, text, "negative:fewer_companies", None, [])

    def _none(self) -> Answer:
        return self.o._negative(self.a, [self.year], self.m.shown + self._scope())

    def _answered(self, text: str, route: str, value: str | None, values: list[_Value]) -> Answer:
        line = self.o.templates.common["statistics_evidence"]
        evidence = [
            Evidence.of_fact(
                r,
                line.format(
                    company=r["company"], year=r["year"], field=r["field"], printed=r["raw"] or r["value"]
                ),
            )
            for r in (v.row for v in values)
        ]
        return _answer(self.a, text, route, value, evidence)


def _answer(analysis: Analysis, text: str, route: str, value: str | None, evidence: list[Evidence]) -> Answer:
    return Answer.to(
        analysis,
        text,
        route,
        value=value,
        documents=list(dict.fromkeys(e.doc for e in evidence if e.doc)),
        evidence=evidence,
    )


def _bare(shown: str) -> str:
    """The number of a shown value, without its unit."""
    return shown.rstrip("".join(c for c in shown if not (c.isdigit() or c in ".-%")))


def _places(numbers: list[Decimal]) -> list[int]:
    """Competition ranking (1, 2, 2, 4): equal values share a place."""
    places = []
    for i, number in enumerate(numbers):
        places.append(places[-1] if i and number == numbers[i - 1] else i + 1)
    return places
