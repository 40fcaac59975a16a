"""What an answer option changes in the law: align it with the closest law sentence, then compare.

Wrong options of law exams are small edits of the law text: a number or a
period (三十日 vs 60日), a negation, a swapped term or actor, a condition
added or dropped. Both sides are first made comparable (NFKC, Arabic
numerals before counters and in article references, 百分の四・五 -> 4.5/100,
the statutes' old spelling あつて and today's あって read alike), then the option is aligned with
every candidate sentence (rapidfuzz partial ratio and character-bigram
coverage) and the best one is compared with it and with its whole article.

>>> comparable("百分の四・五に相当する額を三十日以内に")
'4.5/100に相当する額を30日以内に'
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from difflib import SequenceMatcher

from rapidfuzz import fuzz

from core.articles import arabic_articles
from core.numerals import cjk_number
from core.quotes import find_quoted
from core.rulebook import pattern_per_book, per_book
from core.vocabulary import vocabulary

_WORDS = per_book(lambda: vocabulary("statutes")["differences"])  # rules/statutes.yaml
_KANJI = per_book(lambda: _WORDS["kanji"])
_PERCENT = pattern_per_book(lambda: re.compile(_WORDS["percent"].replace("{kanji}", _KANJI.value())))
_KANJI_COUNT = pattern_per_book(
    lambda: re.compile(rf"(?<![{_KANJI.value()}])([{_KANJI.value()}]+)(?=({_WORDS['counters']}))")
)
# 三月 in a statute is three months; 3か月 and 3箇月 say the same.
_MONTHS = pattern_per_book(lambda: re.compile(_WORDS["months"]))
_NUMBER_UNIT = pattern_per_book(lambda: re.compile(_WORDS["number_unit"]))
_MONTHS_IN: dict[str, int] = per_book(lambda: _WORDS["months_in"])  # periods: years and months are one scale
_DROP = pattern_per_book(lambda: re.compile(_WORDS["dropped"]))
_SMALL_KANA = per_book(lambda: str.maketrans(_WORDS["small_kana"], _WORDS["large_kana"]))
# a content word: two or more kanji or katakana (hiragana are endings and particles)
CONTENT_WORD = re.compile(r"[\u4e00-\u9fff\u30a0-\u30ff]{2,}")
_DETERMINERS = pattern_per_book(lambda: re.compile(_WORDS["determiners"]))
_SENTENCE_END = per_book(lambda: vocabulary("statutes")["sentence_end"])
_LONGER = pattern_per_book(lambda: re.compile(_WORDS["longer"]))
_ACTOR = pattern_per_book(lambda: re.compile(_WORDS["actors"]))
_INSTRUMENT = pattern_per_book(lambda: re.compile(_WORDS["instruments"]))
_EXCLUSION_MARK = 3  # characters after a word in which an option takes it out itself (を除く, 以外)
_ADDED_SPAN = 3  # law characters an option's added negation may stand for (された -> されていない); longer is a rewording
_ASIDE = re.compile(r"\([^()]*\)")  # a bracketed aside in `comparable` text (NFKC makes （） ASCII)
MODES = ("obligation", "effort", "permission", "prohibition")  # rules/laws.yaml `change`: how each is written
_MODE_REACH = 12  # characters past the aligned window in which the law's verb ending is read
_COPIED_RUN = (
    3  # characters in a row an option must share with the law to have copied them (not a word or ending)
)


def comparable(text: str) -> str:
    """The text with numbers, article references and kana spelling made uniform (see the module doc)."""
    text = arabic_articles(unicodedata.normalize("NFKC", text))
    text = _PERCENT.sub(lambda m: f"{_decimal(m.group(1))}/100", text)
    text = _MONTHS.sub(_WORDS["month"], text)
    text = _KANJI_COUNT.sub(
        lambda m: str(cjk_number(m.group(1)) if cjk_number(m.group(1)) is not None else m.group(1)), text
    )
    return text.translate(_SMALL_KANA)


def _decimal(text: str) -> str:
    if _WORDS["decimal_point"] in text:
        whole, frac = text.split(_WORDS["decimal_point"], 1)
        return f"{cjk_number(whole)}.{''.join(str(cjk_number(c)) for c in frac)}"
    value = cjk_number(text)
    return str(value) if value is not None else text


def squeeze(text: str) -> str:
    """`comparable` without punctuation and spaces, for character-level alignment."""
    return _DROP.sub("", comparable(text))


@dataclass(frozen=True)
class Sentence:
    """A candidate law sentence: where it is and its text (a paragraph or item line, or a lead line + item)."""

    doc_id: str
    label: str  # law title and article label: "金融商品取引法 第五条"
    text: str
    article: str  # the whole article, comparable form (numbers and words are checked against it)
    prior: float = 0.0  # added to the similarity: the question cites this article


@dataclass(frozen=True)
class Change:
    # number, negation, modality, swap, opposite, condition, quoted, excluded, actor, instrument, term, reworded, moved
    kind: str
    option: str  # what the option says
    law: str  # what the law says ("" when it says nothing of it)


@dataclass(frozen=True)
class Alignment:
    sentence: Sentence | None
    similarity: float  # 0..1
    changes: tuple[Change, ...]
    # operations that read the option against its sentence whatever they found (the rule census counts them):
    # "proviso", when the option restates the sentence's exception
    read: tuple[str, ...] = ()
    copied: float = (
        0.0  # how much of the option is copied from its sentence (`copied`): an edit or a paraphrase
    )

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.kind for c in self.changes))


def similarity(option: str, sentence: str) -> float:
    """How much of the option the sentence says: partial ratio blended with character-bigram coverage."""
    if not option or not sentence:
        return 0.0
    grams = {option[i : i + 2] for i in range(len(option) - 1)}
    coverage = sum(g in sentence for g in grams) / max(len(grams), 1)
    return 0.5 * fuzz.partial_ratio(option, sentence) / 100 + 0.5 * coverage


def align(
    option: str, sentences: list[Sentence], change_words: dict[str, tuple[re.Pattern, ...]]
) -> Alignment:
    """The sentence closest to the option, and what the option changes in it."""
    target = squeeze(option)
    best, best_score = None, 0.0
    for sentence in sentences:
        score = similarity(target, squeeze(sentence.text)) + sentence.prior
        if score > best_score:
            best, best_score = sentence, score
    if best is None:
        return Alignment(None, 0.0, ())
    read = ("proviso",) if _restates_exception(comparable(option), best.text, change_words) else ()
    return Alignment(
        best,
        best_score - best.prior,
        tuple(changes(option, best, change_words)),
        read,
        copied(option, best.text),
    )


def copied(option: str, sentence: str) -> float:
    """The share of the option's characters (bracketed asides and punctuation left out) that it shares with the
    sentence in runs of at least `_COPIED_RUN`: most of an edit of the law text, little of a paraphrase."""
    said, law = (_DROP.sub("", _without_asides(comparable(text))) for text in (option, sentence))
    if not said or not law:
        return 0.0
    blocks = SequenceMatcher(None, said, law, autojunk=False).get_matching_blocks()
    return sum(b.size for b in blocks if b.size >= _COPIED_RUN) / len(said)


def window(option: str, sentence: str) -> str:
    """The part of the sentence the option lines up with (the whole sentence when it is the shorter)."""
    if len(sentence) <= len(option):
        return sentence
    found = fuzz.partial_ratio_alignment(option, sentence)
    return sentence[found.dest_start : found.dest_end] if found else sentence


def changes(option: str, sentence: Sentence, change_words: dict[str, tuple[re.Pattern, ...]]) -> list[Change]:
    """Numbers, negations, conditions, quoted labels and words of the option that its law sentence and article
    do not bear out."""
    said, squeezed = comparable(option), squeeze(option)
    law_text = window(squeezed, squeeze(sentence.text))
    replaced, added = _edits(squeezed, law_text)
    found = _number_changes(squeezed, sentence)
    if _restates_exception(said, sentence.text, change_words):
        # the option restates the sentence's exception (ただし…この限りでない, …場合を除き), which the aligned window may
        # leave out: polarity is read over the whole sentence (without its bracketed asides, 「…を除く。」 defines a term
        # and negates nothing), and the exception's own negations are the law's
        whole = squeeze(_without_asides(comparable(sentence.text)))
        negation = _negation_changes(_without_asides(said), whole, [], change_words)
    else:
        negation = _negation_changes(said, law_text, replaced + added, change_words)
    found += negation
    if not negation:  # a negation already tells "may" from "may not"
        found += _modality_changes(squeezed, sentence, law_text, change_words)
    found += [Change("swap", said_part, law_part) for said_part, law_part in swaps(replaced)]
    found += _opposite_changes(replaced, change_words)
    found += _condition_changes(said, sentence, change_words)
    found += _quoted_changes(said, sentence.article)
    found += _excluded_changes(squeezed, sentence, law_text, change_words)
    found += _word_changes(said, sentence)
    return found


def _negation_changes(
    said: str, law_text: str, edits: list[tuple[str, str]], change_words: dict[str, tuple[re.Pattern, ...]]
) -> list[Change]:
    """Polarity: the option negates where the law's window does not (or the reverse), or, when both negate
    somewhere (していないが…), a negation the option adds where the law says (almost) nothing."""
    option_neg = _count(change_words["negation"], _unframed(said, change_words))
    law_neg = _count(change_words["negation"], _unframed(law_text, change_words))
    if (option_neg > 0) != (law_neg > 0):
        said_negated = _WORDS["negated"] if option_neg else _WORDS["not_negated"]
        return [Change("negation", said_negated, _WORDS["negated"] if law_neg else _WORDS["not_negated"])]
    local = next(
        (
            (o, w)
            for o, w in edits
            if len(w) <= _ADDED_SPAN
            and _count(change_words["negation"], _unframed(o, change_words))
            and not _count(change_words["negation"], _unframed(w, change_words))
        ),
        None,
    )
    return [Change("negation", local[0], local[1])] if local else []


def _without_asides(text: str) -> str:
    """`comparable` text without its bracketed asides, nested ones included."""
    while (shorter := _ASIDE.sub("", text)) != text:
        text = shorter
    return text


def _restates_exception(said: str, law: str, change_words: dict[str, tuple[re.Pattern, ...]]) -> bool:
    """Whether the option and its law sentence both state an exception (rules/laws.yaml `change.proviso`)."""
    patterns = change_words.get("proviso", ())
    return any(p.search(said) for p in patterns) and any(p.search(law) for p in patterns)


def _modality_changes(
    squeezed: str, sentence: Sentence, law_text: str, change_words: dict[str, tuple[re.Pattern, ...]]
) -> list[Change]:
    """Obligation, effort, permission or prohibition other than the law's; the law's verb may end just past the window
    the option aligns with (提出|しなければならない)."""
    whole = squeeze(sentence.text)
    start = max(whole.find(law_text), 0)
    tail = whole[start : start + len(law_text) + _MODE_REACH]
    said_modes, law_modes = _modes(squeezed, change_words), _modes(tail, change_words)
    if said_modes and law_modes and not said_modes & law_modes:
        return [
            Change(
                "modality", _WORDS["list"].join(sorted(said_modes)), _WORDS["list"].join(sorted(law_modes))
            )
        ]
    return []


def _opposite_changes(
    replaced: list[tuple[str, str]], change_words: dict[str, tuple[re.Pattern, ...]]
) -> list[Change]:
    """Spans where the option says the opposite word of the law's (前/後, 以上/以下)."""
    return [
        Change("opposite", said_part, law_part)
        for said_part, law_part in replaced
        if any(
            _opposed(said_part, law_part, a, b) or _opposed(said_part, law_part, b, a)
            for a, b in change_words.get("opposites", ())
        )
    ]


