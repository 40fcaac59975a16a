"""Multiple-choice questions on statutes, one general method: find the governing articles of each statement,
judge the statement against them with general operations of reading law, choose by the question's polarity.

0. Layout (qa/statutes/layouts.py): the statements judged are the options themselves (numbered 1-5, a-d), or
   the statements ア～オ the question prints, whose combination (ア・イ) or count (いくつあるか) the
   options name, or the sentences of a passage the question prints with blanks (空欄ア～オ), each filled
   with an option's words.
1. Governing articles (`ArticleFinder`): articles the question or statements cite
   (第5条第6項, 同条, 前条; a bare reference belongs to the law named before it; 項 and 号 numbers
   the corpus lost resolve to the article) are fetched directly; keyword and title search with the
   question and with each statement adds the best articles of the laws named (all laws when none is);
   a term a statement quotes (「不利益処分」) adds the article defining it (「不利益処分」とは…);
   cross-references in the cited articles are followed (前条, 第N条の規定により, and 政令/内閣府令で定める
   -> the matching order), `follow_depth` steps deep. A question citing one article of one law, with
   statements that cite none, first takes that article alone (the short path); when its best alignment is
   weak, or the question names several laws or cites several articles, the full path runs (`route`).
2. Judging (qa/statutes/compare.py): each statement is aligned with its closest sentence (a paragraph, an item
   read with its lead) and what it changes there is found with general operations, each weighed
   (`CHANGE_WEIGHTS`): polarity (negation: ない, 無効, 以外; opposite words: 前/後, 以上/以下), modality
   (obligation しなければならない / effort するよう努めなければならない / permission することができる, and
   …を妨げない, "does not preclude", which lets the act be done and negates nothing / prohibition してはならない),
   numbers,
   periods and deadlines (years and months on one scale; not the facts of the statement's case; the
   longest agreed period where a proviso lets a longer one stand), actor and object substitution (a person
   or body the article does not name; two terms swapped), another rule-maker (a kind of enactment the article
   does not name: 条例 where the law leaves the matter to a 政令, or to none), exceptions (the statement applies the provision
   to what its bracket takes out: （Xを除く。）; a statement restating the sentence's proviso, ただし…この限りでない
   as …場合を除き, is read for polarity against the whole sentence, without its bracketed asides), limits and
   conditions (のみ, 限り where the law limits nothing, 常に, 直ちに), quoted words the article does not say
   (quoting the law cites it), and the weaker word-level changes (term, reworded, moved to another provision).
   A statement's goodness is its similarity minus the weights; negation, modality, actor and rule-maker, read off word-level
   differences, count fully on an edit of the law text and half on a free paraphrase, by the share of the
   statement copied from its sentence (`Alignment.copied`). With a model loaded, the model also judges each
   statement against its sentence by the log-probabilities of two fixed labels (正 / 誤, rules/prompts.yaml), never free text; its capped
   log-odds, times `model_weight`, are added to the goodness. That judgement is off by default
   (`model_weight` 0): measured with Qwen2.5-0.5B (transformers, then llama.cpp), every weight that won a
   gyosei question lost one to four lawqa questions, at a median 17-18 CPU s a question under load; the model
   then only breaks the ties the rules leave.
3. Choosing by the question's polarity (rules/laws.yaml `forms`): positive (正しい, 妥当な) picks the
   statement that changes least, negative (誤っている, 妥当でない, 該当しない) the one that changes most; a
   combination the option whose worst statement is best (a combination is right only when all its statements
   are; for a negative question the option whose least wrong statement is worst); a question for the words
   of blanks the option whose filled sentences are on average the best (the same passage for every option: only
   the words differ); a counting question the option naming how many statements show no substantive change (or how many do,
   when it asks for wrong ones). Which-article questions pick the option whose cited article best covers
   the question (an option naming only a law stands for its best article found; an article the corpus
   lacks is left out); a question for a value (期間を定めた条文) prefers the provisions that state one,
   first an order's provision that refers back to another option's, and when none states it an article
   the corpus lacks. A tie the rules leave goes to the model (task "choice") when one is loaded: each
   tied option is shown next to its closest law sentence, numbered, in every rotation of their order,
   and the log-probabilities of the numbers are summed (a liking for a number or a place cancels out).
   It decides only when its pick is `model_odds` times as likely as the next; it never picks an option
   with a numeric change in a positive question.

`decide` returns the whole `Decision`, with the judging paths that fired: eval.bench lawqa and gyosei
count them (the rule census).

>>> answerer = ChoiceAnswerer(index, LawBook.load(register), AnswerTemplates.load())
>>> answerer.run(question).value
'c'
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace

from core.articles import ARTICLE_KIND, article_key, kanji_articles, provisions
from core.quotes import find_quoted
from core.rulebook import pattern_per_book, per_book
from core.vocabulary import vocabulary
from qa.answers import AnswerTemplates
from qa.records import Answer, Evidence, Question
from qa.statutes.compare import CONTENT_WORD, Alignment, Sentence, align, comparable, squeeze
from qa.statutes.law_refs import LawBook, Reference
from qa.statutes.layouts import Layout, read_layout
from search.backend import SearchQuery, TextIndex

# How much each kind of change counts against an option (similarity is 0..1).
CHANGE_WEIGHTS = {
    "number": 1.0,
    "excluded": 1.0,
    "negation": 0.35,
    "modality": 0.35,
    "swap": 0.35,
    "opposite": 0.35,
    "quoted": 0.35,
    "actor": 0.35,
    "instrument": 0.35,
    "condition": 0.25,
    "term": 0.12,
    "moved": 0.1,
    "reworded": 0.06,
}
# Detectors that read word-level differences from the aligned sentence: their signal means less on a paraphrase
# (`ChoiceAnswerer._weighed`).
EDIT_DETECTORS = frozenset({"negation", "modality", "actor", "instrument"})
_STATUTES = per_book(lambda: vocabulary("statutes"))  # rules/statutes.yaml
_PROMPTS = per_book(lambda: vocabulary("prompts"))  # rules/prompts.yaml
_DELEGATION = pattern_per_book(lambda: re.compile(_STATUTES["choices"]["delegation"]))
# the judging paths a decision names (rule census): the model breaking a tie
_DECISION_PATHS = {"model:tie": "model_tie"}
# a change at least this heavy departs from the law (a condition, a negation, a number), not just its wording
SUBSTANTIVE = 0.25
# A which-article question asking for a value ranks the provisions that state one a step above any coverage
# score (at most 1.2), and an order's provision that sets what another option's provision leaves to it two steps.
VALUE_STEP = 2.0


@dataclass(frozen=True)
class ChoiceSettings:
    per_query: int = 4  # articles kept per keyword query
    follow_depth: int = 1  # steps of cross-references followed from cited articles
    per_order: int = 2  # articles kept per delegated order
    weak_alignment: float = 0.72  # below this the short path hands over to the full path
    tie_margin: float = 0.02  # options this close are tied (the model may break the tie)
    evidence: int = 5  # articles listed in `evidence`
    cited_prior: float = 0.05  # similarity added to sentences of the articles the question cites
    definition_search: int = 100  # articles searched for a term's definition
    citation_option: int = 12  # an option with fewer characters besides its citations is matched with them
    model_odds: float = (
        2.0  # the model breaks a tie only when its pick is this many times as likely as the next
    )
    # goodness per nat of the model's log-odds that a statement is right; 0 (the default) leaves statements to the
    # rules: Qwen2.5-0.5B judging every statement cost 3 of 12 lawqa questions at ~41 CPU s per question
    # (transformers, float32); on llama.cpp, weights above 0.02 lost 1-4 of 20 lawqa questions for at most one of
    # 24 gyosei ones, at a median 17-18 CPU s per question under load (docs/benchmarks.md)
    model_weight: float = 0.0
    model_cap: float = (
        5.0  # log-odds beyond this are taken as this (one confident token does not decide alone)
    )
    model_law_chars: int = 300  # characters of the law sentence shown to the model
    # a statement copying at most `paraphrase_copied` of itself from its sentence paraphrases the law: the word-level
    # detectors count `paraphrase_weight` of their weight there; on one copying `edit_copied` or more (an edit of
    # the law text) they count fully
    paraphrase_copied: float = 0.3
    edit_copied: float = 0.6
    paraphrase_weight: float = 0.5

    def __post_init__(self):
        if (
            self.per_query < 1
            or self.follow_depth < 0
            or self.evidence < 1
            or self.model_odds < 1
            or self.model_weight < 0
            or not 0 <= self.paraphrase_copied < self.edit_copied <= 1
            or not 0 <= self.paraphrase_weight <= 1
        ):
            raise ValueError(
                "per_query and evidence must be at least 1, follow_depth and model_weight at least 0, "
                "model_odds at least 1, 0 <= paraphrase_copied < edit_copied <= 1, paraphrase_weight in 0..1"
            )


@dataclass
class Article:
    doc_id: str
    law: str
    label: str  # as the law writes it
    text: str
    score: float = 0.0  # search score (cited articles rank first)
    cited: bool = False

    @property
    def name(self) -> str:
        return f"{self.law} {self.label}"


@dataclass
class Found:
    """The articles gathered for one question, best first, and the path taken."""

    articles: dict[tuple[str, str], Article] = field(default_factory=dict)  # (doc_id, key) -> article
    path: str = "short"

    def add(self, article: Article) -> None:
        key = (article.doc_id, article_key(article.label))
        known = self.articles.get(key)
        if known is None:
            self.articles[key] = article
        else:
            known.score = max(known.score, article.score)
            known.cited = known.cited or article.cited

    def ranked(self) -> list[Article]:
        return sorted(self.articles.values(), key=lambda a: (not a.cited, -a.score))


class ArticleFinder:
    """Cited-article fetch, keyword and title search, and cross-reference following over the text index."""

    def __init__(self, index: TextIndex, laws: LawBook, settings: ChoiceSettings):
        self.index, self.laws, self.settings = index, laws, settings

    def fetch(self, ref: Reference) -> Article | None:
        """The article a reference names, by title search within its law and an exact key match."""
        number = ref.key.split(_STATUTES["branch"])[0]
        title = f"{_STATUTES['ordinal']}{number}{_STATUTES['article']}"
        hits = self.index.search(
            SearchQuery(
                titles=(title, kanji_articles(title)), doc_ids=(ref.doc_id,), kinds=(ARTICLE_KIND,), limit=40
            )
        )
        for hit in hits:
            if article_key(hit.chunk.titles[-1]) == ref.key:
                return self._article(hit.chunk, 0.0, cited=True)
        return None

    def search(self, text: str, doc_ids: tuple[str, ...], limit: int) -> list[Article]:
        hits = self.index.search(SearchQuery(text=text, doc_ids=doc_ids, kinds=(ARTICLE_KIND,), limit=limit))
        return [self._article(h.chunk, h.score) for h in hits]

    def definition(self, term: str, doc_ids: tuple[str, ...]) -> Article | None:
        """The article that defines a term (「再生医療等製品」とは…), among the articles that use it."""
        marker = _STATUTES["choices"]["definition"].format(term=term)
        for article in self.search(term, doc_ids, self.settings.definition_search):
            if marker in article.text:
                return article
        return None

    def _article(self, chunk, score: float, cited: bool = False) -> Article:
        return Article(chunk.doc_id, chunk.titles[0], chunk.titles[-1], chunk.text, score, cited)

    def gather(self, question: str, options: dict[str, str], full: bool) -> Found:
        found = Found(path="full" if full else "short")
        named = self.laws.laws_named(question + "".join(options.values()))
        default = named[0] if named else ""
        refs = self.laws.references(question, default)
        for text in options.values():
            refs += self.laws.references(
                text, self.laws.laws_named(text)[0] if self.laws.laws_named(text) else default
            )
        cited = [a for a in (self.fetch(r) for r in dict.fromkeys(refs)) if a is not None]
        for article in cited:
            found.add(article)
        self._follow(cited, found, question, options, self.settings.follow_depth)
        if not full:
            return found
        # a term a statement quotes (「不利益処分」とは…) is read as the law defines it
        for term in dict.fromkeys(
            t
            for text in [question, *options.values()]
            for t in (q.word for q in find_quoted(text, shortest=2, longest=20))
        ):
            article = self.definition(term, tuple(named))
            if article is not None:
                article.score = max(article.score, 1.0)
                found.add(article)
        scope = tuple(
            dict.fromkeys(
                named
                + [
                    o
                    for d in named
                    for w in _STATUTES["choices"]["orders"]
                    for o in self.laws.orders_of(d, w)
                ]
            )
        )
        for text in [question] + [f"{question} {o}" for o in options.values()]:
            for article in self.search(text, scope, self.settings.per_query):
                found.add(article)
        return found

    def _follow(
        self, articles: list[Article], found: Found, question: str, options: dict[str, str], depth: int
    ) -> None:
        """References inside the articles: 第N条 of the same law, and 政令/内閣府令で定める -> the law's orders."""
        if depth <= 0:
            return
        new: list[Article] = []
        for article in articles:
            for ref in self.laws.references(article.text, article.doc_id)[:8]:
                if (ref.doc_id, ref.key) in found.articles:
                    continue
                target = self.fetch(ref)
                if target is not None:
                    target.cited = False
                    target.score = 0.5 * max(article.score, 1.0)
                    found.add(target)
                    new.append(target)
            words = dict.fromkeys(m.group(1) for m in _DELEGATION.finditer(article.text))
            orders = tuple(o for w in words for o in self.laws.orders_of(article.doc_id, w))
            if orders:
                for text in [question] + list(options.values()):
                    for order_article in self.search(text, orders, self.settings.per_order):
                        found.add(order_article)
                        new.append(order_article)
        self._follow(new, found, question, options, depth - 1)


