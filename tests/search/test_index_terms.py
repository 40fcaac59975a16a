"""How queries become index terms (search/index_terms.py), the same for both backends."""

from __future__ import annotations

from core.records import Chunk
from search.backend import SearchQuery
from search.index_terms import chunk_terms, query_terms


def test_a_one_character_chinese_word_matches_no_title_but_still_counts_in_the_body(search_tokenizer):
    query = SearchQuery(text="瑞昱有關涉於哪些專利訴訟", titles=("第3季有關涉於", "專利訴訟"))
    terms = query_terms(search_tokenizer, query)
    assert "有" not in terms.titles and "有" in terms.body  # 或有事項 is not about what 有關 asks
    assert {"专利", "诉讼"} <= set(terms.titles)


def test_japanese_titles_keep_their_one_character_words(search_tokenizer):
    terms = query_terms(search_tokenizer, SearchQuery(text="配当の額", titles=("配当の額",)))
    assert "额" in terms.titles  # 額 is the topic of a Japanese heading (配当の額)


def test_a_query_read_as_japanese_gets_the_tokens_of_the_japanese_row_it_names(search_tokenizer):
    # A kanji-only label reads as Chinese alone; the row it names was indexed with its Japanese table.
    row = chunk_terms(
        search_tokenizer,
        Chunk("S/S-05#t3", "S/S-05", "利益準備金 1,000 1,200", titles=("株主資本等変動計算書",)),
    )
    detected = query_terms(search_tokenizer, SearchQuery(text="利益準備金", phrases=("利益準備金",)))
    japanese = query_terms(
        search_tokenizer, SearchQuery(text="利益準備金", phrases=("利益準備金",), language="ja")
    )
    assert japanese.body == tuple(search_tokenizer.tokens("利益準備金", "ja")) != detected.body
    assert set(japanese.body) <= set(row.body.split())
    assert japanese.phrases[0][0] == tuple(search_tokenizer.phrase_tokens("利益準備金", "ja"))
