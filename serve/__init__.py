"""`finqa serve`: answers over HTTP, and each answer's evidence shown on the page it came from (serve/app.py)."""