@dataclass(frozen=True)
class AskedValue:
    """What a which-article question for a value (期間を定めた条文) looks for in a provision."""

    stated: re.Pattern  # the value stated (六月, after `comparable`: 6月)
    delegated: re.Pattern  # the value left to an order (政令で定める期間)


@dataclass(frozen=True)
class Judged:
    letter: str
    text: str
    alignment: Alignment
    goodness: float  # similarity minus weighted changes (which-article: coverage of the question)
    article: Article | None = None
    by: str = ""  # the judging path, when not the alignment's changes (census: value, model)

    def describe(self, words: dict[str, str]) -> str:
        """This option's line in the answer, worded by rules/answers.yaml `choice_words`."""
        where = self.alignment.sentence.label if self.alignment.sentence else words["no_article"]
        if self.alignment.sentence is None and self.article is not None:
            where = self.article.name
        change = words["list"].join(
            words["change"].format(
                kind=c.kind, option=c.option, law=words["law_says"].format(law=c.law) if c.law else ""
            )
            for c in self.alignment.changes
        )
        return words["describe"].format(
            letter=self.letter,
            where=where,
            similarity=self.alignment.similarity,
            changes=change or words["no_changes"],
        )


@dataclass(frozen=True)
class Decision:
    """How a question was answered: its layout and form, the articles, each statement judged, the pick, and the
    judging paths that fired (the rule census of eval.bench counts them)."""

    layout: Layout
    form: str
    found: Found
    judged: list[Judged]
    choice: Judged
    decided_by: str
    paths: frozenset[str]


