"""The text route: keyword and title search over small chunks, documents ranked from them, answers from wider context.

Find with small pieces, answer with larger context:
1. the query: the company and year as filters (dropped when the question
   names its `source` documents, which are the filter then), the key words
   as phrase clauses and as heading-title terms (boosted), the question's
   remaining terms (without what the filters already say) as a match
   clause, and for the fields asked (rules/fields.yaml) the title
   of the statement that holds them (资产负债表, 利润表/损益表, 现金流量表), since
   an amount is stated in its statement and only mentioned in the notes;
2. only small pieces ("text" and "table" chunks) are searched: a "section"
   chunk repeats the text chunks of its section, so it would count twice;
3. documents are ranked by an aggregate of their chunks' scores
   (`doc_score`, measured by `python -m eval.bench retrieval`): "decay" adds
   the best chunks with weights 1, 1/2, 1/4, 1/8, so the best chunk decides
   and further matching chunks count less and less; "max" and "top3_sum"
   are the two ends it lies between; then reranked: each document's best
   chunks joined into one larger passage get an exact-phrase bonus for every
   quoted term, clause name (第十三條…) and Latin-letter name (BANDSPEED, LLC)
   of the question found verbatim in it, and the document's identity against the question's companies and
   period multiplies its score (qa/text/document_identity.py);
3b. when the evidence is thin (no hit, the best document's identity differs
   from the question's, or the best document scores less than `thin_margin`
   times the second), up to three reformulations are tried in order, rules
   first: synonyms of the fields asked (rules/fields.yaml), relaxed terms
   (key words as plain terms, no titles), one filter dropped (the company and
   year filters, or the period part of the identity). The first that is not
   thin is kept, else the original; each attempt and its outcome is in the trace;
4. for the answer, the top document's chunks are searched again without the
   company and year (they no longer tell passages apart) and the best are widened to their
   whole section (a "section" chunk) or to their neighbours (#t{n-1},
   #t{n+1}) within `context_chars`;
5. without a model the answer is the best sentences of those passages (or
   the record's label and value) with the document and page; with one, the
   model rewords that extract as one sentence with its citation, which stands
   only when its numbers and names are the extract's and it keeps most of the
   extract's words (qa/text/rewording.py), else the extract does.

>>> answerer = TextAnswerer(index, tokenizer, AnswerTemplates.load())
>>> answerer.retrieve(analysis).documents[:1]
['insurance/241']
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import NamedTuple

from core.errors import InputError
from core.fields import FieldDictionary
from core.language import LATIN, language_of, rule_language
from core.quotes import find_quoted
from core.records import RECORD_KIND, Chunk
from core.rulebook import pattern_per_book, per_book
from core.sentences import SENTENCE_END, SentenceSplitter
from core.statements import shared_statement_rules
from core.vocabulary import vocabulary
from core.years import extract_years
from qa.answers import AnswerTemplates
from qa.records import Analysis, Answer, Evidence
from qa.text.document_identity import IdentityMatcher
from qa.text.rewording import drops_extract
from qa.text.stated_values import stated_value
from qa.topics import TopicBook, folded
from search.backend import Hit, SearchQuery, TextIndex
from search.tokenize import Tokenizer

DOC_SCORES = ("decay", "max", "top3_sum")
_DOC_WEIGHTS = {"decay": (1.0, 0.5, 0.25, 0.125), "max": (1.0,), "top3_sum": (1.0, 1.0, 1.0)}
SMALL_KINDS = ("text", "table", RECORD_KIND)
_CHUNK_NUMBER = re.compile(r"#t(\d+)\Z")
# A clause or article named in a question (第十三條, 第5条, 第二十二條 契約內容的變更): matched verbatim.
_CLAUSE = pattern_per_book(lambda: re.compile(vocabulary("numbers")["clause"]))
_FOLD_SPACES = re.compile(r"\s+")
# A name in Latin letters within a Chinese or Japanese question (BANDSPEED, LLC; ParkerVision): matched verbatim.
_LATIN_NAME = re.compile(r"[A-Za-z][A-Za-z0-9.&'-]*(?:[ ,]+[A-Za-z][A-Za-z0-9.&'-]*)*")
_LATIN_NAME_CHARS = 4
_SENTENCE_MAX_CHARS = 200
_QUESTIONS = per_book(lambda: vocabulary("questions"))  # rules/questions.yaml
_ASKS_WHAT = pattern_per_book(lambda: re.compile(_QUESTIONS["asks_what"]))
RECORD_SEPARATOR = per_book(
    lambda: vocabulary("punctuation")["record_separator"]
)  # label：value in a record chunk
_CHECKBOXES = pattern_per_book(
    lambda: re.compile(_QUESTIONS["checkboxes"])
)  # √适用 □不适用: a form's marks, no answer
_CLAUSE_ENDS = per_book(
    lambda: tuple(vocabulary("punctuation")["clause_ends"])
)  # ；: a clause of a longer sentence ends
_SENTENCE_ENDS = pattern_per_book(lambda: re.compile(f"[{re.escape(SENTENCE_END.value())}]"))


@dataclass(frozen=True)
class TextSettings:
    """How the text route searches, ranks documents and how much it quotes.

    >>> settings = TextSettings(doc_score="max", chunk_hits=50)
    """

    chunk_hits: int = 100  # small chunks retrieved per question
    documents: int = 10  # documents listed in the answer
    doc_score: str = "decay"  # how chunk scores rank documents: one of DOC_SCORES
    answer_sentences: int = 3  # sentences quoted by the extractive answer
    evidence: int = 3  # passages (widened best chunks of the top document) used and listed
    context_chars: int = 1500  # most characters of one widened passage
    title_boost: float = 2.0
    phrase_boost: float = 1.5
    exact_bonus: float = (
        0.3  # score x (1 + bonus) per quoted term or clause name found verbatim in a document's passage
    )
    passage_chunks: int = (
        3  # best chunks of a document joined into the passage the exact-phrase bonus looks in
    )
    thin_margin: float = (
        1.05  # the best document must score this many times the second, else the evidence is thin
    )
    reformulations: int = 3  # most reformulation attempts when the evidence is thin (0: none)
    topic_bonus: float = (
        2.0  # sentence score per key word written whole in the sentence or its section's headings
    )
    # Share of the extract's words the model's sentence must keep (qa/text/rewording.py), set on the text bench's
    # tune half: its wrong model sentences kept 11-51% of them, its right ones 25-100%.
    model_keeps: float = 0.6

    def __post_init__(self):
        if self.doc_score not in DOC_SCORES:
            raise InputError(f"doc_score must be one of {', '.join(DOC_SCORES)}, got {self.doc_score!r}")
        if min(self.chunk_hits, self.documents, self.answer_sentences, self.evidence) < 1:
            raise InputError("chunk_hits, documents, answer_sentences and evidence must be at least 1")
        if not 0 <= self.model_keeps <= 1:
            raise InputError(f"model_keeps must be a share from 0 to 1, got {self.model_keeps}")
        if self.context_chars < 100:
            raise InputError(f"context_chars must be at least 100, got {self.context_chars}")
        if self.title_boost <= 0 or self.phrase_boost <= 0:
            raise InputError("title_boost and phrase_boost must be positive")
        if (
            self.exact_bonus < 0
            or self.passage_chunks < 1
            or self.thin_margin < 1
            or not 0 <= self.reformulations <= 3
        ):
            raise InputError(
                "exact_bonus >= 0, passage_chunks >= 1, thin_margin >= 1 and reformulations 0..3 please"
            )


class TextAnswerer:
    """Answers report_text and open questions, and ranks documents in retrieve mode.

    `llm` is a qa.llm.model.LocalLLM or None (extractive answers, template for open questions).
    """

    def __init__(
        self,
        index: TextIndex,
        tokenizer: Tokenizer,
        templates: AnswerTemplates,
        settings: TextSettings = TextSettings(),
        llm=None,
        identities: IdentityMatcher | None = None,
        fields: FieldDictionary | None = None,
    ):
        if not isinstance(settings, TextSettings):
            raise TypeError(f"TextAnswerer needs TextSettings, got {type(settings).__name__}")
        self.index = index
        self.tokenizer = tokenizer
        self.templates = templates
        self.settings = settings
        self.llm = llm
        self.identities = identities
        fields = list((fields or FieldDictionary.load()).fields.values())
        self.statements = {f.name: f.statement for f in fields}
        self.synonyms = {f.name: f.synonyms for f in fields}
        self.counted = {f.name: f.unit for f in fields if f.kind == "number" and f.unit}
        self.topics = TopicBook.load()

    # ------------------------------------------------------------------ search
    def query(self, analysis: Analysis) -> SearchQuery:
        """The search for an analysed question (small chunks only)."""
        question = analysis.question
        scoped = bool(question.sources)
        keywords = tuple(analysis.keywords)
        companies = () if scoped or analysis.company is None else (analysis.company.name,)
        years = () if scoped or analysis.type != "report_text" else tuple(analysis.years[:1])
        text = topic_text(analysis, company=bool(companies), years=bool(years))
        return SearchQuery(
            text=text,
            phrases=keywords,
            titles=(keywords or (text,)) + self.statement_titles(analysis),
            companies=companies,
            years=years,
            doc_ids=tuple(question.sources),
            kinds=SMALL_KINDS,
            limit=self.settings.chunk_hits,
            title_boost=self.settings.title_boost,
            phrase_boost=self.settings.phrase_boost,
        )

    def statement_titles(self, analysis: Analysis) -> tuple[str, ...]:
        """Titles of the statements that hold the fields asked for."""
        titles = []
        for name in analysis.fields:
            by_language = shared_statement_rules().search_titles.get(self.statements.get(name, ""), {})
            titles += by_language.get(analysis.language, ())
        return tuple(dict.fromkeys(titles))

    def search(self, analysis: Analysis, trace: list[str] | None = None) -> tuple[list[str], list[Hit]]:
        """Documents ranked by their chunks' scores, reranked, and the chunk hits (best first).

        A company or year filter that leaves nothing is dropped: a document
        whose metadata missed its company must still be found by its words.
        Thin evidence starts the reformulation loop; `trace` gets one line per attempt.
        """
        trace = [] if trace is None else trace
        query = self.query(analysis)
        best = self._attempt("query", query, analysis, trace)
        if best.thin and self.settings.reformulations:
            for name, changed, identity_period in self._reformulations(query, analysis)[
                : self.settings.reformulations
            ]:
                attempt = self._attempt(name, changed, analysis, trace, identity_period)
                if not attempt.thin:
                    best = attempt
                    break
            trace.append(f"kept: {best.name}")
        return [d for d, _ in best.ranked][: self.settings.documents], best.hits

    def _attempt(
        self,
        name: str,
        query: SearchQuery,
        analysis: Analysis,
        trace: list[str],
        identity_period: bool = True,
    ) -> _Attempt:
        hits = self.index.search(query)
        dropped = ""
        if not hits and (query.companies or query.years):
            hits = self.index.search(replace(query, companies=(), years=()))
            dropped = " (company/year filter left nothing: dropped)"
        ranked, why = self.rerank(hits, analysis, identity_period)
        thin, reason = self._thin(ranked, why)
        top = ", ".join(f"{d} {score:.2f}" for d, score in ranked[:2]) or "no hits"
        trace.append(
            f"search [{name}]{dropped}: {top}"
            + (f"; {why.get(ranked[0][0])}" if ranked and why.get(ranked[0][0]) else "")
            + (f"; thin: {reason}" if thin else "")
        )
        return _Attempt(name, ranked, hits, thin)

    def rerank(
        self, hits: list[Hit], analysis: Analysis, identity_period: bool = True
    ) -> tuple[list[tuple[str, float]], dict[str, str]]:
        """(document, score) best first: chunk scores aggregated, times the exact-phrase bonus of the document's
        passage (its best chunks joined), times its identity factor; and why each factor was applied."""
        scores = document_scores(hits, self.settings.doc_score)
        exact = self.exact_phrases(analysis)
        why: dict[str, str] = {}
        if exact or self.identities:
            passages: dict[str, list[str]] = defaultdict(list)
            for hit in hits:
                if len(passages[hit.chunk.doc_id]) < self.settings.passage_chunks:
                    passages[hit.chunk.doc_id].append(" ".join(hit.chunk.titles) + hit.chunk.text)
            for doc in scores:
                notes = []
                if exact:
                    passage = folded(" ".join(passages[doc]))
                    found = [p for p in exact if p in passage]
                    if found:
                        scores[doc] *= (1 + self.settings.exact_bonus) ** len(found)
                        notes.append("exact: " + ", ".join(found))
                if self.identities:
                    factor, note = self.identities.factor(doc, analysis, period=identity_period)
                    scores[doc] *= factor
                    if note:
                        notes.append(note)
                if notes:
                    why[doc] = "; ".join(notes)
        order = {doc: i for i, doc in enumerate(scores)}
        return sorted(scores.items(), key=lambda item: (-item[1], order[item[0]])), why

    def exact_phrases(self, analysis: Analysis) -> list[str]:
        """Quoted terms, clause names and Latin-letter names of a CJK question, folded as passages are
        (no spaces, Simplified, lower case)."""
        text = analysis.question.text
        # a key word that begins a quoted word (“营业收入增长率”: 营业收入)
        quoted_words = [q.word for q in find_quoted(text)]
        quoted = [k for k in analysis.keywords if any(w.startswith(k) for w in quoted_words)]
        clauses = [m.group() for m in _CLAUSE.finditer(text)]
        latin = (
            [m.group().strip(" ,") for m in _LATIN_NAME.finditer(text)] if language_of(text) != LATIN else []
        )
        latin = [name for name in latin if len(name) >= _LATIN_NAME_CHARS]
        return list(dict.fromkeys(folded(p) for p in quoted + clauses + latin if len(folded(p)) >= 2))

    def _thin(self, ranked: list[tuple[str, float]], why: dict[str, str]) -> tuple[bool, str]:
        if not ranked:
            return True, "no hits"
        if "differs" in why.get(ranked[0][0], ""):
            return True, "the best document's identity differs from the question's"
        if len(ranked) > 1 and ranked[0][1] < self.settings.thin_margin * ranked[1][1]:
            return True, f"best {ranked[0][1]:.2f} < {self.settings.thin_margin} x second {ranked[1][1]:.2f}"
        return False, ""

    def _reformulations(self, query: SearchQuery, analysis: Analysis) -> list[tuple[str, SearchQuery, bool]]:
        """(name, query, whether the identity's period still counts), in the order they are tried."""
        out = []
        synonyms = [w for name in analysis.fields for w in self.synonyms.get(name, ())]
        if synonyms:
            out.append(
                (
                    "synonyms",
                    replace(
                        query, text=" ".join([query.text, *synonyms]), titles=query.titles + tuple(synonyms)
                    ),
                    True,
                )
            )
        if query.phrases or query.titles:
            out.append(
                (
                    "relaxed terms",
                    replace(query, text=" ".join([query.text, *query.phrases]), phrases=(), titles=()),
                    True,
                )
            )
        if query.companies or query.years:
            out.append(("company/year filter dropped", replace(query, companies=(), years=()), True))
        elif analysis.years and self.identities:
            out.append(("period dropped", query, False))
        return out

    def retrieve(self, analysis: Analysis) -> Answer:
        trace: list[str] = []
        documents, hits = self.search(analysis, trace)
        answer = self._answer(analysis, "", "retrieve:keyword", documents, hits[: self.settings.evidence])
        answer.trace = list(analysis.trace) + trace
        return answer

    # ------------------------------------------------------------------ answers
    def run(self, analysis: Analysis, named: str = "") -> Answer:
        """The answer from the top document's passages. `named` is the value the facts give for the question's
        field (the auditor's name): a question asking more about it (审计意见是什么?由哪家会计师事务所出具?) is
        answered by the sentences that write that value, which the field's own table rows outscore in the search."""
        documents, hits = self.search(analysis)
        if analysis.type == "open":
            return self._open(analysis, documents, hits)
        if not hits:
            text = self.templates.negative(
                "negative_value",
                analysis,
                company=_company(analysis),
                years=analysis.years[:1],
                field=self._listed(analysis.language, analysis.keywords) or analysis.question.text,
            )
            return self._answer(analysis, text, f"{analysis.type}:no_hits", documents, [])
        extract = self.extract(analysis, documents[0], hits, named)
        text = self._extract(analysis, documents[0], extract.passages[0].chunk.page_start, extract.quoted)
        if self.llm is None:
            return self._answer(analysis, text, extract.route, documents, extract.passages)
        return self._reworded(analysis, documents, extract, text)

    def _open(self, analysis: Analysis, documents: list[str], hits: list[Hit]) -> Answer:
        """An open question: the model explains it, else the template says a model is needed."""
        if self.llm is None:
            text, route = self.templates.render("open_no_model", analysis.language), "open:template"
        else:
            text, route = self.llm.answer_open(analysis.question.text), "open:llm"
        return self._answer(analysis, text, route, documents, hits[: self.settings.evidence])

    def extract(self, analysis: Analysis, doc_id: str, hits: list[Hit], named: str = "") -> Extract:
        """What the document says to the question: the record's label and value that answer, else its best
        sentences, from the passages that write `named` or the topic's word, else from its best passages."""
        naming, named, said = self._naming_passages(analysis, doc_id, named)
        passages = naming or self.widen(
            self.passages(analysis, doc_id)
            or [h for h in hits if h.chunk.doc_id == doc_id][: self.settings.evidence]
        )
        record = None if naming else self.record_answer(analysis, doc_id)
        if record is not None:  # the cell that answers, with its label, is the evidence
            hit, pair = record
            cell = Hit(replace(hit.chunk, text=pair), hit.score)
            passages = [cell, *(p for p in passages if p.chunk.chunk_id != hit.chunk.chunk_id)]
            value = pair.partition(RECORD_SEPARATOR.value())[2]
            return Extract(pair, value, f"{analysis.type}:record", passages[: self.settings.evidence])
        sentences = self.best_sentences(analysis, passages, named if naming else "", said)
        if naming:  # the passages that hold the sentences chosen, best first
            passages = [h for h in naming if any(s in h.chunk.text for s in sentences)] or naming
        quoted = "".join(sentences)
        return Extract(quoted, quoted, f"{analysis.type}:extractive", passages[: self.settings.evidence])

    def _naming_passages(self, analysis: Analysis, doc_id: str, named: str) -> tuple[list[Hit], str, str]:
        """(the passages that write `named`, else the topic's `says` word, in the topic's sections first; the
        word they write; the topic's word the document writes or "")."""
        said = self.says(analysis, doc_id)
        naming = self.naming(doc_id, named or said) if named or said else []
        if said and not named:  # the sentences that write the topic's word, in the topic's sections first
            keyed = [(self.topics.section(analysis.topic, h.chunk.titles), h) for h in naming]
            naming = [
                h for key, h in sorted((k for k in keyed if k[0] is not None), key=lambda k: k[0])
            ] or naming
            named = said
        return naming, named, said

    def _reworded(self, analysis: Analysis, documents: list[str], extract: Extract, text: str) -> Answer:
        """The model's one sentence rewording the extract (quoted to it as its passage, cited at the extract's
        page), when it keeps what the extract says; else the extract stands and the trace says why."""
        first = extract.passages[0]
        written = self.llm.answer_from_passages(
            analysis, [Hit(replace(first.chunk, text=extract.quoted), first.score)]
        )
        why = written.rejected or drops_extract(
            written.text, extract.kept, analysis.question.text, self.tokenizer, self.settings.model_keeps
        )
        if not why:
            return self._answer(analysis, written.text, f"{analysis.type}:llm", documents, extract.passages)
        answer = self._answer(
            analysis, text, f"{extract.route} (model sentence rejected)", documents, extract.passages
        )
        answer.trace = [f"model sentence rejected: {why}" + (f": {written.text}" if written.text else "")]
        return answer

    def _extract(self, analysis: Analysis, doc: str, page: int, quoted: str) -> str:
        """The extractive answer: what the report says, with the document and page."""
        kind = "report_text_extractive" if page else "report_text_extractive_unpaged"
        return self.templates.render(kind, analysis.language, doc=doc, page=page, passages=quoted)

    def stated(self, analysis: Analysis) -> Answer | None:
        """A one-field lookup the facts could not answer, from a sentence of the company's report of that year
        that states the value in the field's unit (qa/text/stated_values.py), and writes the quarter or half year
        asked when one is; None when no sentence does."""
        if len(analysis.fields) != 1 or analysis.fields[0] not in self.counted:
            return None
        field = analysis.fields[0]
        documents, hits = self.search(analysis)
        year = analysis.years[0] if analysis.years else None
        documents = [
            d for d in documents if any(h.chunk.doc_id == d and h.chunk.year in (None, year) for h in hits)
        ]
        if not documents:
            return None
        names = [*analysis.keywords, field, *self.synonyms.get(field, ())]
        for hit in self.passages(analysis, documents[0]):
            found = stated_value(_sentences(hit.chunk.text), names, self.counted[field])
            if found is None:
                continue
            value, sentence = found
            if analysis.period and analysis.period_written not in sentence:
                continue  # a quarter or half year asked: a sentence of the year's figure is another period
            text = self._extract(analysis, documents[0], hit.chunk.page_start, sentence)
            answer = self._answer(analysis, text, f"{analysis.type}:text", documents, [hit])
            answer.value, answer.unit = value, self.counted[field]
            return answer
        return None

    def passages(self, analysis: Analysis, doc_id: str) -> list[Hit]:
        """The best chunks of one document for the question's topic: its words without the company and year.

        A question asking what its topic is (主营业务是什么) puts first the best chunk with a sentence that says it
        (公司主营业务是…): sections that only use the word (主营业务分析, 主营业务收入为…) share more of its terms."""
        topic = topic_text(analysis)
        defining = _defining(analysis)
        query = SearchQuery(
            text=topic,
            phrases=tuple(analysis.keywords),
            titles=tuple(analysis.keywords) or (topic,),
            doc_ids=(doc_id,),
            kinds=SMALL_KINDS,
            limit=self.settings.chunk_hits if defining else self.settings.evidence,
            title_boost=self.settings.title_boost,
            phrase_boost=self.settings.phrase_boost,
        )
        hits = [h for h in self.index.search(query) if h.chunk.doc_id == doc_id]
        if analysis.topic:  # the section under the topic's heading first
            hits = list({h.chunk.chunk_id: h for h in self.under_topic(analysis, doc_id) + hits}.values())
        says = next(
            (
                h
                for h in hits
                if defining and any(defining.search(folded(s)) for s in _sentences(h.chunk.text))
            ),
            None,
        )
        if says is None:
            return hits[: self.settings.evidence]
        return [says, *(h for h in hits if h is not says)][: self.settings.evidence]

    def under_topic(self, analysis: Analysis, doc_id: str) -> list[Hit]:
        """The document's chunks in the section of the question's topic (rules/topics.yaml): the topic's best
        heading first (控股股东情况 before 控股股东及实际控制人情况), the heading most of whose title it is, then
        how well they match the question."""
        topic = self.topics.get(analysis.topic)
        if topic is None:
            return []
        query = SearchQuery(
            text=topic_text(analysis),
            titles=topic.headings,
            doc_ids=(doc_id,),
            kinds=SMALL_KINDS,
            limit=self.settings.chunk_hits,
            title_boost=self.settings.title_boost,
        )
        found = [
            (self.topics.section(topic.name, h.chunk.titles), h)
            for h in self.index.search(query)
            if h.chunk.doc_id == doc_id
        ]
        ranked = [
            h for rank, h in sorted((f for f in found if f[0] is not None), key=lambda f: (f[0], -f[1].score))
        ]
        return _without_running_headers(ranked)

    def record_answer(self, analysis: Analysis, doc_id: str) -> tuple[Hit, str] | None:
        """For a topic answered by a name (rules/topics.yaml `record`), a record of a key-value table
        (parser/records.py) gives the pair: the one whose label writes the topic (控股股东名称; the shortest such
        label), else the name pair (名称, 姓名) of a record in the topic's section."""
        topic = self.topics.get(analysis.topic)
        if topic is None or not topic.record:
            return None
        terms = [folded(t) for t in topic.terms if len(t) >= 2]
        query = SearchQuery(
            text=" ".join(topic.terms),
            titles=topic.headings,
            doc_ids=(doc_id,),
            kinds=(RECORD_KIND,),
            limit=self.settings.chunk_hits,
            title_boost=self.settings.title_boost,
        )
        named, in_section = [], []
        for hit in self.index.search(query):
            if hit.chunk.doc_id != doc_id:
                continue
            pairs = [p for p in record_pairs(hit.chunk.text) if p[1]]
            for label, value in pairs:
                extra = min((len(folded(label)) - len(t) for t in terms if t in folded(label)), default=None)
                if extra is not None:
                    named.append((extra, -hit.score, hit, f"{label}{RECORD_SEPARATOR.value()}{value}"))
            rank = self.topics.section(topic.name, hit.chunk.titles)
            name = next((p for p in pairs if self.topics.is_name_label(p[0])), None)
            if rank is not None and name is not None:
                in_section.append((rank, -hit.score, hit, f"{name[0]}{RECORD_SEPARATOR.value()}{name[1]}"))
        best = min(named, key=lambda c: c[:2], default=None) or min(
            in_section, key=lambda c: c[:2], default=None
        )
        return (best[2], best[3]) if best else None

    def says(self, analysis: Analysis, doc_id: str) -> str:
        """The first of the topic's `says` words (rules/topics.yaml: 标准无保留意见 for 审计意见) the document writes in a
        sentence of no other year than asked, or "": the sentences that write it answer. A report that pays no
        dividend for the year asked writes 每10股 only of past years' plans: its 不派发现金红利 answers."""
        topic = self.topics.get(analysis.topic)
        for word in topic.says if topic else ():
            written = folded(word)
            if any(
                written in folded(sentence) and not _other_years(sentence, analysis.years)
                for hit in self.naming(doc_id, word)
                for sentence in _sentences(hit.chunk.text)
            ):
                return word
        return ""

    def naming(self, doc_id: str, name: str) -> list[Hit]:
        """The chunks of one document that write `name` whole, best first. Its words are searched as terms too: a
        chunk's words may cut it otherwise (每10股派发 is 每 / 10 / 股派 / 发), which no phrase query finds."""
        query = SearchQuery(
            text=name,
            phrases=(name,),
            doc_ids=(doc_id,),
            kinds=SMALL_KINDS,
            limit=self.settings.chunk_hits,
            phrase_boost=self.settings.phrase_boost,
        )
        written = folded(name)
        return [
            h
            for h in self.index.search(query)
            if h.chunk.doc_id == doc_id and written in folded(h.chunk.text)
        ]

    def widen(self, hits: list[Hit]) -> list[Hit]:
        """Each hit grown to its whole section, else to its neighbours, within `context_chars`; overlaps merged."""
        passages: list[Hit] = []
        covered: set[str] = set()
        for hit in hits:
            if hit.chunk.chunk_id in covered:
                continue
            chunk, members = self._section(hit.chunk) or self._neighbours(hit.chunk)
            covered.update(members)
            if not any(p.chunk.chunk_id == chunk.chunk_id for p in passages):
                passages.append(Hit(chunk, hit.score))
        return passages

    def _section(self, chunk: Chunk) -> tuple[Chunk, set[str]] | None:
        """The "section" chunk holding `chunk`, when its section is short enough."""
        if chunk.kind != "text":
            return None
        found = self.index.search(
            SearchQuery(
                titles=(" ".join(chunk.titles),) if chunk.titles else (),
                doc_ids=(chunk.doc_id,),
                kinds=("section",),
                limit=20,
            )
        )
        head = chunk.text[:40]
        for hit in found:
            section = hit.chunk
            if (
                section.titles == chunk.titles
                and head in section.text
                and len(section.text) <= self.settings.context_chars
            ):
                return section, {chunk.chunk_id}
        return None

    def _neighbours(self, chunk: Chunk) -> tuple[Chunk, set[str]]:
        """`chunk` joined with the chunks before and after it in its section while they fit."""
        number = _CHUNK_NUMBER.search(chunk.chunk_id)
        if number is None:
            return chunk, {chunk.chunk_id}
        n = int(number.group(1))
        base = chunk.chunk_id[: number.start()]
        wanted = {f"{base}#t{n - 1}", f"{base}#t{n + 1}"}
        found = self.index.search(
            SearchQuery(
                titles=(" ".join(chunk.titles),) if chunk.titles else (),
                doc_ids=(chunk.doc_id,),
                kinds=("text",),
                limit=200,
            )
        )
        near = {
            h.chunk.chunk_id: h.chunk
            for h in found
            if h.chunk.chunk_id in wanted and h.chunk.titles == chunk.titles
        }
        text, first, last = chunk.text, chunk, chunk
        before, after = near.get(f"{base}#t{n - 1}"), near.get(f"{base}#t{n + 1}")
        if before is not None and len(before.text) + len(text) <= self.settings.context_chars:
            text, first = _merge(before.text, text), before
        if after is not None and len(text) + len(after.text) <= self.settings.context_chars:
            text, last = _merge(text, after.text), after
        members = {c.chunk_id for c in (first, chunk, last)}
        return replace(chunk, text=text, page_start=first.page_start, page_end=last.page_end), members

    def best_sentences(
        self, analysis: Analysis, passages: list[Hit], named: str = "", word: str = ""
    ) -> list[str]:
        """The sentences sharing most question terms (key words count double), kept in reading order; only those
        that write `named` when it is given.

        A key word written whole in a sentence, or in the headings of the sentence's section (报告期内核心竞争力分析
        holds the answer to 核心竞争力是什么), adds `topic_bonus` each: the section about the topic answers it,
        while notes elsewhere share only some of its words. The first sentence that says what the topic is
        (公司主营业务是…), when the question asks that, or that writes `word` (the topic's word that answers it,
        rules/topics.yaml `says`: 标准无保留意见 for 审计意见, also when a name is asked with it), comes first."""
        candidates = self._candidates(analysis, passages, named, word)
        if not candidates:  # nothing shares a term: the start of the best passage
            return _sentences(passages[0].chunk.text)[: self.settings.answer_sentences] if passages else []
        ordered = sorted(candidates, key=lambda c: -c.score)
        # A section about the topic states it first: the lead sentence of each such section comes first; then
        # each passage's best sentence (an answer listing several points, 核心竞争力有哪些, finds them in several
        # sections); then the best of the rest.
        leads = [
            c for c in candidates if c.titled and c.pos == min(d.pos for d in candidates if d.rank == c.rank)
        ]
        firsts = sorted({c.rank: c for c in reversed(ordered)}.values(), key=lambda c: -c.score)
        said = [c for c in candidates if c.says][:1]
        best = list(dict.fromkeys(said + leads + firsts + ordered))[: self.settings.answer_sentences]
        return list(dict.fromkeys(c.sentence for c in sorted(best, key=lambda c: (c.rank, c.pos))))

    def _candidates(self, analysis: Analysis, passages: list[Hit], named: str, word: str) -> list[_Candidate]:
        """Every sentence of the passages that shares a question term or stands under the topic's heading, scored
        (see `best_sentences`); each statement once, only those that write `named` (of no other year) when given."""
        defining = _defining(analysis)
        # Key words in the question's language, as the search reads them: a kanji-only key word of a Japanese
        # question (育児休業) read alone looks Chinese and would be segmented as Chinese.
        language = language_of(analysis.question.text)
        keywords = {t for k in analysis.keywords for t in self.tokenizer.tokens(k, language)}
        phrases = [folded(k) for k in analysis.keywords if len(k) >= 2]
        wanted = set(self.tokenizer.tokens(topic_text(analysis))) | keywords
        bonus = self.settings.topic_bonus
        candidates = []
        seen: set[str] = set()
        for rank, hit in enumerate(passages):
            headings = folded(" ".join(hit.chunk.titles))
            titled = bonus * (
                sum(p in headings for p in phrases)
                + (self.topics.section(analysis.topic, hit.chunk.titles) is not None)
            )
            # Under the topic's heading, a subsection's own heading (1、研发平台优势) names the point its sentences make.
            point = self._point(analysis, hit.chunk.titles, phrases) if titled else ""
            for pos, sentence in enumerate(_passage_sentences(hit.chunk)):
                sentence = sentence.strip()
                if len(sentence) < 4 or (named and folded(named) not in folded(sentence)):
                    continue
                if folded(sentence) in seen:  # the same statement under two headings is quoted once
                    continue
                if named and _other_years(sentence, analysis.years):
                    continue  # a plan or opinion of another year (a table of past dividends) answers no question
                seen.add(folded(sentence))
                tokens = set(self.tokenizer.tokens(sentence))
                overlap = len(wanted & tokens) + len(keywords & tokens)
                whole = bonus * sum(p in folded(sentence) for p in phrases)
                says = bool(defining and defining.search(folded(sentence))) or bool(word and word in sentence)
                sentence = f"{point} {sentence}" if point and pos == 0 else sentence
                if overlap or titled:
                    score = overlap + whole + titled - rank / 10
                    candidates.append(_Candidate(score, rank, pos, sentence, bool(titled), says))
        return candidates

    def _point(self, analysis: Analysis, titles: tuple[str, ...], phrases: list[str]) -> str:
        """The heading right below the deepest one that names the topic or a key word ((一)收入确认的准确性 under
        三、关键审计事项), or "" when the passage stands right under it."""
        in_topic = [
            i for i, title in enumerate(titles) if self.topics.section(analysis.topic, (title,)) is not None
        ]
        named = in_topic or [i for i, title in enumerate(titles) if any(p in folded(title) for p in phrases)]
        return titles[named[-1] + 1] if named and named[-1] + 1 < len(titles) else ""

    def _listed(self, lang: str, names: list[str]) -> str:
        """Names joined as a list in the answer's language (rules/answers.yaml `words`; zh when not known)."""
        return self.templates.words[rule_language(lang)]["list"].join(names)

    def _answer(
        self, analysis: Analysis, text: str, route: str, documents: list[str], hits: list[Hit]
    ) -> Answer:
        return Answer.to(
            analysis,
            text,
            route,
            documents=documents,
            evidence=[
                Evidence(
                    doc=h.chunk.doc_id,
                    page=h.chunk.page_start or None,
                    text=h.chunk.text,
                    cell_id=h.chunk.cell_id,
                )
                for h in hits
            ],
            score=round(hits[0].score, 4) if hits else None,
        )


class _Candidate(NamedTuple):
    """A sentence that may answer, with its score and where it stands."""

    score: float
    rank: int  # of its passage, best first
    pos: int  # of the sentence in its passage
    sentence: str  # with its point's heading before it when it leads a subsection
    titled: bool  # under the topic's heading, or a heading writing a key word
    says: bool  # says what the topic is, or writes the topic's answering word


@dataclass(frozen=True)
class Extract:
    """What the extractive answer quotes, and from where."""

    quoted: str  # the sentences, or the record's label：value
    kept: str  # what a model's rewording must keep: the sentences, or the record's value
    route: str  # report_text:extractive or report_text:record
    passages: list[Hit]  # the evidence, the one the quote starts in first


@dataclass(frozen=True)
class _Attempt:
    """One search of the reformulation loop and what it gave."""

    name: str
    ranked: list[tuple[str, float]]
    hits: list[Hit]
    thin: bool


def document_scores(hits: list[Hit], doc_score: str) -> dict[str, float]:
    """Each document's weighted sum of its best chunks' scores, in the order of their best chunk."""
    weights = _DOC_WEIGHTS[doc_score]
    per_doc: dict[str, list[float]] = defaultdict(list)
    for hit in hits:
        per_doc[hit.chunk.doc_id].append(hit.score)
    return {
        doc: sum(w * s for w, s in zip(weights, sorted(scores, reverse=True)))
        for doc, scores in per_doc.items()
    }


def rank_documents(hits: list[Hit], doc_score: str) -> list[str]:
    """Document ids by the weighted sum of their best chunks' scores (ties: the document whose best chunk came first)."""
    score = document_scores(hits, doc_score)
    order = {doc: i for i, doc in enumerate(score)}
    return sorted(score, key=lambda d: (-score[d], order[d]))


def topic_text(analysis: Analysis, company: bool = True, years: bool = True) -> str:
    """The question without the company's names and the year expressions (each when asked): what it asks about."""
    text = analysis.question.text
    names = [analysis.company.name, analysis.company.short_name] if company and analysis.company else []
    written = list(extract_years(text).written) if years else []
    for part in sorted([n for n in names if n] + written, key=len, reverse=True):
        text = text.replace(part, " ")
    return text


def _defining(analysis: Analysis) -> re.Pattern | None:
    """For a question asking what its key words are, the sentences that say it (rules/questions.yaml `defines`)."""
    topics = [folded(k) for k in analysis.keywords if len(k) >= 2]
    if not topics or not _ASKS_WHAT.search(analysis.question.text):
        return None
    return re.compile(
        _QUESTIONS["defines"].replace("{topic}", "(?:" + "|".join(map(re.escape, topics)) + ")")
    )


def record_pairs(text: str) -> list[tuple[str, str]]:
    """The (label, value) pairs of a record chunk's text (parser/records.py writes one per line)."""
    return [
        (label, value)
        for label, _, value in (line.partition(RECORD_SEPARATOR.value()) for line in text.splitlines())
    ]


def _passage_sentences(chunk: Chunk) -> list[str]:
    """A record's sentences are its label：value lines; a table row's are its cells (；-joined, no clauses); a
    text's are its sentences with the clauses of one enumerating sentence joined (form checkboxes dropped)."""
    if chunk.kind == RECORD_KIND:
        return chunk.text.splitlines()
    lines = _sentences(_CHECKBOXES.sub(" ", chunk.text))
    return lines if chunk.kind == "table" else _whole_sentences(lines)


def _sentences(text: str) -> list[str]:
    splitter = SentenceSplitter(_SENTENCE_MAX_CHARS)
    found = splitter.feed(text, 0) + splitter.flush()
    return [s.text for s in found if s.text]


def _without_running_headers(hits: list[Hit]) -> list[Hit]:
    """The hits but those whose whole text, no sentence, another hit writes on another page: a line a report repeats
    page after page (审计报告（续）… on each page of the auditor's report) is its running header, not the section's
    text (a statement repeated under two headings is a sentence)."""
    pages: dict[str, set[int]] = defaultdict(set)
    for hit in hits:
        pages[_FOLD_SPACES.sub("", hit.chunk.text)].add(hit.chunk.page_start)
    return [
        h
        for h in hits
        if len(pages[_FOLD_SPACES.sub("", h.chunk.text)]) < 2 or _SENTENCE_ENDS.search(h.chunk.text)
    ]


def _other_years(sentence: str, asked: tuple[int, ...]) -> bool:
    """The first year the sentence writes, the one it is about, is not asked (公司2018年度利润分配方案为…，已于2019年7月
    实施完毕 for a question about 2019; 《2019年度利润分配方案》 for one about 2020)."""
    written = extract_years(sentence).years
    return bool(asked and written and written[0] not in asked)


def _whole_sentences(pieces: list[str]) -> list[str]:
    """The splitter's pieces with the clauses of one sentence joined again (一是宏观经济风险；二是疫情影响…。 is one
    answer: a list the report enumerates in one sentence is quoted whole), while they fit `_SENTENCE_MAX_CHARS`.

    >>> _whole_sentences(["一是汇率风险；", "二是政策风险。", "公司将积极应对。"])
    ['一是汇率风险；二是政策风险。', '公司将积极应对。']
    """
    out: list[str] = []
    for piece in pieces:
        if (
            out
            and out[-1].endswith(_CLAUSE_ENDS.value())
            and len(out[-1]) + len(piece) <= _SENTENCE_MAX_CHARS
        ):
            out[-1] += piece
        else:
            out.append(piece)
    return out


def _merge(left: str, right: str) -> str:
    """Join two consecutive chunks, dropping the sentences the second repeats from the first (chunk overlap)."""
    for size in range(min(len(left), len(right)), 0, -1):
        if left.endswith(right[:size]) and size >= 4:
            return left + right[size:]
    return left + right


def _company(analysis: Analysis) -> str:
    return analysis.company.name if analysis.company else ""
