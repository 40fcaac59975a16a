"""Generate the bundled example corpus: `python examples/generate.py` (needs the `dev` extra for reportlab).

Everything here is invented: two Simplified-Chinese annual-report excerpts
(PDF, reportlab's built-in CJK fonts, FinGLM-style file names so metadata
comes from the name), a Traditional-Chinese insurance policy (PDF, metadata
from the sidecar metadata.csv) and a Japanese securities-report excerpt
(HTML in the EDINET style with table-id / cell-id attributes). Output is
byte-for-byte reproducible (reportlab's invariant mode).
"""

from __future__ import annotations

import html
from pathlib import Path

from reportlab import rl_config
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

rl_config.invariant = 1
HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"


def money(x: float) -> str:
    return f"({abs(x):,.2f})" if x < 0 else f"{x:,.2f}"


# Annual-report figures (元). Totals are computed so the statements add up.
COMPANIES = [
    {
        "name": "示例科技股份有限公司",
        "short": "示例科技",
        "code": "688001",
        "date": "2023-03-28",
        "legal": "张明",
        "email": "ir@example-tech.cn",
        "address": "北京市海淀区示例路88号",
        "site": "www.example-tech.cn",
        "staff": 1250,
        "rd_staff": 320,
        "masters": 410,
        "years": {
            2022: dict(
                cash=812_345_678.12,
                receivable=356_789_012.34,
                inventory=198_765_432.10,
                fixed=1_023_456_789.00,
                other_nc=234_567_890.00,
                short_loan=150_000_000.00,
                payable=287_654_321.09,
                long_loan=300_000_000.00,
                other_nc_liab=45_678_901.23,
                share=400_000_000.00,
                revenue=2_345_678_901.23,
                cost=1_456_789_012.34,
                selling=123_456_789.01,
                admin=98_765_432.10,
                rd=241_986_307.90,
                finance=-12_345_678.90,
                invest=23_456_789.01,
                tax_rate=0.15,
                op_cf=345_678_901.23,
            ),
            2021: dict(
                cash=701_234_567.89,
                receivable=300_123_456.78,
                inventory=187_654_321.00,
                fixed=987_654_321.00,
                other_nc=210_987_654.00,
                short_loan=180_000_000.00,
                payable=256_789_012.34,
                long_loan=320_000_000.00,
                other_nc_liab=40_123_456.78,
                share=400_000_000.00,
                revenue=2_012_345_678.90,
                cost=1_301_234_567.89,
                selling=110_234_567.89,
                admin=90_123_456.78,
                rd=241_986_307.90,
                finance=8_765_432.10,
                invest=12_345_678.90,
                tax_rate=0.15,
                op_cf=298_765_432.10,
            ),
        },
    },
    {
        "name": "东方样本制造股份有限公司",
        "short": "东方样本",
        "code": "600001",
        "date": "2023-04-20",
        "legal": "李华",
        "email": "dongfang@sample-mfg.cn",
        "address": "上海市浦东新区样本大道1号",
        "site": "www.sample-mfg.cn",
        "staff": 3400,
        "rd_staff": 280,
        "masters": 150,
        "years": {
            2022: dict(
                cash=456_789_012.34,
                receivable=512_345_678.90,
                inventory=678_901_234.56,
                fixed=2_345_678_901.23,
                other_nc=345_678_901.23,
                short_loan=600_000_000.00,
                payable=534_567_890.12,
                long_loan=900_000_000.00,
                other_nc_liab=123_456_789.01,
                share=800_000_000.00,
                revenue=3_456_789_012.34,
                cost=2_789_012_345.67,
                selling=156_789_012.34,
                admin=145_678_901.23,
                rd=98_765_432.10,
                finance=45_678_901.23,
                invest=-5_678_901.23,
                tax_rate=0.25,
                op_cf=234_567_890.12,
            ),
        },
    },
]


def statements(v: dict) -> dict:
    """Derive totals so the balance sheet balances and the income statement adds up."""
    current = v["cash"] + v["receivable"] + v["inventory"]
    noncurrent = v["fixed"] + v["other_nc"]
    assets = current + noncurrent
    cur_liab = v["short_loan"] + v["payable"]
    nc_liab = v["long_loan"] + v["other_nc_liab"]
    liab = cur_liab + nc_liab
    equity = assets - liab
    op_profit = v["revenue"] - v["cost"] - v["selling"] - v["admin"] - v["rd"] - v["finance"] + v["invest"]
    total_profit = op_profit
    net = round(total_profit * (1 - v["tax_rate"]), 2)
    return dict(
        v,
        current=current,
        noncurrent=noncurrent,
        assets=assets,
        cur_liab=cur_liab,
        nc_liab=nc_liab,
        liab=liab,
        equity=equity,
        op_profit=op_profit,
        total_profit=total_profit,
        net=net,
        eps=round(net / v["share"], 4),
    )


