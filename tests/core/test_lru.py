"""core/lru.py: the bounded map the stores keep what questions read in."""

import pytest

from core.errors import InputError
from core.lru import LeastRecent


def test_the_entry_used_longest_ago_is_forgotten_first():
    kept = LeastRecent(2)
    kept["a"], kept["b"] = 1, 2
    assert kept.get("a") == 1  # "a" is now the most recent
    kept["c"] = 3
    assert ("a" in kept, "b" in kept, "c" in kept) == (True, False, True)
    assert len(kept) == 2


def test_writing_an_entry_again_replaces_it_without_growing():
    kept = LeastRecent(2)
    kept["a"] = 1
    kept["a"] = 5
    assert (kept.get("a"), len(kept), kept.get("missing")) == (5, 1, None)
    kept.clear()
    assert len(kept) == 0


def test_a_cache_without_room_is_refused():
    with pytest.raises(InputError, match="at least one"):
        LeastRecent(0)
