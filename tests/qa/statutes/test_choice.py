"""Multiple choice over statutes, end to end through `python -m qa.run` on a tiny invented statute."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from core.records import LawRecord
from ingestion.pipeline import ingest
from qa.answers import AnswerTemplates
from qa.records import Question
from qa.statutes.choice import Article, ChoiceAnswerer, ChoiceSettings, Found, Judged, provision_text
from qa.statutes.compare import Alignment
from qa.statutes.law_refs import LawBook
from qa.statutes.layouts import read_layout
from search.law_register import LawRegister
from search.settings import IndexSettings
from search.stores import open_text_index

QUESTIONS = [
    {
        "id": "number",
        "question": "架空取引法第2条により、届出書を提出すべき期限として正しいものを教えてください。",
        "choices": {
            "a": "取引の日から六十日以内に提出する",
            "b": "取引の日から30日以内に提出する",
            "c": "取引の日から一年以内に提出する",
            "d": "取引の日から十日以内に提出する",
        },
    },
    {
        "id": "wrong",
        "question": "架空取引法第二条の二について、誤っているものを教えてください。",
        "choices": {
            "a": "内閣総理大臣は、届出書を受理した日から五年間、公衆の縦覧に供しなければならない",
            "b": "内閣総理大臣は、届出書を受理した日から一年間、公衆の縦覧に供しなければならない",
            "c": "内閣総理大臣は、届出書を公衆の縦覧に供しなければならない",
        },
    },
    {
        "id": "order",
        "question": "架空取引法第3条により、届出書の提出を要しない場合として正しいものを教えてください。",
        "choices": {
            "a": "取引の額が百万円以上である場合",
            "b": "取引の額が百万円未満である場合",
            "c": "取引の額が十万円未満である場合",
        },
    },
    {
        "id": "article",
        "question": "届出書を受理した日から公衆の縦覧に供する期間を定めた条文を教えてください。",
        "choices": {"a": "架空取引法第1条", "b": "架空取引法第2条の2", "c": "架空取引法第3条"},
    },
    {
        "id": "unrelated",
        "question": "届出書を公衆の縦覧に供する期間と無関係の条文を教えてください。",
        "choices": {"a": "架空取引法第2条の2", "b": "架空取引法第九十九条", "c": "架空取引法第1条"},
    },
]


@pytest.fixture
def answers(statute_corpus, tmp_path):
    questions = tmp_path / "questions.json"
    questions.write_text(json.dumps(QUESTIONS, ensure_ascii=False), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "qa.run",
            str(questions),
            "--docs",
            str(statute_corpus),
            "--index",
            str(tmp_path / "index"),
            "--workers",
            "1",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    return {row["id"]: row for row in map(json.loads, run.stdout.splitlines())}


def test_the_option_that_keeps_the_law_s_period_is_correct(answers):
    row = answers["number"]
    assert row["type"] == "multiple_choice" and row["value"] == "b"
    assert "架空取引法 第二条" in row["answer"]
    assert row["evidence"][0]["text"].startswith("架空取引法 第二条:")


def test_a_wrong_option_is_the_one_with_a_changed_number(answers):
    row = answers["wrong"]
    assert row["value"] == "b"
    assert "number(1年→5年)" in row["answer"]


def test_a_delegation_to_an_order_is_followed(answers):
    row = answers["order"]
    assert row["value"] == "b"
    assert "架空取引法施行令 第一条" in row["answer"]


def test_which_article_questions_pick_the_article_that_says_it(answers):
    assert answers["article"]["value"] == "b"
    assert ":which_article:" in answers["article"]["route"]


def test_an_article_missing_from_the_corpus_is_not_taken_for_an_unrelated_one(answers):
    assert answers["unrelated"]["value"] == "c"


def test_routes_show_the_short_path_for_one_cited_article_and_the_full_path_otherwise(answers):
    assert answers["number"]["route"].startswith("multiple_choice:short:positive")
    assert answers["article"]["route"].startswith("multiple_choice:full:which_article")


def _answer_over_laws(shared_data, tmp_path, question: Question, laws=("403AC0000000090",)):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    # real laws (借地借家法 unless others are given), linked (not copied) so ingestion reads them from ../shared/data
    for law in laws:
        (corpus / f"{law}.md").symlink_to(shared_data / "lawqa_jp" / "corpus" / f"{law}.md")
    settings = IndexSettings(tmp_path / "index")
    ingest(corpus, settings, workers=1)
    index = open_text_index(settings)
    try:
        answerer = ChoiceAnswerer(
            index, LawBook.load(LawRegister(settings.laws_dir).load()), AnswerTemplates.load()
        )
        return answerer.run(question)
    finally:
        index.close()


def test_the_real_corpus_answers_a_numeric_question_by_the_changed_period(shared_data, tmp_path):
    question = Question(
        "t",
        "借地借家法第11条について、誤っているものを教えてください。",
        choices=(
            (
                "a",
                "地代等の額の増額を正当とする裁判が確定した場合には、不足額に年一割の割合による支払期後の利息を付してこれを支払わなければならない",
            ),
            (
                "b",
                "地代等の額の増額を正当とする裁判が確定した場合には、不足額に年二割の割合による支払期後の利息を付してこれを支払わなければならない",
            ),
        ),
    )
    answer = _answer_over_laws(shared_data, tmp_path, question)
    assert answer.value == "b" and "借地借家法 第十一条" in answer.answer


def test_an_item_is_read_with_its_paragraph_s_lead():

    article = Article(
        "act",
        "架空取引法",
        "第二条",
        "届出者は、次に掲げる書類を提出することができる。\n英語で記載された書類\n"
        "日本語で記載された書類\n前項の書類は、写しでもよい。",
    )
    assert (
        provision_text(article, 1, 2)
        == "届出者は、次に掲げる書類を提出することができる。\n日本語で記載された書類"
    )
    assert provision_text(article, 2, None) == "前項の書類は、写しでもよい。"
    assert (
        provision_text(article, 1, 9) == article.text
    )  # no such item: the whole article, not the lead alone


def _which_article(question: str, options: dict[str, str], articles) -> str:

    register = {
        "act": LawRecord("架空取引法"),
        "order": LawRecord("架空取引法施行令"),
        "cao": LawRecord("架空取引業等に関する内閣府令"),
    }
    answerer = ChoiceAnswerer(None, LawBook.load(register), AnswerTemplates.load())
    found = Found()
    for article in articles:
        found.add(article)
    judged = answerer._judge("which_article", question, options, found)
    return answerer._decide("which_article", question, judged)[0].letter


ACT_4 = (
    "act",
    "架空取引法",
    "第四条",
    "届出者は、内国会社にあつては事業年度経過後三月以内、外国会社にあつては政令で定める"
    "期間内に、報告書を内閣総理大臣に提出しなければならない。",
)
ORDER_2 = ("order", "架空取引法施行令", "第二条", "法第四条に規定する政令で定める期間は、六月とする。")
ORDER_3 = (
    "order",
    "架空取引法施行令",
    "第三条",
    "法第四条に規定する報告書は、外国会社にあつては、日本語で記載しなければならない。",
)


def test_a_question_for_a_period_picks_the_order_that_sets_what_the_law_delegates():

    question = "外国会社である届出者が報告書を内閣総理大臣に提出する期間を定めた条文を教えてください。"
    options = {"a": "架空取引法第4条", "b": "架空取引法施行令第2条", "c": "架空取引法施行令第3条"}
    assert _which_article(question, options, [Article(*a) for a in (ACT_4, ORDER_2, ORDER_3)]) == "b"
    # without a value asked, the article that says most of the question stays the answer
    question = "外国会社である届出者が報告書を内閣総理大臣に提出することを定めた条文を教えてください。"
    assert _which_article(question, options, [Article(*a) for a in (ACT_4, ORDER_2, ORDER_3)]) == "a"


def test_an_order_that_refers_back_sets_only_what_the_law_leaves_to_it():

    act = (
        "act",
        "架空取引法",
        "第五条",
        "届出者は、取引の日から三十日以内に、報告書を内閣総理大臣に提出しなければならない。",
    )
    order = (
        "order",
        "架空取引法施行令",
        "第四条",
        "法第五条の報告書には、過去五年間の取引を記載しなければならない。",
    )
    question = "届出者が報告書を内閣総理大臣に提出しなければならない期間を定めた条文を教えてください。"
    options = {"a": "架空取引法第5条", "b": "架空取引法施行令第4条"}
    assert _which_article(question, options, [Article(*act), Article(*order)]) == "a"


def test_a_question_for_a_number_no_article_found_states_picks_the_article_the_corpus_lacks():

    options = {"a": "架空取引法施行令第3条", "b": "架空取引業等に関する内閣府令"}
    question = "外国会社が報告書を記載する言語の数を規定した条文を教えてください。"
    assert _which_article(question, options, [Article(*ORDER_3)]) == "b"
    question = "外国会社が報告書を記載する言語を規定した条文を教えてください。"
    assert _which_article(question, options, [Article(*ORDER_3)]) == "a"


def test_an_option_naming_a_law_without_an_article_stands_for_its_best_article_found():

    cao = (
        "cao",
        "架空取引業等に関する内閣府令",
        "第五条",
        "令第三条の報告書は、二以上の言語で記載しなければならない。",
    )
    options = {"a": "架空取引法施行令第3条", "b": "架空取引業等に関する内閣府令"}
    question = "報告書を二以上の言語で記載しなければならないことを定めた条文を教えてください。"
    assert _which_article(question, options, [Article(*ORDER_3), Article(*cao)]) == "b"


PRODUCTS = """# 架空製品法
法令番号: 令和九年法律第百号
法令ID: 999AC0000000100
種別: acts

