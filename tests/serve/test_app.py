"""`finqa serve` over HTTP on both backends: answers as qa.run writes them, documents from the manifest only,
pages with the evidence box drawn, one-line 4xx errors."""

from __future__ import annotations

import io
import json
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
from PIL import Image

REPORT_2022 = "annual/2023-03-28__示例科技股份有限公司__688001__示例科技__2022年__年度报告"
EMAIL = {"id": "q1", "question": "2022年示例科技的电子信箱是什么?"}
RND = {"id": "q2", "question": "2022年示例科技的研发费用是多少元?"}


def request(url: str, body: bytes | None = None) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=body), timeout=120) as response:
            return response.status, response.headers["content-type"], response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers["content-type"], exc.read()


def ask(served, payload) -> tuple[int, object]:
    status, _, body = request(f"{served.url}/ask", json.dumps(payload, ensure_ascii=False).encode())
    return status, json.loads(body)


def page_url(served, doc: str, page: int, highlight: str = "") -> str:
    query = f"?{urllib.parse.urlencode({'highlight': highlight})}" if highlight else ""
    return f"{served.url}/documents/{urllib.parse.quote(doc)}/pages/{page}.png{query}"


def red_pixels(png: bytes) -> list[tuple[int, int]]:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    return [
        (x, y)
        for x in range(0, image.width, 2)
        for y in range(0, image.height, 2)
        if image.getpixel((x, y)) == (220, 30, 30)
    ]


def test_one_question_gets_the_record_qa_run_writes(served):
    status, answer = ask(served, EMAIL)
    assert status == 200
    assert answer["id"] == "q1" and answer["type"] == "lookup" and answer["route"] == "lookup:facts"
    assert answer["value"] == "ir@example-tech.cn"
    assert answer["evidence"][0]["doc"] == REPORT_2022 and answer["evidence"][0]["page"] == 2
    assert set(answer) >= {"answer", "documents", "trace", "unit", "score", "error"}


def test_a_list_gets_a_list_in_input_order(served):
    status, answers = ask(served, [RND, EMAIL, {"id": "q3", "question": "2030年示例科技的营业收入是多少?"}])
    assert status == 200
    assert [a["id"] for a in answers] == ["q2", "q1", "q3"]
    assert answers[0]["value"] == "241986307.90" and answers[1]["value"] == "ir@example-tech.cn"
    assert answers[2]["value"] is None  # no 2030 report: not another year's figure


def test_the_other_question_file_forms_are_accepted(served_embedded):
    ntcir_form = {"q9": {"question": EMAIL["question"], "doc_id": "annual"}}
    status, answers = ask(served_embedded, ntcir_form)
    assert status == 200 and answers[0]["id"] == "q9" and answers[0]["value"] == "ir@example-tech.cn"


def test_concurrent_requests_each_get_their_own_answers(served):
    payloads = [[EMAIL], [RND], [RND, EMAIL]] * 4
    with ThreadPoolExecutor(len(payloads)) as pool:
        results = list(pool.map(lambda p: ask(served, p), payloads))
    for payload, (status, answers) in zip(payloads, results):
        assert status == 200
        assert [a["id"] for a in answers] == [q["id"] for q in payload]
        assert [a["value"] for a in answers] == [
            {"q1": "ir@example-tech.cn", "q2": "241986307.90"}[q["id"]] for q in payload
        ]


def test_documents_are_the_manifest_s(served):
    status, kind, body = request(f"{served.url}/documents")
    listing = json.loads(body)
    assert status == 200 and kind.startswith("application/json")
    assert len(listing) == 5
    by_doc = {d["doc"]: d for d in listing}
    assert by_doc[REPORT_2022]["kind"] == "pdf" and by_doc[REPORT_2022]["pages"] == 5
    assert by_doc["S100SAMP/S100SAMP-0101010"]["kind"] == "html"


def test_the_evidence_page_has_its_cell_boxed(served):
    _, answer = ask(served, RND)
    evidence = answer["evidence"][0]
    status, kind, png = request(page_url(served, evidence["doc"], evidence["page"], evidence["text"]))
    assert status == 200 and kind == "image/png"
    boxed = red_pixels(png)
    assert boxed, "no evidence box drawn"
    # the 2022 column of the income statement's 研发费用 row (page 5), not the 2021 column, which prints
    # the same amount
    xs, ys = [x for x, _ in boxed], [y for _, y in boxed]
    assert 600 < min(xs) and max(xs) < 780 and 400 < min(ys) and max(ys) < 460
    status, _, plain = request(page_url(served, evidence["doc"], evidence["page"]))
    assert status == 200 and not red_pixels(plain)


def test_an_html_report_s_table_has_its_cell_marked(served_embedded):
    _, answer = ask(
        served_embedded, {"id": "j", "question": "サンプル商事の2023年3月期の売上高はいくらですか"}
    )
    cell_id = answer["evidence"][0]["cell_id"]
    assert cell_id
    document = f"{served_embedded.url}/documents/S100SAMP/S100SAMP-0101010"
    url = f"{document}/cells/{urllib.parse.quote(cell_id)}.html"
    status, kind, body = request(url)
    assert status == 200 and kind.startswith("text/html")
    assert '<td class="evidence">512,345</td>' in body.decode()


@pytest.mark.parametrize(
    "payload, status, reason",
    [
        (b'{"id": 1', 400, "invalid JSON at line 1 column 9"),
        (b'[{"id": "a"}]', 400, "no question text"),
        (b"\xff\xfe", 400, "not UTF-8"),
        (b'"just a string"', 400, "expected a list"),
    ],
)
def test_bad_questions_get_a_4xx_with_one_line(served_embedded, payload, status, reason):
    got, kind, body = request(f"{served_embedded.url}/ask", payload)
    error = json.loads(body)["error"]
    assert got == status and kind.startswith("application/json")
    assert reason in error and "\n" not in error and "Traceback" not in error


@pytest.mark.parametrize(
    "path, status, reason",
    [
        (f"/documents/{urllib.parse.quote(REPORT_2022)}/pages/9.png", 404, "pages 1 to 5"),
        ("/documents/annual/nothing/pages/1.png", 404, "no document"),
        ("/documents/%2E%2E/%2E%2E/etc/passwd/pages/1.png", 404, "no document"),
        ("/documents/S100SAMP/S100SAMP-0101010/pages/1.png", 400, "not a PDF"),
        (f"/documents/{urllib.parse.quote(REPORT_2022)}/cells/x.html", 400, "not a HTML"),
        ("/documents/S100SAMP/S100SAMP-0101010/cells/nothing.html", 404, "no table cell"),
        ("/nowhere", 404, "Not Found"),
    ],
)
def test_pages_the_index_does_not_have_are_4xx(served_embedded, path, status, reason):
    got, _, body = request(served_embedded.url + path)
    assert got == status and reason in json.loads(body)["error"]


def test_a_damaged_page_layout_is_a_500_naming_the_file(examples_index, tmp_path):
    import shutil

    from search.settings import IndexSettings

    from .conftest import Served

    copy = IndexSettings(shutil.copytree(examples_index.index_dir, tmp_path / "index"))
    copy.layout_path(REPORT_2022).write_text("{not json", encoding="utf-8")
    served = Served(copy)
    try:
        got, _, body = request(page_url(served, REPORT_2022, 5, "研发费用：241,986,307.90"))
    finally:
        served.stop()
    error = json.loads(body)["error"]
    assert got == 500 and "damaged layout file" in error and "Traceback" not in error
