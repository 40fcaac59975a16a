"""`python -m eval.bench segmenter`: the tokenizer on jieba-rs (rjieba) against the same on the Python jieba.

search/tokenize.py segments Chinese with rjieba, the Rust port of jieba with
jieba's dictionary and algorithm built in. This bench checks that it gives
the tokens the Python jieba gives, on the text of our corpora, and measures
both in one run: every page's text (pdfium) of the annual-cn reports and of
the AI CUP reference PDFs, each source on its own, tokenized by two
`Tokenizer`s with the same settings and words (rules/fields.yaml), one of
them on the Python jieba. Per source: the share of tokens both give (as
multisets per page), the pages whose token lists are identical (order too:
phrase queries read positions), the CPU seconds of each and their ratio,
and the tokens that differ most often.

    python -m eval.bench segmenter
    python -m eval.bench segmenter --limit 40
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

from core.command_names import command_name
from eval.bench.ingest import SETS, corpus_files
from parser.page_texts import pdf_page_texts

TARGET = 0.995  # the share of tokens both must give


class PythonJieba:
    """The Python jieba behind the methods search/tokenize.py calls on rjieba's segmenter (the reference)."""

    def __init__(self):
        import jieba

        self._jieba = jieba.Tokenizer()
        self._jieba.initialize()

    def cut(self, text: str, hmm: bool = True) -> list[str]:
        return list(self._jieba.cut(text, HMM=hmm))

    def has_word(self, word: str) -> bool:
        return bool(self._jieba.FREQ.get(word))  # the dictionary keeps every word's prefixes with count 0

    def suggest_freq(self, word: str) -> int:
        return self._jieba.suggest_freq(word, False)

    def add_word(self, word: str, freq: int | None, tag: str | None) -> None:
        self._jieba.add_word(word, freq=freq, tag=tag)


def page_texts(paths: list[Path]) -> list[str]:
    """The non-blank pages' text layers of these PDFs."""
    return [text for path in paths for text in pdf_page_texts(path, sys.maxsize) if text.strip()]


def timed(tokenizer, texts: list[str]) -> tuple[list[list[str]], float]:
    started = time.process_time()
    tokens = [tokenizer.tokens(text) for text in texts]
    return tokens, time.process_time() - started


def compare(name: str, texts: list[str]) -> float:
    """Print the agreement of the two segmenters on `texts`; the share of tokens both give."""
    from search.tokenize import Tokenizer

    reference = Tokenizer()
    # The user words go to it as to rjieba's (Tokenizer._segmenter).
    reference._jieba = PythonJieba()  # noqa: SLF001
    ours = Tokenizer()
    reference.tokens("预热"), ours.tokens("预热")  # both dictionaries loaded before timing
    expected, reference_seconds = timed(reference, texts)
    found, seconds = timed(ours, texts)
    both = total = 0
    differing: Counter[str] = Counter()
    for old, new in zip(expected, found):
        old_counts, new_counts = Counter(old), Counter(new)
        both += sum((old_counts & new_counts).values())
        total += max(len(old), len(new))
        differing.update({f"-{token}": n for token, n in (old_counts - new_counts).items()})
        differing.update({f"+{token}": n for token, n in (new_counts - old_counts).items()})
    share = both / total if total else 1.0
    same = sum(old == new for old, new in zip(expected, found))
    print(
        f"[{name}] {len(texts)} pages, {sum(map(len, texts))} characters, {total} tokens: "
        f"{share:.4%} given by both (target {TARGET:.1%}), {same} of {len(texts)} pages identical in order"
    )
    print(
        f"  CPU seconds: Python jieba {reference_seconds:.2f}, rjieba {seconds:.2f} = "
        f"{reference_seconds / seconds:.2f}x"
        if seconds
        else "  CPU seconds: n/a"
    )
    if differing:
        print(
            f"  most frequent differences (- Python jieba only, + rjieba only): {differing.most_common(12)}"
        )
    return share


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        prog=f"{command_name('eval.bench')} segmenter", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--limit", type=int, default=0, help="only the first N PDFs of each folder (0 = all)")
    args = ap.parse_args(argv)
    shares = []
    for name in SETS:
        found = corpus_files(name, args.limit)
        if found is not None:
            shares.append(compare(name, page_texts(found[1])))
    return 0 if all(share >= TARGET for share in shares) else 1
