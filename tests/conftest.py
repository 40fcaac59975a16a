"""Shared test fixtures: the real development data, the Elasticsearch URL, a tiny invented statute."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Tests read the development data beside the project, as the benchmarks do (eval/bench/_data.py);
# they do not import the benchmarks.
SHARED_DATA = Path(
    os.environ.get("FINQA_SHARED_DATA", Path(__file__).resolve().parent.parent.parent / "shared" / "data")
)


@pytest.fixture(scope="session")
def shared_data():
    """../shared/data, or skip with a message when it is absent."""
    if not SHARED_DATA.exists():
        pytest.skip(f"development data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def examples_index(tmp_path_factory):
    """The bundled examples corpus, ingested once for the engine-level tests (embedded backend)."""
    from core.rulefile import data_dir
    from ingestion.pipeline import ingest
    from search.settings import IndexSettings

    settings = IndexSettings(tmp_path_factory.mktemp("examples-index"))
    ingest(data_dir("examples") / "corpus", settings, workers=1, progress=False)
    return settings


@pytest.fixture(scope="session")
def es_url():
    """URL of a real Elasticsearch server (started by docker/elasticsearch.sh); skip when none is set.

    CI sets FINQA_ES_URL through `docker/elasticsearch.sh run ...`, and
    FINQA_REQUIRE_ES=1 turns the skip into a failure so CI never silently skips.
    """
    url = os.environ.get("FINQA_ES_URL")
    if not url:
        if os.environ.get("FINQA_REQUIRE_ES") == "1":
            pytest.fail("FINQA_REQUIRE_ES=1 but FINQA_ES_URL is not set")
        pytest.skip(
            "no Elasticsearch: run the tests through `bash docker/elasticsearch.sh run python -m pytest`"
        )
    return url


# -- a tiny invented statute ---------------------------------------------------------------------------

MARKDOWN = """# 架空取引法
法令番号: 令和九年法律第九十九号
法令ID: 999AC0000000999
種別: acts

## 第一章　総則

## 第一条
この法律は、架空の取引を公正にすることを目的とする。

## 第二章　届出

## 第二条
届出者は、取引の日から三十日以内に、内閣総理大臣に届出書を提出しなければならない。
前項の届出書には、次に掲げる事項を記載しなければならない。
商号又は名称
登録番号

## 第二条の二
内閣総理大臣は、第二条第一項の届出書を受理した日から五年間、これを公衆の縦覧に供しなければならない。

## 第三条
届出者は、政令で定める場合には、届出書の提出を要しない。

## 附則 第一条
この法律は、公布の日から施行する。
"""

ORDER = """# 架空取引法施行令
法令番号: 令和九年政令第九号

## 第一条
架空取引法第三条に規定する政令で定める場合は、取引の額が百万円未満である場合とする。
"""

XML = """<?xml version="1.0" encoding="UTF-8"?>
<Law Era="Reiwa" Year="9" Num="98" LawType="Act" Lang="ja">
  <LawNum>令和九年法律第九十八号</LawNum>
  <LawBody>
    <LawTitle Kana="かくうとうろくほう" Abbrev="架登法">架空登録法</LawTitle>
    <MainProvision>
      <Chapter Num="1">
        <ChapterTitle>第一章　総則</ChapterTitle>
        <Article Num="1">
          <ArticleCaption>（目的）</ArticleCaption>
          <ArticleTitle>第一条</ArticleTitle>
          <Paragraph Num="1">
            <ParagraphNum/>
            <ParagraphSentence><Sentence>この法律は、架空の登録を定める。</Sentence></ParagraphSentence>
          </Paragraph>
        </Article>
      </Chapter>
      <Chapter Num="2">
        <ChapterTitle>第二章　登録</ChapterTitle>
        <Section Num="1">
          <SectionTitle>第一節　申請</SectionTitle>
          <Article Num="2_2">
            <ArticleTitle>第二条の二</ArticleTitle>
            <Paragraph Num="1">
              <ParagraphNum/>
              <ParagraphSentence><Sentence>登録の申請は、次に掲げる者がする。</Sentence></ParagraphSentence>
              <Item Num="1"><ItemTitle>一</ItemTitle><ItemSentence><Sentence>法人</Sentence></ItemSentence></Item>
            </Paragraph>
            <Paragraph Num="2">
              <ParagraphNum>２</ParagraphNum>
              <ParagraphSentence><Sentence>前項の申請は、十四日以内にしなければならない。</Sentence></ParagraphSentence>
            </Paragraph>
          </Article>
        </Section>
      </Chapter>
    </MainProvision>
    <SupplProvision>
      <SupplProvisionLabel>附　則</SupplProvisionLabel>
      <Paragraph Num="1"><ParagraphNum/><ParagraphSentence><Sentence>この法律は、公布の日から施行する。</Sentence></ParagraphSentence></Paragraph>
    </SupplProvision>
  </LawBody>
</Law>
"""


def write_statutes(folder: Path) -> Path:
    """Write the invented statutes into `folder` (no development data is copied)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kakuu.md").write_text(MARKDOWN, encoding="utf-8")
    (folder / "kakuu_order.md").write_text(ORDER, encoding="utf-8")
    (folder / "touroku.xml").write_text(XML, encoding="utf-8")
    return folder


@pytest.fixture
def statute_corpus(tmp_path):
    """A folder with a tiny invented statute in Markdown, its order, and one law in e-Gov XML."""
    return write_statutes(tmp_path / "laws")
