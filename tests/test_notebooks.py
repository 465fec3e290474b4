"""The teaching notebooks execute without errors and print what lpgame and the literature say.

Each notebook of notebooks/ (written by notebooks/make_notebooks.py) is executed with nbclient in a
python3 kernel, with cwd = notebooks/, as a student would run it. No cell may raise. Its last cell
prints one JSON object (the *summary*), which is checked here against

* literature values: the game values 0, 1/3, 0 of Rojas Linárez (2020) Tablas 1.1, 4.4 and §1.5,
  Kuhn's −1/18 and equilibrium family (Hoehn 2006 B:468), Hoehn's Table 4.1, his best-response and
  worst-case numbers and the ε-safe frontier of notes/gameshrink-and-hoehn.md §B.4–B.7, the seed
  notebook's exploitability 0.4836 (notes/rojas-linarez-and-notebook.md §4.3);
* independent computations in this file: each normal-form strategy's guarantee against every
  column, computed from the payoff matrices as printed in the notes;
* ``lpgame.solve`` run here, for the values the notebooks report from lpgame.

The generator is also checked: the committed notebooks are what it writes (outputs cleared).
"""

from __future__ import annotations

import json
import os
import sys
from fractions import Fraction
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")

import lpgame  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = ROOT / "notebooks"
TIMEOUT_PER_CELL = 120


def _fraction(text) -> Fraction:
    return Fraction(str(text))


@pytest.fixture(scope="module")
def generator():
    sys.path.insert(0, str(NOTEBOOK_DIR))
    try:
        import make_notebooks
    finally:
        sys.path.remove(str(NOTEBOOK_DIR))
    return make_notebooks


_executed: dict[str, dict] = {}


def run_notebook(name: str) -> dict:
    """Execute notebooks/<name> in a fresh python3 kernel (cwd notebooks/); return its summary."""
    if name in _executed:
        return _executed[name]
    nb = nbformat.read(NOTEBOOK_DIR / name, as_version=4)
    env_path = os.pathsep.join(p for p in [str(ROOT), os.environ.get("PYTHONPATH", "")] if p)
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = env_path   # the kernel inherits it: lpgame from this checkout
    try:
        client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=TIMEOUT_PER_CELL,
                                         resources={"metadata": {"path": str(NOTEBOOK_DIR)}})
        client.execute()   # raises CellExecutionError on the first failing cell
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            assert output.get("output_type") != "error", f"{name}: {output.get('evalue')}"
    last = nb.cells[-1]
    text = "".join(o.get("text", "") for o in last.outputs if o.get("output_type") == "stream"
                   and o.get("name") == "stdout")
    summary = json.loads(text)
    _executed[name] = summary
    return summary


def guarantee(matrix, mix) -> float:
    """min over columns of Σ_i mix_i a_ij."""
    return min(sum(p * row[j] for p, row in zip(mix, matrix)) for j in range(len(matrix[0])))


def best_reply(matrix, mix) -> float:
    """max over rows of Σ_j a_ij mix_j (what player 1 gets against the column mix)."""
    return max(sum(a * q for a, q in zip(row, mix)) for row in matrix)


# ---------------------------------------------------------------------------------------- generator
def test_committed_notebooks_are_what_the_generator_writes(generator):
    names = sorted(p.name for p in NOTEBOOK_DIR.glob("*.ipynb"))
    assert names == sorted(generator.NOTEBOOKS), "run python notebooks/make_notebooks.py"
    for name in names:
        on_disk = nbformat.read(NOTEBOOK_DIR / name, as_version=4)
        nbformat.validate(on_disk)
        built = generator.build(name)
        assert on_disk == built, f"{name} differs from what make_notebooks.py writes"
        assert all(not c.get("outputs") for c in on_disk.cells if c.cell_type == "code"), \
            f"{name}: outputs are stored"
        text = (NOTEBOOK_DIR / name).read_text()
        assert str(ROOT) not in text and "/work/" not in text, f"{name}: absolute path"


# ---------------------------------------------------------------------------------------- notebook 1
# P1's matrices as printed in notes/rojas-linarez-and-notebook.md §1.2 and §1.4
RPS = [[0, -1, 1], [1, 0, -1], [-1, 1, 0]]
FICHA = [[-1, -1, 1, 1, 1, 1], [1, 1, 1, -1, -1, 1], [1, -1, -1, 1, 1, 1], [1, 1, 1, 1, -1, -1],
         [-1, 1, 1, -1, 1, 1], [1, -1, 1, 1, -1, 1], [1, 1, -1, 1, 1, -1]]


