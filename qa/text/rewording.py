"""Whether the model's sentence keeps what the extract it rewords says.

With a model, the text route (qa/text/answer.py) hands it the extract (the sentences, or the record's
label and value, that the extractive answer quotes) to reword as one answer sentence. A small model
often writes a true sentence about another part of what it reads (the passage's 结构化主体 for its
关键审计事项, one point of several, the heading's 重要提示 for 审计意见), which its numbers and names
alone cannot tell. So its sentence stands only when it keeps most of the extract's words: the search
tokenizer's words of two characters or more (numbers too) that the question does not already write,
since restating the question answers nothing. The share it must keep is `TextSettings.model_keeps`.

>>> from search.tokenize import Tokenizer
>>> left_out("公司每10股派发现金红利1.88元（含税）。", "每10股派发现金红利1.88元（含税）", "利润分配预案是什么", Tokenizer())
[]
>>> left_out("公司聘请天健会计师事务所。", "每10股派发现金红利1.88元", "利润分配预案是什么", Tokenizer())
['10', '股派', '发现', '红利', '金红利', '1.88']
"""

from __future__ import annotations

from qa.topics import folded
from search.tokenize import Tokenizer

_WORD_CHARS = 2  # one-character words (的, 为, 无) are wording, not content


def extract_words(extract: str, question: str, tokenizer: Tokenizer) -> list[str]:
    """The extract's content words a rewording must keep, in reading order: two characters or more, not
    written in the question."""
    asked = folded(question)
    words = (folded(t) for t in tokenizer.tokens(extract))
    return list(dict.fromkeys(w for w in words if len(w) >= _WORD_CHARS and w not in asked))


def left_out(sentence: str, extract: str, question: str, tokenizer: Tokenizer) -> list[str]:
    """The extract's content words the sentence does not write (compared folded, as written anywhere in it)."""
    return _missing(sentence, extract_words(extract, question, tokenizer))


def drops_extract(sentence: str, extract: str, question: str, tokenizer: Tokenizer, least: float) -> str:
    """Why the sentence cannot stand for the extract ("" when it keeps at least `least` of its content words)."""
    words = extract_words(extract, question, tokenizer)
    if not words:
        return ""
    missing = _missing(sentence, words)
    kept = 1 - len(missing) / len(words)
    if kept >= least:
        return ""
    return (
        f"it keeps {kept:.0%} of the extract's words (at least {least:.0%} wanted); "
        f"left out: {', '.join(missing[:8])}{' …' if len(missing) > 8 else ''}"
    )


def _missing(sentence: str, words: list[str]) -> list[str]:
    said = folded(sentence)
    return [word for word in words if word not in said]
