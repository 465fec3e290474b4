"""notebooks/08_refinements.ipynb runs and prints what the literature and lpgame's checks say.

The notebook is executed in a fresh kernel (cwd notebooks/); its last cell prints one JSON summary.
Reference values: Kuhn's value −1/18 (Kuhn 1950), the King always calls (it wins every showdown),
folding it off the path is still a Nash equilibrium (NashConv 0), and Guess-the-Ace's rational
guess is "not ace of spades" (Miltersen & Sørensen 2006).
"""

from __future__ import annotations

import json
import os
import sys
from fractions import Fraction
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")  # the notebooks extra
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
NAME = "08_refinements.ipynb"


def test_notebook_is_what_the_generator_writes():
    sys.path.insert(0, str(NOTEBOOKS))
    try:
        import make_notebooks
    finally:
        sys.path.remove(str(NOTEBOOKS))
    committed = nbformat.read(NOTEBOOKS / NAME, as_version=4)
    assert [c.source for c in committed.cells] == [c.source for c in make_notebooks.build(NAME).cells]


def test_refinements_notebook():
    nb = nbformat.read(NOTEBOOKS / NAME, as_version=4)
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in [str(ROOT), old or ""] if p)
    try:
        nbclient.NotebookClient(nb, kernel_name="python3", timeout=300,
                                resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs
                   if o.get("output_type") == "stream" and o.get("name") == "stdout")
    summary = json.loads(text)
    assert Fraction(summary["folding_nash_conv"]) == 0
    assert "K check bet" in summary["unreached"]
    assert Fraction(summary["qpe_value"]) == Fraction(summary["efpe_value"]) == Fraction(-1, 18)
    for key in ("qpe_k_check_bet", "efpe_k_check_bet"):
        assert {a: Fraction(p) for a, p in summary[key].items()} == {"fold": 0, "call": 1}
    assert Fraction(summary["qpe_certified_on"]) > 0
    assert summary["checks_passed"] is True
    assert Fraction(summary["guess"]["not ace of spades"]) == 1