def _blotto_matrix():
    splits = [(a, b, 5 - a - b) for a in range(6) for b in range(6 - a)]
    return [[sum(x > y for x, y in zip(s, t)) - sum(x < y for x, y in zip(s, t)) for t in splits]
            for s in splits]


def test_matrix_games_notebook():
    summary = run_notebook("01_matrix_games_as_lps.ipynb")
    assert summary["solver"] in ("appsi_highs", "highs")
    literature = {"rock_paper_scissors": (Fraction(0), RPS), "ficha_vs_domino": (Fraction(1, 3), FICHA),
                  "colonel_blotto": (Fraction(0), _blotto_matrix())}
    for name, (value, matrix) in literature.items():
        got = summary["games"][name]
        assert got["pyomo_value"] == pytest.approx(float(value), abs=1e-9), name
        assert _fraction(got["lpgame_value"]) == value, name
        assert _fraction(got["lpgame_nash_conv"]) == 0, name
        # Pyomo's primal is an optimal strategy of player 1 and its duals one of player 2
        x, y = list(got["pyomo_x"].values()), list(got["pyomo_y"].values())
        assert len(x) == len(matrix) and len(y) == len(matrix[0]), name
        assert sum(x) == pytest.approx(1) and sum(y) == pytest.approx(1), name
        assert min(x) > -1e-9 and min(y) > -1e-9, name
        assert guarantee(matrix, x) == pytest.approx(float(value), abs=1e-9), name
        assert best_reply(matrix, y) == pytest.approx(float(value), abs=1e-9), name
        # and lpgame run here agrees
        game = lpgame.games.make(name, **({"S": 5, "N": 3} if name == "colonel_blotto" else {}))
        assert lpgame.solve(game, exact=True).value == value, name
    assert _fraction(summary["ficha_thesis_guarantee"]) == Fraction(1, 3)
    assert _fraction(summary["blotto_uniform_guarantee"]) == 0
    assert summary["blotto_support_size"] == 9


# ---------------------------------------------------------------------------------------- notebook 2
# Kuhn's equilibrium (Hoehn B:468, Rojas Tabla 2.5): P2's is unique
KUHN_P2 = {"Q check": {"bet": 0}, "Q bet": {"call": Fraction(1, 3)}, "K check": {"bet": 1},
           "K bet": {"call": 1}, "J check": {"bet": Fraction(1, 3)}, "J bet": {"call": 0}}


def test_sequence_form_notebook():
    summary = run_notebook("02_sequence_form_kuhn.ipynb")
    assert summary["num_sequences"] == [13, 13]           # Hoehn B.1
    assert summary["treeplex_shape"] == [7, 13]           # |J_1| + 1 rows
    assert summary["payoff_nnz"] == 30                    # 6 deals × 5 betting sequences
    assert summary["lp_size"] == {"rows": 20, "cols": 20, "nnz": 68}
    assert summary["lp_value"] == pytest.approx(-1 / 18, abs=1e-9)
    assert _fraction(summary["exact_value"]) == Fraction(-1, 18)
    player1, player2 = summary["lp_strategies"]
    for infoset, row in KUHN_P2.items():                  # the duals give P2's unique equilibrium
        for action, prob in row.items():
            assert player2[infoset][action] == pytest.approx(float(prob), abs=1e-9), infoset
    # player 1's LP strategy is a member of the family (α, α + 1/3, 3α)
    alpha = player1["J"]["bet"]
    assert -1e-9 <= alpha <= 1 / 3 + 1e-9
    assert player1["Q check bet"]["call"] == pytest.approx(alpha + 1 / 3, abs=1e-9)
    assert player1["K"]["bet"] == pytest.approx(3 * alpha, abs=1e-9)
    assert set(summary["family"]) == {"0", "1/12", "1/6", "1/4", "1/3"}
    for alpha, row in summary["family"].items():
        assert _fraction(row["nash_conv"]) == 0, alpha
        assert _fraction(row["value"]) == Fraction(-1, 18), alpha
    assert _fraction(summary["off_family_nash_conv"]) > 0
    assert summary["same_as_lpgame_family"] is True
    assert summary["picture_bytes"] > 10_000
    assert lpgame.solve(lpgame.games.make("kuhn_poker"), exact=True).value == _fraction(
        summary["exact_value"])


# ---------------------------------------------------------------------------------------- notebook 3
CHICKEN = ([[6, 2], [7, 0]], [[6, 7], [2, 0]])       # GAMES.md: Aumann's payoffs, actions C, D