BALANCE_ROWS = [
    ("货币资金", "cash"),
    ("应收账款", "receivable"),
    ("存货", "inventory"),
    ("流动资产合计", "current"),
    ("固定资产", "fixed"),
    ("其他非流动资产", "other_nc"),
    ("非流动资产合计", "noncurrent"),
    ("资产总计", "assets"),
    ("短期借款", "short_loan"),
    ("应付账款", "payable"),
    ("流动负债合计", "cur_liab"),
    ("长期借款", "long_loan"),
    ("其他非流动负债", "other_nc_liab"),
    ("非流动负债合计", "nc_liab"),
    ("负债合计", "liab"),
    ("股本", "share"),
    ("所有者权益合计", "equity"),
]
INCOME_ROWS = [
    ("一、营业收入", "revenue"),
    ("减：营业成本", "cost"),
    ("销售费用", "selling"),
    ("管理费用", "admin"),
    ("研发费用", "rd"),
    ("财务费用", "finance"),
    ("加：投资收益（损失以“－”号填列）", "invest"),
    ("二、营业利润", "op_profit"),
    ("三、利润总额", "total_profit"),
    ("四、净利润", "net"),
]


class Styles:
    def __init__(self, font: str):
        self.font = font
        self.h1 = ParagraphStyle("h1", fontName=font, fontSize=15, leading=24, spaceBefore=8, spaceAfter=6)
        self.h2 = ParagraphStyle("h2", fontName=font, fontSize=12, leading=20, spaceBefore=6, spaceAfter=4)
        self.body = ParagraphStyle("body", fontName=font, fontSize=10.5, leading=17, firstLineIndent=21)
        self.small = ParagraphStyle("small", fontName=font, fontSize=9, leading=14)

    def table(self, rows, widths=None) -> Table:
        return Table(
            rows,
            colWidths=widths,
            style=TableStyle(
                [
                    ("FONTNAME", (0, 0), (-1, -1), self.font),
                    ("FONTSIZE", (0, 0), (-1, -1), 9),
                    ("GRID", (0, 0), (-1, -1), 0.5, colors.black),
                    ("ALIGN", (1, 1), (-1, -1), "RIGHT"),
                    ("BACKGROUND", (0, 0), (-1, 0), colors.whitesmoke),
                ]
            ),
        )


def annual_report(company: dict, year: int) -> list:
    """The report's story: cover, company profile, management discussion and financial statements."""
    s = Styles("STSong-Light")
    cur, prev = statements(company["years"][year]), company["years"].get(year - 1)
    prev = statements(prev) if prev else None
    return [
        *_cover(company, year, s),
        *_company_profile(company, year, cur, prev, s),
        *_management_discussion(company, year, cur, s),
        *_financial_statements(year, cur, prev, s),
    ]


def _cover(company: dict, year: int, s: Styles) -> list:
    return [
        Spacer(1, 120),
        Paragraph(f"{company['name']}", s.h1),
        Paragraph(f"{year}年年度报告", s.h1),
        Paragraph(f"股票代码：{company['code']}　　股票简称：{company['short']}", s.h2),
        PageBreak(),
    ]


def _company_profile(company: dict, year: int, cur: dict, prev: dict | None, s: Styles) -> list:
    """第二节: the company's particulars and its key figures against the year before."""
    story = [
        Paragraph("第二节 公司简介和主要财务指标", s.h1),
        Paragraph("一、公司信息", s.h2),
        s.table(
            [
                ["股票简称", company["short"]],
                ["股票代码", company["code"]],
                ["公司的中文名称", company["name"]],
                ["公司的法定代表人", company["legal"]],
                ["注册地址", company["address"]],
                ["电子信箱", company["email"]],
                ["公司网址", company["site"]],
            ],
            [150, 250],
        ),
        Paragraph("二、主要会计数据和财务指标", s.h2),
    ]
    key_rows = [["项目", f"{year}年", f"{year - 1}年" if prev else "", "本年比上年增减"]]
    for label, key in (
        ("营业收入（元）", "revenue"),
        ("净利润（元）", "net"),
        ("经营活动产生的现金流量净额（元）", "op_cf"),
    ):
        change = f"{(cur[key] - prev[key]) / prev[key] * 100:.2f}%" if prev else ""
        key_rows.append([label, money(cur[key]), money(prev[key]) if prev else "", change])
    return story + [s.table(key_rows, [170, 100, 100, 80]), PageBreak()]


