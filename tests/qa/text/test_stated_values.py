"""A field's value stated in a sentence when no table gives it."""

from qa.text.stated_values import stated_value

HEAD_COUNT = ["在职员工总数", "在职员工的数量合计"]


def test_a_number_in_the_fields_unit_after_its_name_is_the_value():
    sentences = [
        "报告期内公司业务稳定。",
        "2024年末，本集团共有在职员工41,011人（含派遣人员），需承担退休费的离职职工79人；",
    ]
    assert stated_value(sentences, HEAD_COUNT, "人") == ("41011", sentences[1])


def test_a_number_without_the_fields_name_before_it_is_not_the_value():
    assert stated_value(["需承担退休费的离职职工79人。"], HEAD_COUNT, "人") is None
    assert stated_value(["研发人员 120 人。"], HEAD_COUNT, "人") is None


def test_a_number_in_another_unit_is_not_the_value():
    assert stated_value(["在职员工薪酬总额为1,200万元。"], HEAD_COUNT, "人") is None
    assert stated_value(["在职员工持股计划认购1,000人民币。"], HEAD_COUNT, "人") is None


def test_decimals_are_kept_and_no_unit_means_no_answer():
    assert stated_value(["本年在职员工平均人数为1,234.5人。"], HEAD_COUNT, "人") == (
        "1234.5",
        "本年在职员工平均人数为1,234.5人。",
    )
    assert stated_value(["在职员工41,011人"], HEAD_COUNT, "") is None
