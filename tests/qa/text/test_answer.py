"""The text route over a real embedded index of documents cut by the real chunker."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core.errors import InputError
from core.records import Chunk, DocumentMeta, Line
from parser.chunking import Chunker
from parser.headings import HeadingRules
from parser.settings import ParseSettings
from qa.answers import AnswerTemplates
from qa.records import Analysis, Company, Question
from qa.text.answer import TextAnswerer, TextSettings, rank_documents
from search.backend import Hit
from search.embedded import EmbeddedIndex
from search.settings import IndexSettings
from search.tokenize import Tokenizer

DELTA = "台達電子工業股份有限公司"
POLICY_LOAN = [
    "第二十條 保險單借款及契約效力的停止",
    "要保人繳足保險費累積達有保單價值準備金時，得向本公司申請保單借款。",
    "其可借金額上限為借款當日保單價值準備金之七成。",
    "未償還之借款本息超過保單價值準備金時，本契約效力即行停止。",
]
LONG_SECTION = (
    ["第五條 保險範圍"]
    + [f"第{i}項約定：被保險人於本契約有效期間內因疾病住院，本公司依約定給付保險金。" for i in range(1, 13)]
    + [
        "被保險人出院後三十日內再次住院者，視為同一次住院，住院日數合併計算。",
        "前項住院醫療費用以實際支出為限。",
    ]
)


def _chunks(
    doc_id: str, lines: list[str], company: str = "", year: int | None = None, page: int = 3
) -> list[Chunk]:
    chunker = Chunker(ParseSettings(chunk_chars=80, section_chars=400), HeadingRules.load())
    return chunker.run(DocumentMeta(doc_id, company=company, year=year), [Line(t, page=page) for t in lines])


def _revenue_notes(doc_id: str) -> list[Chunk]:
    return _chunks(
        doc_id,
        [
            "二十一、客戶合約之收入",
            "本集團之營業收入主要來自電源管理產品之銷售。",
            "營業收入依地區別區分如下，營業收入以客戶所在地認列。",
            "預計對下一季營業收入有遞延影響。",
        ],
    )


def _income_statement(doc_id: str) -> list[Chunk]:
    return _chunks(
        doc_id, ["合併綜合損益表", "項目 4000 營業收入 16,119,517 13,165,250 5000 營業成本 9,745,332。"]
    )


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    tokenizer = Tokenizer()
    tokenizer.add_words([DELTA, "台達電"])
    index = EmbeddedIndex(IndexSettings(tmp_path_factory.mktemp("text-index")), tokenizer)
    chunks = (
        _chunks("insurance/7", POLICY_LOAN)
        + _chunks("insurance/9", LONG_SECTION)
        + _chunks(
            "insurance/8", ["第一條 契約撤銷權", "要保人於保險單送達的翌日起算十日內，得以書面撤銷本契約。"]
        )
        + _revenue_notes("finance/1")
        + _income_statement("finance/2")
        + _chunks(
            "annual/delta-2022",
            [
                "第二节 公司简介",
                f"{DELTA}成立于1971年，{DELTA}总部位于台北。",
                "第三节 管理层讨论与分析",
                "公司的核心竞争力在于电源管理技术与全球布局。",
            ],
            company=DELTA,
            year=2022,
        )
        + _chunks(
            "annual/bank-2024",
            [
                "重要提示",
                "本行董事会保证年度报告内容的真实、准确、完整。",
                "甲乙会计师事务所根据国内审计准则对本行财务报告进行了审计，并出具了标准无保留意见的审计报告。",
                "第一章 公司简介",
                "公司聘请的会计师事务所",
                "会计师事务所名称为甲乙会计师事务所。会计师事务所办公地址为北京。",
            ],
            company="平安测试银行",
            year=2024,
        )
        + _chunks(
            "annual/freezer-2019",
            [
                "第三节 公司业务概要",
                "一、报告期内公司所从事的主要业务",
                "公司主营业务是冷冻设备的研发、生产和销售。报告期内公司经营模式未变。",
                "第四节 经营情况讨论与分析",
                "(一) 主营业务分析",
                "报告期内公司实现主营业务收入11亿元，主营业务成本8亿元，主营业务毛利率22%。",
                "主营业务分行业情况的说明：主营业务收入按行业列示。",
            ],
            company="冷冻测试科技",
            year=2019,
        )
        + _chunks(
            "annual/dividend-2024",
            [
                "第四章 公司治理",
                "4.15 公司普通股利润分配及资本公积金转增股本情况",
                "本行2024年度利润分配预案符合公司章程及股东回报规划。",
                "拟以本行2024年末总股本为基数，全年以每10股派发现金股利人民币6.08元（含税）。",
                "4.16 风险管理",
                "本行面临的主要风险：一是信用风险；二是市场风险；三是流动性风险。本行持续完善风险管理体系。",
            ],
            company="分红测试银行",
            year=2024,
        )
        + _chunks(
            "annual/nodividend-2019",
            [
                "第五节 重要事项",
                "一、普通股利润分配或资本公积金转增预案",
                "公司2018年度利润分配方案为每10股派发现金红利2.00元（含税），已于2019年7月实施完毕。",
                "二、经董事会审议的报告期利润分配预案或公积金转增股本预案",
                "公司2019年度不派发现金红利，不送红股，不以公积金转增股本。",
            ],
            company="无分红测试科技",
            year=2019,
        )
        + _chunks(
            "S100TEST/S100TEST-0102010",
            ["２【事業等のリスク】", "当社グループの業績は為替相場の変動の影響を受けます。"],
            page=0,
        )
    )
    index.add(chunks)
    index.commit()
    yield index
    index.close()


@pytest.fixture()
def answerer(index):
    return TextAnswerer(index, index.tokenizer, AnswerTemplates.load())


def _analysis(
    text: str, type_: str = "report_text", keywords=(), sources=(), company: str = "", years=(), fields=()
) -> Analysis:
    return Analysis(
        question=Question("q", text, tuple(sources)),
        type=type_,
        rule_id="test",
        company=Company(company) if company else None,
        years=tuple(years),
        keywords=tuple(keywords),
        fields=tuple(fields),
    )


def test_settings_reject_unknown_doc_score_and_tiny_budgets():
    with pytest.raises(InputError):
        TextSettings(doc_score="mean")
    with pytest.raises(InputError):
        TextSettings(context_chars=10)
    with pytest.raises(InputError):
        TextSettings(evidence=0)
    with pytest.raises(InputError):
        TextSettings(model_keeps=1.5)


def test_query_puts_entities_in_filters_and_words_in_clauses(answerer):
    query = answerer.query(
        _analysis(
            "2022年台達電子工業股份有限公司的核心竞争力是什么?",
            keywords=["核心竞争力"],
            company=DELTA,
            years=[2022],
        )
    )
    assert query.companies == (DELTA,) and query.years == (2022,)
    assert query.phrases == ("核心竞争力",) and query.titles == ("核心竞争力",)
    assert query.kinds == ("text", "table", "record")
    assert "核心竞争力" in query.text and DELTA not in query.text and "2022" not in query.text


def test_query_with_sources_filters_by_them_instead_of_the_entities(answerer):
    query = answerer.query(
        _analysis(
            "台達電2023年第三季度的流動資產", company=DELTA, years=[2023], sources=["finance/1", "finance/2"]
        )
    )
    assert query.doc_ids == ("finance/1", "finance/2") and query.companies == () and query.years == ()
    assert query.text == "台達電2023年第三季度的流動資產"  # candidates may be of other companies and years


def test_query_asks_for_the_title_of_the_statement_holding_the_field(answerer):
    query = answerer.query(
        _analysis("台達電2022年第1季度的營業收入是多少？", keywords=["營業收入"], fields=["营业收入"])
    )
    assert query.titles == ("營業收入", "利润表", "损益表")
    cash = answerer.query(
        _analysis("支付的所得稅總額是多少？", keywords=["支付的所得稅"], fields=["支付的各项税费"])
    )
    assert cash.titles[-1] == "现金流量表"
    japanese = answerer.query(replace(_analysis("売上高は？", fields=["营业收入"]), language="ja"))
    assert japanese.titles[-1] == "損益計算書"


def test_documents_rank_by_best_chunk_or_by_the_sum_of_the_best():
    def hit(doc, n, score):
        return Hit(Chunk(f"{doc}#t{n}", doc, "x"), score)

    hits = [hit("a", 0, 10.0), hit("b", 0, 8.0), hit("b", 1, 7.0), hit("a", 1, 1.0), hit("b", 2, 6.0)]
    assert rank_documents(hits, "max") == ["a", "b"]
    assert rank_documents(hits, "top3_sum") == ["b", "a"]
    # decay: a = 10 + 0.5 = 10.5, b = 8 + 3.5 + 1.5 = 13
    assert rank_documents(hits, "decay") == ["b", "a"]
    # many weak chunks do not beat one strong one: 10 vs 4 + 2 + 1 + 0.5
    assert rank_documents([hit("a", 0, 10.0)] + [hit("b", n, 4.0) for n in range(6)], "decay") == ["a", "b"]
    assert rank_documents([hit("a", 0, 5.0), hit("b", 0, 5.0)], "decay") == ["a", "b"]


def test_retrieve_prefers_the_statement_over_notes_that_mention_the_field(answerer):
    analysis = _analysis(
        "2022年第1季度的營業收入是多少？",
        type_="lookup",
        keywords=["營業收入"],
        sources=["finance/1", "finance/2", "insurance/7"],
    )
    assert answerer.retrieve(analysis).documents[0] == "finance/1"  # the notes say 營業收入 most often
    answer = answerer.retrieve(replace(analysis, fields=("营业收入",)))
    assert answer.documents[0] == "finance/2" and answer.route == "retrieve:keyword" and answer.answer == ""


def test_retrieve_stays_within_the_sources(answerer):
    answer = answerer.retrieve(
        _analysis("保單借款的可借金額上限", keywords=["保單借款"], sources=["insurance/8"])
    )
    assert answer.documents in ([], ["insurance/8"])


def test_extractive_answer_quotes_the_best_sentence_with_document_and_page(answerer):
    answer = answerer.run(
        _analysis("保單借款最多可以借多少？", keywords=["保單借款", "可借金額"], sources=["insurance"])
    )
    assert answer.route == "report_text:extractive" and answer.documents[0] == "insurance/7"
    assert "七成" in answer.answer and "insurance/7" in answer.answer and "3" in answer.answer


def test_extractive_answer_from_a_source_without_pages_names_no_page(answerer):
    answer = answerer.run(
        _analysis("事業等のリスクは何ですか", keywords=["事業等のリスク"], sources=["S100TEST"])
    )
    assert "S100TEST/S100TEST-0102010" in answer.answer
    assert "為替相場" in answer.answer and "页" not in answer.answer and "ページ" not in answer.answer


def test_best_chunk_is_widened_to_its_whole_short_section(answerer):
    answer = answerer.run(_analysis("保單借款的可借金額上限", keywords=["可借金額"], sources=["insurance/7"]))
    context = answer.evidence[0].text
    assert all(sentence in context for sentence in POLICY_LOAN[1:])


def test_long_section_is_widened_to_the_neighbours_without_repeating_the_overlap(index):
    answerer = TextAnswerer(index, index.tokenizer, AnswerTemplates.load(), TextSettings(context_chars=260))
    answer = answerer.run(
        _analysis("出院後三十日內再次住院如何計算住院日數", keywords=["再次住院"], sources=["insurance/9"])
    )
    context = answer.evidence[0].text
    assert "視為同一次住院" in context and len(context) <= 260
    assert context.count("視為同一次住院") == 1
    assert "前項住院醫療費用以實際支出為限" in context or "第12項約定" in context


def test_company_filter_that_finds_nothing_is_dropped(answerer):
    answer = answerer.run(
        _analysis("契約撤銷權的期限是幾日？", keywords=["契約撤銷權"], company="不在语料中的公司")
    )
    assert answer.documents[0] == "insurance/8"


def test_report_text_is_found_through_company_and_year_filters(answerer):
    answer = answerer.run(
        _analysis(
            "2022年台達電子工業股份有限公司的核心竞争力是什么?",
            keywords=["核心竞争力"],
            company=DELTA,
            years=[2022],
        )
    )
    assert answer.documents == ["annual/delta-2022"] and "电源管理技术" in answer.answer


def test_passages_are_chosen_by_the_topic_not_by_the_company_name(answerer):
    answer = answerer.run(
        _analysis(
            f"{DELTA}2022年的核心竞争力是什么?", company=DELTA, years=[2022], sources=["annual/delta-2022"]
        )
    )
    assert answer.evidence[0].text.startswith("公司的核心竞争力") and "1971" not in answer.answer


def test_open_question_without_a_model_gets_the_template(answerer):
    answer = answerer.run(_analysis("什么是流动比率？", type_="open"))
    assert answer.route == "open:template" and answer.answer == AnswerTemplates.load().render(
        "open_no_model", "zh"
    )


def test_nothing_found_is_a_negative_answer(answerer):
    answer = answerer.run(_analysis("量子计算机的专利数量", keywords=["量子计算机"], sources=["annual"]))
    assert answer.route == "report_text:no_hits" and answer.documents == [] and "未" in answer.answer


def test_quoted_terms_and_clause_names_are_exact_phrases(answerer):
    analysis = _analysis("「契約撤銷權」與第二十條的規定為何？", keywords=["契約撤銷權"])
    assert answerer.exact_phrases(analysis) == ["契约撤销权", "第二十条"]
    assert answerer.exact_phrases(_analysis("契約撤銷權的規定為何？", keywords=["契約撤銷權"])) == []
    assert answerer.exact_phrases(_analysis("BANDSPEED, LLC於哪一地區法院控告瑞昱？")) == ["bandspeed,llc"]
    assert (
        answerer.exact_phrases(_analysis("What did BANDSPEED, LLC claim?")) == []
    )  # a Latin question: BM25 alone


def test_a_document_whose_passage_holds_the_exact_phrase_gets_the_bonus(answerer):
    analysis = _analysis("依第二十條，保險單借款如何計算？", sources=["insurance/7", "insurance/9"])
    answer = answerer.retrieve(analysis)
    assert answer.documents[0] == "insurance/7"
    assert any("exact: 第二十条" in line for line in answer.trace)


def test_thin_evidence_tries_at_most_three_reformulations_each_in_the_trace(index, tmp_path):
    from core.identity import IdentityBook
    from qa.text.document_identity import IdentityMatcher

    book = IdentityBook(tmp_path / "identities.json")
    for doc_id, year in (("finance/1", 2021), ("finance/2", 2021)):  # both documents are of another year
        book.record(DocumentMeta(doc_id, company=DELTA, year=year, quarter=1, period=f"{year}Q1"), {})
    answerer = TextAnswerer(index, index.tokenizer, AnswerTemplates.load(), identities=IdentityMatcher(book))
    analysis = replace(
        _analysis(
            "台達電2023年第1季的營業收入是多少？",
            keywords=["營業收入"],
            fields=["营业收入"],
            sources=["finance/1", "finance/2"],
            years=[2023],
        ),
        quarter=1,
    )
    trace = answerer.retrieve(analysis).trace
    attempts = [line for line in trace if line.startswith("search [")]
    assert (
        attempts[0].startswith("search [query]")
        and "thin: the best document's identity differs" in attempts[0]
    )
    assert 2 <= len(attempts) <= 4 and trace[-1].startswith("kept: ")
    assert [a.split("]")[0] for a in attempts[1:]] == [
        "search [synonyms",
        "search [relaxed terms",
        "search [period dropped",
    ]
    assert trace[-1] == "kept: period dropped"


def _passage(n: int, titles: tuple[str, ...], text: str) -> Hit:
    return Hit(Chunk(f"annual/x#t{n}", "annual/x", text, titles, page_start=7, page_end=7), 10.0 - n)


def test_sections_headed_by_the_topic_give_their_lead_sentences_first_each_with_its_point(answerer):
    passages = [
        _passage(
            1,
            ("第三节 管理层讨论与分析", "四、报告期内核心竞争力分析"),
            "公司拥有独特的酿造工艺和长期贮存的基酒资源。报告期内公司核心竞争力未发生重大变化。",
        ),
        _passage(
            2,
            ("四、报告期内核心竞争力分析", "1、研发平台优势"),
            "公司建成国家工程实验室。实验室共有研究人员二百人。",
        ),
        _passage(
            3,
            ("九、员工情况", "(三) 培训计划"),
            "为提高公司核心竞争力，报告期内公司核心竞争力培训计划开展培训167项。",
        ),
    ]
    sentences = answerer.best_sentences(
        _analysis("公司的核心竞争力是什么?", keywords=["核心竞争力"]), passages
    )
    assert sentences[0] == "公司拥有独特的酿造工艺和长期贮存的基酒资源。"
    assert "1、研发平台优势 公司建成国家工程实验室。" in sentences
    assert not any("培训" in s for s in sentences)  # three sentences: two leads and the first section's best


def test_a_question_asking_more_about_a_named_value_is_answered_by_the_sentences_that_write_it(answerer):
    analysis = _analysis(
        "平安测试银行2024年度财务报告的审计意见是什么?由哪家会计师事务所出具?",
        company="平安测试银行",
        years=[2024],
        keywords=["会计师事务所", "财务报告", "审计意见"],
        fields=["会计师事务所"],
    )
    named = answerer.run(analysis, named="甲乙会计师事务所")
    assert "标准无保留意见" in named.answer and "办公地址" not in named.answer
    assert all("甲乙会计师事务所" in e.text for e in named.evidence)


def test_a_question_asking_what_its_topic_is_gets_the_sentence_that_says_it_first(answerer):
    # The 主营业务分析 section uses the word more often and under its heading; the sentence saying what it is wins.
    answer = answerer.run(
        _analysis(
            "冷冻测试科技2019年的主营业务是什么?", company="冷冻测试科技", years=[2019], keywords=["主营业务"]
        )
    )
    assert answer.documents[0] == "annual/freezer-2019"
    assert answer.answer.split("：", 1)[1].startswith("公司主营业务是冷冻设备的研发、生产和销售。")


def _dividend_plan_question() -> Analysis:
    return replace(
        _analysis(
            "分红测试银行2024年度的利润分配预案是什么?",
            company="分红测试银行",
            years=[2024],
            keywords=["利润分配预案"],
        ),
        topic="利润分配预案",
    )


def test_a_dividend_plan_is_answered_by_the_sentence_stating_the_amount_per_10_shares(answerer):
    # The policy sentence names 利润分配预案 and outscores the plan's own sentence, which the tokenizer cuts
    # (每 / 10 / 股派 / 发现): rules/topics.yaml `says` finds the chunk that writes 每10股 all the same.
    analysis = _dividend_plan_question()
    answer = answerer.run(analysis)
    assert answer.documents[0] == "annual/dividend-2024"
    assert "6.08元" in answer.answer and "股东回报规划" not in answer.answer


def test_the_extract_a_model_rewords_is_what_the_extractive_answer_quotes(answerer):
    analysis = _dividend_plan_question()
    documents, hits = answerer.search(analysis)
    extract = answerer.extract(analysis, documents[0], hits)
    assert extract.route == "report_text:extractive" and "6.08元" in extract.quoted
    assert extract.kept == extract.quoted and extract.quoted in answerer.run(analysis).answer
    assert extract.passages[0].chunk.doc_id == "annual/dividend-2024"


def test_the_clauses_of_one_enumerating_sentence_are_quoted_together(answerer):
    passages = [
        _passage(
            1,
            ("第四章 公司治理", "4.16 风险管理"),
            "本行面临的主要风险：一是信用风险；二是市场风险；三是流动性风险。本行持续完善风险管理体系。",
        )
    ]
    sentences = answerer.best_sentences(_analysis("本行面临哪些主要风险?", keywords=["主要风险"]), passages)
    assert "本行面临的主要风险：一是信用风险；二是市场风险；三是流动性风险。" in sentences


def test_a_line_repeated_page_after_page_is_a_running_header_not_the_sections_text():
    from qa.text.answer import _without_running_headers

    def hit(n: int, page: int, text: str) -> Hit:
        return Hit(Chunk(f"annual/x#t{n}", "annual/x", text, ("三、关键审计事项（续）",), page, page), 1.0)

    header = "审计报告（续）安永华明（2025）审字第70036697_H01号"
    said = "本行股权结构较为分散，不存在控股股东。"
    kept = _without_running_headers(
        [
            hit(1, 118, header),
            hit(2, 119, header),
            hit(3, 117, said),
            hit(4, 120, said),
            hit(5, 121, "结构化主体"),
        ]
    )
    assert [h.chunk.chunk_id[-2:] for h in kept] == ["t3", "t4", "t5"]  # a sentence repeated is kept


def test_the_same_statement_under_two_headings_is_quoted_once(answerer):
    said = "本公司股权结构较为分散，不存在控股股东。"
    passages = [
        _passage(1, ("第七节 股东情况", "四、控股股东及实际控制人情况", "(一) 控股股东情况"), said),
        _passage(2, ("第七节 股东情况", "四、控股股东及实际控制人情况", "(二) 实际控制人情况"), said),
    ]
    analysis = replace(_analysis("公司的控股股东是谁?", keywords=["控股股东"]), topic="控股股东")
    sentences = answerer.best_sentences(
        analysis, passages
    )  # the second would be "(二) 实际控制人情况 本公司…"
    assert sum(said in s for s in sentences) == 1


def test_a_dividend_plan_of_another_year_does_not_answer_for_the_year_asked(answerer):
    # 每10股 is written of the 2018 plan only; the 2019 plan pays nothing, and says so.
    analysis = replace(
        _analysis(
            "无分红测试科技2019年度的利润分配预案是什么?",
            company="无分红测试科技",
            years=[2019],
            keywords=["利润分配预案"],
        ),
        topic="利润分配预案",
    )
    answer = answerer.run(analysis)
    assert answer.documents[0] == "annual/nodividend-2019"
    assert "不派发现金红利" in answer.answer and "2.00元" not in answer.answer


def test_the_key_words_of_a_japanese_question_are_segmented_as_japanese(answerer, monkeypatch):
    # 育児休業 alone has no kana and no Japanese-only kanji: read by itself it would look Chinese.
    segmented_as_chinese = []
    chinese = answerer.tokenizer._segment_zh
    monkeypatch.setattr(
        answerer.tokenizer, "_segment_zh", lambda text: segmented_as_chinese.append(text) or chinese(text)
    )
    passages = [
        _passage(1, ("従業員の状況",), "男性労働者の育児休業取得率は72.6%です。女性管理職の比率は5.1%です。"),
    ]
    analysis = replace(_analysis("男性労働者の育児休業取得率は？", keywords=["育児休業"]), language="ja")
    sentences = answerer.best_sentences(analysis, passages)
    assert sentences[0] == "男性労働者の育児休業取得率は72.6%です。"
    assert segmented_as_chinese == []
