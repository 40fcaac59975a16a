"""How queries become index terms (search/index_terms.py), the same for both backends."""
from __future__ import annotations

from search.backend import SearchQuery
from search.index_terms import query_terms


def test_a_one_character_chinese_word_matches_no_title_but_still_counts_in_the_body(search_tokenizer):
    query = SearchQuery(text="瑞昱有關涉於哪些專利訴訟", titles=("第3季有關涉於", "專利訴訟"))
    terms = query_terms(search_tokenizer, query)
    assert "有" not in terms.titles and "有" in terms.body  # 或有事項 is not about what 有關 asks
    assert {"专利", "诉讼"} <= set(terms.titles)


def test_japanese_titles_keep_their_one_character_words(search_tokenizer):
    terms = query_terms(search_tokenizer, SearchQuery(text="配当の額", titles=("配当の額",)))
    assert "额" in terms.titles  # 額 is the topic of a Japanese heading (配当の額)
