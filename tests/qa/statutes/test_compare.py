import re

from qa.statutes.compare import Sentence, align, comparable
from qa.statutes.law_refs import LawRules

WORDS = LawRules.load().change
LAW = "内閣総理大臣は、届出書を受理した日から五年間、これを公衆の縦覧に供しなければならない。"


def sentence(text=LAW):
    return Sentence("d", "架空取引法 第二条", text, comparable(text))


def test_numbers_percentages_months_and_old_kana_become_comparable():
    assert comparable("百分の四・五、三十日、六箇月") == "4.5/100、30日、6月"
    assert comparable("であつて") == comparable("であって")
    assert comparable("一定の期間") == "一定の期間"


def test_an_unchanged_option_aligns_closely_with_no_change():
    alignment = align("届出書を受理した日から5年間、公衆の縦覧に供しなければならない", [sentence()], WORDS)
    assert alignment.similarity > 0.85 and alignment.changes == ()


def test_a_changed_period_is_a_number_change():
    alignment = align("届出書を受理した日から一年間、公衆の縦覧に供しなければならない", [sentence()], WORDS)
    assert alignment.kinds == ("number",)
    assert alignment.changes[0].option == "1年" and alignment.changes[0].law == "5年"


def test_a_negation_is_found_but_an_obligation_is_not_one():
    alignment = align("届出書を受理した日から五年間、公衆の縦覧に供することはできない", [sentence()], WORDS)
    assert "negation" in alignment.kinds
    assert "negation" not in align("五年間、公衆の縦覧に供しなければならない", [sentence()], WORDS).kinds


def test_an_added_condition_and_a_swapped_actor_are_found():
    alignment = align(
        "財務大臣は、理由を問わず、届出書を受理した日から五年間、公衆の縦覧に供しなければならない",
        [sentence()],
        WORDS,
    )
    assert {"condition", "actor"} <= set(alignment.kinds)
    assert any(c.kind == "actor" and "財務大臣" in c.option for c in alignment.changes)
    # a word the article does not say that names no person or body stays a term
    assert (
        "term"
        in align(
            "内閣総理大臣は、届出書を電子媒体で受理した日から五年間、公衆の縦覧に供しなければならない",
            [sentence()],
            WORDS,
        ).kinds
    )


def test_a_matter_left_to_another_kind_of_enactment_is_an_instrument_change():
    # 地方自治法 第二百三十四条 (its last paragraph) leaves the procedure to a cabinet order, not to a local ordinance
    law = sentence(
        "競争入札に加わろうとする者に必要な資格、競争入札における公告又は指名の方法、随意契約及びせり売りの手続"
        "その他契約の締結の方法に関し必要な事項は、政令でこれを定める。"
    )
    moved = align(
        "随意契約の手続に関し必要な事項は、当該普通地方公共団体が条例でこれを定める。", [law], WORDS
    )
    assert any(c.kind == "instrument" and c.option == "条例" for c in moved.changes)
    assert "actor" not in moved.kinds  # a kind of enactment is no person or body
    kept = align("随意契約の手続に関し必要な事項は、政令でこれを定める。", [law], WORDS)
    assert "instrument" not in kept.kinds


def test_the_closest_of_several_sentences_is_chosen():
    other = sentence("届出者は、取引の日から三十日以内に届出書を提出しなければならない。")
    alignment = align("取引の日から30日以内に届出書を提出する", [sentence(), other], WORDS)
    assert alignment.sentence is other and not re.search("number", " ".join(alignment.kinds))


PROHIBITION = "何人も、相場が騰貴したときには直ちにその買付けをし、相場が下落したときには直ちにその売付けをしてはならない。"


def test_terms_exchanged_with_each_other_are_a_swap():
    alignment = align(
        "相場が騰貴したときには直ちにその売付けをし、相場が下落したときには直ちにその買付けをすること",
        [sentence(PROHIBITION)],
        WORDS,
    )
    assert alignment.kinds == ("swap",)
    assert alignment.changes[0].option == "売" and alignment.changes[0].law == "買"


def test_the_act_a_prohibition_names_is_not_a_negation():
    alignment = align("相場が騰貴したときには直ちにその買付けをすること", [sentence(PROHIBITION)], WORDS)
    assert alignment.changes == ()
    negated = align("相場が騰貴したときには直ちにその買付けをしないこと", [sentence(PROHIBITION)], WORDS)
    assert negated.kinds == ("negation",)


