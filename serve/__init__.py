"""`finqa serve`: answers over HTTP, each answer's evidence shown on the page it came from (serve/app.py)."""