def _ce_gain(psi) -> float:
    """Largest gain of a "told x, play y" deviation in Chicken (Rojas Def. 1.12), by hand."""
    u1, u2 = CHICKEN
    gains = []
    for x in range(2):
        for y in range(2):
            if x != y:
                gains.append(sum(psi[x][b] * (u1[y][b] - u1[x][b]) for b in range(2)))
                gains.append(sum(psi[a][x] * (u2[a][y] - u2[a][x]) for a in range(2)))
    return max(gains)


def test_correlated_equilibria_notebook():
    summary = run_notebook("03_correlated_equilibria.ipynb")
    # Nash equilibria of Chicken: (C,D), (D,C) pay 9 in total, the mixed one 2·14/3
    assert {k: _fraction(v) for k, v in summary["nash_welfare"].items()} == {
        "(C,D)": 9, "(D,C)": 9, "mixed": Fraction(28, 3)}
    # welfare-optimal CE (notes/farina-thesis.md §3.1): 10.5 with 1/2 on (C,C), 1/4 on (C,D), (D,C)
    best = summary["best_ce"]
    assert best["objective"] == pytest.approx(10.5, abs=1e-9)
    assert best["payoffs"] == pytest.approx([5.25, 5.25], abs=1e-9)
    psi = [[0.0, 0.0], [0.0, 0.0]]
    for entry in best["distribution"]:
        a, b = ("CD".index(x) for x in entry["profile"])
        psi[a][b] = entry["probability"]
    assert psi[0] + psi[1] == pytest.approx([0.5, 0.25, 0.25, 0.0], abs=1e-9)
    assert _ce_gain(psi) <= 1e-9 and best["gap"] <= 1e-9
    assert summary["aumann_gap"] == pytest.approx(0.0, abs=1e-12)
    assert _ce_gain([[1 / 3, 1 / 3], [1 / 3, 0]]) <= 1e-12
    # NFCE ⊆ EFCE ⊆ EFCCE ⊆ NFCCE (von Stengel & Forges 2008): the best payoff never decreases
    h = summary["hierarchy"]
    chain = [h[c]["objective"] for c in ("ce", "efce", "efcce", "nfcce")]
    assert chain == sorted(chain) and chain[0] < chain[-1]
    assert all(h[c]["gap"] <= 1e-7 and h[c]["optimal"] for c in h)
    sheriff = lpgame.games.make("sheriff", N=2, B=1, rounds=1)
    assert lpgame.solve(sheriff, concept="efce", objective="player1").objective == pytest.approx(
        h["efce"]["objective"], abs=1e-9)
    assert summary["efce_realisable"] is True
    # no chance ⇒ triangle-free (Farina Thm 9.2); Kuhn's private cards are not (notes §1.7)
    assert summary["triangle_free"] == {"sheriff": True, "kuhn": False}
    # an odd cycle of agree/disagree conditions: pure plan pairs satisfy at most 5 of 6
    cycle = summary["cycle"]
    assert cycle["pure_best"] == 5
    assert cycle["relaxation"] == pytest.approx(6.0, abs=1e-9)
    assert cycle["realisable"] is False and cycle["residual"] > 1e-3
    kuhn = summary["kuhn_efce"]
    assert kuhn["optimal"] is True and kuhn["realisable"] is True    # the bound is attained
    assert kuhn["payoffs"] == pytest.approx([-1 / 18, 1 / 18], abs=1e-7)   # zero-sum: the value