def _substantive(judged: Judged) -> bool:
    """Whether what the statement changes departs from the law (a condition, a negation, a number)."""
    return any(CHANGE_WEIGHTS[c.kind] >= SUBSTANTIVE for c in judged.alignment.changes)


class ChoiceAnswerer:
    def __init__(
        self,
        index: TextIndex,
        laws: LawBook,
        templates: AnswerTemplates,
        settings: ChoiceSettings = ChoiceSettings(),
        llm=None,
    ):
        self.laws, self.templates, self.settings, self.llm = laws, templates, settings, llm
        self.finder = ArticleFinder(index, laws, settings)

    def run(self, question: Question) -> Answer:
        return self.answer(question, self.decide(question))

    def decide(self, question: Question) -> Decision:
        """Find the articles, judge each statement (each option, or the statements ア～オ the question prints),
        then pick the option by the question's layout and polarity."""
        layout = read_layout(question.text, dict(question.choices))
        form = self.laws.form(layout.stem)
        if layout.kind != "plain" and form == "which_article":
            form = "positive"
        statements = layout.statements
        named = self.laws.laws_named(layout.stem + "".join(statements.values()))
        cited = self.laws.references(layout.stem, named[0] if named else "")
        option_refs = sum(
            bool(self.laws.references(t, named[0] if named else "")) for t in statements.values()
        )
        simple = len(named) <= 1 and len({(r.doc_id, r.key) for r in cited}) == 1 and not option_refs
        found = self.finder.gather(layout.stem, statements, full=not simple)
        judged = self._judge(form, layout.stem, statements, found)
        if simple and max(j.alignment.similarity for j in judged) < self.settings.weak_alignment:
            found = self.finder.gather(layout.stem, statements, full=True)
            judged = self._judge(form, layout.stem, statements, found)
        if layout.kind == "plain":
            choice, decided_by = self._decide(form, layout.stem, judged)
        else:
            choice, decided_by = self._decide_layout(layout, form == "negative", judged)
        paths = {c.kind for j in judged for c in j.alignment.changes} | {j.by for j in judged if j.by}
        paths |= {p for j in judged for p in j.alignment.read}
        paths |= {_DECISION_PATHS[decided_by]} if decided_by in _DECISION_PATHS else set()
        return Decision(layout, form, found, judged, choice, decided_by, frozenset(paths))

    def _decide_layout(self, layout: Layout, negative: bool, judged: list[Judged]) -> tuple[Judged, str]:
        """Combination: the option whose worst statement is the most right (negative: whose least wrong statement is
        the most wrong), since a combination is right only when all its statements are. Blanks: the option whose
        filled sentences are on average the most right: every option fills the same passage, so what the sentences
        say besides the blanks (article labels, asides) weighs alike on all, and only the words told apart count.
        Counting: the option naming how many statements are right (negative: wrong); a statement is right when its
        alignment finds no substantive change in the law."""
        by_mark = {j.letter: j for j in judged}
        if layout.kind == "counting":
            right = sum(not _substantive(j) for j in judged)
            count = len(judged) - right if negative else right
            letter = min(layout.counts, key=lambda o: (abs(layout.counts[o] - count), o))
            return Judged(letter, "", Alignment(None, 0.0, ()), float(count)), "rules:counting"
        options = []
        for letter, marks in layout.options.items():
            each = [by_mark[m].goodness for m in marks]
            goodness = sum(each) / len(each) if layout.kind == "blanks" else (max if negative else min)(each)
            options.append(
                Judged(
                    letter,
                    _STATUTES["layouts"]["joined"].join(marks),
                    Alignment(None, goodness, ()),
                    goodness,
                )
            )
        ranked = sorted(options, key=lambda j: j.goodness, reverse=not negative)
        return ranked[0], f"rules:{layout.kind}"

    # -- judging -----------------------------------------------------------------------------------

    def _judge(self, form: str, question: str, options: dict[str, str], found: Found) -> list[Judged]:
        articles = found.ranked()
        if form == "which_article":
            value = self._asks_value(question)
            provisions = {letter: self._provision(text, articles) for letter, text in options.items()}
            delegating = [
                ref for ref, _, body in provisions.values() if value and value.delegated.search(body)
            ]
            return [
                self._judge_reference(letter, text, question, provisions[letter], value, delegating)
                for letter, text in options.items()
            ]
        two_column = self.laws.rules.two_column
        sentences = [
            s
            for a in articles
            for s in _sentences(a, self.settings.cited_prior if a.cited else 0.0, two_column)
        ]
        out = []
        for letter, text in options.items():
            alignment = align(
                self.laws.without_citations(text, self.settings.citation_option),
                sentences,
                self.laws.rules.change,
            )
            penalty = sum(
                CHANGE_WEIGHTS[c.kind] * self._weighed(c.kind, alignment) for c in alignment.changes
            )
            out.append(Judged(letter, text, alignment, alignment.similarity - penalty))
        return self._model_judged(out)

    def _weighed(self, kind: str, alignment: Alignment) -> float:
        """How much a change counts on this statement: a word-level detector (`EDIT_DETECTORS`) counts fully on an
        edit of the law text and `paraphrase_weight` on a free paraphrase, whose wording differs from the law's
        anyway (…の申立てがない場合であっても, 審理員の許可を得て); in between it rises with the share copied."""
        if kind not in EDIT_DETECTORS:
            return 1.0
        s = self.settings
        edited = (alignment.copied - s.paraphrase_copied) / (s.edit_copied - s.paraphrase_copied)
        return min(1.0, max(s.paraphrase_weight, edited))

    def _model_judged(self, judged: list[Judged]) -> list[Judged]:
        """Each statement judged by the model against its closest law sentence, when a model is loaded: the
        log-odds of the right label over the wrong one (rules/prompts.yaml `statement_labels`; one forward pass,
        no generation), capped at `model_cap` and weighted by `model_weight`, are added to its goodness."""
        if self.llm is None or not self.settings.model_weight or "statement" not in self.llm.fewshot.tasks:
            return judged
        right, wrong = _PROMPTS["statement_labels"]
        out = []
        for j in judged:
            if j.alignment.sentence is None:
                out.append(j)
                continue
            user = _PROMPTS["statement"].format(
                statement=j.text, law=j.alignment.sentence.text[: self.settings.model_law_chars]
            )
            scores = self.llm.label_logprobs("statement", user, [right, wrong])
            odds = max(-self.settings.model_cap, min(self.settings.model_cap, scores[right] - scores[wrong]))
            out.append(replace(j, goodness=j.goodness + self.settings.model_weight * odds, by="model"))
        return out

    def _asked(self, question: str) -> set[str]:
        """The question's own words: without its phrasing (rules/laws.yaml `question_words`) and citations."""
        asked = squeeze(self.laws.without_citations(question))
        for word in self.laws.rules.question_words:
            asked = asked.replace(word, _STATUTES["sentence_end"])
        return set(CONTENT_WORD.findall(asked))

    def _provision(self, text: str, articles: list[Article]) -> tuple[Reference | None, Article | None, str]:
        """The provision a which-article option cites: its reference, its article (None when not found), its text.

        An option that names a law without an article (開示府令) stands for that law's best article found.
        """
        named = self.laws.laws_named(text)
        refs = self.laws.references(text, named[0] if named else "")
        if not refs:
            best = next((a for a in articles if named and a.doc_id == named[0]), None)
            if best is None:
                return None, None, ""
            refs = [Reference(best.doc_id, best.law, article_key(best.label))]
        article = next(
            (a for a in articles if a.doc_id == refs[0].doc_id and article_key(a.label) == refs[0].key), None
        )
        if article is None:
            return refs[0], None, ""
        return (
            refs[0],
            article,
            provision_text(article, refs[0].paragraph, refs[0].item, self.laws.rules.two_column),
        )

    def _asks_value(self, question: str) -> AskedValue | None:
        """The value a which-article question asks for (期間を定めた条文), if it asks one."""
        asks = self.laws.rules.asks_value
        found = asks.search(question) if asks else None
        if (
            found is None
            or found.group(1) not in self.laws.rules.stated_values
            or self.laws.rules.forms["negative"][0].search(question)
        ):
            return None
        word = found.group(1)
        return AskedValue(
            self.laws.rules.stated_values[word], re.compile(f"{_DELEGATION.pattern}.{{0,2}}{re.escape(word)}")
        )

    def _judge_reference(
        self,
        letter: str,
        text: str,
        question: str,
        provision: tuple[Reference | None, Article | None, str],
        value: AskedValue | None,
        delegating: list[Reference],
    ) -> Judged:
        """Which-article options: how much of the question the cited article's text says.

        A question for a value (`value`) ranks the provisions that state it a step up, and an order's provision
        that refers back to a `delegating` option's provision (it sets what that one leaves to it) two steps.
        """
        named = self.laws.laws_named(text)
        ref, article, body = provision
        words = self._asked(question)
        # the articles the question itself cites count as words: the article that refers to them is the one asked,
        # unless the option is a provision inside the cited one (第2条第1項 → 第2条第1項第5号 says it itself)
        cited = self.laws.references(question, named[0] if named else "")
        if article is None or not (words or cited):
            # an article the corpus lacks may set the asked value: above the articles found that state none
            unknown = VALUE_STEP if value and article is None else 0.0
            return Judged(letter, text, Alignment(None, 0.0, ()), unknown, article)
        said = set(CONTENT_WORD.findall(squeeze(body)))
        squeezed = squeeze(body)
        # an order's 法第N条 is its parent law's article: references are compared by number only
        mentioned = self.laws.references(body, article.doc_id)
        told = sum(w in squeezed for w in words) + sum(
            _within(ref, c) or any(_within(m, c, by_number=True) for m in mentioned) for c in cited
        )
        recall = told / (len(words) + len(cited))
        precision = sum(w in squeeze(question) for w in said) / max(len(said), 1)
        score = recall + 0.2 * precision  # what the question asks, then how little else the provision says
        stated = bool(value and value.stated.search(comparable(body)))
        if stated:
            back = any(
                d.doc_id != article.doc_id and _within(d, m, by_number=True)
                for d in delegating
                for m in mentioned
            )
            score += VALUE_STEP * (2 if back else 1)
        sentence = Sentence(article.doc_id, ref.label, body[:160], comparable(article.text))
        return Judged(letter, text, Alignment(sentence, score, ()), score, article, "value" if stated else "")

    def _decide(self, form: str, question: str, judged: list[Judged]) -> tuple[Judged, str]:
        negative = form == "negative" or (
            form == "which_article" and self.laws.rules.forms["negative"][0].search(question)
        )
        if form == "which_article" and not self._asks_value(question):
            # an article the corpus lacks is unknown, not unrelated: choose among the articles found
            judged = [j for j in judged if j.article is not None] or judged
        ranked = sorted(judged, key=lambda j: j.goodness, reverse=not negative)
        best = ranked[0]
        tied = [j for j in ranked if abs(j.goodness - best.goodness) <= self.settings.tie_margin]
        if len(tied) > 1 and self.llm is not None and "choice" in self.llm.fewshot.tasks:
            allowed = [j for j in tied if negative or "number" not in j.alignment.kinds]
            picked = self._ask_model(question, allowed)
            if picked is not None:
                return picked, "model:tie"
        return best, "rules:tie" if len(tied) > 1 else "rules"

    def _ask_model(self, question: str, tied: list[Judged]) -> Judged | None:
        """The tied option the model finds likeliest as its reply, each shown next to its closest law sentence
        (None when it does not clearly prefer one).

        The options are labelled 1, 2, … and shown in every rotation of their order; each option's
        log-probabilities at each place are summed, so a model's liking for a label or a place cancels out.
        """
        if len(tied) < 2:  # nothing left to choose between: the rules decide
            return None
        labels = [str(n + 1) for n in range(len(tied))]
        totals = {j.letter: 0.0 for j in tied}
        for turn in range(len(tied)):
            order = tied[turn:] + tied[:turn]
            user = "\n".join(
                [question]
                + [
                    _PROMPTS["choice_option"].format(
                        label=label,
                        option=j.text,
                        law=j.alignment.sentence.text if j.alignment.sentence else "",
                    )
                    for label, j in zip(labels, order)
                ]
            )
            scores = self.llm.label_logprobs("choice", user, labels)
            for label, j in zip(labels, order):
                totals[j.letter] += scores[label]
        best, runner_up = sorted(totals.values(), reverse=True)[:2]
        # a model that is all but indifferent (0.5B models here: under 0.13 nats apart) only adds noise: it
        # breaks the tie when it finds its pick at least `model_odds` times as likely, on average per order
        if best - runner_up < len(tied) * math.log(self.settings.model_odds):
            return None
        return next(j for j in tied if totals[j.letter] == best)

    # -- the answer --------------------------------------------------------------------------------

    def answer(self, question: Question, decision: Decision) -> Answer:
        """The answer record of a decision: the pick, why, each statement judged, and the articles read."""
        form, found, judged, choice = decision.form, decision.found, decision.judged, decision.choice
        sentence = choice.alignment.sentence
        words = self.templates.choice_words
        citation = (
            sentence.label if sentence else (choice.article.name if choice.article else words["no_article"])
        )
        if form == "which_article":
            reason = words["which_article"].format(goodness=choice.goodness)
        elif form == "negative":
            kinds = words["kinds"].join(choice.alignment.kinds) or words["least_like"]
            reason = words["negative"].format(kinds=kinds)
        else:
            reason = words["positive"].format(similarity=choice.alignment.similarity)
        text = self.templates.render(
            "choice",
            "ja",
            letter=choice.letter,
            reason=reason,
            citation=citation,
            options=words["options"].join(j.describe(words) for j in judged),
        )
        ranked = found.ranked()
        evidence = [
            Evidence(a.doc_id, None, f"{a.name}: {a.text[:200]}") for a in ranked[: self.settings.evidence]
        ]
        listed = {(a.doc_id, a.label) for a in ranked[: self.settings.evidence]}
        for j in judged:  # the aligned sentences, when their article is not already listed
            s = j.alignment.sentence
            if s is not None and (s.doc_id, s.label.split(" ", 1)[-1]) not in listed:
                evidence.append(Evidence(s.doc_id, None, f"{s.label}: {s.text[:200]}"))
                listed.add((s.doc_id, s.label.split(" ", 1)[-1]))
        documents = list(dict.fromkeys(e.doc for e in evidence))
        return Answer(
            id=question.id,
            question=question.text,
            answer=text,
            type="multiple_choice",
            route=f"multiple_choice:{found.path}:{form}:{decision.decided_by}",
            value=choice.letter,
            documents=documents,
            evidence=evidence,
        )


