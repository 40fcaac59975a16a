"""Fixtures for the text-index tests: a small fixed corpus and both backends over it.

The corpus imitates the three kinds of sources: Simplified-Chinese annual
reports, Traditional-Chinese insurance terms and quarterly reports (AI CUP),
and Japanese securities reports (NTCIR), with headings, tables and years.
"""

from __future__ import annotations

import uuid

import pytest

from core.records import Chunk
from search.settings import IndexSettings
from search.tokenize import Tokenizer, TokenizerSettings

MOUTAI, WULIANGYE = "贵州茅台酒股份有限公司", "宜宾五粮液股份有限公司"
TSMC, UMC = "台灣積體電路製造股份有限公司", "聯華電子股份有限公司"
TOYOTA, SONY = "トヨタ自動車株式会社", "ソニーグループ株式会社"
COMPANY_WORDS = (MOUTAI, WULIANGYE, TSMC, UMC, TOYOTA, SONY, "贵州茅台", "五粮液", "台積電", "聯電")

MDA = "第三节 管理层讨论与分析"
BALANCE = ("第十节 财务报告", "七、合并财务报表项目注释", "合并资产负债表")

CORPUS = (
    Chunk(
        "annual/600519_2022#text0",
        "annual/600519_2022",
        "2022年公司实现营业收入1,241亿元，同比增长16.5%；归属于上市公司股东的净利润627亿元。",
        (MDA, "一、经营情况讨论与分析"),
        20,
        20,
        MOUTAI,
        2022,
        "text",
    ),
    Chunk(
        "annual/600519_2022#text1",
        "annual/600519_2022",
        "公司主要业务为茅台酒及系列酒的生产与销售，主导产品贵州茅台酒是世界三大蒸馏名酒之一。",
        (MDA, "二、报告期内公司从事的主要业务"),
        21,
        21,
        MOUTAI,
        2022,
        "text",
    ),
    Chunk(
        "annual/600519_2022#table0",
        "annual/600519_2022",
        "负债合计 49,065,668,776.01 元；资产总计 254,364,804,995.90 元",
        BALANCE,
        98,
        98,
        MOUTAI,
        2022,
        "table",
    ),
    Chunk(
        "annual/000858_2022#text0",
        "annual/000858_2022",
        "报告期内，公司实现营业收入739.69亿元，较上年同期增长11.72%，继续保持稳健增长。",
        (MDA,),
        15,
        15,
        WULIANGYE,
        2022,
        "text",
    ),
    Chunk(
        "annual/000858_2022#table0",
        "annual/000858_2022",
        "负债合计 33,568,192,112.33 元；资产总计 152,466,617,005.55 元",
        BALANCE,
        102,
        102,
        WULIANGYE,
        2022,
        "table",
    ),
    Chunk(
        "annual/000858_2021#text0",
        "annual/000858_2021",
        "2021年公司营业收入662.09亿元。",
        (),
        14,
        14,
        WULIANGYE,
        2021,
        "text",
    ),
    Chunk(
        "insurance/7#text0",
        "insurance/7",
        "要保人得在保單價值準備金範圍內向本公司申請保單借款，可借金額上限為保單價值準備金之八成。"
        "未償還之借款本息超過保單價值準備金時，本契約效力即行停止。",
        ("第二十條 保險單借款及契約效力的停止",),
        6,
        6,
        "",
        None,
        "text",
    ),
    Chunk(
        "insurance/241#text0",
        "insurance/241",
        "要保人繳足保險費累積達有保單價值準備金時，得向本公司申請保單借款，其可借金額上限為借款當日保單價值準備金之七成。",
        ("第十八條 保險單借款",),
        5,
        5,
        "",
        None,
        "text",
    ),
    Chunk(
        "insurance/300#text0",
        "insurance/300",
        "本公司得依保單條款約定辦理，借款利率依本公司公告之利率計算。",
        ("第二十二條 借款利率",),
        7,
        7,
        "",
        None,
        "text",
    ),
    Chunk(
        "finance/12#text0",
        "finance/12",
        "本公司2023年第1季合併營業收入為新台幣508,632,973千元，較去年同期減少4.8%。",
        ("六、營業收入",),
        30,
        30,
        TSMC,
        2023,
        "text",
    ),
    Chunk(
        "finance/13#text0",
        "finance/13",
        "聯電2023年第1季合併營業收入為新台幣54,209,640千元，較上季減少19.2%。",
        ("六、營業收入",),
        28,
        28,
        UMC,
        2023,
        "text",
    ),
    Chunk(
        "finance/1#text0",
        "finance/1",
        "本公司民國一一二年第二季合併財務報告業經董事會通過。",
        ("一、公司沿革",),
        8,
        8,
        "",
        2023,
        "text",
    ),
    Chunk(
        "S100IXUZ/S100IXUZ-0101010#table0",
        "S100IXUZ/S100IXUZ-0101010",
        "売上高 37,154,298 百万円 営業利益 2,725,025 百万円",
        ("第一部【企業情報】", "第1【企業の概況】", "1【主要な経営指標等の推移】"),
        0,
        0,
        TOYOTA,
        2023,
        "table",
    ),
    Chunk(
        "S100IXUZ/S100IXUZ-0102010#text0",
        "S100IXUZ/S100IXUZ-0102010",
        "当連結会計年度における営業活動によるキャッシュ・フローは、3兆7,230億円の収入となりました。",
        (
            "第一部【企業情報】",
            "第2【事業の状況】",
            "4【経営者による財政状態、経営成績及びキャッシュ・フローの状況の分析】",
        ),
        0,
        0,
        TOYOTA,
        2023,
        "text",
    ),
    Chunk(
        "S100IXUZ/S100IXUZ-0105010#text0",
        "S100IXUZ/S100IXUZ-0105010",
        "当社の従業員数は70,056名であり、平均年間給与は8,951千円です。",
        ("第一部【企業情報】", "第1【企業の概況】", "5【従業員の状況】"),
        0,
        0,
        TOYOTA,
        2023,
        "text",
        "cell-712",
    ),
    Chunk(
        "S100SONY/S100SONY-0101010#table0",
        "S100SONY/S100SONY-0101010",
        "売上高 13,020,768 百万円 営業利益 1,302,389 百万円",
        ("第一部【企業情報】", "第1【企業の概況】", "1【主要な経営指標等の推移】"),
        0,
        0,
        SONY,
        2023,
        "table",
    ),
)