def test_a_period_in_years_is_compared_with_one_in_months():
    law = "建物の賃貸人が通知をしたときは、建物の転貸借は、その通知がされた日から六月を経過することによって終了する。"
    alignment = align("通知がされた日から1年を経過することによって終了する", [sentence(law)], WORDS)
    assert alignment.kinds == ("number",)
    assert (alignment.changes[0].option, alignment.changes[0].law) == ("1年", "6月")
    same = align("通知がされた日から6か月を経過することによって終了する", [sentence(law)], WORDS)
    assert same.changes == ()


def test_an_opposite_word_in_place_of_the_law_s_is_an_opposite_change():
    law = "先取特権は、地上権の登記より前に登記された質権及び抵当権には後れる。"
    alignment = align("先取特権は、地上権の登記より後に登記された質権には後れる", [sentence(law)], WORDS)
    assert "opposite" in alignment.kinds
    rephrased = align(
        "抵当権のうち地上権の登記より前に登記されたものには、先取特権が後れる", [sentence(law)], WORDS
    )
    assert "opposite" not in rephrased.kinds


def test_words_from_another_provision_of_the_article_are_moved():
    first = "重要な事項について虚偽の表示がある文書を使用して金銭を取得すること。"
    second = "取引を誘引する目的をもつて、虚偽の相場を利用すること。"
    article = comparable(first + "\n" + second)
    sentences = [Sentence("d", "架空取引法 第三条", text, article) for text in (first, second)]
    alignment = align("取引を誘引する目的をもって、金銭を取得すること", sentences, WORDS)
    assert alignment.sentence.text == second and "moved" in alignment.kinds
    assert align("取引を誘引する目的をもって、虚偽の相場を利用すること", sentences, WORDS).changes == ()


def test_a_quoted_label_the_article_does_not_quote_is_a_quoted_change():
    label = sentence("容器には、白地に黒枠、黒字をもつて記載する「生物」の文字を表示しなければならない。")
    assert (
        "quoted"
        in align(
            "容器には、白地に黒枠、黒字をもって「危険」の文字を表示しなければならない", [label], WORDS
        ).kinds
    )
    assert (
        "quoted"
        not in align(
            "容器には、白地に黒枠、黒字をもって「生物」の文字を表示しなければならない", [label], WORDS
        ).kinds
    )


def test_a_statement_quoting_the_law_s_own_words_cites_it():
    law = sentence(
        "「届出」とは、行政庁に対し一定の事項の通知をする行為（申請に該当するものを除く。）をいう。"
    )
    cited = "届出は、「行政庁に対し一定の事項の通知をする行為」であるが、「申請に該当するものを除く」という限定がある。"
    assert "quoted" not in align(cited, [law], WORDS).kinds
    added = "届出は、「行政庁に対し一定の事項の通知をする行為」であるが、「事前になされるものに限る」という限定がある。"
    assert "quoted" in align(added, [law], WORDS).kinds


HEIR = (
    "居住の用に供する建物の賃借人が相続人なしに死亡した場合において、その当時婚姻の届出をしていないが、"
    "建物の賃借人と事実上夫婦と同様の関係にあった同居者は、建物の賃借人の権利義務を承継する。"
)


def test_a_negation_added_where_the_law_says_nothing_counts_when_both_negate_elsewhere():
    added = align(
        "相続人なしに死亡した場合、その当時婚姻の届出をしていないが、事実上夫婦と同様の関係にあった者は、"
        "同居していないときでも、建物の賃借人の権利義務を承継する",
        [sentence(HEIR)],
        WORDS,
    )
    assert "negation" in added.kinds
    same = align(
        "相続人なしに死亡した場合、その当時婚姻の届出をしていないが、事実上夫婦と同様の関係にあった同居者は、"
        "建物の賃借人の権利義務を承継する",
        [sentence(HEIR)],
        WORDS,
    )
    assert "negation" not in same.kinds


def test_a_word_starting_as_the_law_s_is_reworded_one_ending_like_it_is_another_term():
    reworded = align("居住目的で建物を賃借した賃借人が相続人なしに死亡した場合", [sentence(HEIR)], WORDS)
    assert ("reworded", "居住目的") in {(c.kind, c.option) for c in reworded.changes}
    other = align("事務所目的で建物を賃借した賃借人が相続人なしに死亡した場合", [sentence(HEIR)], WORDS)
    assert "term" in other.kinds and "reworded" not in other.kinds


LIABLE = "当該有価証券届出書を提出した会社のその提出の時における役員は、記載が虚偽であることにより生じた損害を賠償する責めに任ずる。"


def test_a_word_sharing_only_a_short_start_with_the_law_s_is_another_term():
    # 損害賠償請求の時 names another moment than the law's 提出の時; 有価証券届出時 says the law's in other words
    other = align("有価証券届出書を提出した会社の損害賠償請求の時における役員", [sentence(LIABLE)], WORDS)
    assert ("term", "損害賠償請求") in {(c.kind, c.option) for c in other.changes}
    same = align("有価証券届出書を提出した会社の有価証券届出時の役員", [sentence(LIABLE)], WORDS)
    assert ("reworded", "有価証券届出時") in {(c.kind, c.option) for c in same.changes}