## 第一条
この法律は、架空の製品の品質を確保することを目的とする。

## 第二条
この法律で「管理製品」とは、その適切な管理が必要なものとして、大臣が審議会の意見を聴いて指定する製品をいう。
この法律で「一般製品」とは、管理製品以外の製品であつて、大臣が審議会の意見を聴いて指定するものをいう。
この法律で「再生製品」とは、人の細胞を培養した製品のうち、政令で定めるものをいう。

## 第三条
管理製品、一般製品又は再生製品を製造しようとする者は、大臣の許可を受けなければならない。
"""


@pytest.fixture
def products(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "products.md").write_text(PRODUCTS, encoding="utf-8")
    settings = IndexSettings(tmp_path / "index")
    ingest(corpus, settings, workers=1)
    index = open_text_index(settings)
    yield ChoiceAnswerer(index, LawBook.load(LawRegister(settings.laws_dir).load()), AnswerTemplates.load())
    index.close()


STATEMENTS = (
    "架空製品法に関する次のア～ウの記述のうち、{asked}。\n"
    "ア 管理製品を製造しようとする者は、大臣の許可を受けなけれ\nばならない。\n"
    "イ 再生製品を製造しようとする者は、大臣の許可を受けること\nができる。\n"
    "ウ 「一般製品」とは、管理製品以外の製品であつて、大臣が審議会の意見を聴いて指定するものをいう。"
)


def test_a_combination_question_picks_the_statements_the_law_bears_out(products):
    question = Question(
        "t",
        STATEMENTS.format(asked="正しいものの組合せはどれか"),
        choices=(("1", "ア・イ"), ("2", "ア・ウ"), ("3", "イ・ウ")),
    )
    decision = products.decide(question)
    assert decision.layout.kind == "combination" and decision.choice.letter == "2"
    judged = {j.letter: j for j in decision.judged}
    assert "modality" in judged["イ"].alignment.kinds  # 許可を受けることができる for …なければならない
    assert judged["ウ"].alignment.sentence.label == "架空製品法 第二条"  # the quoted term's definition
    wrong = Question(
        "t",
        STATEMENTS.format(asked="誤っているものの組合せはどれか"),
        choices=(("1", "ア・イ"), ("2", "ア・ウ"), ("3", "イ・ウ")),
    )
    assert products.decide(wrong).choice.letter in {"1", "3"}  # both hold イ, the one wrong statement


def test_a_counting_question_picks_the_number_of_statements_judged_so(products):
    question = Question(
        "t",
        STATEMENTS.format(asked="誤っているものはいくつあるか"),
        choices=(("1", "一つ"), ("2", "二つ"), ("3", "三つ")),
    )
    decision = products.decide(question)
    assert decision.layout.kind == "counting" and decision.choice.letter == "1"
    right = Question(
        "t",
        STATEMENTS.format(asked="正しいものはいくつあるか"),
        choices=(("1", "一つ"), ("2", "二つ"), ("3", "三つ")),
    )
    assert products.run(right).value == "2"


def test_a_question_for_the_words_of_its_blanks_picks_the_words_the_law_writes(products):
    question = Question(
        "t",
        "次に掲げる架空製品法の条文の空欄ア・イに当てはまる語句の組合せとして、正しいものはどれか。\n"
        "第3 条 管理製品、一般製品又は再生製品を製造しようとする者は、アの許可をイ。\n ア イ",
        choices=(
            ("1", "審議会 受けなければならない"),
            ("2", "大臣 受けることができる"),
            ("3", "大臣 受けなければならない"),
        ),
    )
    decision = products.decide(question)
    assert decision.layout.kind == "blanks" and decision.form == "positive"
    assert decision.choice.letter == "3" and decision.decided_by == "rules:blanks"


class _LabelModel:
    """A stand-in model: the label of the option holding `liked` is `odds` times as likely as each other one,
    and label "1" is always twice as likely as it would be (a liking for the first place)."""

    def __init__(self, liked: str, odds: float):
        self.liked, self.odds = liked, odds
        self.fewshot = type("FewShot", (), {"tasks": {"choice": None}})()

    def label_logprobs(self, task, user, labels):
        import math

        lines = user.splitlines()
        return {
            label: math.log(
                self.odds if any(self.liked in line for line in lines if line.startswith(label)) else 1.0
            )
            + (math.log(2) if label == "1" else 0.0)
            for label in labels
        }


def _tied(letters_texts: dict[str, str]):

    return [Judged(letter, text, Alignment(None, 0.5, ()), 0.5) for letter, text in letters_texts.items()]


def test_a_tie_goes_to_the_option_the_model_clearly_prefers_wherever_it_is_shown():

    question = "次のうち、正しいものを教えてください。"
    options = {"a": "届出書は五年間縦覧に供する", "b": "届出書は公衆の縦覧に供する"}
    for liked, letter in (("公衆", "b"), ("五年", "a")):
        answerer = ChoiceAnswerer(
            None,
            LawBook.load({"act": LawRecord("架空取引法")}),
            AnswerTemplates.load(),
            llm=_LabelModel(liked, odds=3.0),
        )
        choice, decided_by = answerer._decide("positive", question, _tied(options))
        assert (choice.letter, decided_by) == (letter, "model:tie")
    # a model all but indifferent leaves the tie to the rules, whatever place it likes
    answerer = ChoiceAnswerer(
        None,
        LawBook.load({"act": LawRecord("架空取引法")}),
        AnswerTemplates.load(),
        llm=_LabelModel("公衆", odds=1.2),
    )
    assert answerer._decide("positive", question, _tied(options))[1] == "rules:tie"


class _StatementModel:
    """A stand-in model for the statement task: "正" is `odds` times as likely as "誤" for statements holding
    `liked`, and as unlikely for the others."""

    def __init__(self, liked: str, odds: float):
        self.liked, self.odds = liked, odds
        self.fewshot = type("FewShot", (), {"tasks": {"statement": None}})()

    def label_logprobs(self, task, user, labels):
        import math

        statement = user.splitlines()[0]
        shift = math.log(self.odds) if self.liked in statement else -math.log(self.odds)
        return {labels[0]: shift, labels[1]: 0.0}


def _judged_by(settings: ChoiceSettings, llm) -> list[Judged]:
    """Two statements judged against one article: one the article says, one that drops its obligation."""
    found = Found()
    found.add(
        Article("act", "架空取引法", "第二条", "届出者は、届出書を内閣総理大臣に提出しなければならない。")
    )
    options = {
        "a": "届出者は、届出書を内閣総理大臣に提出しなければならない",
        "b": "届出者は、届出書を提出する",
    }
    laws = LawBook.load({"act": LawRecord("架空取引法")})
    answerer = ChoiceAnswerer(None, laws, AnswerTemplates.load(), settings, llm=llm)
    return answerer._judge("positive", "正しいものは。", options, found)


def test_the_model_s_judgement_of_a_statement_moves_its_goodness_within_a_cap():
    settings = ChoiceSettings(model_weight=0.05)
    rules_only = _judged_by(settings, None)
    judged = _judged_by(settings, _StatementModel("提出する", odds=1e6))
    for before, after in zip(rules_only, judged):
        shift = after.goodness - before.goodness
        assert after.by == "model" and abs(shift) == pytest.approx(settings.model_weight * settings.model_cap)
    assert judged[1].goodness > rules_only[1].goodness and judged[0].goodness < rules_only[0].goodness


def test_by_default_the_model_judges_no_statement_and_the_rules_goodness_stands():
    rules_only = _judged_by(ChoiceSettings(), None)
    judged = _judged_by(ChoiceSettings(), _StatementModel("提出する", odds=1e6))
    assert [(j.goodness, j.by) for j in judged] == [(j.goodness, j.by) for j in rules_only]


def test_a_combination_is_as_right_as_its_worst_statement(products):
    """One clearly wrong statement sinks its combination however right its partner is (and, for a negative
    question, one right statement clears it), which an average of the two would not."""
    layout = read_layout(
        "次のア～エの記述のうち、正しいものの組合せはどれか。\nア 甲。\nイ 乙。\nウ 丙。\nエ 丁。",
        {"1": "ア・イ", "2": "ウ・エ"},
    )

    def judged(goodness: dict[str, float]):
        return [Judged(mark, mark, Alignment(None, g, ()), g) for mark, g in goodness.items()]

    positive, _ = products._decide_layout(
        layout, False, judged({"ア": 0.95, "イ": 0.35, "ウ": 0.6, "エ": 0.6})
    )
    assert positive.letter == "2"  # the average would pick ア・イ (0.65 against 0.6)
    negative, _ = products._decide_layout(layout, True, judged({"ア": -0.5, "イ": 0.5, "ウ": 0.1, "エ": 0.1}))
    assert negative.letter == "2"  # イ is right, so ア・イ is not the pair of wrong statements


def test_word_level_detectors_count_less_on_a_paraphrase_than_on_an_edit(products):
    def weighed(kind: str, copied: float) -> float:
        return products._weighed(kind, Alignment(None, 0.5, (), copied=copied))

    assert weighed("negation", 0.95) == 1.0 and weighed("negation", 0.1) == 0.5
    assert 0.5 < weighed("actor", 0.45) < 1.0  # in between, the weight rises with the share copied
    assert (
        weighed("number", 0.1) == 1.0
    )  # a changed number or condition counts fully however the rest is worded
    with pytest.raises(ValueError):
        ChoiceSettings(paraphrase_copied=0.7, edit_copied=0.6)
