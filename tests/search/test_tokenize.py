"""search/tokenize.py: one tokenizer for index and queries, Chinese (both scripts), Japanese, numbers and dates."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from core.errors import InputError
from core.records import Chunk
from core.rulefile import PROJECT_ROOT
from search.backend import SearchQuery
from search.index_terms import (
    EMPTY_FIELD,
    UNKNOWN,
    chunk_from_stored,
    chunk_terms,
    chunk_to_stored,
    doc_prefixes,
    query_terms,
)
from search.tokenize import Tokenizer, TokenizerSettings


@pytest.fixture(scope="module")
def plain():
    """No rules file and no extra words: jieba's and Sudachi's own dictionaries."""
    return Tokenizer(TokenizerSettings(use_fields_file=False))


def test_traditional_and_simplified_give_the_same_tokens(plain):
    assert plain.tokens("保單價值準備金之八成") == plain.tokens("保单价值准备金之八成")
    assert plain.tokens("合併資產負債表") == plain.tokens("合并资产负债表")
    assert "保单" in plain.tokens("保單借款")


def test_words_added_stay_whole(plain):
    assert "台积电" not in plain.tokens("台積電2023年第1季營收")
    tokenizer = Tokenizer(TokenizerSettings(words=("台積電",), use_fields_file=False))
    assert tokenizer.tokens("台積電2023年第1季營收")[:3] == ["台积电", "2023年", "第1季"]
    tokenizer.add_words(["四方科技"])
    assert "四方科技" in tokenizer.tokens("四方科技集团股份有限公司")
    assert "四方科技" not in plain.tokens("四方科技集团股份有限公司")  # other tokenizers keep their own words


def test_a_short_name_inside_a_full_name_is_a_token_of_it():
    tokenizer = Tokenizer(
        TokenizerSettings(words=("贵州茅台", "贵州茅台酒股份有限公司"), use_fields_file=False)
    )
    full = tokenizer.tokens("贵州茅台酒股份有限公司2022年年度报告")
    assert "贵州茅台酒股份有限公司" in full and "贵州茅台" in full
    assert "贵州茅台" in tokenizer.tokens("请问贵州茅台2022年的营业收入")


def test_field_names_and_synonyms_come_from_the_fields_file(tmp_path):
    rules = tmp_path / "fields.yaml"
    rules.write_text(
        "fields:\n  - name: 归属于母公司所有者的综合收益总额\n    synonyms: [母公司綜合收益總額]\n"
        "    statement: income_statement\n    unit: 元\n    kind: number\n",
        encoding="utf-8",
    )
    tokenizer = Tokenizer(TokenizerSettings(fields_path=rules))
    assert "归属于母公司所有者的综合收益总额" in tokenizer.tokens("本期归属于母公司所有者的综合收益总额为")
    assert "母公司综合收益总额" in tokenizer.tokens("母公司綜合收益總額")


def test_japanese_user_words_join_their_morphemes(plain):
    tokenizer = Tokenizer(
        TokenizerSettings(words=("営業活動によるキャッシュ・フロー",), use_fields_file=False)
    )
    tokens = tokenizer.tokens("営業活動によるキャッシュ・フローは黒字")
    assert "営业活动によるキャッシュ・フロー" in tokens  # kept whole (and folded like every token)
    assert "キャッシュ" in tokens and "営业活动" in tokens  # its words are still searchable


def test_long_words_also_yield_their_parts(plain):
    tokens = plain.tokens("归属于上市公司股东的净利润")
    assert {"上市公司", "上市", "公司", "净利润", "利润"} <= set(tokens)
    assert "的" not in tokens


def test_japanese_compounds_keep_mode_c_and_add_mode_a_parts(plain):
    tokens = plain.tokens("当連結会計年度における営業活動によるキャッシュ・フロー")
    assert tokens[:5] == ["当", "连结", "会计", "年度", "会计年度"]  # parts first, then the compound
    assert {"営业", "活动", "営业活动", "キャッシュ", "フロー"} <= set(tokens)


def test_japanese_particles_auxiliaries_and_inflections_are_dropped(plain):
    tokens = plain.tokens("当社の従業員数は70,056名です。")
    assert tokens == ["当社", "従业", "员", "数", "従业员数", "70056", "名"]


def test_language_can_be_given(plain):
    assert plain.tokens("資本金", language="ja") != plain.tokens("資本金", language="zh")
    with pytest.raises(InputError, match="unknown language"):
        plain.tokens("資本金", language="ko")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2023年度", ["2023年"]),
        ("2023年第一季度", ["2023年", "第1季"]),
        ("2023年第1季", ["2023年", "第1季"]),
        ("第 一 季", ["第1季"]),
        ("第十二條", ["第12条"]),
        ("第二十二条", ["第22条"]),
        ("2023/3/31", ["2023年", "3月", "31日"]),
        ("2019-03-31", ["2019年", "3月", "31日"]),
        ("112年7月1日至9月30日", ["112年", "2023年", "7月", "1日", "至", "9月", "30日"]),
        ("2023年3月期 第1四半期", ["2023年", "3月", "期", "第1四半期"]),
    ],
)
def test_dates_and_ordinals_are_single_normalised_tokens(plain, text, expected):
    assert plain.tokens(text) == expected


@pytest.mark.parametrize(
    "text, western",
    [
        ("民國112年第3季", "2023年"),
        ("民国 111 年度", "2022年"),
        ("112 年 1 月 1 日至 9 月 30 日", "2023年"),  # ROC years in Taiwanese reports, written bare
        ("令和5年3月期", "2023年"),
        ("平成31年3月31日", "2019年"),
    ],
)
def test_era_years_also_give_the_gregorian_year(plain, text, western):
    assert western in plain.tokens(text)


def test_small_and_japanese_bare_years_stay_as_written(plain):
    assert plain.tokens("公司成立30年") == ["公司", "成立", "30年"]
    assert "2011年" not in plain.tokens("創業100年を迎えました")


def test_a_date_question_matches_the_dates_in_the_text(plain):
    text = set(plain.tokens("本公司2023年第一季度合併營業收入為新台幣508,632,973千元"))
    assert set(plain.tokens("2023年第1季營業收入")) <= text


def test_numbers_lose_separators_and_width(plain):
    assert plain.tokens("1,234,567.89元") == ["1234567.89", "元"]
    assert plain.tokens("１２３，４５６") == ["123456"]
    assert plain.tokens("增长16.5%") == ["增长", "16.5"]


def test_latin_is_lower_cased_and_punctuation_and_stop_words_dropped(plain):
    assert plain.tokens("EPS、ROE！") == ["eps", "roe"]
    assert plain.tokens("What is the EPS of S100IXUZ?") == ["eps", "s100ixuz"]
    assert plain.tokens("请问公司的营业收入是多少？") == ["公司", "营业", "收入"]
    assert plain.tokens("。，、！？（）") == []
    assert plain.tokens("") == []


def test_headings_spread_one_character_at_a_time_are_joined(plain):
    assert plain.tokens("關 係 人 名 稱") == plain.tokens("關係人名稱")


def test_invisible_characters_do_not_split_or_join_words(plain):
    assert plain.tokens("营业\u200b收入") == plain.tokens("营业 收入")
    assert all(" " not in t and "\u200b" not in t for t in plain.tokens("营业\u200b收入\ufeff"))


def test_overlong_tokens_are_dropped(plain):
    assert plain.tokens("a" * 41 + " eps") == ["eps"]


def test_phrase_tokens_leave_out_the_parts_of_long_words(plain):
    assert plain.phrase_tokens("归属于上市公司股东的净利润") == ["归属于", "上市公司", "股东", "净利润"]
    assert plain.phrase_tokens("営業活動によるキャッシュ・フロー") == ["営业活动", "キャッシュ", "フロー"]


def test_settings_are_checked_when_made(tmp_path):
    with pytest.raises(InputError, match="compound_min_chars"):
        TokenizerSettings(compound_min_chars=1)
    with pytest.raises(InputError, match="max_token_chars"):
        TokenizerSettings(max_token_chars=300)
    with pytest.raises(InputError, match="words"):
        TokenizerSettings(words="台积电")
    with pytest.raises(InputError, match="not found"):
        TokenizerSettings(fields_path=tmp_path / "missing.yaml")


def test_a_broken_fields_file_is_reported_with_its_line(tmp_path):
    rules = tmp_path / "fields.yaml"
    rules.write_text(
        "fields:\n  - name: 负债合计\n    statement: basic_info\n    kind: text\n    synonyms: 总负债\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as error:
        Tokenizer(TokenizerSettings(fields_path=rules))
    assert str(error.value).startswith(f"{rules}:5:")


def test_doc_prefixes_are_every_slash_prefix():
    assert doc_prefixes("finance/12") == ("finance", "finance/12")
    assert doc_prefixes("S100IXUZ/S100IXUZ-0101010") == ("S100IXUZ", "S100IXUZ/S100IXUZ-0101010")
    assert doc_prefixes("a/b/c") == ("a", "a/b", "a/b/c")


def test_chunk_terms_read_titles_in_the_language_of_the_chunk(plain):
    chunk = Chunk(
        "S/S-01#t0", "S/S-01", "売上高 37,154,298 百万円", titles=("主要な経営指標等の推移",), year=2023
    )
    terms = chunk_terms(plain, chunk)
    assert terms.body.split() == plain.tokens(chunk.text, "ja")
    assert terms.doc_prefixes == ("S", "S/S-01") and terms.year == "2023"
    empty = chunk_terms(plain, Chunk("x#0", "x", "。"))
    assert (empty.body, empty.titles, empty.year, empty.company) == (
        EMPTY_FIELD,
        EMPTY_FIELD,
        UNKNOWN,
        UNKNOWN,
    )
    assert plain.tokens(EMPTY_FIELD) == []  # no query can ever match the placeholder


def test_query_terms_dedupe_and_carry_the_phrase_slop(plain):
    terms = query_terms(
        plain,
        SearchQuery(
            text="营业收入 营业收入",
            phrases=("归属于上市公司股东的净利润",),
            doc_ids=("finance/", "S100IXUZ"),
            years=(2023,),
        ),
    )
    assert terms.body == ("营业", "收入")
    assert terms.phrases == ((("归属于", "上市公司", "股东", "净利润"), 6),)
    # a year filter also lets through chunks whose year is unknown
    assert terms.doc_prefixes == ("finance", "S100IXUZ") and terms.years == ("2023", UNKNOWN)


def test_stored_chunks_come_back_equal():
    chunk = Chunk(
        "a#t1",
        "a",
        "正文",
        titles=("一", "二"),
        page_start=3,
        page_end=4,
        company="甲",
        year=2022,
        kind="table",
        cell_id="c9",
    )
    assert chunk_from_stored(chunk_to_stored(chunk)) == chunk
    assert chunk_from_stored({**chunk_to_stored(chunk), "added_later": 1}) == chunk


def test_a_new_tokenizer_loads_jieba_only_when_chinese_text_comes():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = (
        "import sys; from search.tokenize import Tokenizer; t = Tokenizer(); "
        "print('rjieba' in sys.modules); "
        "t.tokens('Revenue 2023'); print('rjieba' in sys.modules); t.tokens('营业收入'); "
        "print('rjieba' in sys.modules, 'jieba' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": ""},
        timeout=120,
    )
    assert done.stdout.split() == ["False", "False", "True", "False"], done.stderr


def test_words_added_after_the_first_text_are_kept_whole_too():
    tokenizer = Tokenizer(TokenizerSettings(use_fields_file=False))
    assert "光寶科技" not in tokenizer.tokens("光寶科技營業收入")
    tokenizer.add_words(["光寶科技"])
    assert "光宝科技" in tokenizer.tokens("光寶科技營業收入")


def test_words_added_later_split_a_short_text_seen_before_anew():
    tokenizer = Tokenizer(TokenizerSettings(use_fields_file=False))
    before = tokenizer.tokens("光寶科技營收")
    tokenizer.add_words(["光寶科技"])
    after = tokenizer.tokens("光寶科技營收")
    assert "光宝科技" in after and "光宝科技" not in before
    assert tokenizer.tokens("光寶科技營收") == after


_ONE_DICTIONARY = """
from search import tokenize as t
first = t.Tokenizer(t.TokenizerSettings(words=("保單借款", "资产负债", "示例科技")))
assert "保单借款" in first.tokens("保單借款的可借金額上限")
plain = t.Tokenizer(t.TokenizerSettings(use_fields_file=False))
assert "保单借款" not in plain.tokens("保單借款的可借金額上限")
assert plain._segmenter() is t.Tokenizer(t.TokenizerSettings(use_fields_file=False))._segmenter()
assert first._segmenter() is not plain._segmenter()
import jieba
fresh = jieba.Tokenizer()
fresh.initialize()
for word in ("保单借款", "保单", "资产负债", "资产", "示例科技", "示例", "科技"):
    assert t.base_frequency(word) == fresh.FREQ.get(word, 0), word
assert "保单借款" in first.tokens("保單借款的上限")
print("ok")
"""


def test_tokenizers_without_words_share_one_segmenter_and_words_stay_their_own():
    # A fresh process: which tokenizer loaded the dictionary first is the point.
    result = subprocess.run(
        [sys.executable, "-c", _ONE_DICTIONARY],
        env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.stdout.strip() == "ok", result.stderr[-2000:]