# ---------------------------------------------------------------------------------------- notebook 4
def test_lossless_abstraction_notebook():
    summary = run_notebook("04_lossless_abstraction.ipynb")
    toy = summary["toy"]
    # Gilpin & Sandholm Fig. 1: "reduces the game tree from 53 nodes to 19 nodes" (inner nodes);
    # 113 nodes with leaves, 17 → 9 sequences per player, value 0 (notes §A.10 [verified])
    assert toy["internal_nodes"] == [53, 19]
    assert toy["nodes"][0] == 113
    assert toy["sequences"] == [[17, 17], [9, 9]]
    assert toy["filters"]["player 1's card"] == [["J1", "J2"], ["K1", "K2"]]
    assert toy["filters"]["player 2's card after J1"] == [["J2"], ["K1", "K2"]]
    assert toy["filters"]["player 2's card after K1"] == [["J1", "J2"], ["K2"]]
    assert [_fraction(v) for v in toy["values"]] == [0, 0]
    # Theorem 2: the lifted abstract equilibrium is an equilibrium of the original game, exactly
    assert _fraction(toy["lifted_nash_conv"]) == 0 and _fraction(toy["lifted_value"]) == 0
    leduc = summary["leduc"]
    assert sum(leduc["cards"]["infosets"]) == 936            # OpenSpiel's leduc_poker (GAMES.md)
    assert sum(leduc["ranks"]["infosets"]) < sum(leduc["cards"]["infosets"])
    for deal in ("cards", "ranks"):
        assert leduc[deal]["value"] == pytest.approx(-0.0856064, abs=5e-8), deal
    assert summary["leduc_lifted"]["nash_conv"] < 1e-9
    assert summary["leduc_lifted"]["value"] == pytest.approx(-0.0856064, abs=5e-8)
    ranks = lpgame.solve(lpgame.games.make("leduc_poker", deal="ranks"))
    assert ranks.value == pytest.approx(leduc["ranks"]["value"], abs=1e-9)
    # the pitfall: GameShrink's unrefined proposal merges boards that player 2 tells apart, and its
    # lifted equilibrium is far from one in Leduc; the sound filter's is one
    pitfall = summary["pitfall"]
    assert pitfall["sound filter"]["nash_conv"] < 1e-9
    assert pitfall["GameShrink proposal, unrefined"]["nash_conv"] > 0.5
    # view classes per player and round: the sound filter is Leduc by ranks (3 hands, 3 × 3 boards)
    assert pitfall["sound filter"]["classes"] == [[3, 9], [3, 9]]
    unrefined = pitfall["GameShrink proposal, unrefined"]["classes"]
    assert all(u[1] < 9 for u in unrefined)


# ---------------------------------------------------------------------------------------- notebook 5
def test_verifying_cfr_notebook():
    summary = run_notebook("05_verifying_cfr.ipynb")
    assert summary["seed_fold_payoff"] == 2               # the sign bug of notes §4.2 (1)
    printed = summary["seed_printed"]                     # notes §4.3: u1 −0.0779, ε 0.4836
    assert printed["value"] == pytest.approx(-0.0779, abs=5e-5)
    assert printed["nash_conv"] == pytest.approx(0.4836, abs=5e-5)
    assert printed["gains"][0] + printed["value"] == pytest.approx(0.2357, abs=5e-5)
    assert printed["gains"][1] - printed["value"] == pytest.approx(0.2479, abs=5e-5)
    # the re-implemented dynamic is as far from equilibrium as the printed strategy
    assert summary["seed_rerun"]["nash_conv"] > 0.3
    cfr = summary["inline_cfr"]
    nash_convs = [c for _, c in cfr["curve"]]
    assert nash_convs[-1] < 0.02 and nash_convs[-1] < nash_convs[0] / 20
    assert cfr["value"] == pytest.approx(-1 / 18, abs=5e-3)
    # the notebook's CFR strategy, evaluated here
    ev = lpgame.evaluate(lpgame.games.make("kuhn_poker"), cfr["strategies"])
    assert ev.nash_conv == pytest.approx(cfr["nash_conv"], rel=1e-6, abs=1e-12)
    for name, row in summary["lpgame_learning"].items():
        assert row["nash_conv"] < 5e-3, name
        assert row["value"] == pytest.approx(-1 / 18, abs=2e-3), name
    assert _fraction(summary["lp_value"]) == Fraction(-1, 18)


def test_verifying_cfr_notebook_against_openspiel():
    """The notebook's CFR strategy has the NashConv OpenSpiel computes for it (its own Kuhn poker)."""
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python import policy as policy_lib
    from open_spiel.python.algorithms import exploitability

    summary = run_notebook("05_verifying_cfr.ipynb")
    cfr = summary["inline_cfr"]
    spiel_game = pyspiel.load_game("kuhn_poker")
    tabular = policy_lib.TabularPolicy(spiel_game)
    # OpenSpiel: cards 0, 1, 2 = J, Q, K; history p (pass) / b (bet); actions 0 = pass, 1 = bet
    for card, rank in (("J", "0"), ("Q", "1"), ("K", "2")):
        rows = {rank: (0, card, ("check", "bet")),
                rank + "pb": (0, card + " check bet", ("fold", "call")),
                rank + "p": (1, card + " check", ("check", "bet")),
                rank + "b": (1, card + " bet", ("fold", "call"))}
        for key, (player, infoset, actions) in rows.items():
            row = tabular.policy_for_key(key)
            row[:] = [cfr["strategies"][player][infoset][a] for a in actions]
    assert exploitability.nash_conv(spiel_game, tabular) == pytest.approx(cfr["nash_conv"], abs=1e-9)


