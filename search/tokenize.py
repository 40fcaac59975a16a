"""The one tokenizer used to index and to query Chinese, Japanese and Latin text.

Both search backends store the tokens this module makes (whitespace-joined, search/index_terms.py),
so indexing and querying can never disagree about what a word is.

What it does to a text, in order:
- NFKC (full-width digits and letters, half-width katakana), Latin lower-cased,
  control and zero-width characters removed;
- picks the language of the text: kana or a Japanese-only kanji => Japanese,
  other CJK => Chinese, else Latin;
- keeps numbers and dates as single tokens before any word segmentation:
  "1,234.5" -> "1234.5", "2023年度" -> "2023年", "第一季度" -> "第1季",
  "2023/3/31" -> "2023年 3月 31日"; era years also give the Gregorian year
  ("民國112年" and a bare "112 年" in Chinese -> "112年 2023年", "令和5年" -> "5年 2023年");
- segments Chinese with jieba's dictionary and algorithm as jieba-rs implements
  them (rjieba: the same tokens as the Python jieba on our corpora, see `python -m
  eval.bench segmenter`, in a third of the time, its dictionary loaded in 0.1 s)
  (Traditional folded to Simplified first, via OpenCC t2s) and Japanese with
  SudachiPy mode C; long words also yield their parts (jieba's dictionary
  2/3-grams, Sudachi's mode A split) so a query for "负债" finds "负债合计";
- domain words (rules/fields.yaml names and synonyms, plus words added by the
  caller, e.g. company names) stay whole;
- joins Chinese headings spread one character at a time ("關 係 人" -> "关系人");
- drops punctuation, Japanese particles and auxiliaries, and a small stop list.

>>> tokenizer = Tokenizer(TokenizerSettings(words=("保單借款",)))
>>> tokenizer.tokens("保單借款的可借金額上限")
['保单', '借款', '保单借款', '可', '借', '金额', '上限']
"""

from __future__ import annotations

import functools
import logging
import re
import threading
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from core.dates import eras, western_year
from core.errors import InputError
from core.fields import field_words
from core.folding import convert_all, opencc
from core.language import HAN, JA, LATIN, ZH, language_of
from core.numerals import cjk_number
from core.rulebook import active, pattern_per_book, per_book
from core.vocabulary import vocabulary

_WORDS = per_book(lambda: vocabulary("tokens"))  # rules/tokens.yaml

DEFAULT_STOP_WORDS = per_book(
    lambda: frozenset(word for words in _WORDS["stop_words"].values() for word in words)
)

# Part-of-speech classes (Sudachi's first level) that are never search terms.
JA_DROP_POS = per_book(lambda: frozenset(_WORDS["ja_drop_pos"]))

# Kanji written only in Japanese, so a kana-less Japanese table row is still read as Japanese.

_CJK = re.compile(f"[{HAN}]")
_INVISIBLE = re.compile(
    r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]"
)
_WORD_CHAR = re.compile(r"\w")
# "關 係 人 名 稱": PDF layouts spread headings one character at a time.
_SPACED_CJK = re.compile(
    r"(?:[\u3400-\u4dbf\u4e00-\u9fff] ){2,}[\u3400-\u4dbf\u4e00-\u9fff](?![\u3400-\u4dbf\u4e00-\u9fff])"
)
_HIRAGANA_ONLY = pattern_per_book(lambda: re.compile(rf"[\u3040-\u309f{re.escape(_WORDS['long_vowel'])}]+"))

# Numbers and dates, found before word segmentation so every segmenter sees
# them the same way. Units are normalised: 年度->年, 季度->季, 月份->月.
_ATOMS = pattern_per_book(
    lambda: re.compile(
        r"(?P<ymd>(?<!\d)(?P<y>\d{4})[/\-.](?P<m>\d{1,2})[/\-.](?P<d>\d{1,2})(?!\d))"
        rf"|(?P<ord>{_WORDS['ordinal']})"
        rf"|(?P<date>{_WORDS['date']})"
        r"|(?P<num>\d+(?:,\d{3})*(?:\.\d+)?)"
        r"|(?P<latin>[a-z][a-z0-9]*(?:[_'&][a-z0-9]+)*)"
    )
)
_UNIT_ALIASES: dict[str, str] = per_book(lambda: dict(_WORDS["unit_aliases"]))
_YEAR = per_book(lambda: _WORDS["year"])
_MONTH = per_book(lambda: _WORDS["month"])
_DAY = per_book(lambda: _WORDS["day"])

