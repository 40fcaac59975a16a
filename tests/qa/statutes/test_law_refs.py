from core.records import LawRecord
from qa.statutes.law_refs import LawBook

REGISTER = {
    "act": LawRecord("架空取引法"),
    "order": LawRecord("架空取引法施行令"),
    "cao": LawRecord("架空取引業等に関する内閣府令"),
    "xml": LawRecord("架空登録法", abbreviations=("架登法",)),
}


def test_references_belong_to_the_law_named_before_them_and_same_article_words_resolve():
    book = LawBook.load(REGISTER)
    refs = book.references("架空取引法第二条の二第一項により、同条第3項及び架空取引法施行令第5条第2号、前条")
    assert [(r.doc_id, r.key, r.paragraph, r.item) for r in refs] == [
        ("act", "2の2", 1, None),
        ("act", "2の2", 3, None),
        ("order", "5", None, 2),
        ("order", "4", None, None),
    ]
    assert refs[0].label == "架空取引法第2条の2第1項"


def test_abbreviations_from_the_source_name_their_law():
    book = LawBook.load(REGISTER)
    assert book.laws_named("架登法第1条と架空取引法施行令") == ["xml", "order"]
    assert [r.doc_id for r in book.references("第1条について", default="act")] == ["act"]


def test_delegation_words_point_to_the_law_s_orders():
    book = LawBook.load(REGISTER)
    assert book.orders_of("act", "政令") == ["order"]
    assert "cao" in book.orders_of("act", "内閣府令")


def test_question_forms():
    book = LawBook.load(REGISTER)
    assert book.form("次のうち、誤っているものを教えてください。") == "negative"
    assert book.form("該当しないものを教えてください。") == "negative"
    assert book.form("薬局の名称を付することができないものを教えて下さい。") == "negative"
    assert book.form("正しいものを教えてください。") == "positive"
    assert book.form("期間を定めた条文を教えてください。") == "which_article"


def test_a_listed_reference_continues_its_article_and_paragraph():
    book = LawBook.load(REGISTER)
    refs = book.references("架空取引法第二条第一項第四号、第八号及び第十五号並びに第3項に掲げるもの")
    assert [(r.key, r.paragraph, r.item) for r in refs] == [
        ("2", 1, 4),
        ("2", 1, 8),
        ("2", 1, 15),
        ("2", 3, None),
    ]


def test_a_question_for_a_value_names_the_value_and_how_a_provision_states_it():
    rules = LawBook.load(REGISTER).rules
    asked = rules.asks_value.search("資本金の額の下限を定めている政令の条文を教えて下さい。")
    assert asked and asked.group(1) == "額"
    assert rules.stated_values["額"].search("五千万円とする")
    assert rules.stated_values["期間"].search("6月とする") and not rules.stated_values["期間"].search(
        "五億円"
    )
    assert rules.stated_values["割合"].search("3分の1以上") and rules.stated_values["割合"].search("4.5/100")
    assert rules.asks_value.search("期限を延長することができる旨を記載した条文") is None


def test_article_numbers_inside_a_law_s_name_and_after_a_law_the_corpus_lacks_are_not_another_law_s():
    book = LawBook.load(
        {
            **REGISTER,
            "fiea": LawRecord("金融商品取引法"),
            "named": LawRecord("架空取引法第二条に規定する定義に関する内閣府令"),
        }
    )
    refs = book.references("架空取引法第2条に規定する定義に関する内閣府令第十六条第一項")
    assert [(r.doc_id, r.key, r.paragraph) for r in refs] == [("named", "16", 1)]
    # 定義府令 (rules/laws.yaml) is not in this register: neither 第二条 nor 第十六条 is 金融商品取引法's
    assert book.references("金融商品取引法第二条に規定する定義に関する内閣府令第十六条第一項第八号") == []
    assert book.laws_named("金融商品取引法第二条に規定する定義に関する内閣府令") == []
