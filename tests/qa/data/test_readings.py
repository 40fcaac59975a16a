"""Person-name members against printed names, through Sudachi readings."""

from qa.data.readings import kana_key, name_likeness, person_key
from search.tokenize import Tokenizer


def test_member_names_and_kana_readings_meet_in_one_romanisation():
    assert person_key("KeijiYamamoto") == ("keiziyamamoto", "yamamotokeizi")
    assert kana_key("ヤマモトケイジ") == "yamamotokeizi"
    assert kana_key("チョウシジュンジ") == person_key("JunjiChoshi")[1]
    assert kana_key("サトウタロウ") == person_key("TaroSato")[1]


def test_words_that_are_not_a_name_give_no_key():
    assert person_key("Internal") == () and person_key("ABC") == () and person_key("OrdinaryShare2") == ()


def test_the_right_printed_name_reads_most_like_the_member():
    tokenizer = Tokenizer()
    keys = person_key("HarufumiMochizuki")
    likeness = {
        name: name_likeness(keys, tokenizer.reading(name)) for name in ("望月 晴文", "東原 敏昭", "井原 勝美")
    }
    assert max(likeness, key=likeness.get) == "望月 晴文" and likeness["望月 晴文"] >= 0.9
