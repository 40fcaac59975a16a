"""Every reader of a quote finds quoted words with the one list of marks in rules/punctuation.yaml."""

from core.quotes import find_quoted
from core.rulebook import using
from tests.core.test_rulebook import copied_rules


def test_each_pair_of_marks_quotes_a_word_in_order():
    found = find_quoted('「負債」、“营业收入”と"Revenue"')
    assert [q.word for q in found] == ["負債", "营业收入", "Revenue"]
    assert found[0].marked == "「負債」" and (found[0].start, found[0].end) == (0, 4)


def test_the_outermost_pair_wins_when_asked_for():
    text = "「売上高、「日本」」の金額は"
    assert find_quoted(text, longest=200, outermost=True)[0].word == "売上高、「日本」"
    assert [q.word for q in find_quoted(text)] == ["日本"]


def test_words_outside_the_length_bounds_are_not_quoted():
    assert find_quoted("「法」と「行政手続法施行令」", shortest=2, longest=5) == []
    assert [q.word for q in find_quoted("「法」と「行政手続」", shortest=2, longest=5)] == ["行政手続"]


def test_an_unclosed_quote_quotes_nothing():
    assert find_quoted("「負債の金額は") == []


def test_the_marks_come_from_the_active_rule_book(tmp_path):
    book = copied_rules(tmp_path, "punctuation.yaml", "quotes:\n", "quotes:\n  - ['『', '』']\n")
    assert find_quoted("『負債』") == []
    with using(book):
        assert [q.word for q in find_quoted("『負債』")] == ["負債"]
