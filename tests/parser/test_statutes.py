import re

import pytest

from core.articles import ARTICLE_KIND, arabic_articles, article_key, kanji_articles
from core.records import DocumentMeta
from ingestion.pipeline import ingest
from parser.statutes import looks_like_statute, parse_statute, parse_statute_markdown
from search.law_register import LawRegister
from search.settings import IndexSettings


@pytest.mark.parametrize(
    "label,key",
    [
        ("第二十四条", "24"),
        ("第24条", "24"),
        ("第二十四条の二", "24の2"),
        ("第２４条の２第１項", "24の2"),
        ("第百九十三条の二の三", "193の2の3"),
        ("附則 第一条", "附則1"),
        ("第一章　総則", ""),
    ],
)
def test_article_keys_are_the_same_in_kanji_and_arabic_numerals(label, key):
    assert article_key(label) == key


def test_article_references_in_text_convert_both_ways():
    text = "第二十四条の二第一項又は第百九十三条の二第三号の規定により"
    assert arabic_articles(text) == "第24条の2第1項又は第193条の2第3号の規定により"
    assert kanji_articles(arabic_articles(text)) == text


def test_markdown_statute_gives_one_article_chunk_with_law_chapter_and_label(statute_corpus):
    path = statute_corpus / "kakuu.md"
    assert looks_like_statute(path)
    document = parse_statute(path, DocumentMeta("kakuu"))
    assert document.law.title == "架空取引法" and document.law.law_num == "令和九年法律第九十九号"
    titles = [c.titles for c in document.chunks]
    assert titles[0] == ("架空取引法", "第一章　総則", "第一条")
    assert ("架空取引法", "第二章　届出", "第二条の二") in titles
    assert titles[-1] == ("架空取引法", "附則", "附則 第一条")
    article2 = next(c for c in document.chunks if c.titles[-1] == "第二条")
    assert article2.kind == ARTICLE_KIND and article2.text.splitlines()[-1] == "登録番号"


def test_egov_xml_keeps_chapters_sections_captions_paragraph_numbers_and_abbreviations(statute_corpus):
    document = parse_statute(statute_corpus / "touroku.xml", DocumentMeta("touroku"))
    assert document.law.title == "架空登録法" and document.law.abbreviations == ("架登法",)
    chunk = next(c for c in document.chunks if c.titles[-1] == "第二条の二")
    assert chunk.titles == ("架空登録法", "第二章　登録", "第一節　申請", "第二条の二")
    assert chunk.text.splitlines() == [
        "登録の申請は、次に掲げる者がする。",
        "一 法人",
        "２ 前項の申請は、十四日以内にしなければならない。",
    ]
    assert document.chunks[0].text.startswith("（目的）")
    assert document.chunks[-1].titles[-2:] == ("附則", "附則 第一条")


def test_a_markdown_file_without_a_title_is_not_a_statute(tmp_path):
    path = tmp_path / "notes.md"
    path.write_text("## 第一条\n本文\n", encoding="utf-8")
    assert not looks_like_statute(path)
    with pytest.raises(Exception, match="no `# law title`"):
        parse_statute_markdown(path.read_text(encoding="utf-8"), str(path))


def test_ingest_indexes_statutes_and_keeps_the_register_of_titles_in_step(statute_corpus, tmp_path):
    settings = IndexSettings(tmp_path / "index")
    summary = ingest(statute_corpus, settings, workers=1)
    assert summary.counts["ingested"] == 3 and not summary.failed
    laws = LawRegister(settings.laws_dir).load()
    assert {law.title for law in laws.values()} == {"架空取引法", "架空取引法施行令", "架空登録法"}
    (statute_corpus / "touroku.xml").unlink()
    ingest(statute_corpus, settings, workers=1)
    assert "touroku" not in LawRegister(settings.laws_dir).load()


def test_real_corpus_law_parses_into_its_articles(shared_data):
    path = shared_data / "lawqa_jp" / "corpus" / "403AC0000000090.md"
    document = parse_statute(path, DocumentMeta("403AC0000000090"))
    assert document.law.title == "借地借家法"
    keys = [article_key(c.titles[-1]) for c in document.chunks]
    assert "11" in keys and "附則1" in keys
    assert not document.warnings


def test_two_column_items_are_joined_when_the_lead_says_each_item_gives_a_value():
    from core.articles import provisions

    text = (
        "発行者は、次の各号に掲げる場合の区分に応じ、当該各号に定める額の課徴金を納付しなければならない。\n"
        "募集により有価証券を取得させた場合\n発行価額の総額の百分の二\n"
        "売出しにより有価証券を売り付けた場合\n売出価額の総額の百分の三\n"
        "前項の規定は、役員について準用する。"
    )
    paired = provisions(text, re.compile("当該各号に定める"))
    assert [(p.paragraph, p.item) for p in paired] == [(1, None), (1, 1), (1, 2), (2, None)]
    assert paired[2].text == "売出しにより有価証券を売り付けた場合　売出価額の総額の百分の三"
    assert len(provisions(text)) == 6  # without the lead pattern every line stays an item
