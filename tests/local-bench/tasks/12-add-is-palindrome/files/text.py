import re


def word_count(s):
    return len(s.split())


def normalize(s):
    """Lowercase s and collapse runs of whitespace."""
    return re.sub(r"\s+", " ", s.strip().lower())
