from qa.understand.output_request import asks_share, output_request


def test_chinese_decimal_requests():
    for text in (
        "保留2位小数",
        "保留两位小数",
        "保留至小数点后两位",
        "要求精确到小数点后两位",
        "精确到0.01",
        "结果请保留到小数点后2位",
    ):
        assert output_request(f"资产负债比率是多少？{text}。").digits == 2, text
    assert output_request("保留整数").digits == 0
    assert output_request("营业收入是多少元?").digits is None


def test_japanese_rounding_at_a_digit_keeps_one_digit_fewer():
    assert output_request("小数第二位を四捨五入してください").digits == 1
    assert output_request("小数第三位で四捨五入").digits == 2


def test_japanese_made_keeps_the_named_digit():
    assert output_request("小数第一位まで求めてください").digits == 1


def test_rounding_at_a_named_place():
    request = output_request("十万円の位で四捨五入した値は？")
    assert request.round_at == "十万円" and request.digits is None


def test_percent_ratio_and_unit_requests():
    assert output_request("以百分比表示").percent is True
    assert output_request("以小数形式表示").percent is False
    assert output_request("增长率是多少").percent is None
    assert output_request("以万元为单位").unit == "万元"
    assert output_request("为多少新台幣仟元？").unit == "新台幣仟元"
    assert output_request("百万円単位で答えてください").unit == "百万円"


def test_a_share_of_a_whole_is_read_whatever_the_words_between():
    assert (
        asks_share("研发人员占职工人数的比例是多少")
        and asks_share("三费占比")
        and asks_share("投资收益佔營業收入比重")
    )
    assert not asks_share("流动比率是多少") and not asks_share("研发经费与利润比值")