@pytest.fixture(scope="session")
def corpus() -> tuple[Chunk, ...]:
    return CORPUS


@pytest.fixture(scope="session")
def search_tokenizer() -> Tokenizer:
    """The tokenizer of index and queries: no rules file (so rule edits cannot change these tests), company names kept whole."""
    return Tokenizer(TokenizerSettings(words=COMPANY_WORDS, use_fields_file=False))


@pytest.fixture
def es_settings(es_url, tmp_path):
    """IndexSettings of a fresh Elasticsearch index with a prefix of its own; the index is deleted afterwards."""
    settings = IndexSettings(
        tmp_path, backend="elasticsearch", es_url=es_url, es_prefix=f"finqa-test-{uuid.uuid4().hex[:12]}"
    )
    yield settings
    from search.elastic import connect

    client = connect(es_url)
    client.options(ignore_status=404).indices.delete(index=f"{settings.es_prefix}-chunks")
    client.close()


@pytest.fixture
def open_backend(request, tmp_path, search_tokenizer):
    """open_backend("embedded" | "elasticsearch") -> an empty text index (Elasticsearch through es_url); closed afterwards."""
    opened = []

    def open_(backend: str):
        if backend == "embedded":
            from search.embedded import EmbeddedIndex

            index = EmbeddedIndex(IndexSettings(tmp_path / "index"), search_tokenizer)
        else:
            from search.elastic import ElasticIndex

            index = ElasticIndex(request.getfixturevalue("es_settings"), search_tokenizer)
        opened.append(index)
        return index

    yield open_
    for index in opened:
        index.close()


@pytest.fixture(params=["embedded", "elasticsearch"])
def text_index(request, open_backend, corpus):
    """Each backend in turn, holding the corpus (committed)."""
    index = open_backend(request.param)
    index.add(corpus)
    index.commit()
    return index
