""" "Did you mean": the nearest tensor name to a mistyped one, by the rule tracebook uses
everywhere (`generator/trace/src/suggest.rs`), so Python and `tracebook inspect` suggest alike."""

from __future__ import annotations

from typing import Iterable, Optional


def distance(a: str, b: str) -> int:
    """Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`, in
    characters: the optimal string alignment distance."""
    rows = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        rows[i][0] = i
    for j in range(len(b) + 1):
        rows[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            best = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                best = min(best, rows[i - 2][j - 2] + 1)
            rows[i][j] = best
    return rows[len(a)][len(b)]


def _allowed(length: int) -> int:
    return 1 if length <= 3 else 2 if length <= 8 else 3


def closest(word: str, candidates: Iterable[str]) -> Optional[str]:
    """The candidate nearest to `word` when it is a plausible typo: by case-insensitive
    distance, at most 1 edit for names of up to 3 characters, 2 up to 8 and 3 beyond (the
    longer name counts); never `word` itself; ties go to the candidate that sorts first."""
    lower = word.lower()
    near = [
        (d, c)
        for c in candidates
        if c != word
        for d in [distance(lower, c.lower())]
        if d <= _allowed(max(len(word), len(c)))
    ]
    return min(near)[1] if near else None