def _condition_changes(
    said: str, sentence: Sentence, change_words: dict[str, tuple[re.Pattern, ...]]
) -> list[Change]:
    """A condition the article does not set (常に, 直ちに), else a limit (のみ, 限り) where the law limits nothing."""
    found = [
        Change("condition", match.group(0), "")
        for pattern in change_words["condition"]
        if (match := pattern.search(said)) and not pattern.search(sentence.article)
    ]
    if found:
        return found
    law_sentence = comparable(sentence.text)
    unlimited = [
        m.group(0)
        for p in change_words.get("limited", ())
        for m in p.finditer(said)
        if not _limited(m.group(1), law_sentence, change_words.get("limits", ()))
    ]
    return [Change("condition", unlimited[0], "")] if unlimited else []


def _quoted_changes(said: str, article: str) -> list[Change]:
    """Quoted words the article does not say, with or without the marks: a statement that quotes the law's own
    words cites it (「申請に該当するものを除く」という限定, which the law writes in brackets), a label the law does
    not write (「特生物」の文字) changes it."""
    squeezed = _DROP.sub("", article)
    unquoted = [
        q.marked
        for q in find_quoted(said, longest=200)
        if q.marked not in article and _DROP.sub("", q.word) not in squeezed
    ]
    return [Change("quoted", _WORDS["list"].join(unquoted), "")] if unquoted else []


