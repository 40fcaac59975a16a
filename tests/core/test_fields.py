import textwrap

import pytest

from core.errors import InputError
from core.fields import FieldDef, FieldDictionary, PhraseMatcher, load_field_file
from core.folding import fold


@pytest.fixture(scope="module")
def fields():
    return FieldDictionary.load()


def test_synonyms_in_three_scripts_map_to_one_canonical_field(fields):
    for word in ("总负债", "负债合计", "負債合計", "負債總額", "負債"):
        assert fields.canonical(word) == "负债合计", word
    for word in ("资产总额", "资产总计", "総資産", "資產總計"):
        assert fields.canonical(word) == "资产总计", word


def test_the_auditor_is_one_field_whether_asked_as_audit_firm_or_read_from_the_engagement_table(fields):
    for word in ("会计师事务所", "审计机构", "境内会计师事务所名称", "会计师事务所名称"):
        assert fields.canonical(word) == "会计师事务所", word


def test_traditional_forms_of_simplified_names_come_free(fields):
    # 營業成本 is listed nowhere: the Traditional form is made from 营业成本 at load time.
    assert fields.canonical("營業成本") == "营业成本"


def test_fields_are_found_longest_first_as_written(fields):
    found = fields.find("2020年对联营企业和合营企业的投资收益和营业外收入是多少元?")
    assert [(m.field, m.written) for m in found] == [
        ("对联营企业和合营企业的投资收益", "对联营企业和合营企业的投资收益"),
        ("营业外收入", "营业外收入"),
    ]


def test_matching_ignores_de_spaces_and_width(fields):
    found = fields.find("新文化2021年收回投资所得到的现金是多少元?")
    assert found[0].field == "收回投资收到的现金"
    assert found[0].written == "收回投资所得到的现金"
    assert fields.find("ＥＰＳ 以外の 売上 収益")[0].field == "营业收入"


def test_fuzzy_match_reaches_a_near_wording_and_respects_the_threshold(fields):
    assert fields.find_fuzzy("需支付的职工薪酬总额是多少元")[0].field == "应付职工薪酬"
    assert fields.find_fuzzy("需支付的职工薪酬总额是多少元", threshold=95) == []


def test_colliding_synonyms_are_reported_with_both_lines(tmp_path):
    path = tmp_path / "fields.yaml"
    path.write_text(
        textwrap.dedent("""\
        fields:
          - name: 负债合计
            synonyms: [总负债]
            statement: balance_sheet
            kind: number
          - name: 资产总计
            synonyms: [总资产, 总负债]
            statement: balance_sheet
            kind: number
        """),
        encoding="utf-8",
    )
    errors = load_field_file(path)[-1]
    assert [str(e) for e in errors] == [
        f"{path}:7: '总负债' of 资产总计 is also listed under 负债合计 (line 3)"
    ]
    with pytest.raises(InputError, match=r"fields.yaml:7: '总负债'"):
        FieldDictionary.load(path)


def test_a_schema_error_names_the_line(tmp_path):
    path = tmp_path / "fields.yaml"
    path.write_text("fields:\n  - name: 存货\n    statement: warehouse\n    kind: number\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"fields.yaml:3: .*warehouse"):
        FieldDictionary.load(path)


def test_field_names_go_into_the_jieba_user_dictionary(fields):
    import jieba

    tokenizer = jieba.Tokenizer()
    assert "归属于母公司所有者的净利润" not in tokenizer.lcut("归属于母公司所有者的净利润增长")
    fields.add_to_jieba(tokenizer)
    assert "归属于母公司所有者的净利润" in tokenizer.lcut("归属于母公司所有者的净利润增长")


def test_phrase_matcher_prefers_the_longest_overlapping_phrase():
    matcher = PhraseMatcher({"中国平安": ["a"], "平安银行股份有限公司": ["b"], "银行": ["c"]})
    assert [m.values for m in matcher.find("中国平安银行股份有限公司的年报")] == [("b",)]
    assert [m.text for m in matcher.find("中国平安和银行")] == ["中国平安", "银行"]


def test_phrase_matcher_takes_the_longest_phrase_starting_at_a_position_and_single_characters():
    matcher = PhraseMatcher(
        {"资产": ["a"], "资产总计": ["b"], "资产总计数": ["c"], "债": ["d"], "负债合计": ["e"]}
    )
    # "资产总计" is the longest phrase there: "资产总计数" is cut short by the end of the text
    assert [(m.start, m.end, m.values) for m in matcher.find("资产总计")] == [(0, 4, ("b",))]
    assert [m.text for m in matcher.find("资产总")] == ["资产"]
    assert [m.text for m in matcher.find("负债和资产总计数")] == ["债", "资产总计数"]
    assert [m.text for m in matcher.find("负债合计")] == ["负债合计"]
    assert matcher.find("") == [] and PhraseMatcher({}).find("资产") == []


def test_fold_drops_width_case_spaces_and_parentheses():
    assert fold("福建龙溪轴承（集团）股份 有限公司 ＡＢ") == "福建龙溪轴承集团股份有限公司ab"


def test_a_dictionary_needs_fields():
    with pytest.raises(InputError):
        FieldDictionary([])
    assert FieldDictionary([FieldDef("存货")]).canonical("存貨") == "存货"


def test_fuzzy_matching_answers_as_scoring_every_field_would(fields):
    from rapidfuzz import fuzz, process

    from core.folding import fold_field

    choices = {fold_field(f): f for f in fields.fields if len(f) >= fields.fuzzy_min_chars}
    texts = [
        "2019年四方科技的营业总收人是多少",
        "归属母公司净利润",
        "净利闰",
        "営業収益の金額",
        "产总计",
        "货币资金余额",
    ]
    for text in texts:
        for cutoff in (60, 80, 95):
            best = process.extractOne(
                fold_field(text),
                list(choices),
                scorer=fuzz.partial_ratio,
                processor=None,
                score_cutoff=cutoff,
            )
            expected = [(choices[best[0]], round(best[1]))] if best else []
            assert [(m.field, m.score) for m in fields.find_fuzzy(text, cutoff)] == expected, (text, cutoff)
    assert fields.find_fuzzy("营业总收人")[0].field == "营业总收入"