def _sentences(article: Article, prior: float = 0.0, two_column: re.Pattern | None = None) -> list[Sentence]:
    """Each paragraph and item of the article; an item also joined to its paragraph's lead (…次に掲げる…)."""
    whole = comparable(article.text)
    out, leads = [], {}
    for provision in provisions(article.text, two_column):
        out.append(Sentence(article.doc_id, article.name, provision.text, whole, prior))
        if provision.item is None:
            leads[provision.paragraph] = provision.text
        elif provision.paragraph in leads:
            out.append(
                Sentence(
                    article.doc_id, article.name, leads[provision.paragraph] + provision.text, whole, prior
                )
            )
    return out


def _within(ref: Reference, cited: Reference, by_number: bool = False) -> bool:
    """Whether `ref` is the cited provision or a paragraph or item inside it (`by_number`: of any law)."""
    return (
        (by_number or ref.doc_id == cited.doc_id)
        and ref.key == cited.key
        and cited.paragraph in (None, ref.paragraph)
        and cited.item in (None, ref.item)
    )


def provision_text(
    article: Article, paragraph: int | None, item: int | None, two_column: re.Pattern | None = None
) -> str:
    """The text of 第N項第M号 of an article (the paragraph with its items, or the whole article when not found).

    An item is read with its paragraph's lead line: the lead says what the item is a case of
    (…次に掲げる書類を提出することができる + 英語で記載されているもの).
    """
    if paragraph is None and item is None:
        return article.text
    parts = provisions(article.text, two_column)
    wanted = paragraph or 1
    chosen = [p.text for p in parts if p.paragraph == wanted and (item is None or p.item in (None, item))]
    if item is not None and len(chosen) < 2:  # the item was not found: do not answer with the lead alone
        return article.text
    return "\n".join(chosen) or article.text
