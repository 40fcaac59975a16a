"""Answers from report text: keyword and title search, the passage that states the answer."""
