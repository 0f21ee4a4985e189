"""Differential test: our engine against the reference calculator (PyMahjongGB 1.4.0) on random
valid winning hands. Totals and fan multisets must be equal (decisions.md item 3: where several
readings reach the same total we pick the reference's), after the 明暗杠 normalisation.

100,000 hands in chunks of 10,000, each its own seed, so a failing chunk is cheap to rerun and the
chunks can run in parallel. ``bench/differential.py`` runs the same comparison at scale.
"""

from __future__ import annotations

from collections import Counter

import pytest

from tests.support.handgen import compare, winning_hands

CHUNKS = 10
CHUNK_SIZE = 10_000
SHOWN = 5  # disagreements printed in full per failing chunk


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_agrees_with_reference(chunk):
    disagreements = []
    for g in winning_hands(1000 + chunk, CHUNK_SIZE):
        d = compare(g.hand, g.ctx)
        if d is not None:
            disagreements.append((g.form, d))
    if disagreements:
        classes = Counter(d.kind for _, d in disagreements)
        summary = ", ".join(f"[{k}] ×{n}" for k, n in classes.most_common())
        shown = "\n\n".join(f"form:      {form}\n{d}" for form, d in disagreements[:SHOWN])
        pytest.fail(f"{len(disagreements)} of {CHUNK_SIZE} hands disagree: {summary}\n\n{shown}", pytrace=False)