def test_a_word_pointed_back_to_is_the_word_itself_and_other_than_it_is_a_negation():
    assert align("当該建物の賃借人の権利義務を承継する", [sentence(HEIR)], WORDS).changes == ()
    assert (
        "negation"
        in align("同居者以外の者は、建物の賃借人の権利義務を承継する", [sentence(HEIR)], WORDS).kinds
    )


def test_an_option_applying_a_provision_to_what_its_bracket_takes_out_is_excluded():
    law = "申請者（外国製造業者を除く。）が、第二条第一項の許可を受けていないときは、認証を与えてはならない。"
    applied = align(
        "外国製造業者が申請者である場合に、第二条第一項の許可を受けていないときは、認証を受けられない",
        [sentence(law)],
        WORDS,
    )
    assert "excluded" in applied.kinds
    kept = align(
        "申請者（外国製造業者を除く。）が、第二条第一項の許可を受けていないときは、認証を受けられない",
        [sentence(law)],
        WORDS,
    )
    assert "excluded" not in kept.kinds


def test_an_option_limiting_a_word_agrees_only_where_the_law_limits_that_word():
    law = (
        "会社が、その取締役等を相手方として、株券等（交付の日（以下「交付日」という。）から一年を経過するまで"
        "譲渡が禁止されるものに限る。）の取得勧誘を行う場合"
    )
    limited = align("譲渡が禁止される株券等のみが対象となる", [sentence(law)], WORDS)
    assert "condition" not in limited.kinds
    unlimited = align("会社の取締役等のみが対象となる", [sentence(law)], WORDS)
    assert ("condition", "取締役等のみ") in {(c.kind, c.option) for c in unlimited.changes}


REBUILT = (
    "借地権の存続期間が満了する前に建物の滅失があった場合において、借地権者が残存期間を超えて存続すべき建物を"
    "築造したときは、借地権は、承諾があった日から二十年間存続する。ただし、残存期間がこれより長いとき、"
    "又は当事者がこれより長い期間を定めたときは、その期間による。"
)


def test_a_number_of_the_option_s_case_is_a_fact_not_a_value_the_law_sets():
    alignment = align(
        "残存期間10年の借地権の存続期間が満了する前に建物の滅失があった場合、借地権は承諾があった日から"
        "20年間存続する",
        [sentence(REBUILT)],
        WORDS,
    )
    assert "number" not in alignment.kinds


def test_a_proviso_letting_a_longer_period_stand_sets_the_longest_agreed():
    def numbers(agreed, lasts):
        alignment = align(
            f"借地権者が承諾を得て、承諾があった日から{agreed}年の残存期間を定め、建物を築造したときは、"
            f"借地権は承諾があった日から{lasts}年間存続する",
            [sentence(REBUILT)],
            WORDS,
        )
        return [c.option for c in alignment.changes if c.kind == "number"]

    assert numbers(30, 30) == []
    assert numbers(30, 20) == ["20年"]
    assert numbers(15, 15) == ["15年"]


def test_unless_and_not_all_are_not_conditions_the_option_adds():
    law = "建物の賃借人に不利な特約は、無効とする。"
    assert "condition" in align("建物の賃借人に不利な特約は、すべて無効とする", [sentence(law)], WORDS).kinds
    assert (
        "condition"
        not in align("建物の賃借人に不利な特約がすべて無効になるわけではない", [sentence(law)], WORDS).kinds
    )
    assert (
        "condition"
        not in align(
            "強行規定に反しない限り、建物の賃借人に不利な特約は無効とする", [sentence(law)], WORDS
        ).kinds
    )


def test_may_where_the_law_says_must_or_must_not_is_a_modality_change():
    may = align("届出書を受理した日から五年間、公衆の縦覧に供することができる", [sentence()], WORDS)
    assert "modality" in may.kinds
    assert (may.changes[-1].option, may.changes[-1].law) == ("permission", "obligation")
    must_not = align("届出書を受理した日から五年間、公衆の縦覧に供してはならない", [sentence()], WORDS)
    assert "modality" in must_not.kinds
    # the same modality, and a "may not" already counted as a negation, are no modality change
    assert "modality" not in align("五年間、公衆の縦覧に供しなければならない", [sentence()], WORDS).kinds
    assert "modality" not in align("五年間、公衆の縦覧に供することはできない", [sentence()], WORDS).kinds


