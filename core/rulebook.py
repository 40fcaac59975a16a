"""Which rule and formula folders the code reads: a `RuleBook`, active for the work at hand.

Maintainers edit rules/*.yaml and formulas/*.yaml; a user may point the engine at copies of
them (`finqa --rules DIR`, `EngineSettings(rules=RuleBook.at(DIR))`). Rule files are therefore
read from the book that is active when they are needed, never at import time: the engine and an
ingest run make their settings' book active around their work (`using`), and outside any run the
default book is active (the folders $FINQA_RULES_DIR and $FINQA_FORMULAS_DIR name, else the
bundled ones). Like Flask's `current_app` or `decimal.localcontext`, the active book is a context
variable, so two engines with different folders in one process each read their own.

A module whose constants come from rule files declares them once, as values built per book (the
builder runs while that book is active, so `vocabulary()` inside it reads that book):

>>> from core.vocabulary import vocabulary
>>> _WORDS = per_book(lambda: vocabulary("numbers"))
>>> _WORDS.value()["dashes"][:2]           # built from the active book at first use, then cached
['-', '－']
>>> from pathlib import Path
>>> with using(RuleBook.at(Path("rules"))):
...     _ = _WORDS["dashes"]             # item and attribute access reach the value too
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache, lru_cache, wraps
from pathlib import Path
from typing import Any, Generic, TypeVar

from core.errors import InputError
from core.rulefile import data_dir

T = TypeVar("T")


@dataclass(frozen=True, eq=False)
class RuleBook:
    """The rule and formula folders of one configuration, and what has been read from them.

    One instance per pair of folders (`RuleBook.at`), so what is read once is shared by every
    engine and ingest run that uses the same folders.
    """

    rules_dir: Path
    formulas_dir: Path
    _read: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def at(cls, rules_dir: Path | str | None = None, formulas_dir: Path | str | None = None) -> RuleBook:
        """The book of these folders (the default folder for each one not given); InputError if one is missing."""
        rules = Path(rules_dir).resolve() if rules_dir is not None else data_dir("rules", "FINQA_RULES_DIR")
        formulas = (
            Path(formulas_dir).resolve()
            if formulas_dir is not None
            else data_dir("formulas", "FINQA_FORMULAS_DIR")
        )
        for kind, path in (("rules", rules), ("formulas", formulas)):
            if not path.is_dir():
                raise InputError(f"{kind} folder not found", str(path))
        return _book(rules, formulas)

    @classmethod
    def default(cls) -> RuleBook:
        """$FINQA_RULES_DIR and $FINQA_FORMULAS_DIR when set, else the folders the finqa package ships.

        The environment is read once per process (it is the configuration a process starts with).
        """
        return _default()

    def vocabulary(self, name: str) -> dict[str, Any]:
        """rules/NAME.yaml, validated against its schema (core/vocabulary.py), read once per book."""
        from core.vocabulary import load  # the schemas live there, and core.vocabulary reads through books

        return self.read_once(f"vocabulary:{name}", lambda: load(self.rules_dir / f"{name}.yaml"))

    def read_once(self, key: str, read: Callable[[], T]) -> T:
        """What `read()` makes of this book's files, made at the first call with `key` and shared afterwards (by
        every engine of the process, and every worker process forked from it): read-only, like the files."""
        if key not in self._read:
            self._read[key] = read()
        return self._read[key]

    def __reduce__(self):
        # a worker process gets the folders and reads the files itself
        return (RuleBook.at, (self.rules_dir, self.formulas_dir))


@cache
def _book(rules_dir: Path, formulas_dir: Path) -> RuleBook:
    return RuleBook(rules_dir, formulas_dir)


@cache
def _default() -> RuleBook:
    return RuleBook.at(
        os.environ.get("FINQA_RULES_DIR") or None, os.environ.get("FINQA_FORMULAS_DIR") or None
    )


_ACTIVE: ContextVar[RuleBook | None] = ContextVar("finqa_rule_book", default=None)


def active() -> RuleBook:
    """The book the work at hand reads: the one made active by `using`, else the default."""
    return _ACTIVE.get() or RuleBook.default()


@contextmanager
def using(book: RuleBook) -> Iterator[RuleBook]:
    """Make `book` active for the block (and for the threads and tasks it starts with the context)."""
    token = _ACTIVE.set(book)
    _entered(book)
    try:
        yield book
    finally:
        _ACTIVE.reset(token)
        _entered(active())


def activate(book: RuleBook) -> None:
    """Make `book` active for the rest of this context: a worker process's or a command's whole life."""
    _ACTIVE.set(book)
    _entered(book)


class per_book(Generic[T]):  # noqa: N801 (used like a function: `_WORDS = per_book(...)`)
    """A module constant built from rule files: `build()` while a book is active, once per book.

    Attribute, item, membership and iteration access go to the built value, so module code uses the
    constant as it would the value (`_CHANGE.search(text)`, `_WORDS["dashes"]`); `value()` gives the
    value itself, for functions that need the real type (`str.endswith(_UNITS.value())`).
    """

    __slots__ = ("_build", "_built", "_last")

    def __init__(self, build: Callable[[], T]):
        self._build = build
        self._built: dict[RuleBook, T] = {}
        self._last: tuple[RuleBook, T] | None = None

    def value(self) -> T:
        book = _ACTIVE.get() or _default()  # active(), inlined: this runs at every use of a rule pattern
        last = self._last
        if last is not None and last[0] is book:
            return last[1]
        value = self._built.get(book)
        if value is None:
            value = self._built[book] = self._build()
        self._last = (book, value)
        return value

    def __getattr__(self, name: str) -> Any:
        return getattr(self.value(), name)

    def __getitem__(self, key: Any) -> Any:
        return self.value()[key]

    def __contains__(self, item: Any) -> bool:
        return item in self.value()

    def __iter__(self) -> Iterator:
        return iter(self.value())

    def __len__(self) -> int:
        return len(self.value())

    def __str__(self) -> str:
        return str(self.value())

    def __format__(self, spec: str) -> str:
        return format(self.value(), spec)


class pattern_per_book(per_book[re.Pattern]):  # noqa: N801
    """A regular expression built from rule files, with the methods of `re.Pattern` (a hot path: no
    attribute fallback on the way).

    >>> from core.vocabulary import vocabulary
    >>> _PAGE_NUMBER = pattern_per_book(lambda: re.compile(vocabulary("layout")["page_number"]))
    """

    __slots__ = ()

    def search(self, *args: Any, **kwargs: Any) -> re.Match | None:
        return self.value().search(*args, **kwargs)

    def match(self, *args: Any, **kwargs: Any) -> re.Match | None:
        return self.value().match(*args, **kwargs)

    def fullmatch(self, *args: Any, **kwargs: Any) -> re.Match | None:
        return self.value().fullmatch(*args, **kwargs)

    def finditer(self, *args: Any, **kwargs: Any) -> Iterator[re.Match]:
        return self.value().finditer(*args, **kwargs)

    def findall(self, *args: Any, **kwargs: Any) -> list:
        return self.value().findall(*args, **kwargs)

    def sub(self, *args: Any, **kwargs: Any) -> str:
        return self.value().sub(*args, **kwargs)

    def subn(self, *args: Any, **kwargs: Any) -> tuple[str, int]:
        return self.value().subn(*args, **kwargs)

    def split(self, *args: Any, **kwargs: Any) -> list:
        return self.value().split(*args, **kwargs)

    @property
    def pattern(self) -> str:
        return self.value().pattern


def cached_per_book(maxsize: int | None = None) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """`functools.lru_cache` for a function that reads rule files, emptied when another book becomes active.

    Such functions run for every table cell a question weighs, so a call goes straight to the cache: no
    wrapper looks up the book (that cost a sixth of the answering time). A process answers with one book
    at a time (an engine's entry points make its own active); two engines with different books in one
    process empty these caches as they take turns, and stay correct.

    >>> @cached_per_book()
    ... def eras() -> dict[str, int]: ...
    """

    def decorate(function: Callable[..., T]) -> Callable[..., T]:
        cached = lru_cache(maxsize=maxsize)(function)
        _CACHES.append(cached)
        return cached

    return decorate


_CACHES: list = []  # the caches of cached_per_book, filled under _FILLED_UNDER[0]
_FILLED_UNDER: list[RuleBook | None] = [None]


def _entered(book: RuleBook) -> None:
    """Empty the rule caches when `book` is not the book they were filled under."""
    if _FILLED_UNDER[0] is not book:
        for cache in _CACHES:
            cache.cache_clear()
        _FILLED_UNDER[0] = book


def with_own_rules(method: Callable[..., T]) -> Callable[..., T]:
    """Run a component's method with the component's rule book (`self.rules`) active.

    The entry points of the engine and the analyzer carry it, so the code under them reads the rule
    files of the engine's settings, whatever book the caller has active.
    """

    @wraps(method)
    def wrapped(self: Any, *args: Any, **kwargs: Any) -> T:
        with using(self.rules):
            return method(self, *args, **kwargs)

    return wrapped
