import textwrap

import pytest
import yaml

from core.errors import InputError
from core.rulefile import data_dir
from qa.answers import REQUIRED_KINDS, AnswerTemplates, answer_errors
from qa.records import Analysis, Question

NEGATIVE_WORDS = ("未", "无", "不", "没有")  # FinGLM scores a negative answer by one of these


@pytest.fixture(scope="module")
def templates():
    return AnswerTemplates.load()


def test_every_required_kind_has_chinese_and_japanese_text(templates):
    for kind in REQUIRED_KINDS:
        for lang in ("zh", "ja"):
            assert templates.placeholders(kind, lang) is not None


def test_render_fills_placeholders(templates):
    text = templates.render(
        "lookup", "zh", company="四方科技", year=2019, field="研发费用", value="241986307.9", unit="元"
    )
    assert text == "四方科技2019年的研发费用是241986307.9元。"
    assert "丸紅株式会社" in templates.render(
        "lookup", "ja", company="丸紅株式会社", year=2020, field="負債", value="1", unit="円"
    )


def test_negative_answers_say_no(templates):
    for kind in ("negative_report", "negative_value"):
        text = templates.render(
            kind, "zh", company="某公司", when="2021年", document="年报", field="营业收入"
        )
        assert any(word in text for word in NEGATIVE_WORDS)


def test_a_missing_placeholder_is_a_clear_error_naming_the_template_line(templates):
    with pytest.raises(
        InputError,
        match=r"answers.yaml:\d+: template lookup/zh needs \{field\}, \{unit\}, \{value\}, \{year\}",
    ):
        templates.render("lookup", "zh", company="四方科技")
    with pytest.raises(InputError, match="no answer template 'lookups'"):
        templates.render("lookups", "zh")


def test_a_negative_template_without_a_negative_word_is_rejected(tmp_path):
    path = tmp_path / "answers.yaml"
    text = (data_dir("rules") / "answers.yaml").read_text(encoding="utf-8")
    path.write_text(
        text.replace(
            "抱歉，资料中没有[{company}][{when}的]{document}，无法回答该问题。",
            "[{company}][{when}的]{document}在此。",
        ),
        encoding="utf-8",
    )
    assert any("negative_report/zh must contain" in str(e) for e in answer_errors(path))


def test_a_malformed_placeholder_is_reported(tmp_path):
    path = tmp_path / "answers.yaml"
    body = textwrap.indent("\n".join(f"{k}:\n  zh: '无{{x}}'\n  ja: 'x'" for k in REQUIRED_KINDS), "  ")
    shipped = yaml.safe_load((data_dir("rules") / "answers.yaml").read_text(encoding="utf-8"))
    words = yaml.safe_dump({k: v for k, v in shipped.items() if k != "templates"}, allow_unicode=True)
    path.write_text(
        "templates:\n" + body.replace("lookup:\n    zh: '无{x}'", "lookup:\n    zh: '{value'") + "\n" + words,
        encoding="utf-8",
    )
    errors = [str(e) for e in answer_errors(path)]
    assert len(errors) == 1 and "template lookup/zh" in errors[0]


def _asked(text="某公司的营业收入", period="", written="", language="zh"):
    return Analysis(
        Question("q", text), "lookup", "test", language=language, period=period, period_written=written
    )


def test_a_negative_answer_without_a_year_leaves_out_the_year_and_its_words(templates):
    for kind in ("negative_report", "negative_value"):
        for lang in ("zh", "ja"):
            with_year = templates.negative(
                kind, _asked(language=lang), company="某公司", years=2021, field="营业收入"
            )
            for years in ("", None, []):
                text = templates.negative(
                    kind, _asked(language=lang), company="某公司", years=years, field="营业收入"
                )
                assert "年" not in text.replace("年报", "") and "None" not in text
                assert "某公司" in text and len(text) < len(with_year)
    assert (
        templates.negative("negative_value", _asked(), company="某公司", years=[], field="营业收入")
        == "抱歉，某公司年报中未找到营业收入的数据。"
    )
    assert (
        templates.negative("negative_value", _asked(), company="", years=[2021], field="营业收入")
        == "抱歉，2021年的年报中未找到营业收入的数据。"
    )
    assert (
        templates.negative("negative_report", _asked(), company="", years=[])
        == "抱歉，资料中没有年报，无法回答该问题。"
    )


@pytest.mark.parametrize(
    "period, written, document",
    [
        ("quarter", "第3季", "2022年第3季的财务报告"),
        ("ytd", "前三季", "2022年前三季的财务报告"),
        ("half", "上半年", "2022年上半年的半年度报告"),
        ("", "", "2022年的年报"),
    ],
)
def test_a_negative_answer_names_the_kind_of_document_and_the_period_asked(
    templates, period, written, document
):
    text = templates.negative(
        "negative_value",
        _asked("聯發科2022年的營業收入", period, written),
        company="聯發科",
        years=[2022],
        field="營業收入",
    )
    assert text == f"抱歉，聯發科{document}中未找到營業收入的数据。"
    several = templates.negative(
        "negative_report", _asked(period=period, written=written), company="", years=[2021, 2022]
    )
    assert "2021、2022年" in several


def test_a_negative_template_with_a_bare_year_is_rejected(tmp_path):
    path = tmp_path / "answers.yaml"
    text = (data_dir("rules") / "answers.yaml").read_text(encoding="utf-8")
    path.write_text(
        text.replace("[{when}的]{document}中未找到", "{when}的{document}中未找到"), encoding="utf-8"
    )
    errors = [str(e) for e in answer_errors(path)]
    assert (
        len(errors) == 1
        and "negative_value/zh: {when} can be empty" in errors[0]
        and "answers.yaml:" in errors[0]
    )


def test_unpaired_brackets_are_reported(tmp_path):
    path = tmp_path / "answers.yaml"
    text = (data_dir("rules") / "answers.yaml").read_text(encoding="utf-8")
    path.write_text(
        text.replace("[{company}の][{when}の]{document}に", "[{company}の[{when}の]{document}に"),
        encoding="utf-8",
    )
    errors = [str(e) for e in answer_errors(path)]
    assert len(errors) == 1 and "negative_value/ja: square brackets must pair up" in errors[0]