_SHORT_TEXT = 32  # texts up to this long have their analysis cached (per Tokenizer) ...
_SHORT_CACHE = 50_000  # ... up to this many of them, then the cache starts afresh
_SUDACHI_MAX_CHARS = 8000  # Sudachi refuses inputs over ~49 KB; cut long texts at line ends well below that.


@dataclass(frozen=True)
class TokenizerSettings:
    """How text becomes tokens. Index and queries must use equal settings.

    >>> settings = TokenizerSettings(words=("台灣積體電路製造股份有限公司",), sub_words=True)

    `fields_path` None reads rules/fields.yaml when it exists; a path given
    explicitly must exist. `use_fields_file=False` ignores the file.
    """

    words: tuple[str, ...] = ()  # domain words kept whole (company names ...)
    fields_path: Path | None = None
    use_fields_file: bool = True
    fold_traditional: bool = True  # Traditional -> Simplified before matching
    sub_words: bool = True  # long words also yield their parts
    compound_min_chars: int = 3  # words at least this long yield parts
    max_token_chars: int = 40  # longer tokens (garbage, base64) are dropped
    hmm: bool = True  # jieba's HMM for words missing from its dictionary
    stop_words: frozenset[str] | None = None  # None: rules/tokens.yaml stop_words

    def __post_init__(self):
        if isinstance(self.words, str) or not all(isinstance(w, str) for w in self.words):
            raise InputError("TokenizerSettings.words must be a sequence of strings")
        object.__setattr__(self, "words", tuple(self.words))
        stop_words = DEFAULT_STOP_WORDS.value() if self.stop_words is None else self.stop_words
        object.__setattr__(self, "stop_words", frozenset(stop_words))
        if self.compound_min_chars < 2:
            raise InputError(f"compound_min_chars must be at least 2, got {self.compound_min_chars}")
        if not 4 <= self.max_token_chars <= 255:  # Elasticsearch's whitespace tokenizer splits at 255
            raise InputError(f"max_token_chars must be 4..255, got {self.max_token_chars}")
        if self.fields_path is not None:
            object.__setattr__(self, "fields_path", Path(self.fields_path))
            if self.use_fields_file and not self.fields_path.is_file():
                raise InputError("field list not found", str(self.fields_path))

    @property
    def fields_file(self) -> Path | None:
        """The fields YAML to read, or None."""
        if not self.use_fields_file:
            return None
        if self.fields_path is not None:
            return self.fields_path
        default = active().rules_dir / "fields.yaml"
        return default if default.is_file() else None


