"""Person names as an XBRL member writes them (KeijiYamamotoMember) matched to names printed in kanji or kana.

The printed name is read with Sudachi (search.tokenize.Tokenizer.reading) and both
sides are brought to one loose romanisation: Kunrei spellings (shi -> si, tsu -> tu,
ji -> zi), long vowels shortened (ou -> o), so Hepburn names meet kana readings.

>>> person_key("KeijiYamamoto")
('keiziyamamoto', 'yamamotokeizi')
>>> kana_key("ヤマモトケイジ")
'yamamotokeizi'
"""

from __future__ import annotations

import re
from functools import lru_cache

from rapidfuzz import fuzz

from core.rulebook import cached_per_book, per_book
from core.vocabulary import vocabulary

# Katakana syllables in Kunrei romanisation (rules/kana.yaml).
_WORDS = per_book(lambda: vocabulary("kana"))
_KANA = per_book(
    lambda: {
        **{
            kana: consonant + vowel
            for consonant, kanas in _WORDS["rows"].items()
            for kana, vowel in zip(kanas, "aiueo")
            if kana != "-"
        },
        **_WORDS["extra"],
    }
)
_SMALL: dict[str, str] = per_book(lambda: _WORDS["small"])
_HEPBURN = (
    (r"shi", "si"),
    (r"sh", "sy"),
    (r"chi", "ti"),
    (r"ch", "ty"),
    (r"tsu", "tu"),
    (r"fu", "hu"),
    (r"ji", "zi"),
    (r"j", "zy"),
    (r"l", "r"),
    (r"v", "b"),
    (r"m(?=[bp])", "n"),
    (r"(?<=[aiueo])h(?![aiueoy])", ""),
)
_LONG = re.compile(r"(?<=o)[ou]|(?<=u)u|(?<=a)a|(?<=i)i|(?<=e)e")
_CAMEL = re.compile(r"[A-Z][a-z]+")
_VOWELS = re.compile(r"[aiueoyw]")
CONSONANTS_WEIGHT = 0.85  # a likeness of consonants alone counts a little less than of the whole


@cached_per_book(maxsize=65536)  # each officer's reading is weighed against every member asked about
def kana_key(kana: str) -> str:
    """Loose romanisation of a katakana reading."""
    out: list[str] = []
    double = False
    # The rule values read once, not per character (a lookup each cost more than the rest of the loop).
    double_mark, long_mark, smalls, syllables = (
        _WORDS["double"],
        _WORDS["long"],
        _SMALL.value(),
        _KANA.value(),
    )
    for char in kana:
        if char == double_mark:
            double = True
            continue
        if char == long_mark:
            continue  # long vowel: shortened anyway
        if char in smalls and out:
            small = smalls[char]
            out[-1] = (
                out[-1][:-1] + (small if small[0] == "y" and out[-1][-1:] == "i" else small[-1:])
                if len(out[-1]) > 1
                else out[-1] + small
            )
            continue
        syllable = syllables.get(char, "")
        if double and syllable:
            syllable = syllable[0] + syllable
        double = False
        out.append(syllable)
    return _LONG.sub("", "".join(out))


def _latin_key(word: str) -> str:
    text = word.lower()
    for pattern, repl in _HEPBURN:
        text = re.sub(pattern, repl, text)
    return _LONG.sub("", text)


@lru_cache(maxsize=4096)
def person_key(member: str) -> tuple[str, ...]:
    """The member's name parts romanised, in both orders (given-family and family-given); () if it is not a
    name of two to four capitalised words."""
    parts = _CAMEL.findall(member)
    if not 2 <= len(parts) <= 4 or "".join(parts) != member:
        return ()
    keys = [_latin_key(p) for p in parts]
    return ("".join(keys), "".join(reversed(keys)))


@lru_cache(maxsize=4096)
def spelled_key(words: tuple[str, ...]) -> tuple[str, ...]:
    """English words of a member (Document, Solutions) romanised as one key, for a header that spells them in
    katakana (ドキュメントソリューション); () without words.

    >>> spelled_key(("Lifestyle",))
    ('rifestyre',)
    """
    return ("".join(_latin_key(w) for w in words),) if words else ()


@cached_per_book(maxsize=65536)  # a question weighs every officer's name in a table against one member
def name_likeness(keys: tuple[str, ...], reading: str) -> float:
    """How well a printed name's katakana reading fits a member's name keys (0..1)."""
    if not keys or not reading:
        return 0.0
    read = kana_key(reading)
    # Foreign names in katakana add vowels (アンドリュー for Andrew): their consonants still agree.
    bare = _VOWELS.sub("", read)
    return (
        max(
            max(fuzz.ratio(key, read), CONSONANTS_WEIGHT * fuzz.ratio(_VOWELS.sub("", key), bare))
            for key in keys
        )
        / 100
    )
