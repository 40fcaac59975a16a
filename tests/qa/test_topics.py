"""Topics of text questions (rules/topics.yaml): the longest term, and which section a passage belongs to."""

from qa.topics import TopicBook


def test_the_longest_topic_term_is_found_in_simplified_and_traditional_writing():
    book = TopicBook.load()
    assert [m.topic.name for m in book.find("请介绍控股股东的变更情况")] == ["控股股东变更情况"]
    assert [m.topic.name for m in book.find("該公司的盈餘分配案為何")] == ["利润分配预案"]
    assert [m.written for m in book.find("核心競爭力是什么")] == [
        "核心競爭力"
    ]  # Traditional form added by OpenCC


def test_a_passage_belongs_to_the_topic_of_its_deepest_named_heading():
    book = TopicBook.load()
    controller = ("四、 控股股东及实际控制人情况", "(二) 实际控制人情况", "1 法人")
    assert book.section("控股股东", controller) is None
    assert book.section("实际控制人", controller) == (
        0,
        1 - len("实际控制人情况") / len("(二)实际控制人情况"),
        1,
    )
    # Both are named by the shared heading when nothing deeper names a topic.
    assert book.section("控股股东", ("四、控股股东及实际控制人情况",)) is not None
    assert book.section("实际控制人", ("四、控股股东及实际控制人情况",)) is not None
    assert book.section("主营业务", ("第三节 公司业务概要", "1、食品冷冻设备行业说明")) is None


def test_the_topics_best_heading_ranks_first():
    book = TopicBook.load()
    summary = book.section(
        "利润分配预案", ("重要提示", "五、 经董事会审议的报告期利润分配预案或公积金转增股本预案")
    )
    policy = book.section(
        "利润分配预案", ("一、普通股利润分配或资本公积金转增预案", "(一) 现金分红政策的制定、执行或调整情况")
    )
    assert summary < policy
    opinion = book.section("审计意见", ("一、审计报告", "一、审计意见"))
    basis = book.section("审计意见", ("一、审计报告", "二、形成审计意见的基础"))
    assert opinion < basis  # the same heading word, more of the title


def test_name_labels_are_matched_folded():
    book = TopicBook.load()
    assert book.is_name_label("名稱") and book.is_name_label("姓名") and not book.is_name_label("成立日期")