# ---------------------------------------------------------------------------------------- notebook 6
# Hoehn's Table 4.1 (B:1020–1028), verbatim
HOEHN_TABLE_41 = {
    "S1": [0.0381, -0.1417, -0.0222, -0.0389, -0.0139, -0.1806],
    "S2": [-0.0714, 0.1, -0.0333, -0.1, -0.1111, 0.0556],
    "S3": [0.0143, 0.0917, 0.0111, -0.1056, -0.0972, -0.0139],
    "S4": [-0.2810, -0.3417, -0.2333, 0.05, 0.0139, -0.0694],
    "S5": [-0.1952, -0.35, -0.1889, 0.0444, 0.0278, -0.1389],
    "S6": [-0.3048, -0.1083, -0.2, -0.0167, -0.0694, 0.0972],
}


def test_opponent_modelling_notebook():
    summary = run_notebook("06_opponent_modelling_kuhn.ipynb")
    for s, row in HOEHN_TABLE_41.items():
        got = [float(_fraction(v)) for v in summary["table41"][s].values()]
        assert got == pytest.approx(row, abs=5e-5), s
    assert summary["closed_form_agrees"] is True
    # best responses to O1..O6 are the region strategies S1..S6 (notes §B.6 per-opponent list)
    for k in range(1, 7):
        br = summary["best_response"][f"O{k}"]
        assert br["strategy"] == f"S{k}"
        assert br["value"] == pytest.approx(max(r[k - 1] for r in HOEHN_TABLE_41.values()), abs=5e-5)
    # worst cases of the exploratory strategies (notes §B.4): −1/3, −1/2, −5/12; equilibrium −1/18
    expected = {"ExploreEta": Fraction(-1, 3), "ExploreXi": Fraction(-1, 2),
                "BalancedExplore": Fraction(-5, 12), "equilibrium γ = 1/2": Fraction(-1, 18)}
    assert {k: _fraction(v) for k, v in summary["worst_case"].items()} == expected
    # the ε-safe frontier against O2 (notes §B.7)
    frontier = {round(p["epsilon"], 6): p for p in summary["frontier"]}
    for eps, value in [(0.0, -0.0556), (0.01, -0.0416), (0.02, -0.0276), (0.05, 0.0144),
                       (0.1, 0.0844), (0.15, 0.1)]:
        assert frontier[eps]["value_vs_model"] == pytest.approx(value, abs=5e-5), eps
        assert frontier[eps]["guaranteed"] >= -1 / 18 - eps - 1e-9, eps
    assert frontier[0.15]["guaranteed"] == pytest.approx(-1 / 6, abs=1e-9)
    assert summary["full_epsilon"] == pytest.approx(1 / 9, abs=1e-6)
    assert summary["security_value"] == pytest.approx(
        float(lpgame.solve(lpgame.games.make("kuhn_poker"), exact=True).value), abs=1e-9)


# ---------------------------------------------------------------------------------------- notebook 7
def test_general_sum_equilibria_notebook():
    summary = run_notebook("07_general_sum_equilibria.ipynb")
    # von Stengel (2002), the running 3 × 2 example: its three equilibria
    third = Fraction(1, 3)
    known = {((1, 0, 0), (1, 0)), ((Fraction(4, 5), Fraction(1, 5), 0), (2 * third, third)),
             ((0, third, 2 * third), (third, 2 * third))}
    listed = {tuple(tuple(_fraction(p) for p in s) for s in e) for e in summary["equilibria"]}
    assert listed == known
    x, y = ([_fraction(p) for p in s] for s in summary["lemke_profile"])
    assert x[0] == 1 and y[0] == 1 and (tuple(x[1:]), tuple(y[1:])) in known
    assert summary["lemke_nash_conv"] == "0" and summary["lemke_pivots"] > 1
    # the degenerate variant: a segment (two extreme equilibria) and an isolated one
    assert sorted(summary["degenerate_subsets"]) == [1, 2]
    # Chicken: the mixed equilibrium pays 14/3 each; the best CE 10.5 (notebook 3)
    assert _fraction(summary["chicken_best_nash_welfare"]) == Fraction(28, 3)
    assert summary["chicken_best_ce_welfare"] == pytest.approx(10.5, abs=1e-9)