def test_an_option_restating_the_proviso_as_an_exception_keeps_the_law_s_polarity():
    law = (
        "設立時発行株式の総数は、発行可能株式総数の四分の一を下ることができない。"
        "ただし、設立しようとする株式会社が公開会社でない場合は、この限りでない。"
    )
    restated = "設立時発行株式の総数は、設立しようとする株式会社が公開会社でない場合を除いて、発行可能株式総数の四分の一を下ることができない。"
    assert "negation" not in align(restated, [sentence(law)], WORDS).kinds
    # the same exception with the main rule's polarity turned is still a negation
    turned = "設立時発行株式の総数は、設立しようとする株式会社が公開会社でない場合を除いて、発行可能株式総数の四分の一を下ることができる。"
    assert (
        "negation" in align(turned, [sentence(law)], WORDS).kinds
        or "modality" in align(turned, [sentence(law)], WORDS).kinds
    )


def test_a_restated_proviso_is_read_past_the_aligned_window_but_not_in_brackets():
    law = (
        "処分又は裁決につき審査請求をすることができる場合又は行政庁が誤つて審査請求をすることができる旨を教示した場合において、"
        "審査請求があつたときは、処分又は裁決に係る取消訴訟は、その審査請求をした者については、前二項の規定にかかわらず、"
        "これに対する裁決があつたことを知つた日から六箇月を経過したとき又は当該裁決の日から一年を経過したときは、"
        "提起することができない。ただし、正当な理由があるときは、この限りでない。"
    )
    option = (
        "処分につき審査請求をすることができる場合において審査請求があったときは、処分に係る取消訴訟は、その審査請求をした者については、"
        "これに対する裁決があったことを知った日から6箇月を経過したときは提起することができないが、正当な理由があるときはこの限りではない。"
    )
    assert "negation" not in align(option, [sentence(law)], WORDS).kinds
    aside = "株券（内閣府令で定めるものを除く。）を取得したこと。ただし、当事者が別段の定めをしたときは、その定めによる。"
    restated = "株券を取得したこと。ただし、当事者が別段の定めをしたときは、その定めによる。"
    assert "negation" not in align(restated, [sentence(aside)], WORDS).kinds


def test_a_duty_to_endeavour_is_not_an_obligation():
    law = "行政庁は、申請者の求めに応じ、当該申請に係る審査の進行状況を示すよう努めなければならない。"
    must = align(
        "行政庁は、申請者の求めに応じ、当該申請に係る審査の進行状況を示さなければならない。",
        [sentence(law)],
        WORDS,
    )
    assert "modality" in must.kinds
    assert (must.changes[-1].option, must.changes[-1].law) == ("obligation", "effort")
    assert (
        "modality"
        not in align("行政庁は、審査の進行状況を示すよう努めなければならない。", [sentence(law)], WORDS).kinds
    )
    # an obligation stated as one is read as one (no effort in it)
    assert "modality" not in align("五年間、公衆の縦覧に供しなければならない", [sentence()], WORDS).kinds


def test_does_not_preclude_is_a_permission_not_a_negation():
    law = "債務の履行がその契約の成立の時に不能であったことは、その履行の不能によって生じた損害の賠償を請求することを妨げない。"
    denied = align(
        "債務の履行がその契約の成立の時に不能であったときは、その履行の不能によって生じた損害の賠償を請求することができない。",
        [sentence(law)],
        WORDS,
    )
    assert "negation" in denied.kinds
    allowed = align(
        "債務の履行がその契約の成立の時に不能であったときも、その履行の不能によって生じた損害の賠償を請求することができる。",
        [sentence(law)],
        WORDS,
    )
    assert "negation" not in allowed.kinds and "modality" not in allowed.kinds
    # the passive (妨げられない) reads the same way
    assert "negation" not in align(law.replace("妨げない", "妨げられない"), [sentence(law)], WORDS).kinds


def test_an_edit_copies_most_of_its_law_sentence_and_a_paraphrase_little():
    edit = align("届出書を受理した日から五年間、公衆の縦覧に供することはできない", [sentence()], WORDS)
    paraphrase = align(
        "大臣は届出書を受け取ったら五年のあいだ誰でも見られるようにする義務を負う", [sentence()], WORDS
    )
    assert edit.copied >= 0.6 and paraphrase.copied <= 0.35
    # the law's bracketed asides are not part of what an option copies
    aside = sentence(
        "内閣総理大臣は、届出書（第五条の書類を含む。）を受理した日から五年間、これを公衆の縦覧に供しなければならない。"
    )
    assert (
        align("届出書を受理した日から五年間、公衆の縦覧に供しなければならない", [aside], WORDS).copied == 1.0
    )
