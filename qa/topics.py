"""The topic of a text question: the longest report-section term it writes (rules/topics.yaml).

A question about 利润分配预案 is not a question about 净利润, and one about 收入确认政策 is not one
about 营业收入: a field name inside a longer topic term gives way to the topic, and the
question goes to the report text, where the passage under the section's heading answers it.

A passage belongs to the topic of the deepest heading above it that names one: under
四、控股股东及实际控制人情况 > (二) 实际控制人情况 it is about the actual controller, not about
the controlling shareholder.

>>> book = TopicBook.load()
>>> [(m.topic.name, m.written) for m in book.find("海翔药业2019年度的利润分配预案是什么?")]
[('利润分配预案', '利润分配预案')]
>>> book.section("利润分配预案", ("第五节 重要事项", "一、普通股利润分配或资本公积金转增预案")) is not None
True
>>> book.section("控股股东", ("四、控股股东及实际控制人情况", "(二) 实际控制人情况")) is None
True
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from core.fields import PhraseMatcher
from core.folding import fold_field, fold_field_with_offsets, opencc
from core.vocabulary import vocabulary


@dataclass(frozen=True)
class Topic:
    name: str
    terms: tuple[str, ...]  # as questions write them
    headings: tuple[
        str, ...
    ]  # folded (Simplified, no spaces or width): words of its section headings, best first
    record: bool = False  # the answer is a name a key-value table states (parser/records.py)
    says: tuple[str, ...] = ()  # the words one of which a sentence answering it writes, most specific first


@dataclass(frozen=True)
class TopicMatch:
    topic: Topic
    written: str  # as the question writes it
    start: int  # span in the question
    end: int


class TopicBook:
    """The topics of rules/topics.yaml, found in questions by leftmost-longest match."""

    def __init__(self, topics: list[Topic], name_labels: tuple[str, ...] = ()):
        self.topics = {t.name: t for t in topics}
        self.name_labels = tuple(folded(label) for label in name_labels)
        phrases: dict[str, list[str]] = {}
        for topic in topics:
            for term in topic.terms:
                for form in {term, opencc("s2t").convert(term)}:
                    phrases.setdefault(fold_field(form), []).append(topic.name)
        self._matcher: PhraseMatcher[str] = PhraseMatcher(phrases)

    @classmethod
    @lru_cache(maxsize=1)
    def load(cls) -> TopicBook:
        rules = vocabulary("topics")
        return cls(
            [
                Topic(
                    e["name"],
                    tuple(e["terms"]),
                    tuple(
                        dict.fromkeys(folded(h) for h in e["headings"] + [t for t in e["terms"] if _han(t)])
                    ),
                    e.get("record", False),
                    tuple(e.get("says", ())),
                )
                for e in rules["topics"]
            ],
            tuple(rules["name_labels"]),
        )

    def find(self, text: str) -> list[TopicMatch]:
        """The topic terms the text writes, in order (where terms overlap the longest wins)."""
        found, offsets = fold_field_with_offsets(text)
        return [
            TopicMatch(
                self.topics[m.values[0]],
                text[offsets[m.start] : offsets[m.end - 1] + 1],
                offsets[m.start],
                offsets[m.end - 1] + 1,
            )
            for m in self._matcher.find(found)
        ]

    def get(self, name: str) -> Topic | None:
        return self.topics.get(name)

    def section(self, name: str, titles: tuple[str, ...]) -> tuple[int, float] | None:
        """How well the heading path `titles` is the topic's section, as a sort key (smaller is better: the rank
        of the topic's heading a title writes, how little of the title that heading leaves, how many headings lie
        below it: the lead of a section before its points; the best title of the path counts); None when the
        deepest title that names any topic does not name this one."""
        topic = self.topics.get(name)
        if topic is None:
            return None
        keys = []
        for below, title in enumerate(reversed([folded(t) for t in titles])):
            named = [t for t in self.topics.values() if any(h in title for h in t.headings)]
            if named and topic not in named:
                return keys and min(keys) or None  # a deeper section of another topic
            if topic in named:
                rank, heading = next((i, h) for i, h in enumerate(topic.headings) if h in title)
                keys.append((rank, 1 - len(heading) / len(title), below))
        return min(keys) if keys else None

    def is_name_label(self, label: str) -> bool:
        return folded(label) in self.name_labels


def folded(text: str) -> str:
    """Headings and labels as topics compare them: NFKC, no spaces, Traditional folded to Simplified, lower case."""
    return opencc("t2s").convert("".join(unicodedata.normalize("NFKC", text).split())).lower()


def _han(text: str) -> bool:
    """A term written in Han characters only (a Chinese heading can write it as it is)."""
    return all("\u3400" <= ch <= "\u9fff" for ch in text)
