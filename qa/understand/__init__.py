"""Question understanding: type, company, years, fields, formula and output request, read by the rules."""
