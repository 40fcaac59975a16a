"""`python -m eval.bench statistics`: questions over many companies on a generated corpus.

The bench invents a corpus of listed companies (names, short names, codes, registered and office
addresses in many cities and provinces, eight amounts per year, 2018-2021), writes it as facts
workbooks (one per report year, with a `reports` sheet; 2018 figures are the previous-year column of
the 2019 report), ingests them with parser.ingest, asks questions of every form issue 10 lists
through qa.engine, and checks each answer's `value` against the figures it generated.

Every form has two sets of wordings: `tuned` (the wordings the rules were developed on, including a
first held-out set whose errors were looked at and fixed in general ways) and `held_out` (written
afterwards, never tuned on: how a new user would word the same kind of question). Accuracy is
reported per form for both, with the target 0.98.

    python -m eval.bench statistics [--companies 150] [--per-form 12] [--seed N]
                                    [--backend embedded|elasticsearch] [--es-url URL] [--keep DIR]
                                    [--show-errors N]
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import statistics as stats
import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pandas as pd

from core.command_names import command_name
from eval.bench._data import work_dir

TARGET = 0.98
YEARS = (2018, 2019, 2020, 2021)  # reports 2019-2021; 2018 only as the 2019 report's previous year
REPORT_YEARS = YEARS[1:]
# (canonical field, how questions write it, typical size in 元)
FIELDS = (
    ("营业收入", ("营业收入", "营收"), 5e9),
    ("净利润", ("净利润",), 6e8),
    ("研发费用", ("研发费用", "研发经费"), 3e8),
    ("货币资金", ("货币资金", "货币总额"), 2e9),
    ("资产总计", ("资产总计", "总资产", "资产总金额"), 1.5e10),
    ("负债合计", ("负债合计", "总负债", "负债总金额"), 7e9),
    ("营业成本", ("营业成本",), 3.5e9),
    ("销售费用", ("销售费用",), 2e8),
)
CITIES = (
    ("浙江省", "杭州市"),
    ("浙江省", "宁波市"),
    ("江苏省", "南京市"),
    ("江苏省", "苏州市"),
    ("广东省", "深圳市"),
    ("广东省", "广州市"),
    ("上海市", "浦东新区"),
    ("北京市", "海淀区"),
    ("山东省", "青岛市"),
    ("四川省", "成都市"),
    ("湖北省", "武汉市"),
    ("福建省", "厦门市"),
    ("安徽省", "合肥市"),
    ("湖南省", "长沙市"),
    ("陕西省", "西安市"),
)
_NAME_PARTS = (
    "华",
    "瑞",
    "恒",
    "鼎",
    "泰",
    "诚",
    "信",
    "达",
    "盛",
    "隆",
    "远",
    "新",
    "安",
    "康",
    "明",
    "海",
    "天",
    "宏",
    "伟",
    "嘉",
    "博",
    "通",
    "科",
    "创",
    "拓",
    "联",
    "峰",
    "源",
    "润",
    "丰",
)
_TRADES = ("科技", "电子", "制造", "能源", "材料", "医药", "机械", "化工", "智能", "环境")
_CN = "零一二三四五六七八九十"


@dataclass
class Corpus:
    companies: list[dict]  # name, short_name, code, province, city, office_city
    values: dict[tuple[str, str, int], Decimal]  # (company, field, year) -> value in 元


@dataclass(frozen=True)
class Case:
    form: str
    style: str  # tuned | held_out
    question: str
    expected: str  # a number, or company names joined with 、
    kind: str  # names | ordered | number


# -- the corpus -----------------------------------------------------------------------------------------------------


def make_corpus(n: int, rng: random.Random) -> Corpus:
    names: set[str] = set()
    companies = []
    while len(companies) < n:
        core = "".join(rng.sample(_NAME_PARTS, 2))
        trade = rng.choice(_TRADES)
        name = f"{core}{trade}股份有限公司"
        if name in names:
            continue
        names.add(name)
        province, city = rng.choice(CITIES)
        office_province, office_city = (province, city) if rng.random() < 0.8 else rng.choice(CITIES)
        companies.append(
            {
                "name": name,
                "short_name": core + trade,
                "code": f"{600000 + len(companies):06d}",
                "province": province,
                "city": city,
                "office_province": office_province,
                "office_city": office_city,
            }
        )
    values = {}
    for c in companies:
        for field, _, size in FIELDS:
            level = Decimal(str(round(size * rng.lognormvariate(0, 0.8), 2)))
            for year in YEARS:
                values[(c["name"], field, year)] = level
                level = (level * Decimal(str(rng.uniform(0.8, 1.3)))).quantize(Decimal("0.01"))
                if field == "净利润" and rng.random() < 0.1:
                    level = -level
    # Ties: in every year two companies share the 销售费用 of the one ranked 4th to 8th.
    for year in YEARS:
        ranked = sorted(companies, key=lambda c: -values[(c["name"], "销售费用", year)])
        at = rng.randrange(3, 8)
        values[(ranked[at + 1]["name"], "销售费用", year)] = values[(ranked[at]["name"], "销售费用", year)]
    return Corpus(companies, values)


def write_workbooks(corpus: Corpus, folder: Path) -> None:
    """One workbook per report year: this year's and (2019) the previous year's figures, and a reports sheet."""
    folder.mkdir(parents=True, exist_ok=True)
    for year in REPORT_YEARS:
        rows = []
        for c in corpus.companies:
            base = {"company": c["name"], "short_name": c["short_name"], "code": c["code"]}
            for field, _, _ in FIELDS:
                for fact_year in (year - 1, year) if year == REPORT_YEARS[0] else (year,):
                    rows.append(
                        {
                            **base,
                            "year": fact_year,
                            "field": field,
                            "unit": "元",
                            "value": str(corpus.values[(c["name"], field, fact_year)]),
                        }
                    )
            rows.append(
                {
                    **base,
                    "year": year,
                    "field": "注册地址",
                    "unit": "",
                    "value": f"{c['province']}{c['city']}{c['short_name'][:2]}路{int(c['code']) % 97}号",
                }
            )
            rows.append(
                {
                    **base,
                    "year": year,
                    "field": "办公地址",
                    "unit": "",
                    "value": f"{c['office_province']}{c['office_city']}高新区{int(c['code']) % 89}号",
                }
            )
        reports = [
            {"company": c["name"], "short_name": c["short_name"], "code": c["code"], "year": year}
            for c in corpus.companies
        ]
        with pd.ExcelWriter(folder / f"facts-{year}.xlsx", engine="openpyxl") as writer:
            pd.DataFrame(rows).to_excel(writer, sheet_name="facts", index=False)
            pd.DataFrame(reports).to_excel(writer, sheet_name="reports", index=False)


# -- the oracle -----------------------------------------------------------------------------------------------------


class Oracle:
    def __init__(self, corpus: Corpus):
        self.c = corpus

    def value(self, company: str, field: str, year: int) -> Decimal:
        return self.c.values[(company, field, year)]

    def growth(self, company: str, field: str, year: int) -> Decimal | None:
        before = self.value(company, field, year - 1)
        return None if not before else (self.value(company, field, year) - before) / before

    def companies(self, place: str = "", office: bool = False) -> list[str]:
        key = "office_" if office else ""
        return [
            c["name"]
            for c in self.c.companies
            if not place
            or place in (c[key + "province"], c[key + "city"])
            or place in (c[key + "province"][:-1], c[key + "city"][:-1])
        ]

    def ranked(
        self, measure: Callable[[str], Decimal | None], descending: bool, names: list[str] | None = None
    ):
        scored = [(n, measure(n)) for n in (names if names is not None else self.companies())]
        scored = [(n, v) for n, v in scored if v is not None]
        scored.sort(key=lambda nv: (-nv[1] if descending else nv[1], nv[0]))
        places, out = [], []
        for i, (n, v) in enumerate(scored):
            places.append(places[-1] if i and v == scored[i - 1][1] else i + 1)
            out.append((places[-1], n, v))
        return out

    def top(self, measure, descending: bool, n: int, names=None) -> list[str]:
        return [name for p, name, _ in self.ranked(measure, descending, names) if p <= n]

    def nth(self, measure, descending: bool, n: int) -> list[str]:
        ranked = self.ranked(measure, descending)
        place = max(p for p, _, _ in ranked if p <= n)
        return [name for p, name, _ in ranked if p == place]


# -- the questions ----------------------------------------------------------------------------------------------------

# Each form: tuned wordings, held-out wordings. Placeholders: {year} {field} {n} {cn} (n in Chinese numerals)
# {amount} {place} {first} {last}.
WORDINGS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "highest": (
        (
            "{year}年{field}最高的上市公司是哪家？",
            "哪家公司{year}年的{field}最高？",
            "{year}年哪个公司{field}最多？",
            "请问{year}年度{field}最大的是哪一家公司？",
            "{year}年{field}排名最高的企业叫什么？",
        ),
        (
            "{year}年里，{field}数额最高的是哪一家上市公司？",
            "谁是{year}年{field}最多的公司？",
            "{year}年{field}位居第一的公司叫什么名字？",
        ),
    ),
    "lowest": (
        (
            "哪家上市公司{year}年{field}最低？",
            "{year}年{field}最少的公司是哪家？",
            "{year}年{field}最低的是哪个公司？",
            "{year}年度哪一家企业的{field}最小？",
            "请找出{year}年{field}最少的那家上市公司。",
        ),
        ("{year}年，哪家上市企业的{field}最低？", "{year}年{field}数值最小的公司是谁？"),
    ),
    "nth": (
        (
            "{year}年{field}排名第{n}的公司是哪家？",
            "{year}年{field}排名第{cn}的公司是哪家？",
            "{year}年{field}第{cn}高的是哪家公司？",
            "{year}年{field}位列第{cn}名的上市公司是？",
            "在{year}年，{field}排在第{n}位的是哪家企业？",
        ),
        ("{year}年{field}排行第{cn}的公司是哪家？", "按{field}从高到低排序，{year}年第{n}名是哪家公司？"),
    ),
    "nth_low": (
        (
            "{year}年{field}第{cn}低的公司是哪家？",
            "{year}年{field}倒数第{cn}的公司是哪家？",
            "{year}年{field}从低到高排第{n}名的是哪家公司？",
            "{year}年度{field}倒数第{n}名是哪家上市公司？",
        ),
        (
            "{year}年{field}排名倒数第{cn}的企业是哪家？",
            "按{field}从低到高排列，{year}年排第{cn}的是哪家公司？",
        ),
    ),
    "top_n": (
        (
            "{year}年{field}最高的前{n}家公司是哪些？",
            "哪{cn}家公司{year}年{field}最高？",
            "{year}年{field}排名前{cn}的公司有哪些？",
            "列出{year}年{field}最多的{cn}家上市公司。",
            "{year}年度{field}前{n}名的企业分别是哪些？",
        ),
        ("{year}年{field}排在前{cn}名的上市公司都有哪些？", "请给出{year}年{field}最高的{n}家企业。"),
    ),
    "bottom_n": (
        (
            "{year}年{field}最低的{n}家公司是哪些？",
            "{year}年{field}最少的前{cn}家公司有哪些？",
            "{year}年{field}倒数前{n}名的公司",
            "{year}年{field}最小的{cn}家企业分别是哪几家？",
            "请列出{year}年{field}排名后{n}位的上市公司。",
        ),
        ("{year}年{field}排在最后{cn}名的公司有哪些？", "{year}年{field}最低的前{n}家上市公司是哪几家？"),
    ),
    "top_n_ties": (
        (
            "{year}年销售费用最高的前{n}家公司是哪些？",
            "{year}年销售费用排名前{cn}的公司有哪些？",
            "{year}年度销售费用最多的{cn}家企业是哪些？",
        ),
        ("请给出{year}年销售费用前{cn}名的上市公司。", "{year}年销售费用位列前{n}的企业都有哪些？"),
    ),
    "growth_rank": (
        (
            "{year}年{field}增长率最高的上市公司是哪家？",
            "{year}年哪家公司的{field}增长率最低？",
            "{year}年{field}同比增幅最大的是哪家公司？",
            "{year}年度{field}增长率最小的企业是哪一家？",
        ),
        ("{year}年哪家上市公司{field}的增长率最高？", "{year}年{field}增长率排名第一的企业是哪家？"),
    ),
    "ratio_rank": (
        (
            "{year}年资产负债率最高的公司是哪家？",
            "{year}年资产负债比率最低的上市公司是哪家？",
            "{year}年度哪家企业的资产负债率最大？",
        ),
        ("{year}年哪家公司的资产负债率最低？", "{year}年资产负债率排名第一的上市公司是哪家？"),
    ),
    "every_year_top": (
        (
            "{first}-{last}年哪些公司{field}均位列前{cn}？",
            "{first}-{last}年{field}都进入前{n}名的公司有哪些？",
            "{first}年至{last}年{field}每年都排名前{cn}的上市公司有哪些？",
            "{first}-{last}年间{field}始终位居前{n}的企业是哪些？",
        ),
        (
            "{first}至{last}年，{field}每年都位列前{cn}名的公司有哪些？",
            "哪些上市公司在{first}-{last}年{field}均排名前{n}？",
        ),
    ),
    "consecutive": (
        (
            "{first}-{last}年{field}连续三年增长的公司有哪些？",
            "{first}-{last}年哪些公司的{field}连续3年增长？",
            "{first}年到{last}年{field}连续三年上升的上市公司有哪些？",
            "哪些企业{first}-{last}年{field}连续三年都在增加？",
        ),
        (
            "{first}-{last}年{field}连续三年上涨的企业有哪些？",
            "在{first}至{last}年间，哪些公司的{field}连续3年提高？",
        ),
    ),
    "count": (
        (
            "{year}年{field}超过{amount}的上市公司有几家？",
            "{year}年{field}大于{amount}的公司有多少家？",
            "{year}年{field}不少于{amount}的公司数量是多少？",
            "{year}年度{field}高于{amount}的企业一共有多少家？",
            "{year}年{field}在{amount}以上的上市公司共有几家？",
        ),
        ("{year}年{field}超过{amount}的企业有多少个？", "{year}年有多少家上市公司的{field}高于{amount}？"),
    ),
    "count_below": (
        (
            "{year}年{field}低于{amount}的公司有几家？",
            "{year}年{field}小于{amount}的上市公司有多少家？",
            "{year}年{field}不足{amount}的企业有多少家？",
        ),
        ("{year}年{field}少于{amount}的上市公司有几家？", "{year}年有几家企业的{field}低于{amount}？"),
    ),
    "count_place": (
        (
            "在{place}注册的上市公司中，{year}年{field}大于{amount}的有多少家？",
            "注册地址在{place}的公司{year}年{field}超过{amount}的有几家？",
            "{place}注册的企业里，{year}年{field}高于{amount}的共有几家？",
            "注册地位于{place}的上市公司中{year}年{field}超过{amount}的公司数量？",
        ),
        (
            "{year}年注册地在{place}、{field}超过{amount}的上市公司有几家？",
            "注册在{place}的企业中，{year}年{field}大于{amount}的有多少家？",
        ),
    ),
    "list": (
        (
            "{year}年{field}超过{amount}的公司有哪些？",
            "{year}年{field}大于{amount}的上市公司有哪些？",
            "请列出{year}年{field}高于{amount}的企业。",
            "{year}年度{field}在{amount}以上的公司都有哪些？",
        ),
        ("{year}年哪些上市公司的{field}超过了{amount}？", "{year}年{field}高于{amount}的公司名单是什么？"),
    ),
    "place_rank": (
        (
            "在{place}注册的公司中，{year}年{field}最高的是哪家？",
            "注册地址在{place}的公司{year}年{field}最低的是哪家？",
            "{place}注册的上市公司里{year}年{field}最大的是哪家？",
        ),
        (
            "注册地在{place}的上市公司里，{year}年{field}最高的是哪家？",
            "{year}年，在{place}注册的企业中{field}最低的是哪一家？",
        ),
    ),
    "growth_count": (
        (
            "{year}年{field}增长率超过{percent}的公司有几家？",
            "{year}年{field}增长率大于{percent}的上市公司有多少家？",
            "{year}年{field}同比增幅高于{percent}的企业共有几家？",
        ),
        (
            "{year}年{field}增长率超过{percent}的企业有多少个？",
            "{year}年有几家上市公司的{field}增长率高于{percent}？",
        ),
    ),
    "average": (
        (
            "{year}年所有公司{field}的平均值是多少？",
            "{year}年上市公司{field}的平均数是多少元？",
            "{year}年各家企业{field}平均是多少？",
        ),
        ("{year}年上市公司{field}的平均值为多少？", "{year}年全部公司的{field}平均是多少元？"),
    ),
    "sum": (
        (
            "{year}年在{place}注册的公司{field}总和是多少？",
            "{year}年所有公司{field}之和是多少元？",
            "{year}年{place}注册的上市公司{field}加起来是多少？",
        ),
        ("{year}年注册在{place}的上市公司{field}合计是多少？", "{year}年全部上市公司{field}的总和为多少元？"),
    ),
    "median": (
        (
            "{year}年{field}的中位数是多少？",
            "{year}年所有上市公司{field}的中位数是多少元？",
            "{year}年各公司{field}的中位值是多少？",
        ),
        ("{year}年全部上市公司{field}的中位数为多少？", "{year}年上市公司{field}的中位数是多少元？"),
    ),
}


def cn_number(n: int) -> str:
    if n <= 10:
        return _CN[n]
    return ("" if n < 20 else _CN[n // 10]) + "十" + (_CN[n % 10] if n % 10 else "")


def _amount_text(amount: Decimal, rng: random.Random) -> str:
    yi = amount / Decimal(10**8)
    if yi >= 1 and rng.random() < 0.7:
        return (
            f"{yi.normalize():f}亿元"
            if rng.random() < 0.8
            else f"{cn_number(int(yi))}亿元"
            if yi == int(yi) and yi <= 99
            else f"{yi.normalize():f}亿元"
        )
    return f"{(amount / Decimal(10**4)).normalize():f}万元"


def _threshold(values: list[Decimal], rng: random.Random) -> Decimal:
    """A round amount between the companies' values (亿 or 万 steps)."""
    pick = sorted(values)[rng.randrange(len(values) // 5, len(values) * 4 // 5)]
    step = Decimal(10**8) if abs(pick) >= 10**8 else Decimal(10**6)
    return max(step, (pick / step).to_integral_value() * step)


def _joined(names) -> str:
    return "、".join(names)


def make_cases(corpus: Corpus, per_form: int, rng: random.Random) -> list[Case]:
    o = Oracle(corpus)
    cases = []
    for form, (tuned, held_out) in WORDINGS.items():
        for style, wordings in (("tuned", tuned), ("held_out", held_out)):
            for i in range(per_form):
                wording = wordings[i % len(wordings)]
                cases.append(_case(o, form, style, wording, rng))
    return cases


@dataclass
class _Asked:
    """One question being made: the oracle, the field and year it asks about, and its wording's placeholders
    (`fill`, completed by the form's answer)."""

    o: Oracle
    form: str
    wording: str
    field: str
    year: int
    fill: dict
    rng: random.Random

    def value(self, year: int | None = None, field: str | None = None) -> Callable[[str], Decimal]:
        """A company's value of `field` in `year` (the question's own by default), as a ranking measure."""
        year, field = year or self.year, field or self.field
        return lambda name: self.o.value(name, field, year)

    @property
    def descending(self) -> bool:
        return not any(w in self.wording for w in ("最低", "最少", "最小", "倒数", "后", "从低到高"))


_RANKED = (
    "highest",
    "lowest",
    "nth",
    "nth_low",
    "top_n",
    "bottom_n",
    "top_n_ties",
    "growth_rank",
    "ratio_rank",
)
_FILTERED = ("count", "count_below", "count_place", "list", "place_rank", "sum")


def _case(o: Oracle, form: str, style: str, wording: str, rng: random.Random) -> Case:
    # Growth rates of figures that can be negative (净利润) depend on a convention: not asked.
    field, written, _ = rng.choice([f for f in FIELDS if f[0] != "净利润" or not form.startswith("growth")])
    shown = rng.choice(written)
    year = rng.choice(REPORT_YEARS)
    n = rng.randrange(2, 11)
    fill = {"year": year, "field": shown, "n": n, "cn": cn_number(n), "first": 2019, "last": 2021}
    asked = _Asked(o, form, wording, field, year, fill, rng)
    if form in _RANKED:
        expected, kind = _ranked(asked, n), "names"
    elif form in ("every_year_top", "consecutive"):
        expected, kind = _over_years(asked), "names"
    elif form in _FILTERED:
        expected, kind = _filtered(asked)
    elif form == "growth_count":
        expected, kind = _growth_count(asked), "number"
    else:
        expected, kind = _aggregate(asked), "number"
    return Case(form, style, wording.format(**fill), expected, kind)


def _ranked(asked: _Asked, n: int) -> str:
    """The company or companies at a place of one year's ranking, by value, growth or debt ratio."""
    o, form, descending = asked.o, asked.form, asked.descending
    if form in ("highest", "lowest"):
        return _joined(o.top(asked.value(), descending, 1))
    if form in ("nth", "nth_low"):
        return _joined(o.nth(asked.value(), form == "nth", n))
    if form in ("top_n", "bottom_n"):
        return _joined(o.top(asked.value(), form == "top_n", n))
    if form == "top_n_ties":
        ranked = o.ranked(asked.value(field="销售费用"), True)
        tie = next(p for p, (a, b) in enumerate(zip(ranked, ranked[1:]), start=1) if a[2] == b[2])
        asked.fill.update(n=tie, cn=cn_number(tie))
        return _joined(o.top(asked.value(field="销售费用"), True, tie))
    field, year = asked.field, asked.year
    if form == "growth_rank":
        return _joined(o.top(lambda name: o.growth(name, field, year), descending, 1))
    ratio = lambda name: o.value(name, "负债合计", year) / o.value(name, "资产总计", year)  # noqa: E731
    return _joined(o.top(ratio, descending, 1))


def _over_years(asked: _Asked) -> str:
    """The companies in the top N every year, or growing three years in a row."""
    o, field = asked.o, asked.field
    if asked.form == "every_year_top":
        n = asked.rng.randrange(8, 16)
        asked.fill.update(n=n, cn=cn_number(n))
        return _joined(
            sorted(set.intersection(*[set(o.top(asked.value(y), True, n)) for y in (2019, 2020, 2021)]))
        )
    names = [
        c
        for c in o.companies()
        if all(o.value(c, field, y) > o.value(c, field, y - 1) for y in (2019, 2020, 2021))
    ]
    return _joined(names)


def _filtered(asked: _Asked) -> tuple[str, str]:
    """Questions over the companies registered in a place (when the wording names one) or over a threshold:
    the best of a place, a place's sum, and the count or list of companies over (or under) an amount."""
    o, form, field, year, fill = asked.o, asked.form, asked.field, asked.year, asked.fill
    names = o.companies()
    if "{place}" in asked.wording:
        province, city = asked.rng.choice(CITIES)
        place = asked.rng.choice((province[:-1], city[:-1])) if province.endswith("省") else province[:-1]
        names = o.companies(place)
        fill["place"] = place
    if form == "place_rank":
        return _joined(o.top(asked.value(), asked.descending, 1, names)), "names"
    if form == "sum":
        return _rounded(sum((o.value(c, field, year) for c in names), Decimal(0))), "number"
    amount = _threshold([o.value(c, field, year) for c in o.companies()], asked.rng)
    fill["amount"] = _amount_text(amount, asked.rng)
    inclusive = any(w in asked.wording for w in ("不少于", "以上"))
    below = form == "count_below"
    meets = [
        c
        for c in names
        if (
            o.value(c, field, year) < amount
            if below
            else o.value(c, field, year) >= amount
            if inclusive
            else o.value(c, field, year) > amount
        )
    ]
    if form == "list":
        return _joined(meets), "names"
    return str(len(meets)), "number"


def _growth_count(asked: _Asked) -> str:
    """How many companies' growth in the year is over a percentage."""
    o = asked.o
    percent = asked.rng.choice((5, 10, 15, 20, 25))
    asked.fill["percent"] = f"{percent}%" if asked.rng.random() < 0.7 else f"百分之{cn_number(percent)}"
    return str(
        sum(
            1
            for c in o.companies()
            if (g := o.growth(c, asked.field, asked.year)) is not None and g > Decimal(percent) / 100
        )
    )


def _aggregate(asked: _Asked) -> str:
    """The average or median over every company."""
    numbers = [asked.o.value(c, asked.field, asked.year) for c in asked.o.companies()]
    if asked.form == "average":
        return _rounded(sum(numbers, Decimal(0)) / len(numbers))
    return _rounded(Decimal(stats.median(numbers)))


def _rounded(number: Decimal) -> str:
    return str(number.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def correct(case: Case, value: str | None) -> bool:
    if value is None:
        return case.expected in ("", "0")
    if case.kind == "number":
        try:
            return Decimal(value.replace(",", "").rstrip("%元")) == Decimal(case.expected)
        except ArithmeticError:
            return False
    return set(value.split("、")) == set(filter(None, case.expected.split("、")))


# -- running --------------------------------------------------------------------------------------------------------


def _drop_indexes(settings) -> None:
    """The bench's Elasticsearch indexes go with its temporary folder."""
    from search.elastic import connect

    client = connect(settings.es_url)
    for kind in ("chunks", "facts"):
        client.options(ignore_status=404).indices.delete(index=f"{settings.es_prefix}-{kind}")
    client.close()


def main(argv: list[str]) -> int:
    args = _arguments(argv)
    from ingestion.pipeline import ingest
    from search.settings import IndexSettings

    rng = random.Random(args.seed)
    corpus = make_corpus(args.companies, rng)
    cases = make_cases(corpus, args.per_form, rng)
    with work_dir(args.keep, "finqa-statistics-bench-") as work:
        write_workbooks(corpus, work / "corpus")
        settings = IndexSettings(
            work / "index", backend=args.backend, es_url=args.es_url, es_prefix="finqa-statistics-bench"
        )
        summary = ingest(work / "corpus", settings, workers=1, progress=False)
        print(
            f"{args.companies} companies, {len(REPORT_YEARS)} report years, {len(FIELDS)} amounts each, "
            f"{summary.total('facts')} facts ({args.backend}); {len(cases)} questions"
        )
        results, errors, seconds = answer_cases(settings, cases)
        if args.backend == "elasticsearch" and args.keep is None:
            _drop_indexes(settings)
    print_accuracy(results)
    print(f"{len(cases) / seconds:.1f} questions/s")
    print_errors(errors, args.show_errors)
    return 0


def _arguments(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog=f"{command_name('eval.bench')} statistics", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--companies", type=int, default=150)
    ap.add_argument("--per-form", type=int, default=12, help="questions per form and wording set")
    ap.add_argument("--seed", type=int, default=20241010)
    ap.add_argument("--backend", default="embedded", choices=("embedded", "elasticsearch"))
    ap.add_argument("--es-url", default=os.environ.get("FINQA_ES_URL", ""))
    ap.add_argument("--keep", type=Path, help="keep the corpus and index here")
    ap.add_argument("--show-errors", type=int, default=5, help="wrong answers to print per wording set")
    return ap.parse_args(argv)


def answer_cases(settings, cases: list[Case]) -> tuple[dict, dict, float]:
    """Every case answered through the Engine: right or wrong by (form, style), the wrong ones (case, answer)
    by style, and the seconds answering took."""
    from qa.engine import Engine, EngineSettings
    from qa.records import Question

    started = time.perf_counter()
    results = collections.defaultdict(list)
    errors = collections.defaultdict(list)
    with Engine(EngineSettings(settings)) as engine:
        for i, case in enumerate(cases):
            answer = engine.answer(Question(str(i), case.question))
            ok = correct(case, answer.value)
            results[(case.form, case.style)].append(ok)
            if not ok:
                errors[case.style].append((case, answer))
    return results, errors, time.perf_counter() - started


def print_accuracy(results: dict) -> None:
    """Accuracy per form for both wording sets, then per wording set."""
    print(f"{'form':<16} {'tuned':>7} {'held-out':>9}")
    totals = collections.defaultdict(list)
    for form in WORDINGS:
        row = []
        for style in ("tuned", "held_out"):
            oks = results[(form, style)]
            totals[style] += oks
            row.append(f"{sum(oks) / len(oks):.3f}" if oks else "-")
        print(f"{form:<16} {row[0]:>7} {row[1]:>9}")
    for style in ("tuned", "held_out"):
        oks = totals[style]
        print(f"{style}: {sum(oks) / len(oks):.3f} of {len(oks)} (target {TARGET})")


def print_errors(errors: dict, show: int) -> None:
    for style in ("tuned", "held_out"):
        for case, answer in errors[style][:show]:
            print(
                f"[{style} {case.form}] {case.question}\n  expected {case.expected[:120]}\n  got {answer.value!s:.120} "
                f"({answer.type}, {answer.route}) {answer.answer[:160]}"
            )
