import textwrap

import pytest

from core.errors import RuleError
from qa.understand.classify import FALLBACK_RULE, Entities, QuestionClassifier, load_type_rules


@pytest.fixture(scope="module")
def classifier():
    return QuestionClassifier.load()


def test_the_shipped_rules_load_ordered_by_priority(classifier):
    priorities = [r.priority for r in classifier.rules]
    assert priorities == sorted(priorities, reverse=True)
    assert classifier.rules[-1].type == "open"


def test_a_field_of_a_company_year_is_a_lookup(classifier):
    entities = Entities(company=True, years=1, fields=1)
    assert classifier.classify("2019年四方科技的电子信箱是什么?", entities).id == "lookup_field"
    assert (
        classifier.classify("销售费用和管理费用分别是多少元?", Entities(company=True, years=1, fields=2)).type
        == "lookup"
    )


def test_two_questions_of_which_one_names_a_field_go_to_the_report_text(classifier):
    one_field = Entities(company=True, years=1, fields=1)
    rule = classifier.classify("2024年度财务报告的审计意见是什么?由哪家#####出具?", one_field)
    assert (rule.id, rule.type) == ("report_text_two_asks", "report_text")
    assert classifier.classify("2024年的#####是哪家?", one_field).type == "lookup"
    two_fields = Entities(company=True, years=1, fields=2)
    assert classifier.classify("2019年的####是什么?#####是谁?", two_fields).type == "lookup"


def test_reasons_and_descriptions_go_to_the_report_text(classifier):
    rule = classifier.classify("请简要分析营业收入变动情况及原因", Entities(company=True, years=1, fields=1))
    assert (rule.id, rule.type) == ("report_text_reason", "report_text")
    assert (
        classifier.classify("请简要分析社会责任工作情况", Entities(company=True, years=1)).type
        == "report_text"
    )


def test_year_comparisons_need_two_years_or_a_same_question(classifier):
    assert (
        classifier.classify("法定代表人对比是否相同?", Entities(company=True, years=2, fields=1)).type
        == "compare_years"
    )
    assert (
        classifier.classify("法定代表人是否是相同的?", Entities(company=True, years=1, fields=1)).id
        == "compare_years_implicit"
    )
    assert (
        classifier.classify(
            "2021年的营业收入比2020年增加了多少元?", Entities(company=True, years=2, fields=1)
        ).type
        == "compare_years"
    )


def test_formulas_growth_and_unnamed_ratios(classifier):
    assert (
        classifier.classify("资产负债比率是多少?", Entities(company=True, years=1, formula=True)).type
        == "formula"
    )
    assert (
        classifier.classify("增长率是多少?", Entities(company=True, years=1, fields=1, growth=True)).id
        == "formula_growth"
    )
    assert (
        classifier.classify(
            "研发人员占总职工人数的比例是多少？保留两位小数", Entities(company=True, years=1)
        ).id
        == "formula_ratio_rounded"
    )


def test_rankings_are_across_companies(classifier):
    assert (
        classifier.classify("营业收入最高的前10家公司", Entities(years=1, fields=1, ranking=True)).type
        == "ranking"
    )


def test_questions_without_a_company_are_open_unless_sources_are_given(classifier):
    assert classifier.classify("什么是存货周转率？", Entities(fields=0)).type == "open"
    assert classifier.classify("保單借款的可借金額上限", Entities(sources=True)).type == "report_text"


def test_quoted_labels_are_lookups(classifier):
    assert (
        classifier.classify(
            "「自己資本比率」は？", Entities(company=True, years=1, quoted=True, formula=True)
        ).type
        == "lookup"
    )


def _write(tmp_path, body):
    path = tmp_path / "question_types.yaml"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


TYPES = "types:\n  lookup: {route: data}\n  open: {route: text}\n"


def test_bad_regex_unknown_type_and_duplicate_id_are_reported_with_lines(tmp_path):
    path = _write(
        tmp_path,
        TYPES
        + textwrap.dedent("""\
        rules:
          - id: one
            type: lookup
            patterns:
              any: ['(原因']
          - id: one
            type: open
        """),
    )
    errors = [str(e) for e in load_type_rules(path)[-1]]
    assert errors[0].startswith(f"{path}:8: bad regex '(原因' in rule one")
    assert errors[1] == f"{path}:9: duplicate rule id 'one' (first at line 5)"
    with pytest.raises(RuleError, match="bad regex"):
        QuestionClassifier.load(path)
    with pytest.raises(
        RuleError, match=r"question_types.yaml:6: rule one has type 'lookups', which `types` does not"
    ):
        QuestionClassifier.load(_write(tmp_path, TYPES + "rules:\n  - id: one\n    type: lookups\n"))


def test_a_type_is_declared_once_with_a_route_the_engine_has(tmp_path):
    types = QuestionClassifier.load().types
    assert types["lookup"].route_for(one_company=True) == "data"
    assert types["ranking"].route_for(one_company=True) == "data"  # that company's own figure
    assert types["ranking"].route_for(one_company=False) == "statistics"
    assert types["report_text"].route_for(one_company=False) == "text"
    with pytest.raises(RuleError, match=r"question_types.yaml:4: types/search/route: 'web' is not one of"):
        QuestionClassifier.load(
            _write(tmp_path, TYPES + "  search: {route: web}\nrules:\n  - id: one\n    type: open\n")
        )
    with pytest.raises(RuleError, match=r"`types` must declare 'open'"):
        QuestionClassifier.load(
            _write(tmp_path, "types:\n  lookup: {route: data}\nrules:\n  - id: one\n    type: lookup\n")
        )


def test_without_a_catch_all_rule_the_fallback_is_open(tmp_path):
    classifier = QuestionClassifier.load(
        _write(tmp_path, TYPES + "rules:\n  - id: only\n    type: lookup\n    requires: [field]\n")
    )
    assert classifier.classify("什么?", Entities()) is FALLBACK_RULE
    assert FALLBACK_RULE.type == "open"


def test_the_question_type_added_in_docs_contributing_is_classified_and_routed(tmp_path):
    # docs/contributing.md shows a new type as one YAML edit; that edit, applied as shown, must work.
    import json
    import re

    import yaml

    from core.rulefile import PROJECT_ROOT, data_dir

    guide = (PROJECT_ROOT / "docs" / "contributing.md").read_text(encoding="utf-8")
    added = yaml.safe_load(re.search(r"```yaml\n(.*?)```", guide, re.S).group(1))
    rules = yaml.safe_load((data_dir("rules") / "question_types.yaml").read_text(encoding="utf-8"))
    rules["types"].update(added["types"])
    rules["rules"] += added["rules"]
    path = tmp_path / "question_types.yaml"
    path.write_text(json.dumps(rules, ensure_ascii=False), encoding="utf-8")  # JSON is YAML
    classifier = QuestionClassifier.load(path)
    rule = classifier.classify("2021年甲公司每10股派发现金红利多少元?", Entities(company=True, years=1))
    assert rule.type == "dividend" and classifier.types["dividend"].route_for(one_company=True) == "data"
