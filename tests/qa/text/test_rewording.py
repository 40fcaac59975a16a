"""The check that a model's sentence keeps what the extract it rewords says (real jieba tokenizer)."""

import pytest

from qa.text.rewording import drops_extract, extract_words, left_out
from search.tokenize import Tokenizer

RISKS = "公司面临的主要风险包括政策性风险、汇率风险和原材料价格波动风险。"
MATTERS = (
    "（一）结构化主体合并评估 公司持有不同的结构化主体的权益。"
    "（二）预期信用损失 公司在预期信用损失的计量中使用了多个模型和假设。"
)


@pytest.fixture(scope="module")
def tokenizer():
    return Tokenizer()


def test_the_words_a_rewording_must_keep_leave_out_the_question_and_one_character_words(tokenizer):
    words = extract_words("公司的控股股东为黄杰，持股比例为38.5%。", "公司的控股股东是谁?", tokenizer)
    assert "黄杰" in words and "38.5" in words
    assert not {"公司", "控股", "股东"} & set(words)  # the question writes them
    assert all(len(w) >= 2 for w in words)


def test_a_rewording_that_keeps_every_point_stands(tokenizer):
    sentence = "公司的重大风险有政策性风险、汇率风险和原材料价格波动风险。"
    assert drops_extract(sentence, RISKS, "重大风险提示有哪些?", tokenizer, 0.6) == ""


def test_a_true_sentence_about_another_part_of_the_extract_is_rejected_with_what_it_left_out(tokenizer):
    sentence = "公司持有不同的结构化主体的权益。"
    why = drops_extract(sentence, MATTERS, "关键审计事项是什么?", tokenizer, 0.6)
    assert why.startswith("it keeps ") and "预期" in why
    assert {"预期", "信用", "损失"} <= set(left_out(sentence, MATTERS, "关键审计事项是什么?", tokenizer))


def test_a_sentence_restating_the_question_keeps_nothing(tokenizer):
    assert drops_extract("关键审计事项如下。", MATTERS, "关键审计事项是什么?", tokenizer, 0.6)


def test_the_share_wanted_decides_and_an_extract_of_question_words_only_asks_nothing(tokenizer):
    sentence = "公司面临政策性风险。"
    assert drops_extract(sentence, RISKS, "重大风险有哪些?", tokenizer, 0.0) == ""
    assert drops_extract(sentence, RISKS, "重大风险有哪些?", tokenizer, 0.6)
    assert drops_extract("无关的句子。", "控股股东", "控股股东是谁?", tokenizer, 1.0) == ""
