"""A field's value stated in running text when no table gives it ("本集团共有在职员工41,011人").

Some reports state a figure only in a sentence: a bank gives its head count in the
text of its staff section. A number followed by the field's unit answers when the
characters just before it share a long enough run with one of the field's names
(a question's 在职员工总数 and the report's 在职员工 share 在职员工).

>>> stated_value(["本集团共有在职员工41,011人（含派遣人员）。"], ["在职员工总数"], "人")
('41011', '本集团共有在职员工41,011人（含派遣人员）。')
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from difflib import SequenceMatcher

from core.folding import nfkc
from core.language import HAN

WINDOW = 20  # characters before the number searched for the field's name
SHARED_RUN = 0.6  # the longest run shared with a name covers at least this share of the name
_IDEOGRAPH = re.compile(f"[{HAN}]")


def stated_value(sentences: Iterable[str], names: list[str], unit: str) -> tuple[str, str] | None:
    """(the number without separators, its sentence) of the first sentence stating it, or None."""
    if not unit or not names:
        return None
    number = re.compile(r"(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s*" + re.escape(nfkc(unit)))
    for sentence in sentences:
        flat = nfkc(sentence)
        for match in number.finditer(flat):
            if _IDEOGRAPH.match(flat, match.end()):
                continue  # the unit starts a longer word: 人 of 人民币
            before = flat[max(0, match.start() - WINDOW) : match.start()]
            if any(_shares_name(before, nfkc(name)) for name in names):
                return match.group(1).replace(",", "") + (match.group(2) or ""), sentence
    return None


def _shares_name(text: str, name: str) -> bool:
    if len(name) < 2:
        return False
    run = (
        SequenceMatcher(None, text, name, autojunk=False).find_longest_match(0, len(text), 0, len(name)).size
    )
    return run >= max(2, math.ceil(len(name) * SHARED_RUN))