def _excluded_changes(
    squeezed: str, sentence: Sentence, law_text: str, change_words: dict[str, tuple[re.Pattern, ...]]
) -> list[Change]:
    """What the aligned provision takes out (申請者（Xを除く。）) named by the option, and not taken out there too
    (Xを除く, X以外 right after it)."""
    found = []
    for pattern in change_words.get("excluded", ()):
        taken_out = [squeeze(m.group(1)) for m in pattern.finditer(sentence.text)]
        applied = [
            w
            for w in taken_out
            if w in law_text
            and w in squeezed
            and not _count(change_words["negation"], squeezed.split(w, 1)[1][:_EXCLUSION_MARK])
        ]
        if applied:
            found.append(Change("excluded", applied[0], ""))
    return found


def _word_changes(said: str, sentence: Sentence) -> list[Change]:
    """The option's content words the article does not bear out (another actor or rule-maker, a new term, a
    rewording) and those it says in another provision (an option that joins two items' halves)."""
    found = []
    squeezed_article = _DROP.sub("", sentence.article)
    words = list(dict.fromkeys(_DETERMINERS.sub("", w) for w in CONTENT_WORD.findall(_DROP.sub("", said))))
    missing = [w for w in words if not _covered(w, squeezed_article)]
    # a word that starts as the article's, for at least half its length, rewords it (居住目的 for 居住の用); one
    # that shares less (損害賠償請求 where the law says 損害を賠償) or only ends like one names another thing of its
    # kind (財務大臣 for 内閣総理大臣), as does one the article says no part of
    reworded = [w for w in missing if w[: max(2, (len(w) + 1) // 2)] in squeezed_article]
    new = [w for w in missing if w not in reworded]
    actors = [w for w in new if _ACTOR.search(w)]  # a person or body the article does not name: another actor
    if actors:
        found.append(Change("actor", _WORDS["list"].join(actors[:4]), ""))
    # a kind of enactment the article does not name (条例 where the law leaves the matter to a 政令, or to nothing):
    # who makes the rule is changed as much as who acts
    instruments = [w for w in new if w not in actors and _INSTRUMENT.search(w)]
    if instruments:
        found.append(Change("instrument", _WORDS["list"].join(instruments[:4]), ""))
    new = [w for w in new if w not in actors and w not in instruments]
    if new:
        found.append(Change("term", _WORDS["list"].join(new[:4]), ""))
    if reworded:
        found.append(Change("reworded", _WORDS["list"].join(reworded[:4]), ""))
    squeezed_sentence = squeeze(sentence.text)
    moved = [w for w in words if _covered(w, squeezed_article) and not _covered(w, squeezed_sentence)]
    if moved:
        found.append(Change("moved", _WORDS["list"].join(moved[:4]), ""))
    return found


def _edits(option: str, law: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Where the option says something else than the law it is aligned with, (option's, law's), and the words it
    adds inside the law's window where the law says nothing, (option's, "")."""
    ops = SequenceMatcher(None, option, law, autojunk=False).get_opcodes()
    replaced = [(option[i1:i2], law[j1:j2]) for tag, i1, i2, j1, j2 in ops if tag == "replace"]
    added = [
        (option[i1:i2], "") for tag, i1, i2, _, _ in ops if tag == "delete" and 0 < i1 and i2 < len(option)
    ]  # not past the ends of the law's window
    return replaced, added


def _number_changes(option: str, sentence: Sentence) -> list[Change]:
    """The option's numbers that the law does not set: each is compared with the article's numbers of its unit,
    except the facts of the option's case (残存期間10年の借地権), stated where the law sentence states no number.

    A sentence that lets a longer period stand (ただし、当事者がこれより長い期間を定めたときは、その期間による)
    sets the longest of its own period and the periods the case agrees.
    """
    law = squeeze(sentence.text)
    law_numbers = _numbers(sentence.article)
    ops = SequenceMatcher(None, option, law, autojunk=False).get_opcodes() if _NUMBER_UNIT.search(law) else []
    stated, facts = [], []
    for match in _NUMBER_UNIT.finditer(option):
        over = [(tag, law[j1:j2]) for tag, i1, i2, j1, j2 in ops if i1 < match.end() and match.start() < i2]
        fact = bool(over) and all(
            tag == "delete" or (tag == "replace" and not re.search(r"\d", text)) for tag, text in over
        )
        (facts if fact else stated).extend(_numbers(match.group(0)))
    law_sentence = comparable(sentence.text)
    longer = _LONGER.search(law_sentence)
    own = _numbers(law_sentence)
    out: dict[str, Change] = {}
    for value, unit, shown in stated:
        allowed = {(v, w) for v, u, w in law_numbers if u == unit}
        if longer and any(
            u == unit for _, u, _ in own
        ):  # only the longest of the law's and the agreed periods
            allowed = {max((v, w) for v, u, w in list(own) + facts if u == unit)}
        if allowed and value not in {v for v, _ in allowed}:
            out.setdefault(
                shown, Change("number", shown, _WORDS["list"].join(sorted({w for _, w in allowed})))
            )
    return list(out.values())


def _opposed(said: str, law: str, word: re.Pattern, other: re.Pattern) -> bool:
    """The option's span is `word` where the law's is `other`, each span little more than the word
    (a long replaced span is a rephrasing, in which an opposite word proves nothing)."""
    mine, theirs = word.search(said), other.search(law)
    return (
        bool(mine and theirs) and len(said) <= len(mine.group(0)) + 2 and len(law) <= len(theirs.group(0)) + 2
    )


def swaps(replaced: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Terms the option exchanges with each other (売付け…買付け where the law says 買付け…売付け).

    Two replaced spans of the alignment that mirror each other (X for Y here, Y for X there)
    are a swap: the option keeps every word of the law but gives them to the wrong places.
    """
    return [(a, b) for n, (a, b) in enumerate(replaced) if (b, a) in replaced[n + 1 :]]


def _unframed(text: str, change_words: dict[str, tuple[re.Pattern, ...]]) -> str:
    """The text without the words that frame an act rather than negate it ("must", "must not" do X)."""
    for pattern in change_words.get("frame", ()):
        text = pattern.sub("", text)
    return text


def _limited(word: str, text: str, limits: tuple[re.Pattern, ...]) -> bool:
    """Whether the law (`comparable` text) limits the word: a limit right after it (取締役等に限る), or a bracket
    after it whose words end in one (株券等（…ものに限る。）, brackets nested inside skipped)."""
    for start in (m.end() for m in re.finditer(re.escape(word), text)):
        rest = text[start:]
        if any(p.match(rest) for p in limits):
            return True
        if rest.startswith("("):
            depth, end = 0, 0
            for end, char in enumerate(rest):  # noqa: B007 - end is read after the loop
                depth += (char == "(") - (char == ")")
                if depth == 0:
                    break
            inside = rest[1:end].rstrip(_SENTENCE_END.value())
            if any(m.end() == len(inside) for p in limits for m in p.finditer(inside)):
                return True
    return False


def _modes(text: str, change_words: dict[str, tuple[re.Pattern, ...]]) -> set[str]:
    """What the text makes of its act: an obligation (しなければならない), a duty to endeavour (するよう努めなければ
    ならない), a permission (することができる), a prohibition (してはならない)."""
    return {mode for mode in MODES if any(p.search(text) for p in change_words.get(mode, ()))}


def _count(patterns: tuple[re.Pattern, ...], text: str) -> int:
    return sum(len(p.findall(text)) for p in patterns)


def _covered(word: str, text: str) -> bool:
    """A word is borne out when it, or both parts of it split somewhere (compounds split differently), are in
    the text."""
    return word in text or any(word[:i] in text and word[i:] in text for i in range(2, len(word) - 1))


def _numbers(text: str) -> set[tuple[float, str, str]]:
    """(value, unit, as written) of each number; periods in years count in months, so 1年 and 6月 compare."""
    out = set()
    for value, unit in _NUMBER_UNIT.findall(text):
        shown = f"{value.rstrip('0').rstrip('.') if '.' in value else value}{unit}"
        scale = _MONTHS_IN.get(unit)
        out.add((float(value) * scale, _WORDS["month"], shown) if scale else (float(value), unit, shown))
    return out