def _management_discussion(company: dict, year: int, cur: dict, s: Styles) -> list:
    """第三节: the narrative sections the text questions are written against."""
    short = company["short"]
    return [
        Paragraph("第三节 管理层讨论与分析", s.h1),
        Paragraph("一、报告期内公司所处行业情况", s.h2),
        Paragraph(
            f"{year}年，行业整体保持稳定增长，下游客户对数字化解决方案的需求持续提升。公司所处行业竞争格局较为分散，"
            f"头部企业凭借技术积累和客户资源不断扩大市场份额。",
            s.body,
        ),
        Paragraph("二、报告期内公司从事的主要业务", s.h2),
        Paragraph(
            f"公司主要从事{'工业软件与数据平台' if short == '示例科技' else '精密零部件'}的研发、生产和销售。报告期内，"
            f"公司实现营业收入{cur['revenue'] / 1e8:.2f}亿元。",
            s.body,
        ),
        Paragraph("三、核心竞争力分析", s.h2),
        Paragraph("（一）技术研发优势", s.h2),
        Paragraph(
            f"公司坚持自主创新，报告期内研发投入{cur['rd'] / 1e4:.2f}万元，累计获得发明专利{86 if short == '示例科技' else 41}项。"
            "公司建立了覆盖基础研究、产品开发和工程化的三级研发体系。",
            s.body,
        ),
        Paragraph("（二）客户资源优势", s.h2),
        Paragraph(
            "公司与行业内主要客户建立了长期稳定的合作关系，前五名客户销售额占年度销售总额的比例为31.25%，"
            "客户集中度处于合理水平。",
            s.body,
        ),
        Paragraph("四、员工情况", s.h2),
        s.table(
            [
                ["项目", "人数"],
                ["在职员工的数量合计（人）", str(company["staff"])],
                ["研发人员数量（人）", str(company["rd_staff"])],
                ["硕士及以上学历人员（人）", str(company["masters"])],
            ],
            [200, 100],
        ),
        Paragraph("五、社会责任工作情况", s.h2),
        Paragraph(
            "报告期内，公司积极履行社会责任，开展助学捐赠和社区志愿服务，向地方教育基金会捐赠人民币200万元。",
            s.body,
        ),
        PageBreak(),
    ]


def _financial_statements(year: int, cur: dict, prev: dict | None, s: Styles) -> list:
    """第十节: balance sheet, income statement and cash flow, with last year's column when there is one."""
    header = ["项目", f"{year}年12月31日", f"{year - 1}年12月31日"] if prev else ["项目", f"{year}年12月31日"]
    story = [
        Paragraph("第十节 财务报告", s.h1),
        Paragraph("合并资产负债表", s.h2),
        Paragraph("单位：元　币种：人民币", s.small),
        s.table(
            [header]
            + [[label, money(cur[k])] + ([money(prev[k])] if prev else []) for label, k in BALANCE_ROWS],
            [170, 120, 120],
        ),
        PageBreak(),
        Paragraph("合并利润表", s.h2),
        Paragraph("单位：元　币种：人民币", s.small),
    ]
    header = ["项目", f"{year}年度", f"{year - 1}年度"] if prev else ["项目", f"{year}年度"]
    income = [[label, money(cur[k])] + ([money(prev[k])] if prev else []) for label, k in INCOME_ROWS]
    income.append(["基本每股收益（元/股）", f"{cur['eps']:.4f}"] + ([f"{prev['eps']:.4f}"] if prev else []))
    return story + [
        s.table([header] + income, [170, 120, 120]),
        Paragraph("合并现金流量表", s.h2),
        Paragraph("单位：元　币种：人民币", s.small),
        s.table(
            [
                header,
                ["经营活动产生的现金流量净额", money(cur["op_cf"])]
                + ([money(prev["op_cf"])] if prev else []),
            ],
            [170, 120, 120],
        ),
    ]


INSURANCE_CLAUSES = [
    ("第一條 保險契約的構成", "本保險單條款、附著之要保書、批註及其他約定書，均為本保險契約的構成部分。"),
    (
        "第二條 保險責任的開始及交付保險費",
        "本公司對本契約應負的責任，自本公司同意承保且要保人交付第一期保險費時開始。本公司同意承保前而發生應予給付之保險事故時，仍負保險責任。",
    ),
    (
        "第三條 契約撤銷權",
        "要保人於保險單送達的翌日起算十日內，得以書面檢同保險單親自或掛號郵寄向本公司撤銷本契約。",
    ),
    (
        "第四條 保險事故的通知與保險金的申請時間",
        "要保人或受益人應於知悉本公司應負保險責任之事故後十日內通知本公司，並於通知後儘速檢具所需文件向本公司申請給付保險金。",
    ),
    (
        "第五條 保單借款",
        "要保人得在保單價值準備金之範圍內向本公司申請保單借款，其可借金額上限為借款當日保單價值準備金之百分之八十。",
    ),
    ("第六條 受益人的指定及變更", "完全失能保險金的受益人為被保險人本人，本公司不受理其指定或變更。"),
]


