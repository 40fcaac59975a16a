"""Answers computed from facts: table look-ups, table cells, formulas, rankings and statistics."""