class Tokenizer:
    """Turns text into search tokens; see the module docstring for the rules.

    >>> tokenizer = Tokenizer()
    >>> tokenizer.add_words(["台积电"])
    >>> tokenizer.tokens("台積電2023年第1季合併資產負債表")
    ['台积电', '2023年', '第1季', '合并', '资产', '负债', '负债表']

    The first Chinese or Japanese text costs a dictionary load in a process (jieba: 0.1 s,
    Sudachi: about a second); later instances without words of their own share the loaded dictionaries.
    """

    def __init__(self, settings: TokenizerSettings | None = None):
        self.settings = settings or TokenizerSettings()
        # jieba's dictionary loads on the first Chinese text (a data question needs none).
        self._jieba = None
        self._pending: list[str] = []  # user words not yet given to jieba, in the order added
        self._jieba_lock = threading.Lock()
        self._zh_words: set[str] = set()  # user words, folded: also looked for inside longer words
        self._ja_words: set[str] = set()
        self._ja_prefixes: set[str] = set()  # every prefix of a user word: spans not in it end the search
        self._local = threading.local()
        # Short texts (queries' key words, titles) recur from question to question: their analysis is kept.
        self._short: dict[tuple[str, str | None], list[tuple[str, bool]]] = {}
        self._t2s = opencc("t2s") if self.settings.fold_traditional else None
        words = list(self.settings.words)
        fields_file = self.settings.fields_file
        if fields_file is not None:
            words.extend(field_words(fields_file))
        if words:
            self.add_words(words)

    def tokens(self, text: str, language: str | None = None) -> list[str]:
        """All search tokens of `text`, in order (words, their parts, numbers).

        `language` ("zh", "ja", "latin") overrides the detection, e.g. for a
        kana-less row of a Japanese table.
        """
        return [token for token, _ in self._analyze(text, language)]

    def phrase_tokens(self, text: str, language: str | None = None) -> list[str]:
        """The tokens of `text` without the parts of long words: the words a phrase query must find in order.

        In indexed text each long word is preceded by its parts, so a phrase of
        these words matches with a slop of len(tokens) - len(phrase_tokens).
        """
        return [token for token, part in self._analyze(text, language) if not part]

    def add_words(self, words: Iterable[str]) -> None:
        """Keep these words whole from now on (company names, field names).

        Index and queries must have the same words added.
        """
        self._short.clear()  # the new words change how cached texts split
        # Latin words are whole already; one character is no compound
        norms = [
            norm
            for norm in (_normalize(word).strip() for word in words)
            if 2 <= len(norm) <= self.settings.max_token_chars and _CJK.search(norm)
        ]
        for norm, zh in zip(norms, convert_all("t2s", norms) if self._t2s is not None else norms):
            self._pending.append(zh)
            self._zh_words.add(zh)
            self._ja_words.add(norm)
            self._ja_prefixes.update(norm[:i] for i in range(1, len(norm) + 1))

    def _segmenter(self):
        """jieba (rjieba) with the user words: the process's shared dictionary while there are none, then this
        tokenizer's own (a load costs 0.1 s and ~25 MB, less than copying the Python jieba's did)."""
        if self._jieba is None or self._pending:
            with self._jieba_lock:
                jieba = self._jieba
                if self._pending:
                    if jieba is None or jieba is _SHARED.get("rjieba"):
                        jieba = _new_segmenter()
                    for zh in self._pending:
                        # Just frequent enough to beat its own pieces: a higher count lets a short
                        # name steal characters from its neighbours (光寶科|技 in 光寶科技).
                        jieba.add_word(zh, jieba.suggest_freq(zh), None)
                    self._pending = []
                self._jieba = jieba or _shared_segmenter()
        return self._jieba

    def _analyze(self, text: str, language: str | None) -> list[tuple[str, bool]]:
        """(token, is_part) pairs in text order."""
        if not text:
            return []
        if len(text) <= _SHORT_TEXT:
            key = (text, language)
            found = self._short.get(key)
            if found is None:
                if len(self._short) >= _SHORT_CACHE:
                    self._short.clear()
                found = self._short[key] = self._analyze_text(text, language)
            return found
        return self._analyze_text(text, language)

    def _analyze_text(self, text: str, language: str | None) -> list[tuple[str, bool]]:
        norm = _normalize(text)
        lang = language or language_of(norm)
        if lang not in (ZH, JA, LATIN):
            raise InputError(f"unknown language {lang!r}; choose zh, ja or latin")
        if lang == ZH:
            norm = self._fold(_SPACED_CJK.sub(lambda m: m.group().replace(" ", ""), norm))
        out: list[tuple[str, bool]] = []
        segment = {ZH: self._segment_zh, JA: self._segment_ja, LATIN: _segment_other}[lang]
        pos = 0
        for match in _ATOMS.finditer(norm):
            if match.start() > pos:
                out.extend(segment(norm[pos : match.start()]))
            out.extend((atom, False) for atom in _atom_tokens(match, lang))
            pos = match.end()
        if pos < len(norm):
            out.extend(segment(norm[pos:]))
        if lang == JA and self._t2s is not None:
            out = self._fold_tokens(out)
        limit = self.settings.max_token_chars
        stop = self.settings.stop_words
        return [(t, part) for t, part in out if len(t) <= limit and t not in stop and _WORD_CHAR.search(t)]

    def _segment_zh(self, text: str) -> list[tuple[str, bool]]:
        out: list[tuple[str, bool]] = []
        jieba = self._segmenter()
        known = jieba.has_word  # in the dictionary with a count (as jieba's FREQ.get(word) > 0)
        min_chars = self.settings.compound_min_chars if self.settings.sub_words else 10**6
        for word in jieba.cut(text, self.settings.hmm):
            word = word.strip()
            if not word:
                continue
            if len(word) >= min_chars:
                for n in (2, 3):
                    if len(word) > n:
                        out.extend(
                            (word[i : i + n], True)
                            for i in range(len(word) - n + 1)
                            if known(word[i : i + n])
                        )
                # Longer user words inside: a short name (贵州茅台) inside the full name.
                for n in range(4, len(word)):
                    out.extend(
                        (word[i : i + n], True)
                        for i in range(len(word) - n + 1)
                        if word[i : i + n] in self._zh_words
                    )
            out.append((word, False))
        return out

    def _segment_ja(self, text: str) -> list[tuple[str, bool]]:
        sudachi, pos_of = self._sudachi()
        from sudachipy import SplitMode

        min_chars = self.settings.compound_min_chars if self.settings.sub_words else 10**6
        # The rules' values looked up once a text, not once a word.
        hiragana_only, drop_pos = _HIRAGANA_ONLY.value().fullmatch, JA_DROP_POS.value()
        out: list[tuple[str, bool]] = []
        for piece in _pieces(text, _SUDACHI_MAX_CHARS):
            morphemes = sudachi.tokenize(piece)
            surfaces = [m.surface() for m in morphemes]
            merged = self._merge_user_words(surfaces)
            for i, morpheme in enumerate(morphemes):
                surface = surfaces[i].strip()
                # Hiragana-only words are inflections and function words (おける, なり, ください).
                if (
                    surface
                    and not hiragana_only(surface)
                    and pos_of(morpheme.part_of_speech_id()) not in drop_pos
                ):
                    if len(surface) >= min_chars:
                        parts = morpheme.split(SplitMode.A)
                        if len(parts) > 1:
                            out.extend((p.surface(), True) for p in parts)
                    out.append((surface, False))
                out.extend((word, True) for word in merged.get(i, ()))
        return out

    def reading(self, text: str) -> str:
        """The katakana reading of Japanese text as Sudachi reads it ("山本 圭司" -> "ヤマモトケイジ")."""
        sudachi, _ = self._sudachi()
        flat = "".join(text.split())
        return "".join(m.reading_form() for m in sudachi.tokenize(flat)) if flat else ""

    def _merge_user_words(self, surfaces: list[str]) -> dict[int, list[str]]:
        """User words spelled by consecutive morphemes, keyed by the index of their last morpheme."""
        if not self._ja_words:
            return {}
        found: dict[int, list[str]] = {}
        prefixes = self._ja_prefixes
        for start in range(len(surfaces)):
            span = surfaces[start]
            if span not in prefixes:
                continue
            for end in range(start + 1, len(surfaces)):
                span += surfaces[end]
                if span not in prefixes:
                    break
                if span in self._ja_words:
                    found.setdefault(end, []).append(span)
        return found

    def _sudachi(self):
        """This thread's Sudachi tokenizer (they are not thread-safe) and a cached POS lookup."""
        local = self._local
        if not hasattr(local, "sudachi"):
            dictionary, pos_of = _sudachi_dictionary()
            from sudachipy import SplitMode

            local.sudachi = (dictionary.tokenizer(mode=SplitMode.C), pos_of)
        return local.sudachi

    def _fold(self, text: str) -> str:
        return self._t2s.convert(text) if self._t2s is not None else text

    def _fold_tokens(self, tokens: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
        folded = convert_all("t2s", [t for t, _ in tokens])  # one OpenCC call for the whole list
        return [(f, part) for f, (_, part) in zip(folded, tokens)]


def _normalize(text: str) -> str:
    return _INVISIBLE.sub(" ", unicodedata.normalize("NFKC", text)).lower()


def _atom_tokens(match: re.Match, lang: str) -> list[str]:
    if match.group("ymd"):
        return [
            f"{int(match.group('y'))}{_YEAR.value()}",
            f"{int(match.group('m'))}{_MONTH.value()}",
            f"{int(match.group('d'))}{_DAY.value()}",
        ]
    if match.group("ord"):
        unit = _UNIT_ALIASES.get(match.group("ordu"), match.group("ordu"))
        return [f"{_WORDS['ordinal_mark']}{cjk_number(match.group('ordn'))}{unit}"]
    if match.group("date"):
        unit = _UNIT_ALIASES.get(match.group("dateu"), match.group("dateu"))
        number = int(match.group("daten"))
        tokens = [f"{number}{unit}"]
        if unit == _YEAR.value() and number < 1000:
            western = _western_year(
                number, match.string[max(0, match.start() - 3) : match.start()].rstrip(), lang
            )
            if western:
                tokens.append(f"{western}{_YEAR.value()}")
        return tokens
    if match.group("num"):
        return [match.group("num").replace(",", "")]
    return [match.group("latin")]


def _western_year(number: int, before: str, lang: str) -> int | None:
    """The Gregorian year of an era year, so "2023年" finds "民國112年", "112 年 9 月" and "令和5年"."""
    for era, offset in eras().items():  # rules/documents.yaml
        if before.endswith(era):
            return number + offset
    # Taiwanese reports often write ROC years bare ("112 年 1 月 1 日"); 60..150 is 1971..2061.
    if lang == ZH and 60 <= number <= 150:
        return western_year(vocabulary("numbers")["bare_era"], number)
    return None


def _segment_other(text: str) -> list[tuple[str, bool]]:
    return [(w, False) for w in re.findall(r"\w+", text)]


def _pieces(text: str, limit: int) -> Iterable[str]:
    while len(text) > limit:
        cut = max(text.rfind(end, 0, limit) for end in _WORDS["sentence_ends"])
        cut = cut + 1 if cut > 0 else limit
        yield text[:cut]
        text = text[cut:]
    if text:
        yield text


_LOCK = threading.Lock()
_SHARED: dict[str, object] = {}


def _new_segmenter():
    import rjieba

    return rjieba.Jieba()  # jieba's default dictionary, built into jieba-rs


def _shared_segmenter():
    """The segmenter of tokenizers without words of their own, never changed: rjieba's, loaded on import."""
    with _LOCK:
        if "rjieba" not in _SHARED:
            import rjieba

            _SHARED["rjieba"] = rjieba._DEFAULT_JIEBA  # noqa: SLF001 - loaded; another load costs 0.1 s
        return _SHARED["rjieba"]


def base_frequency(word: str) -> int:
    """The count of `word` in jieba's default dictionary (0: not a word): the Python jieba's, loaded once per
    process on the first call (rjieba does not tell its counts)."""
    with _LOCK:
        if "jieba" not in _SHARED:
            import jieba

            jieba.setLogLevel(logging.WARNING)
            loaded = jieba.Tokenizer()
            loaded.initialize()
            _SHARED["jieba"] = loaded
        return _SHARED["jieba"].FREQ.get(word, 0)


def _sudachi_dictionary():
    with _LOCK:
        if "sudachi" not in _SHARED:
            from sudachipy import Dictionary

            dictionary = Dictionary(dict="core")

            @functools.cache
            def pos_of(pos_id: int) -> str:
                return dictionary.pos_of(pos_id)[0]

            _SHARED["sudachi"] = (dictionary, pos_of)
        return _SHARED["sudachi"]


# --- Terms both backends index and query -------------------------------------
# Kept here, next to the tokenizer, so the embedded index and Elasticsearch
# cannot drift apart in what they store or look for.