def insurance_policy() -> list:
    s = Styles("MSung-Light")
    story = [
        Paragraph("範例人壽終身保險保險單條款", s.h1),
        Paragraph("（本商品經本公司合格簽署人員檢視）", s.small),
    ]
    for title, text in INSURANCE_CLAUSES:
        story += [Paragraph(title, s.h2), Paragraph(text, s.body)]
    return story


JA_ROWS = [
    ("売上高", 512_345, 487_654),
    ("営業利益", 45_678, 41_234),
    ("経常利益", 47_890, 42_345),
    ("親会社株主に帰属する当期純利益", 31_234, -2_345),
    ("純資産額", 345_678, 321_098),
    ("総資産額", 876_543, 812_345),
    ("自己資本比率", "39.4%", "39.5%"),
]


def japanese_report() -> str:
    """An EDINET-style securities-report section: h1-h4 headings, table-id / cell-id attributes."""
    doc_id = "S100SAMP-0101010"
    cells = []
    header = ["回次", "第41期", "第42期"], ["決算年月", "2022年3月", "2023年3月"]
    rows = [list(r) for r in header] + [
        [label, f"{old:,}" if isinstance(old, int) else old, f"{new:,}" if isinstance(new, int) else new]
        for label, new, old in JA_ROWS
    ]
    for r, row in enumerate(rows, start=1):
        tds = "".join(
            f'<td cell-id="{doc_id}-tab1-r{r}c{c}"><p>{html.escape(str(v).replace("-", "△"))}</p></td>'
            for c, v in enumerate(row, start=1)
        )
        cells.append(f"<tr>{tds}</tr>")
    return f"""<html><head><meta charset="utf-8"/><title>有価証券報告書</title></head><body>
<h1>第一部【企業情報】</h1>
<h2>第１【企業の概況】</h2>
<h3>１【主要な経営指標等の推移】</h3>
<h4>(1）連結経営指標等</h4>
<p>（単位：百万円）</p>
<table table-id="{doc_id}-tab1"><tbody>{"".join(cells)}</tbody></table>
<h3>２【沿革】</h3>
<p>1982年4月、東京都千代田区においてサンプル商事株式会社を設立しました。2005年3月、東京証券取引所市場第一部に上場しました。</p>
<h2>第２【事業の状況】</h2>
<h3>１【経営方針、経営環境及び対処すべき課題等】</h3>
<p>当社グループは、「確かな品質で社会に貢献する」を経営理念とし、持続的な成長と企業価値の向上を目指しております。</p>
<h3>２【事業等のリスク】</h3>
<p>当社グループの業績は、為替相場の変動、原材料価格の高騰及び海外の政治情勢の影響を受ける可能性があります。</p>
<h2>第３【設備の状況】</h2>
<p>本店の所在の場所は東京都千代田区丸の内一丁目1番1号であります。</p>
</body></html>
"""


def build_pdf(path: Path, story: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    SimpleDocTemplate(str(path), pagesize=A4, title=path.stem, author="finqa examples").build(story)


def main() -> None:
    for font in ("STSong-Light", "MSung-Light"):
        pdfmetrics.registerFont(UnicodeCIDFont(font))
    for company in COMPANIES:
        for year in company["years"]:
            stem = f"{year + 1}{company['date'][4:]}__{company['name']}__{company['code']}__{company['short']}__{year}年__年度报告"
            build_pdf(CORPUS / "annual" / f"{stem}.pdf", annual_report(company, year))
    build_pdf(CORPUS / "insurance" / "policy-1.pdf", insurance_policy())
    ja = CORPUS / "S100SAMP" / "S100SAMP-0101010.html"
    ja.parent.mkdir(parents=True, exist_ok=True)
    ja.write_text(japanese_report(), encoding="utf-8")
    (CORPUS / "metadata.csv").write_text(
        "doc_id,company,short_name,code,year\n"
        "insurance/policy-1,範例人壽保險股份有限公司,範例人壽,,2023\n"
        "S100SAMP/S100SAMP-0101010,サンプル商事株式会社,サンプル商事,9999,2023\n",
        encoding="utf-8",
    )
    print(f"wrote the example corpus under {CORPUS}")


if __name__ == "__main__":
    main()
