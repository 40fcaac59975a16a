"""Language words the code matches or writes, read from rules/*.yaml instead of Python literals.

Each vocabulary file named in SCHEMAS is schema-checked (a regular expression is compiled by the
check, so a bad one is reported as `file:line`) and read once per rule book (core/rulebook.py):

>>> numbers = vocabulary("numbers")
>>> numbers["dashes"][:2]
['-', '－']
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.language import LANGUAGES, LATIN
from core.rulebook import active
from core.rulefile import RuleFile

WORDS = {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}}
PATTERN = {"type": "string", "minLength": 1, "format": "regex"}
TEXT = {"type": "string", "minLength": 1}


def _section(**properties: dict) -> dict:
    """A mapping that must hold exactly these keys."""
    return {
        "type": "object",
        "required": list(properties),
        "additionalProperties": False,
        "properties": properties,
    }


_COUNTS = {"type": "object", "minProperties": 1, "additionalProperties": {"type": "integer", "minimum": 0}}
_PAIR = {"type": "array", "prefixItems": [TEXT, TEXT], "minItems": 2, "maxItems": 2}

SCHEMAS: dict[str, dict] = {
    # Quotes, list and digit-group marks read in questions and cells.
    "punctuation": _section(
        quotes={"type": "array", "minItems": 1, "items": _PAIR},
        list_separators=WORDS,
        thousands_separators=WORDS,
        sentence_ends=TEXT,
        sentence_closers=TEXT,
        clause_ends=TEXT,
        inner_marks=TEXT,
        formula_quotes=_PAIR,
        record_separator=TEXT,
        formula_operators={"type": "object", "minProperties": 1, "additionalProperties": TEXT},
    ),
    # search/tokenize.py: stop words, Japanese-only kanji, dates and ordinals read before segmentation.
    "tokens": _section(
        stop_words=_section(**{language: WORDS for language in (*LANGUAGES, LATIN)}),
        ja_drop_pos=WORDS,
        ja_only_kanji=TEXT,
        long_vowel=TEXT,
        ordinal=PATTERN,
        date=PATTERN,
        unit_aliases={"type": "object", "additionalProperties": TEXT},
        year=TEXT,
        month=TEXT,
        day=TEXT,
        ordinal_mark=TEXT,
        sentence_ends=WORDS,
        field_particles=TEXT,
    ),
    # qa/data/readings.py: katakana romanised.
    "kana": _section(
        rows={
            "type": "object",
            "minProperties": 1,
            "additionalProperties": {**TEXT, "minLength": 5, "maxLength": 5},
        },
        extra={"type": "object", "additionalProperties": TEXT},
        small={"type": "object", "additionalProperties": TEXT},
        double=TEXT,
        long=TEXT,
    ),
    # qa/llm/model.py: the text around passages and questions in a model's prompt.
    "prompts": _section(
        citation=TEXT,
        citation_unpaged=TEXT,
        retry=TEXT,
        question=TEXT,
        passage=TEXT,
        choice_option=TEXT,
        statement=TEXT,
        statement_labels={**WORDS, "minItems": 2, "maxItems": 2},
        no_answer=TEXT,
    ),
    # qa/data/cells.py: questions about one table cell (labels, context words, totals, evidence).
    "cells": _section(
        separator=TEXT,
        year=PATTERN,
        individual=PATTERN,
        point_in_time=PATTERN,
        parent_context=PATTERN,
        individual_title=TEXT,
        consolidated_title=TEXT,
        dropped=PATTERN,
        total_suffix=PATTERN,
        total=PATTERN,
        bare_total=PATTERN,
        entity_total=PATTERN,
        accumulated=PATTERN,
        equity=PATTERN,
        balance_row=PATTERN,
        later_section=PATTERN,
        negation=TEXT,
        us_gaap=PATTERN,
        percent_units=WORDS,
        evidence=TEXT,
    ),
    # core/identity.py, qa/understand/companies.py: legal forms and the words around company names.
    "companies": _section(
        legal_suffixes=WORDS,
        span_suffixes=WORDS,
        span_lead=WORDS,
        code_not_before=TEXT,
        report_name=TEXT,
        year=TEXT,
        abbreviated_suffixes=WORDS,
        group_suffix=PATTERN,
        holding_words=WORDS,
        name_shapes=_section(conjunctions=WORDS, at=WORDS, patterns=WORDS),
        not_names=WORDS,
        organisation_words=WORDS,
        organisation_references=WORDS,
    ),
    # qa/understand/analyse.py, qa/io/questions.py, qa/text/answer.py: quoted words, value questions, option lines, lawqa_jp
    # keys, what-is questions and the sentences that answer them.
    "questions": _section(
        asks_value=PATTERN,
        word_separators=PATTERN,
        choice_line=PATTERN,
        lawqa_fields=_section(text=TEXT, choices=TEXT, id=TEXT),
        asks_what=PATTERN,
        defines=TEXT,
        checkboxes=PATTERN,
    ),
    # parser/pdf.py, parser/html.py, parser/headings.py: page numbers, caption headings, spaced ordinals.
    "layout": _section(
        page_number=PATTERN,
        caption_heading=PATTERN,
        item_mark=PATTERN,
        heading_classes=_COUNTS,
        numberings=WORDS,
        spaced_ordinal=PATTERN,
        ordinal_mark=TEXT,
    ),
    # parser/statutes.py: how Japanese statutes number and word their articles, paragraphs and items.
    "statutes": _section(
        number=PATTERN,
        reference=PATTERN,
        article_label=PATTERN,
        part=PATTERN,
        part_ranks=_COUNTS,
        markdown_field=PATTERN,
        markdown_fields=_section(law_num=TEXT, law_id=TEXT, kind=TEXT),
        ordinal=TEXT,
        article=TEXT,
        branch=TEXT,
        supplementary=TEXT,
        abbreviation_separators=PATTERN,
        lead=PATTERN,
        period_column=PATTERN,
        new_paragraph=PATTERN,
        continuations=WORDS,
        column_joiner=TEXT,
        sentence_end=TEXT,
        topic_marks=WORDS,
        clause_endings=WORDS,
        spaces=WORDS,
        # qa/statutes/law_refs.py: article references in questions and options.
        references=_section(
            reference=PATTERN,
            same_article=TEXT,
            next_article=TEXT,
            paragraph=TEXT,
            item=TEXT,
            regulation_suffixes=PATTERN,
        ),
        # qa/statutes/compare.py: what an option changes in its law sentence.
        differences=_section(
            kanji=TEXT,
            counters=PATTERN,
            percent=PATTERN,
            decimal_point=TEXT,
            months=PATTERN,
            month=TEXT,
            number_unit=PATTERN,
            dropped=PATTERN,
            small_kana=TEXT,
            large_kana=TEXT,
            months_in={"type": "object", "minProperties": 1, "additionalProperties": {"type": "integer"}},
            negated=TEXT,
            not_negated=TEXT,
            list=TEXT,
            determiners=PATTERN,
            longer=PATTERN,
            actors=PATTERN,
            instruments=PATTERN,
        ),
        # qa/statutes/choice.py: delegations to orders, and how a law defines a term.
        choices=_section(delegation=PATTERN, orders=WORDS, definition=TEXT),
        # qa/statutes/layouts.py: statements a question prints, and what the options of each layout say.
        layouts=_section(
            statement=PATTERN,
            joiners=PATTERN,
            joined=TEXT,
            counting=PATTERN,
            counts=_COUNTS,
            blanks=PATTERN,
            marks=TEXT,
            ranges=PATTERN,
            wrapped=PATTERN,
            opening=TEXT,
            closing=TEXT,
        ),
    ),
    # qa/topics.py: the report sections text questions are about, how questions write them, their headings.
    "topics": _section(
        name_labels=WORDS,
        topics={
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["name", "terms", "headings"],
                "additionalProperties": False,
                "properties": {
                    "name": TEXT,
                    "terms": WORDS,
                    "headings": WORDS,
                    "record": {"type": "boolean"},
                    "says": WORDS,
                },
            },
        },
    ),
    # parser/facts.py: table rows read as facts (column kinds, label clean-up, units, row sentences).
    "facts": _section(
        change=PATTERN,
        opening=PATTERN,
        note_header=PATTERN,
        numbering=PATTERN,
        lead_words=PATTERN,
        note_refs=PATTERN,
        trailing_unit=PATTERN,
        sign_note=PATTERN,
        expense=PATTERN,
        triangles=TEXT,
        total_row=PATTERN,
        part=PATTERN,
        ditto=WORDS,
        ditto_mark=TEXT,
        per_share=PATTERN,
        label_strip=TEXT,
        label_brackets=_PAIR,
        wordy=PATTERN,
        bracket_chars=TEXT,
        percent_units=WORDS,
        secondary_row=PATTERN,
        fiscal_year=PATTERN,
        caption_subject=PATTERN,
        sentence=_section(**{language: TEXT for language in LANGUAGES}),
        sentence_unperiod=_section(ja=TEXT),  # Japanese words a fact without a period differently
        sentence_joiner=_section(**{language: TEXT for language in LANGUAGES}),
        sentence_end=TEXT,
    ),
    # parser/tables.py: cells around a table's figures (periods, header words, remarks, unit captions).
    "tables": _section(
        period_like=PATTERN,
        header_words=WORDS,
        nth_period=PATTERN,
        aside=PATTERN,
        unit_words=PATTERN,
        date_period=PATTERN,
    ),
    # core/units.py and core/dates.py: units, multipliers, dashes, negative marks, dates and period words.
    "numbers": _section(
        multipliers={
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "array",
                "prefixItems": [TEXT, {"type": "integer", "minimum": 1}],
                "minItems": 2,
                "maxItems": 2,
            },
        },
        base_units=WORDS,
        money_units=WORDS,
        secondary_brackets=_PAIR,
        secondary_figure=PATTERN,
        currency_words=PATTERN,
        dashes=WORDS,
        minus_signs=TEXT,
        note_prefix=PATTERN,
        share_class=PATTERN,
        yen_sen=PATTERN,
        unit_statement=PATTERN,
        bracketed_unit=PATTERN,
        currency_note=PATTERN,
        date=PATTERN,
        prior_period=PATTERN,
        current_period=PATTERN,
        cjk_year=PATTERN,
        cjk_date_number=PATTERN,
        era_year=PATTERN,
        roc_year=PATTERN,
        month_follows=PATTERN,
        range_until=WORDS,
        default_currency=TEXT,
        previous_year=TEXT,
        yen_unit=TEXT,
        brackets=_PAIR,
        clause=PATTERN,
        year_cell=PATTERN,
        bare_era=TEXT,
        amounts=_section(
            amount=PATTERN,
            percent_of=PATTERN,
            percent_signs=WORDS,
            decimal_point=TEXT,
            bare_multipliers=WORDS,
            optional_particle=TEXT,
        ),
        identity_dates=_section(date_numeral=PATTERN, quarter=PATTERN, ordinal=TEXT, space_in_date=PATTERN),
        # core/numerals.py: Chinese numerals read and written.
        numerals=_section(
            digits=_COUNTS,
            units=_COUNTS,
            first_year=TEXT,
            written_digits={**TEXT, "minLength": 10, "maxLength": 10},
            written_units={
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "array",
                    "prefixItems": [{"type": "integer", "minimum": 1}, TEXT],
                    "minItems": 2,
                    "maxItems": 2,
                },
            },
        ),
        # qa/data/rounding.py: units an answer converts between and places it rounds at.
        rounding=_section(unit_powers=_COUNTS, base_units=WORDS, places=_COUNTS, place_suffixes=WORDS),
        # core/years.py: years a question names, relative years (去年, 上年, 前期).
        years=_section(
            cjk_year=PATTERN,
            era_number=PATTERN,
            year=TEXT,
            range=PATTERN,
            year_suffix=PATTERN,
            tens=TEXT,
            quarter=PATTERN,
            quarter_after=PATTERN,
            year_to_date=PATTERN,
            half=PATTERN,
            impossible_quarter=PATTERN,
            relative={"type": "object", "minProperties": 1, "additionalProperties": {"type": "integer"}},
        ),
        # qa/understand/output_request.py: decimals, percent or ratio, unit and rounding place a question asks for.
        requests=_section(
            count=PATTERN,
            keep=PATTERN,
            step=PATTERN,
            integer=PATTERN,
            ja_digit=PATTERN,
            ja_keep=TEXT,
            ja_place=PATTERN,
            percent=PATTERN,
            ratio=PATTERN,
            share=PATTERN,
            unit=PATTERN,
        ),
    ),
}


def load(path: Path) -> dict[str, Any]:
    """Read and validate one vocabulary file (its schema is chosen by its name); InputError "file:line: …"."""
    path = Path(path)
    return RuleFile.load(path, SCHEMAS[path.stem]).data


def vocabulary(name: str) -> dict[str, Any]:
    """rules/NAME.yaml of the active rule book, validated, read once per book."""
    return active().vocabulary(name)
