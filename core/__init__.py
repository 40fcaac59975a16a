"""The bottom layer: records passed between stages, errors, rule files, numerals, units, dates and text folding.

parser, search, ingestion, qa and eval all build on it; it imports none of them.
"""
