"""Multiple-choice questions over statutes: article references, option against law text, the choice."""
