"""Write the teaching notebooks of notebooks/ (run: ``python notebooks/make_notebooks.py``).

Each notebook is a list of Markdown and code cells written here as text and saved with nbformat
(valid .ipynb JSON, outputs cleared). The test suite (tests/test_notebooks.py) executes every
notebook with cwd = notebooks/ and compares the numbers each one prints in its last cell (one JSON
object, the notebook's *summary*) with lpgame's own results and with literature values.

1. ``01_matrix_games_as_lps``: von Neumann's LP (Rojas Linárez 2020, App. D, eq. D.8; Chvátal 1983)
   written out in Pyomo for rock-paper-scissors, ficha vs. dominó and Colonel Blotto(5, 3).
2. ``02_sequence_form_kuhn``: sequences, F, f, U, the Koller–Megiddo–von Stengel LP of Kuhn poker,
   the strategies read back (primal and duals), Kuhn's α-family of equilibria, a picture.
3. ``03_correlated_equilibria``: CE of Chicken against its Nash equilibria, EFCE, triangle-freeness.
4. ``04_lossless_abstraction``: GameShrink on Gilpin & Sandholm's toy game and on Leduc.
5. ``05_verifying_cfr``: the seed notebook's regret matching on Kuhn, what is wrong with it, its
   exploitability, and a correct CFR converging to the LP value.
6. ``06_opponent_modelling_kuhn``: best responses to Hoehn's opponents and the ε-safe frontier.
7. ``07_general_sum_equilibria``: Lemke on the sequence-form LCP pivot by pivot, all extreme
   equilibria and Nash subsets of bimatrix games, the best Nash against the best CE of Chicken.
8. ``08_refinements``: why Nash is not enough (Kuhn's "K check bet", Guess-the-Ace), the QPE
   trembling LP printed, its exact limit.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent

SETUP = '''\
# Make the checkout's lpgame importable when the notebook runs from notebooks/ without an install.
import sys
from pathlib import Path

_root = Path.cwd().resolve().parent
if (_root / "lpgame").is_dir() and str(_root) not in sys.path:
    sys.path.insert(0, str(_root))

import lpgame'''

TABLE_HELPER = '''\
from IPython.display import Markdown, display


def show_table(header, rows):
    """Display rows as a Markdown table."""
    lines = ["| " + " | ".join(str(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    display(Markdown("\\n".join(lines)))'''


def md(text: str):
    return new_markdown_cell(textwrap.dedent(text).strip())


def code(text: str):
    return new_code_cell(textwrap.dedent(text).strip())


def summary_cell(body: str):
    """The last cell: one JSON object on stdout, read by tests/test_notebooks.py."""
    return code(textwrap.dedent(body).strip()
                + "\n\nimport json\n\nprint(json.dumps(summary, indent=1, default=str))")


# ---------------------------------------------------------------------------------------- notebook 1
def matrix_games() -> list:
    return [
        md(r"""
        # 1. Matrix games as linear programs

        In a two-player zero-sum matrix game player 1 picks a row i, player 2 a column j, and player 2
        pays player 1 the amount $a_{ij}$. If player 1 mixes with probabilities $x$, a column $j$ earns
        him $\sum_i a_{ij} x_i$, and player 2 will pick the worst column for him. Player 1 therefore
        maximises the minimum over columns. Calling that minimum $z$ gives **von Neumann's LP**
        (Rojas Linárez 2020, App. D, eq. D.8, after Chvátal 1983, pp. 228–233):

        $$
        \begin{aligned}
        \max_{z,\,x}\quad & z \\
        \text{s.t.}\quad & z - \sum_i a_{ij}\,x_i \le 0
            && j = 1,\dots,n \quad\text{(guarantee against column } j)\\
        & \textstyle\sum_i x_i = 1, \quad x \ge 0, \quad z \text{ free.}
        \end{aligned}
        $$

        Its LP dual (eq. D.9) is player 2's problem $\min w$ s.t. $w - \sum_j a_{ij} y_j \ge 0$, $\sum_j
        y_j = 1$, $y \ge 0$: **the duals of the guarantee rows are player 2's optimal mix**, and
        $z^* = w^*$ is the value of the game (von Neumann's minimax theorem).

        Below the model is written out in Pyomo, by hand, for three games of the thesis, solved with
        HiGHS, and compared with `lpgame.solve`, which builds the same LP (in sequence form) and
        certifies the answer exactly in rational arithmetic.
        """),
        code(SETUP + "\n\nfrom fractions import Fraction\n\nimport numpy as np\n"
             + "import pyomo.environ as pyo\n\n" + TABLE_HELPER),
        md(r"""
        ## The three games, written from their rules

        * **Rock-paper-scissors** (Tabla 1.1): rock beats scissors, scissors beat paper, paper beats
          rock; a tie pays 0.
        * **Ficha vs. dominó** (Tabla 4.4, from Chvátal p. 237): on a 2×3 board with cells
          `1 2 3 / 4 5 6`, player 1 lays a domino on two adjacent cells (placements A–G), player 2 a
          token on one cell. Player 1 wins 1 unless the token is covered, in which case he loses 1.
        * **Colonel Blotto(S=5, N=3)**: each colonel splits 5 soldiers over 3 battlefields; player 1
          scores +1 per field where he has more soldiers and −1 per field where he has fewer. The 21
          splits are listed in lexicographic order.
        """),
        code('''
        # rock-paper-scissors
        rps_actions = ["R", "P", "S"]
        beats = {("R", "S"), ("S", "P"), ("P", "R")}
        rps = [[1 if (a, b) in beats else -1 if (b, a) in beats else 0 for b in rps_actions]
               for a in rps_actions]

        # ficha vs. dominó: the cells each placement covers
        placements = {"A": {1, 2}, "B": {4, 5}, "C": {2, 3}, "D": {5, 6},
                      "E": {1, 4}, "F": {2, 5}, "G": {3, 6}}
        cells = [1, 2, 3, 4, 5, 6]
        ficha = [[-1 if cell in covered else 1 for cell in cells] for covered in placements.values()]


        # Colonel Blotto: all splits of 5 soldiers over 3 fields, lexicographic
        def splits(soldiers, fields):
            if fields == 1:
                return [(soldiers,)]
            return [(first,) + rest for first in range(soldiers + 1)
                    for rest in splits(soldiers - first, fields - 1)]


        blotto_actions = splits(5, 3)
        blotto = [[sum(a > b for a, b in zip(mine, theirs)) - sum(a < b for a, b in zip(mine, theirs))
                   for theirs in blotto_actions] for mine in blotto_actions]

        games = {
            "rock_paper_scissors": (rps, rps_actions, rps_actions),
            "ficha_vs_domino": (ficha, list(placements), [str(c) for c in cells]),
            "colonel_blotto": (blotto, ["".join(map(str, s)) for s in blotto_actions],
                               ["".join(map(str, s)) for s in blotto_actions]),
        }
        print("Blotto has", len(blotto_actions), "pure strategies; the matrix is antisymmetric:",
              np.array_equal(np.array(blotto), -np.array(blotto).T))
        print("ficha vs. dominó, player 1's payoffs:")
        print(np.array(ficha))
        '''),
        md(r"""
        ## The Pyomo model of eq. D.8

        One `ConcreteModel` per game: index sets `I` (player 1's rows) and `J` (player 2's columns),
        the payoff parameter `a[i, j]`, the variables `x[i] ≥ 0` and `z` (free), one guarantee row per
        column, the simplex row and the objective. The `dual` suffix asks the solver for the duals.
        """),
        code('''
        def von_neumann_lp(payoffs, rows, cols, name):
            """Eq. D.8: max z  s.t.  z − Σ_i a_ij x_i ≤ 0 (each column j),  Σ_i x_i = 1,  x ≥ 0."""
            m = pyo.ConcreteModel(name=name)
            m.I = pyo.Set(initialize=rows, ordered=True)
            m.J = pyo.Set(initialize=cols, ordered=True)
            m.a = pyo.Param(m.I, m.J, initialize={(r, c): payoffs[i][j] for i, r in enumerate(rows)
                                                  for j, c in enumerate(cols)})
            m.x = pyo.Var(m.I, domain=pyo.NonNegativeReals)
            m.z = pyo.Var(domain=pyo.Reals)
            m.guarantee = pyo.Constraint(
                m.J, rule=lambda m, j: m.z - sum(m.a[i, j] * m.x[i] for i in m.I) <= 0)
            m.simplex = pyo.Constraint(expr=sum(m.x[i] for i in m.I) == 1)
            m.value = pyo.Objective(expr=m.z, sense=pyo.maximize)
            m.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
            return m


        rps_model = von_neumann_lp(rps, rps_actions, rps_actions, "rock-paper-scissors")
        rps_model.pprint()
        '''),
        md(r"""
        Pyomo talks to HiGHS through `highspy`; depending on the Pyomo version the interface is
        called `appsi_highs` or `highs`, so take the first that is available.
        """),
        code('''
        def highs_solver():
            for name in ("appsi_highs", "highs"):
                solver = pyo.SolverFactory(name)
                if solver.available(exception_flag=False):
                    return name, solver
            raise RuntimeError("no HiGHS interface in Pyomo: pip install highspy")


        solver_name, solver = highs_solver()
        print("Pyomo solver:", solver_name)

        pyomo_results = {}
        for name, (payoffs, rows, cols) in games.items():
            model = von_neumann_lp(payoffs, rows, cols, name)
            status = solver.solve(model)
            assert str(status.solver.termination_condition) == "optimal", status
            x = {i: pyo.value(model.x[i]) for i in model.I}
            y = {j: model.dual[model.guarantee[j]] for j in model.J}   # player 2's mix (eq. D.9)
            pyomo_results[name] = {"value": pyo.value(model.z) + 0.0, "x": x, "y": y}   # + 0.0: no −0
            support = {k: round(v, 4) for k, v in x.items() if v > 1e-9}
            print(f"{name:22s} z* = {pyo.value(model.z) + 0.0: .6f}   player 1 plays {support}")
        '''),
        md(r"""
        The duals of the guarantee rows form a probability vector (they sum to 1 because $z$ has
        coefficient 1 in every row): player 2's optimal mix, without solving a second LP.
        """),
        code('''
        for name, r in pyomo_results.items():
            y = {j: round(v, 4) for j, v in r["y"].items() if abs(v) > 1e-9}
            print(f"{name:22s} Σ y = {sum(r['y'].values()):.6f}   player 2 plays {y}")
        '''),
        md(r"""
        ## The same games in lpgame

        `lpgame.solve` takes the catalog's version of each game (check that it is the same matrix),
        turns the normal form into a one-move extensive game, writes the sequence-form LP (for a
        one-move game it *is* eq. D.8), solves it with HiGHS and, with `exact=True`, re-solves the
        optimal basis in rationals and certifies it: the value comes back as a `Fraction` and the
        certificate's NashConv is exactly 0.
        """),
        code('''
        catalog = {"rock_paper_scissors": lpgame.games.make("rock_paper_scissors"),
                   "ficha_vs_domino": lpgame.games.make("ficha_vs_domino"),
                   "colonel_blotto": lpgame.games.make("colonel_blotto", S=5, N=3)}
        lpgame_results = {}
        for name, game in catalog.items():
            same = np.array_equal(game.payoff_array(0).astype(float), np.array(games[name][0], dtype=float))
            result = lpgame.solve(game, exact=True)
            lpgame_results[name] = result
            print(f"{name:22s} same matrix: {same}   value {result.value}   "
                  f"NashConv {result.certificate.nash_conv}   LP {result.size}")
        '''),
        md(r"""
        ## Comparing the two answers

        The values agree: **0, 1/3 and 0**. The strategies need not: in ficha vs. dominó and in
        Blotto the optimal strategies form a polytope and the two LPs may stop at different vertices.
        Any optimal strategy of player 1 must *guarantee* the value, i.e. every column of
        $x^\top A$ is at least $z^*$. Check it for both answers, exactly for lpgame's.
        """),
        code('''
        def guarantee(payoffs, mix):
            """min over columns of Σ_i x_i a_ij: what the mix earns against the worst reply."""
            return min(sum(p * row[j] for p, row in zip(mix, payoffs)) for j in range(len(payoffs[0])))


        rows_out = []
        for name, (payoffs, rows, cols) in games.items():
            result = lpgame_results[name]
            exact_mix = list(result.strategies[0][catalog[name].infoset_label(0)].values())
            pyomo_mix = list(pyomo_results[name]["x"].values())
            rows_out.append((name, f"{pyomo_results[name]['value']:.9f}", result.value,
                             f"{guarantee(payoffs, pyomo_mix) + 0.0:.9f}", guarantee(payoffs, exact_mix)))
        show_table(["game", "Pyomo z*", "lpgame exact value", "guarantee of Pyomo's x",
                    "guarantee of lpgame's x (exact)"], rows_out)
        '''),
        md(r"""
        Two facts from the thesis, checked exactly: in ficha vs. dominó, laying the domino on A, B
        and G with probability 1/3 each (eq. 4.15) is optimal; in Blotto, the uniform mix over the
        nine permutations of (0,2,3) and (1,1,3) (the support of the thesis's Tabla F.7) guarantees 0.
        """),
        code('''
        third = Fraction(1, 3)
        ficha_thesis = [third if p in "ABG" else Fraction(0) for p in placements]
        blotto_support = [s for s in blotto_actions if sorted(s) in ([0, 2, 3], [1, 1, 3])]
        blotto_uniform = [Fraction(1, len(blotto_support)) if s in blotto_support else Fraction(0)
                          for s in blotto_actions]
        print("ficha, thesis strategy guarantees", guarantee(ficha, ficha_thesis))
        print("Blotto, uniform on", len(blotto_support), "splits guarantees",
              guarantee(blotto, blotto_uniform))
        '''),
        summary_cell('''
        summary = {
            "solver": solver_name,
            "games": {name: {"pyomo_value": pyomo_results[name]["value"],
                             "pyomo_x": pyomo_results[name]["x"],
                             "pyomo_y": pyomo_results[name]["y"],
                             "lpgame_value": lpgame_results[name].value,
                             "lpgame_nash_conv": lpgame_results[name].certificate.nash_conv}
                      for name in games},
            "ficha_thesis_guarantee": guarantee(ficha, ficha_thesis),
            "blotto_uniform_guarantee": guarantee(blotto, blotto_uniform),
            "blotto_support_size": len(blotto_support),
        }'''),
    ]


# ---------------------------------------------------------------------------------------- notebook 2
def sequence_form_kuhn() -> list:
    return [
        md(r"""
        # 2. The sequence form of Kuhn poker

        **Kuhn poker** (Kuhn 1950; Hoehn 2006 §2.3; Rojas Linárez 2020 Tabla 2.1): a deck J < Q < K,
        each player antes 1 and gets one card. Player 1 checks or bets 1; after a check, player 2
        checks (showdown for 1) or bets, and player 1 then folds or calls (showdown for 2); after a
        bet, player 2 folds or calls (showdown for 2). The value is −1/18 for player 1.

        A game tree is exponentially smaller than its normal form, and the **sequence form**
        (Koller, Megiddo & von Stengel 1996; von Stengel 1996) keeps the LP the size of the tree.
        This notebook builds it step by step: the sequences, the constraints $Fx = f$, the payoff
        matrix $U$, the LP, the strategies read back from the primal and the dual, and Kuhn's family
        of equilibria for player 1.
        """),
        code(SETUP + "\n\nfrom fractions import Fraction\n\nimport numpy as np\n\n" + TABLE_HELPER),
        md(r"""
        ## Sequences

        A *sequence* of a player is the list of that player's own (information set, action) pairs on
        the way to a node; with perfect recall it is identified by its last pair $ja$, plus the empty
        sequence ∅. Kuhn poker has 6 information sets and 13 sequences per player (Hoehn B.1).
        """),
        code('''
        game = lpgame.games.make("kuhn_poker")
        sf = lpgame.compile_game(game)
        for i in range(2):
            print(f"{game.player_names[i]}: {sf.num_infosets(i)} information sets, "
                  f"{sf.num_sequences(i)} sequences")
            print("   ", sf.sequence_labels(i))
        '''),
        md(r"""
        ## The treeplex $F x = f$

        A *realization plan* $x$ gives each sequence the probability that the player's own choices
        follow it. Behavioural probabilities $b$ become a plan by $x[ja] = x[p_j]\,b[ja]$ and the
        plans are exactly the vectors with (Farina 2023, §2.1)

        $$ x[\emptyset] = 1, \qquad \sum_{a \in A_j} x[ja] = x[p_j]
           \ \ \text{for every information set } j, \qquad x \ge 0, $$

        written $F x = f$: one row for ∅ and one per information set, $f = e_0$.
        """),
        code('''
        F1 = sf.treeplex_matrix(0).toarray().astype(int)
        f1 = sf.treeplex_rhs(0).astype(int)
        row_names = ["∅"] + sf.infoset_labels(0)
        show_table(["row"] + sf.sequence_labels(0) + ["f"],
                   [[name] + [v if v else "" for v in F1[r]] + [f1[r]] for r, name in enumerate(row_names)])
        '''),
        md(r"""
        ## The payoff matrix $U$

        Each leaf $z$ is reached by one sequence of each player, $(\sigma_1(z), \sigma_2(z))$; it adds
        chance's probability times player 1's payoff to that entry:
        $U[\sigma_1, \sigma_2] = \sum_{z} p_c(z)\, u_1(z)$, so that $u_1(x, y) = x^\top U y$.
        The matrix is 13×13 but has only as many nonzeros as there are leaves (30). Here it is in
        exact fractions (zeros left blank):
        """),
        code('''
        U_exact = sf.payoff_matrix_exact(0)
        U = [[Fraction(0)] * sf.num_sequences(1) for _ in range(sf.num_sequences(0))]
        for r, c, v in zip(U_exact.rows.tolist(), U_exact.cols.tolist(), U_exact.data):
            U[r][c] = v
        seq1, seq2 = sf.sequence_labels(0), sf.sequence_labels(1)
        show_table(["player 1 ↓ , player 2 →"] + seq2,
                   [[seq1[r]] + [v if v else "" for v in U[r]] for r in range(len(seq1))])
        print("nonzeros:", U_exact.nnz, "  leaves:", len(sf.terminal_payoffs))
        '''),
        md(r"""
        ## The LP

        Player 1 maximises $\min_{y \in Q_2} x^\top U y$. The inner minimum is an LP over $F_2 y = f_2$,
        $y \ge 0$; replacing it by its dual (one free variable $v_j$ per information set of player 2,
        plus $v_\emptyset$) gives one LP (Koller, Megiddo & von Stengel 1996; notes farina §1.4):

        $$ \max_{x, v}\ f_2^\top v \quad\text{s.t.}\quad F_1 x = f_1,\quad F_2^\top v - U^\top x \le 0,
           \quad x \ge 0,\ v \text{ free}. $$

        `lpgame` writes it block by block with `LinearProgram`; `describe()` prints the blocks and
        `to_latex(rows=True)` prints every row with the sequences' names.
        """),
        code('''
        from IPython.display import Math

        from lpgame.equilibria.zero_sum.security import security_lp

        lp = security_lp(sf, player=0).lp
        print(lp.describe())
        display(Math(lp.to_latex()))
        '''),
        code('''
        latex_rows = lp.to_latex(rows=True)
        display(Math(latex_rows))
        print(len(latex_rows.splitlines()) - 3, "rows printed")
        '''),
        md(r"""
        ## Solving and reading the strategies back

        HiGHS solves the 20×20 LP. $v_\emptyset$ is the value. Player 1's plan $x$ is the primal
        solution; **player 2's plan is the dual of the `best_response` rows** (one row per sequence of
        player 2, and the duals satisfy $F_2 y = f_2$). Dividing each sequence by its parent turns
        plans back into behavioural strategies: $b[ja] = x[ja] / x[p_j]$.
        """),
        code('''
        from lpgame.lp import solve_lp

        solution = solve_lp(lp)
        x = solution.values("x")
        v = solution.values("v")
        y = solution.duals("best_response")
        print("v[∅] =", v[0], "  (−1/18 =", -1 / 18, ")")
        print("F_2 y − f_2 =", sf.treeplex_matrix(1) @ y - sf.treeplex_rhs(1))
        show_table(["player 1 sequence", "x", "player 2 sequence", "y (duals)"],
                   [(seq1[k], round(x[k], 6) + 0.0, seq2[k], round(y[k], 6) + 0.0) for k in range(len(seq1))])
        '''),
        code('''
        b1, _ = sf.behaviour_from_plan(0, x)
        b2, _ = sf.behaviour_from_plan(1, y)
        lp_strategies = [sf.strategy_to_dict(0, b1.tolist()), sf.strategy_to_dict(1, b2.tolist())]
        exact = lpgame.solve(game, exact=True)
        print("lpgame.solve(exact=True): value", exact.value, "  NashConv", exact.certificate.nash_conv)
        for i in range(2):
            show_table([game.player_names[i] + " information set", "our LP", "lpgame.solve (exact)"],
                       [(j, {a: round(p, 4) for a, p in lp_strategies[i][j].items()},
                         {a: str(p) for a, p in exact.strategies[i][j].items()}) for j in lp_strategies[i]])
        '''),
        md(r"""
        ## The α-family of player 1's equilibria

        Player 2's equilibrium is unique; player 1's is not. Kuhn showed (Hoehn B:468; Rojas Linárez
        Tabla 2.5) that player 1's equilibria are, for $\alpha \in [0, 1/3]$:

        * with J: bet (bluff) with probability α; after check–bet always fold;
        * with Q: always check; after check–bet call with probability α + 1/3;
        * with K: bet with probability 3α; after check–bet always call;

        and player 2's: with K always bet or call; with Q check after a check and call a bet with
        probability 1/3; with J fold to a bet and bluff with probability 1/3 after a check.
        Evaluating the profile exactly (`lpgame.evaluate(..., exact=True)`, best responses computed
        bottom-up in fractions, no LP) shows NashConv exactly 0 for every α.
        """),
        code('''
        third = Fraction(1, 3)


        def kuhn_profile(alpha, bet_k=None):
            """Kuhn's equilibrium with bluff α (bet_k = 3α unless given) and player 2's unique one."""
            bet_k = 3 * alpha if bet_k is None else bet_k
            player1 = {"J": {"check": 1 - alpha, "bet": alpha}, "J check bet": {"fold": 1, "call": 0},
                       "Q": {"check": 1, "bet": 0},
                       "Q check bet": {"fold": 1 - (alpha + third), "call": alpha + third},
                       "K": {"check": 1 - bet_k, "bet": bet_k}, "K check bet": {"fold": 0, "call": 1}}
            player2 = {"Q check": {"check": 1, "bet": 0}, "Q bet": {"fold": 1 - third, "call": third},
                       "K check": {"check": 0, "bet": 1}, "K bet": {"fold": 0, "call": 1},
                       "J check": {"check": 1 - third, "bet": third}, "J bet": {"fold": 1, "call": 0}}
            return [player1, player2]


        family = {}
        for alpha in [Fraction(0), Fraction(1, 12), Fraction(1, 6), Fraction(1, 4), Fraction(1, 3)]:
            evaluation = lpgame.evaluate(game, kuhn_profile(alpha), exact=True)
            family[str(alpha)] = {"value": evaluation.values[0], "nash_conv": evaluation.nash_conv}
        show_table(["α", "value for player 1", "NashConv (exact)"],
                   [(a, r["value"], r["nash_conv"]) for a, r in family.items()])
        '''),
        md(r"""
        The link between the bluff and the K-bet matters: keep α = 1/6 but always bet the K, and
        player 2 can exploit it (a positive NashConv). The family is also in lpgame
        (`lpgame.games.kuhn_family.kuhn_equilibrium(alpha)`); the two write the same strategies.
        """),
        code('''
        from lpgame.games.kuhn_family import kuhn_equilibrium

        off_family = lpgame.evaluate(game, kuhn_profile(Fraction(1, 6), bet_k=Fraction(1)), exact=True)
        print("α = 1/6 with K always betting: NashConv", off_family.nash_conv,
              "  gains", off_family.best_response_gain)
        same_as_lpgame = all(kuhn_profile(Fraction(k, 12)) == kuhn_equilibrium(Fraction(k, 12))
                             for k in range(5))
        print("same strategies as lpgame.games.kuhn_family:", same_as_lpgame)
        '''),
        md(r"""
        ## A picture

        `lpgame.draw.draw_tree` draws the tree (chance as a circle, player 1 blue squares, player 2 red
        squares, information sets joined by dashed arcs) with the equilibrium's probability on every
        edge; `lpgame draw kuhn_poker --out kuhn.png` does the same from the command line. The exact
        LP lands on α = 0: player 1 never bets first, calls with Q a third of the time; player 2
        bluffs with J a third of the time and calls with Q a third of the time.
        """),
        code('''
        import tempfile
        from pathlib import Path

        from IPython.display import Image

        from lpgame.draw import draw_strategy_heatmap, draw_tree

        picture_dir = Path(tempfile.mkdtemp())
        tree_png = picture_dir / "kuhn_equilibrium.png"
        draw_tree(game, exact.strategies, tree_png, title=f"Kuhn poker, an equilibrium (value {exact.value})")
        display(Image(filename=str(tree_png)))
        heat_png = picture_dir / "kuhn_player1.png"
        draw_strategy_heatmap(exact.strategies[0], heat_png, title="player 1")
        display(Image(filename=str(heat_png)))
        '''),
        summary_cell('''
        summary = {
            "num_sequences": [sf.num_sequences(0), sf.num_sequences(1)],
            "treeplex_shape": list(F1.shape),
            "payoff_nnz": U_exact.nnz,
            "lp_size": lp.size(),
            "lp_value": float(v[0]),
            "exact_value": exact.value,
            "lp_strategies": lp_strategies,
            "family": family,
            "off_family_nash_conv": off_family.nash_conv,
            "same_as_lpgame_family": same_as_lpgame,
            "picture_bytes": tree_png.stat().st_size,
        }'''),
    ]


# ---------------------------------------------------------------------------------------- notebook 3
def correlated_equilibria() -> list:
    return [
        md(r"""
        # 3. Correlated equilibria

        A **correlated equilibrium** (Aumann 1974; Rojas Linárez 2020, Def. 1.12) lets a mediator
        draw a joint profile $s$ from a distribution $\psi$ and whisper to each player only their own
        part. $\psi$ is an equilibrium when following the recommendation is a best response: for every
        player $i$ and actions $x \ne y$,

        $$ \sum_{s_{-i}} \psi(x, s_{-i})\,\big[u_i(x, s_{-i}) - u_i(y, s_{-i})\big] \ \ge\ 0 . $$

        These are linear inequalities in $\psi$, so the set of correlated equilibria is a polytope and
        the *best* one for any linear objective (welfare, one player's payoff) is one LP. Every Nash
        equilibrium is a correlated equilibrium (a product distribution; Thm 1.13), so correlation can
        only add options. This notebook shows that on Chicken, moves to extensive games (EFCE,
        Farina 2023 Ch. 8–9) and shows why their LP is exact only in *triangle-free* games.
        """),
        code(SETUP + "\n\nfrom fractions import Fraction\n\nimport numpy as np\n\n" + TABLE_HELPER),
        md(r"""
        ## Chicken and its Nash equilibria

        Aumann's Chicken: each driver chickens out (C) or dares (D); payoffs (row, column)
        (C,C) = (6,6), (C,D) = (2,7), (D,C) = (7,2), (D,D) = (0,0). Its Nash equilibria, by hand:
        the two pure ones (C,D) and (D,C), and the mixed one where each player is indifferent,
        $6q + 2(1-q) = 7q$, i.e. $q = P(C) = 2/3$, paying $14/3$ each.
        """),
        code('''
        chicken = lpgame.games.make("chicken")
        u1 = [[Fraction(6), Fraction(2)], [Fraction(7), Fraction(0)]]
        u2 = [[Fraction(6), Fraction(7)], [Fraction(2), Fraction(0)]]
        assert np.array_equal(chicken.payoff_array(0).astype(float), np.array(u1, dtype=float))
        q = Fraction(2, 3)                    # P(C) in the mixed equilibrium: 6q + 2(1 − q) = 7q
        assert 6 * q + 2 * (1 - q) == 7 * q
        nash = {"(C,D)": [[0, 1], [0, 0]], "(D,C)": [[0, 0], [1, 0]],
                "mixed": [[q * q, q * (1 - q)], [(1 - q) * q, (1 - q) * (1 - q)]]}


        def payoffs_of(psi):
            return [sum(psi[a][b] * u[a][b] for a in range(2) for b in range(2)) for u in (u1, u2)]


        show_table(["Nash equilibrium", "payoffs", "welfare"],
                   [(name, [str(v) for v in payoffs_of(psi)], sum(payoffs_of(psi)))
                    for name, psi in nash.items()])
        '''),
        md(r"""
        ## The CE linear program

        Four variables ψ(C,C), ψ(C,D), ψ(D,C), ψ(D,D), the probability row, and one incentive row per
        player and ordered pair of actions (here 2 + 2). `lpgame.equilibria.correlated.ce_cce.correlated_lp`
        writes it; `to_latex(rows=True)` prints it row by row.
        """),
        code('''
        from IPython.display import Math

        from lpgame.equilibria.correlated.ce_cce import as_strategic_form, correlated_lp

        ce_lp = correlated_lp(as_strategic_form(chicken), "ce", objective="welfare")
        print(ce_lp.describe())
        display(Math(ce_lp.to_latex(rows=True)))
        '''),
        md(r"""
        `lpgame.solve(game, concept="ce", objective="welfare")` solves it. The gap it reports is
        computed independently of the LP (`lpgame.analysis.correlated_gaps.ce_gap`: the largest gain
        of any "told x, play y" deviation). The welfare-optimal CE puts 1/2 on (C,C) and 1/4 on each
        of (C,D), (D,C): total 10.5, more than any Nash equilibrium (at most 28/3). Aumann's own
        example, 1/3 on each of (C,C), (C,D), (D,C), is a CE too, paying 5 each.
        """),
        code('''
        from lpgame.analysis.correlated_gaps import ce_gap

        best_ce = lpgame.solve(chicken, concept="ce", objective="welfare")
        print(best_ce.summary())
        aumann = np.array([[1, 1], [1, 0]]) / 3
        print("Aumann's CE: gap", ce_gap(chicken, aumann).gap, " payoffs",
              [float(np.sum(aumann * chicken.payoff_array(i).astype(float))) for i in range(2)])
        print("Nash equilibria are CE: gaps",
              [ce_gap(chicken, np.array(psi, dtype=float)).gap for psi in nash.values()])
        '''),
        md(r"""
        ## The CE payoff region against the Nash payoffs

        Maximising $w_1 u_1 + w_2 u_2$ over the CE polytope for many directions $w$ traces the set
        of payoffs correlated equilibria can reach; the Nash payoffs lie inside it.
        """),
        code('''
        import matplotlib.pyplot as plt

        angles = np.linspace(0, 2 * np.pi, 25)[:-1]
        region = []
        for t in angles:
            r = lpgame.solve(chicken, concept="ce", objective=(float(np.cos(t)), float(np.sin(t))))
            region.append(r.payoffs)
        region = np.array(region + region[:1])
        fig, ax = plt.subplots(figsize=(4.5, 4.5))
        ax.plot(region[:, 0], region[:, 1], "-o", markersize=3, label="CE payoffs (boundary)")
        for name, psi in nash.items():
            ax.plot(*[float(v) for v in payoffs_of(psi)], "rs")
            ax.annotate(name, [float(v) for v in payoffs_of(psi)], textcoords="offset points", xytext=(4, 4))
        ax.plot(*best_ce.payoffs, "k*", markersize=12, label="welfare-optimal CE")
        ax.set(xlabel="u₁", ylabel="u₂", title="Chicken")
        ax.legend(fontsize=8)
        fig.tight_layout()
        display(fig)
        plt.close(fig)
        '''),
        md(r"""
        ## Extensive games: EFCE and its neighbours

        In a game tree the mediator could recommend a whole plan at the start (normal-form CE of the
        reduced normal form, **NFCE**), but plans are exponentially many. An **extensive-form
        correlated equilibrium** (von Stengel & Forges 2008; Farina 2023 Def. 8.2) reveals each
        recommendation only when the player reaches the decision; a player who deviates gets no
        further recommendations. Weaker deviation rules give **EFCCE** (decide to deviate on reaching
        the decision, before hearing the recommendation) and **NFCCE** (decide at the start, ignoring
        everything). The sets are nested, NFCE ⊆ EFCE ⊆ EFCCE ⊆ NFCCE, so the best payoff a player
        can get grows along the chain.

        The EFCE LP (Farina 2023, Prop. 9.1) works with a **correlation plan** ξ[σ₁, σ₂], the
        probability that both sequences are recommended, over *relevant* pairs only, constrained by
        the von Stengel–Forges polytope 𝒱, plus one dualised best-deviation block per trigger.

        **Sheriff** (Farina 2023 App. A.1.9) with at most 2 illegal items, bribes 0 or 1 and one
        round: the Smuggler loads 0–2 items unseen, offers a bribe, the Sheriff accepts (takes the
        bribe, no inspection) or inspects (fine 1 per item found, or pays 1 compensation if none).
        Maximising the Smuggler's payoff:
        """),
        code('''
        sheriff = lpgame.games.make("sheriff", N=2, B=1, rounds=1)
        hierarchy = {}
        for concept in ("ce", "efce", "efcce", "nfcce"):
            r = lpgame.solve(sheriff, concept=concept, objective="player1")
            hierarchy[concept] = {"objective": r.objective, "payoffs": r.payoffs, "gap": r.gap,
                                  "optimal": r.optimal, "size": r.size}
        show_table(["concept", "Smuggler's best payoff", "Sheriff then gets", "gap (independent)", "optimal",
                    "LP rows × cols"],
                   [("NFCE" if c == "ce" else c.upper(), f"{h['objective']:.6f}", f"{h['payoffs'][1]:.6f}",
                     f"{h['gap']:.1e}", h["optimal"], f"{h['size']['rows']} × {h['size']['cols']}")
                    for c, h in hierarchy.items()])
        '''),
        code('''
        efce = lpgame.solve(sheriff, concept="efce", objective="player1")
        print(efce.summary(max_entries=8))
        '''),
        md(r"""
        ## Why triangle-freeness matters

        The true set of correlation plans Ξ = {f(μ)} is always inside 𝒱, but it can be smaller: then
        the LP over 𝒱 is only a **relaxation** — its optimum is an upper bound and its ξ may not come
        from any distribution over plan pairs. Farina (2023, Thms 9.1–9.5) shows Ξ = 𝒱 exactly when
        the game is **triangle-free** (Def. 9.5): there are never two sibling decision points of
        player 1 and two of player 2 connected as j₁ ⇌ j₂, j₁ ⇌ j₂′, j₁′ ⇌ j₂′. Games without chance
        (Sheriff) or with public chance only are triangle-free (Thm 9.2); Kuhn poker, with private
        cards, is not.
        """),
        code('''
        from lpgame.equilibria.correlated.efce import CorrelationPlanSpace

        kuhn = lpgame.games.make("kuhn_poker")
        kuhn_space = CorrelationPlanSpace(lpgame.compile_game(kuhn))
        sheriff_space = CorrelationPlanSpace(lpgame.compile_game(sheriff))
        print("Sheriff triangle-free:", sheriff_space.triangle_free)
        print("Kuhn triangle-free:", kuhn_space.triangle_free, "  witness (j1, j2, j1', j2'):",
              kuhn_space.triangle())
        print("relevant pairs in Kuhn:", kuhn_space.num_pairs, "of", 13 * 13)
        '''),
        md(r"""
        A concrete separation in Kuhn. Player 1's first decisions with J, Q, K and player 2's
        decisions after a check holding Q, K, J are connected in a cycle
        J ⇌ (Q check) ⇌ K ⇌ (J check) ⇌ Q ⇌ (K check) ⇌ J (each pair can meet in one deal).
        Score one point per edge where the two recommended actions *agree* (check/check or bet/bet),
        except on the last edge, J ⇌ (K check), where they must *disagree*. Around a cycle with an odd
        number of "disagree" edges no pair of pure plans satisfies all six, so over Ξ the best score is
        5. Over 𝒱, ξ can put 1/2 on every rewarded pair and score 6: 𝒱 ⊋ Ξ, and lpgame's decomposition
        LP (min ‖f(μ) − ξ‖₁) confirms that this ξ is not realisable.
        """),
        code('''
        from itertools import product

        from lpgame.equilibria.correlated.efce import decompose_plan
        from lpgame.lp import LinearProgram, solve_lp

        cycle = [("J", "Q check", "agree"), ("K", "Q check", "agree"), ("K", "J check", "agree"),
                 ("Q", "J check", "agree"), ("Q", "K check", "agree"), ("J", "K check", "disagree")]
        actions = ("check", "bet")

        # over Ξ: the best pure plan pair (only these six decisions matter), by enumeration
        def score(choice):
            return sum((choice[a] == choice[b]) == (rule == "agree") for a, b, rule in cycle)

        points = sorted({a for a, _, _ in cycle} | {b for _, b, _ in cycle})
        pure_best = max(score(dict(zip(points, c))) for c in product(actions, repeat=len(points)))

        # over 𝒱: one LP
        labels = {pair: k for k, pair in enumerate(kuhn_space.pair_labels())}
        c = np.zeros(kuhn_space.num_pairs)
        for a, b, rule in cycle:
            for x in actions:
                for y in actions:
                    if (x == y) == (rule == "agree"):
                        c[labels[(f"{a}:{x}", f"{b}:{y}")]] = 1.0
        matrix, rhs, _ = kuhn_space.polytope()
        relaxation = LinearProgram(name="frustrated cycle over V")
        xi = relaxation.add_variables("xi", kuhn_space.num_pairs, lower=0.0)
        relaxation.add_constraints("von_stengel_forges", [(xi, matrix)], "==", rhs)
        relaxation.set_objective([(xi, c)], "max")
        solution = solve_lp(relaxation)
        decomposition = decompose_plan(lpgame.compile_game(kuhn), solution.values("xi"), kuhn_space)
        print("best over pure plan pairs (Ξ):", pure_best)
        print("best over the relaxation 𝒱:  ", solution.objective)
        print("distance of that ξ from Ξ (‖f(μ) − ξ‖₁):", round(decomposition.residual, 6),
              "  realisable:", decomposition.realisable)
        '''),
        md(r"""
        So on Kuhn poker the EFCE LP is only a relaxation, and lpgame, when the game is small enough,
        tries to decompose the plan it found: a realisable plan proves the bound is attained, and the
        result then says `optimal=True` ("optimal (the relaxation's bound is attained ...)"); without
        the decomposition it says "upper bound (relaxation)". In a two-player zero-sum game like Kuhn every correlated equilibrium
        pays the value, and indeed the relaxation's optimum is realisable there:
        """),
        code('''
        kuhn_efce = lpgame.solve(kuhn, concept="efce", objective="player1")
        print(kuhn_efce.bound, "| payoffs", [round(p, 6) for p in kuhn_efce.payoffs], "| realisable:",
              kuhn_efce.realisable, "| value −1/18 =", round(-1 / 18, 6))
        '''),
        summary_cell('''
        summary = {
            "nash_welfare": {name: sum(payoffs_of(psi)) for name, psi in nash.items()},
            "best_ce": {"objective": best_ce.objective, "payoffs": best_ce.payoffs, "gap": best_ce.gap,
                        "distribution": best_ce.distribution},
            "aumann_gap": ce_gap(chicken, aumann).gap,
            "hierarchy": {c: {"objective": h["objective"], "gap": h["gap"], "optimal": h["optimal"]}
                          for c, h in hierarchy.items()},
            "efce_realisable": efce.realisable,
            "triangle_free": {"sheriff": sheriff_space.triangle_free, "kuhn": kuhn_space.triangle_free},
            "cycle": {"pure_best": pure_best, "relaxation": solution.objective,
                      "residual": decomposition.residual, "realisable": decomposition.realisable},
            "kuhn_efce": {"optimal": kuhn_efce.optimal, "payoffs": kuhn_efce.payoffs,
                          "realisable": kuhn_efce.realisable},
        }'''),
    ]


# ---------------------------------------------------------------------------------------- notebook 4
def lossless_abstraction() -> list:
    return [
        md(r"""
        # 4. Lossless abstraction

        Many signals (cards) play exactly the same role: in a deck with two Jacks and two Kings,
        holding J♠ or J♥ makes no difference to anything that can happen. Gilpin & Sandholm
        (*Finding equilibria in large sequential games of imperfect information*, EC'06;
        notes/gameshrink-and-hoehn.md Part A) merge such signals before solving: **GameShrink** finds
        every pair of sibling signals whose subtrees of the *signal tree* are **ordered game
        isomorphic** (Def. 5: a bijection of their children with equal probabilities and recursively
        isomorphic subtrees; at the leaves, equal payoffs for every betting history) and merges them.
        **Theorem 2**: any Nash equilibrium of the smaller, filtered game, copied to every merged
        signal, is a Nash equilibrium of the original game — the abstraction is *lossless*.

        lpgame implements this in `lpgame.abstraction`: games with ordered signals (Def. 1), the
        signal tree (Def. 4), Algorithms 1 and 2, and lifting. This notebook runs it on the paper's toy
        game (Fig. 1), shows a pitfall (a merge found between siblings is not yet an information
        filter), and shrinks Leduc poker; Theorem 2 is checked by best responses in the original games.
        """),
        code(SETUP + "\n\nfrom fractions import Fraction\n\n" + TABLE_HELPER),
        md(r"""
        ## The toy game of Figure 1

        A deck J1, J2, K1, K2. Player 1 gets a card (1/4 each), player 2 one of the other three (1/3
        each). Kuhn's betting (check or bet 1; facing a bet, fold or call): after check–check the higher
        rank wins 1, after a called bet 2, a fold loses 1, equal ranks tie. In lpgame it is a *game
        with ordered signals*: a deck, one round with one private card each, limit betting and a
        hand-strength function (here the rank). It is compiled to the sequence form by broadcasting
        the deals against the betting tree, without building the game tree:
        """),
        code('''
        from lpgame.abstraction import gameshrink

        toy = lpgame.games.make("gameshrink_toy")
        original = toy.compile()
        sizes = original.sizes()
        internal = sizes["internal_nodes"]
        print(toy)
        print(sizes)
        '''),
        md(r"""
        ## GameShrink on its signal tree

        The signal tree has the root, player 1's card (level 1) and player 2's card (level 2, the
        leaves). `game_shrink_signal_tree` is Algorithm 2 with the literal Algorithm 1: for every
        pair of siblings, a bipartite graph of their children (an edge when the probabilities are equal
        and the subtrees isomorphic, recursively; at the leaves, equal payoffs for every betting
        history), a perfect matching (networkx), and union-find merges. lpgame's fast path gets the
        same classes from bottom-up canonical forms (two subtrees are isomorphic exactly when their
        multisets of (probability, child's class) agree).
        """),
        code('''
        from lpgame.abstraction.signal_tree import (
            canonical_classes,
            game_shrink_signal_tree,
            sibling_classes_fast,
        )

        literal = game_shrink_signal_tree(toy)
        assert literal == sibling_classes_fast(toy, canonical_classes(toy))
        names = toy.signals


        def named(classes):
            return [[names[c] for c in cls] for cls in classes]


        filters = {"player 1's card": named(literal[1][()])}
        for card in range(4):
            filters[f"player 2's card after {names[card]}"] = named(literal[2][(card,)])
        show_table(["level", "classes"], [(k, v) for k, v in filters.items()])
        '''),
        md(r"""
        The classes are those of Figure 1: player 1's J1 ~ J2 and K1 ~ K2; below player 1's J1 the two
        Kings merge, below K1 the two Jacks. These merges are between *siblings*, but player 2 does not
        see player 1's card: an information filter must treat a view of player 2 (here just the own
        card) the same in every context player 2 cannot tell apart. `gameshrink` therefore turns the
        merges into a partition of each player's views and refines it until it is provably lossless
        (the argument is in `lpgame/abstraction/gameshrink.py`). Here both players end with
        {J1, J2}, {K1, K2}; in the filtered game player 1 gets J or K with 1/2 each, then player 2 the
        other Jack with 1/3 or a King with 2/3 (after a J), or a Jack with 2/3 or the other King with
        1/3 (after a K).
        """),
        code('''
        shrunk = gameshrink(toy)
        abstract = shrunk.compile()
        abstract_sizes = abstract.sizes()
        abstract_internal = abstract_sizes["internal_nodes"]
        print(shrunk.message)
        chance, _ = abstract.index.exact_terminal_data()
        print("chance of the abstract deals:", sorted({str(p) for p in chance}))
        show_table(["", "inner nodes", "all nodes", "sequences per player", "LP rows × cols"],
                   [(g.name, g.sizes()["internal_nodes"], g.sizes()["nodes"], g.sizes()["sequences"],
                     "{rows} × {cols}".format(**lpgame.solve(g).size)) for g in (original, abstract)])
        '''),
        md(r"""
        "The algorithm reduces the game tree from 53 nodes to 19 nodes" (the paper counts inner
        nodes). Now Theorem 2: `lpgame.solve(..., abstraction="gameshrink")` solves the small game,
        copies its strategy to every member of each class (J1 and J2 play what J plays) and computes
        the certificate — best responses — *exactly* in the original game.
        """),
        code('''
        lifted = lpgame.solve(toy, abstraction="gameshrink", exact=True)
        original_solution = lpgame.solve(original, exact=True)
        abstract_solution = lpgame.solve(abstract, exact=True)
        toy_check = lpgame.evaluate(original, lifted.strategies, exact=True)
        print("abstract game value:", abstract_solution.value,
              "  original game value:", original_solution.value)
        print("lifted profile in the original game: values", [str(v) for v in toy_check.values],
              " NashConv", toy_check.nash_conv)
        show_table(["player 1's information set", "check/fold", "bet/call"],
                   [(k, *[str(p) for p in row.values()]) for k, row in lifted.strategies[0].items()])
        '''),
        md(r"""
        ## The pitfall: sibling merges are not yet a filter

        In Kuhn poker (J < Q < K, all ranks distinct) the literal Algorithm 2 still finds merges:
        below player 1's J, player 2's Q and K are isomorphic siblings (both win every showdown). But
        player 2 holding a Q cannot tell whether player 1 holds the J or the K, so no partition of
        player 2's views contains that merge: the sound filter is the identity, and lpgame says so.

        A second trap: matching *contexts* is not enough either. In Leduc, player 1's J with a Q on the
        board and with a K on the board lose and tie with the same probabilities, so GameShrink's
        matching merges them — but player 2's information sets tell the two boards apart. Without
        the refinement the "abstract equilibrium" is far from an equilibrium of Leduc:
        """),
        code('''
        from lpgame.abstraction import compile_ordered_game, leduc_ordered, lift_strategies

        kuhn = gameshrink(lpgame.abstraction.kuhn_ordered())
        print("Kuhn: sibling merges leave", kuhn.signal_tree["per_depth_after_paper_merges"],
              "signal-tree nodes per level; filter:", kuhn.message)

        leduc_signals = leduc_ordered()
        leduc_original = compile_ordered_game(leduc_signals)
        pitfall = {}
        for label, refine in (("sound filter", True), ("GameShrink proposal, unrefined", False)):
            s = gameshrink(leduc_signals, refine=refine)
            g = s.compile()
            strategies = lift_strategies(leduc_original, g, lpgame.solve(g).strategies)
            pitfall[label] = {"classes": s.partition.counts(),
                              "nash_conv": lpgame.evaluate(leduc_original, strategies).nash_conv}
        show_table(["Leduc filter", "view classes per round", "lifted NashConv in Leduc"],
                   [(k, v["classes"], f"{v['nash_conv']:.3g}") for k, v in pitfall.items()])
        '''),
        md(r"""
        On Rhode Island Hold'em the unrefined proposal has exactly the size the paper reports
        (1,237,238 LP rows, 50,428,638 nonzeros); the sound filter has 5,498,768 rows
        (`python -m benchmarks.bench_abstraction`).

        ## Leduc poker: suits do not matter

        Leduc hold'em (Southey et al. 2005) deals from J, Q, K in two suits: one private card each, a
        bet round, one public card, a second bet round; a pair with the public card wins, otherwise the
        higher card. lpgame builds it both ways: `deal="cards"` deals the six cards (as OpenSpiel does)
        and `deal="ranks"` deals ranks with aggregated probabilities. GameShrink on the card-level game
        finds exactly the rank-level game, and the lifted equilibrium is certified in the card-level
        tree:
        """),
        code('''
        cards_game = lpgame.games.make("leduc_poker", deal="cards")
        ranks_game = lpgame.games.make("leduc_poker", deal="ranks")
        leduc = {}
        for name, g in (("cards", cards_game), ("ranks", ranks_game)):
            r = lpgame.solve(g)
            leduc[name] = {"value": r.value, "nodes": g.sizes()["nodes"], "infosets": g.sizes()["infosets"],
                           "sequences": g.sizes()["sequences"], "lp": r.size}
        shrunk_leduc = lpgame.solve(cards_game, abstraction="gameshrink")
        after = shrunk_leduc.extra["abstraction"]["after"]
        show_table(["Leduc", "value", "information sets", "sequences", "LP rows × cols"],
                   [(k, f"{v['value']:.7f}", v["infosets"], v["sequences"],
                     f"{v['lp']['rows']} × {v['lp']['cols']}") for k, v in leduc.items()]
                   + [("cards, GameShrink", f"{shrunk_leduc.value:.7f}", after["infosets"],
                       after["sequences"], f"{after['lp']['rows']} × {after['lp']['cols']}")])
        leduc_check = lpgame.evaluate(cards_game, shrunk_leduc.strategies)
        print("lifted equilibrium in card-level Leduc: value", leduc_check.values[0],
              " NashConv", leduc_check.nash_conv)
        '''),
        summary_cell('''
        summary = {
            "toy": {"internal_nodes": [internal, abstract_internal],
                    "nodes": [sizes["nodes"], abstract_sizes["nodes"]],
                    "sequences": [sizes["sequences"], abstract_sizes["sequences"]],
                    "filters": filters,
                    "values": [original_solution.value, abstract_solution.value],
                    "lifted_nash_conv": toy_check.nash_conv, "lifted_value": toy_check.values[0]},
            "pitfall": pitfall,
            "leduc": leduc,
            "leduc_abstracted": {"infosets": after["infosets"], "sequences": after["sequences"],
                                 "lp": after["lp"]},
            "leduc_lifted": {"value": leduc_check.values[0], "nash_conv": leduc_check.nash_conv},
        }'''),
    ]


# ---------------------------------------------------------------------------------------- notebook 5
SEED_PRINTED_AVERAGES = '''\
# The seed notebook's printed average strategies: P(pass), P(bet) per state "card history"
# (history: '' = P1's first move, '0' = P2 after a check, '1' = P2 facing a bet,
# '01' = P1 facing check–bet)
seed_printed = {
    "J ": (0.5074762779346557, 0.49252372206534417), "J 0": (0.5855644397395475, 0.41443556026045253),
    "J 1": (0.9999041962061698, 9.580379383023568e-05), "J 01": (0.9941520467836257, 0.005847953216374269),
    "Q ": (0.5664037286173996, 0.4335962713826004), "Q 0": (0.9798240769227249, 0.020175923077275157),
    "Q 1": (0.00037166367030839434, 0.9996283363296915), "Q 01": (0.001024327784891165, 0.9989756722151089),
    "K ": (0.5, 0.5), "K 0": (0.9999434325149904, 5.656748500961647e-05),
    "K 1": (3.223518793114564e-05, 0.9999677648120688), "K 01": (0.0005514199062586159, 0.9994485800937414),
}'''


def verifying_cfr() -> list:
    return [
        md(r"""
        # 5. Verifying CFR against the LP

        The seed notebook *"¿Cómo podemos tomar la mejor decisión con información incompleta?"* runs a
        regret-matching simulation on Kuhn poker and prints an average strategy. A learning method is
        only as good as the exploitability of what it returns, and lpgame can measure that exactly:
        `lpgame.evaluate` computes each player's best response bottom-up on the sequence form and
        reports NashConv = the sum of both best-response gains (the thesis's ε, Rojas Linárez §3.2).

        This notebook (i) re-implements the seed's dynamic and explains what it computes and what is
        wrong with it (notes/rojas-linarez-and-notebook.md §4), (ii) measures the exploitability of
        its printed strategy, and (iii) runs a correct CFR that converges to the LP value −1/18.
        """),
        code(SETUP + "\n\nimport numpy as np\n\n" + TABLE_HELPER),
        md(r"""
        ## The seed's game and dynamic, re-implemented

        States are `card + ' ' + history` with actions 0 = pass and 1 = bet; terminal histories are
        `11, 00, 010, 10, 011`. Its payoff function pays Kuhn ×2 (2 or 4 chips) and gives the pot to
        player 2 when the history "ends in `01`" or when player 2's card is higher and the last two
        actions agree. Each iteration deals a hand, samples a trajectory from the current
        regret-matching strategy (adding that strategy to a running sum at every visit), and then, for
        every decision on the path and every action, replaces that one action, *keeps the later sampled
        actions*, scores the spliced history and adds the difference to the regret.
        """),
        code('''
        CARD_RANK = {"J": 1, "Q": 2, "K": 3}
        DEALS = ["JQ", "JK", "QJ", "KJ", "QK", "KQ"]
        TERMINAL_HISTORIES = {"11", "00", "010", "10", "011"}


        def seed_payoff(deal, history):
            """The seed's payments(): player 1's payoff (Kuhn ×2), 0 for a non-terminal history."""
            if history not in TERMINAL_HISTORIES:
                return 0
            stake = 2 if history.count("1") < 2 else 4
            player2_wins = history.endswith("01") or (
                CARD_RANK[deal[1]] > CARD_RANK[deal[0]] and history[-2] == history[-1])
            return -stake if player2_wins else stake


        def seed_regret_matching(iterations, seed):
            """The seed notebook's training loop (same dynamic, a seeded generator)."""
            rng = np.random.default_rng(seed)
            states = [c + " " + h for c in "JQK" for h in ("", "0", "1", "01")]
            regrets = {s: [0.0, 0.0] for s in states}
            strategy_sums = {s: [0.0, 0.0] for s in states}

            def current(state):
                positive = [max(r, 0.0) for r in regrets[state]]
                total = sum(positive)
                sigma = [p / total for p in positive] if total > 0 else [0.5, 0.5]
                strategy_sums[state][0] += sigma[0]          # every visit, unweighted
                strategy_sums[state][1] += sigma[1]
                return sigma

            draws = rng.random((iterations, 4))
            for t in range(iterations):
                deal = DEALS[int(draws[t, 0] * 6)]
                actions = []
                while "".join(map(str, actions)) not in TERMINAL_HISTORIES:
                    state = deal[len(actions) % 2] + " " + "".join(map(str, actions))
                    actions.append(int(draws[t, 1 + len(actions)] < current(state)[1]))
                actual = seed_payoff(deal, "".join(map(str, actions)))
                for i in range(len(actions)):
                    state = deal[i % 2] + " " + "".join(map(str, actions[:i]))
                    for a in (0, 1):
                        spliced = "".join(map(str, actions[:i] + [a] + actions[i + 1:])).replace("110", "11")
                        gain = seed_payoff(deal, spliced) - actual
                        regrets[state][a] += gain if i % 2 == 0 else -gain
            return {s: (v[0] / sum(v), v[1] / sum(v)) if sum(v) > 0 else (0.5, 0.5)
                    for s, v in strategy_sums.items()}


        rerun = seed_regret_matching(30_000, seed=4)
        print({s: round(p[1], 4) for s, p in rerun.items()})
        '''),
        md(r"""
        ## What is wrong with it

        1. **The fold payoff has the wrong sign.** No terminal history ends in `01`, so the fold test
           never fires: check–bet–fold (`010`) pays +2 to player 1, *the player who folded*.
        2. **The "counterfactual" values are not values.** Swapping one action while keeping the later
           sampled actions does not evaluate the subtree under the new action: some spliced histories
           are not terminal and score 0, others reinterpret a fold as a check or a bet as a call.
        3. **No reach or importance weights** on the regrets (outcome-sampling MCCFR would weight by
           $\pi_{-i}/q(z)$), and 4. **the average is weighted by the full reach** of the sampled path,
           not by the player's own reach.
        """),
        code('''
        print("player 1 folds after check–bet with J against Q: seed pays player 1", seed_payoff("JQ", "010"),
              "(Kuhn ×2: −2)")
        for actual, i, a in [("11", 0, 0), ("010", 0, 1), ("011", 0, 1)]:
            spliced = (actual[:i] + str(a) + actual[i + 1:]).replace("110", "11")
            print(f"path {actual!r}: action {i} → {a} gives {spliced!r}, terminal: "
                  f"{spliced in TERMINAL_HISTORIES}, scored {seed_payoff('KQ', spliced)}")
        '''),
        md(r"""
        ## Its exploitability, measured by lpgame

        Map the seed's states to lpgame's information sets of `kuhn_poker` (`'J '` → player 1's `J`,
        `'J 01'` → `J check bet`, `'J 0'` → player 2's `J check`, `'J 1'` → `J bet`; the actions are
        pass/bet = check/bet or fold/call) and evaluate, for the strategy the seed printed and for our
        re-run. A strategy near equilibrium would have NashConv near 0 and value near −1/18 ≈ −0.0556.
        """),
        code(SEED_PRINTED_AVERAGES + "\n\n\n" + textwrap.dedent('''


        def to_lpgame(seed_strategy):
            """The seed's states as lpgame's Kuhn strategies (player 1, player 2)."""
            player1, player2 = {}, {}
            for card in "JQK":
                first, respond, check, bet = (seed_strategy[card + h] for h in (" ", " 01", " 0", " 1"))
                player1[card] = {"check": first[0], "bet": first[1]}
                player1[card + " check bet"] = {"fold": respond[0], "call": respond[1]}
                player2[card + " check"] = {"check": check[0], "bet": check[1]}
                player2[card + " bet"] = {"fold": bet[0], "call": bet[1]}
            return [player1, player2]


        game = lpgame.games.make("kuhn_poker")
        printed_eval = lpgame.evaluate(game, to_lpgame(seed_printed))
        rerun_eval = lpgame.evaluate(game, to_lpgame(rerun))
        show_table(["strategy", "value u₁", "P1's best-response gain", "P2's best-response gain", "NashConv"],
                   [(name, round(e.values[0], 4), round(e.best_response_gain[0], 4),
                     round(e.best_response_gain[1], 4), round(e.nash_conv, 4))
                    for name, e in [("seed, printed", printed_eval), ("seed dynamic, re-run", rerun_eval)]])
        ''')),
        md(r"""
        The printed strategy loses about a quarter of a chip per hand to either best response: it is
        nowhere near an equilibrium (player 2 never bets a K after a check, and always calls with a Q).

        ## A correct CFR, written on the sequence form

        Counterfactual regret minimisation (Zinkevich et al. 2007; Rojas Linárez Ch. V) fixes all four
        faults. On the sequence form one iteration is short: given the opponent's realization plan,
        $g_i[\sigma]$ is the chance- and opponent-weighted payoff of each of i's sequences (the
        *counterfactual* payoff, without i's own reach); going up i's information sets, the
        counterfactual value of a sequence is $g_i[ja]$ plus the values of the information sets it
        leads to, the value of $j$ is the current strategy's average of its sequences, and the regret
        of $ja$ grows by the difference. Regret matching gives the next strategy; the *average*
        strategy is the average of the realization plans (own-reach weights).
        """),
        code('''
        from lpgame.analysis.best_response import sequence_payoffs
        from lpgame.analysis.exploitability import evaluate_plans

        sf = lpgame.compile_game(game)


        def regret_matching(sf, player, regrets):
            """Behaviour proportional to positive regret at each information set (uniform if none)."""
            b = np.ones(sf.num_sequences(player))
            for _js, seqs, starts in sf.infoset_levels(player):
                positive = np.maximum(regrets[seqs], 0.0)
                totals = np.add.reduceat(positive, starts)
                counts = np.diff(np.append(starts, len(seqs)))
                uniform = np.repeat(1.0 / counts, counts)
                share = np.repeat(totals, counts)
                b[seqs] = np.where(share > 0, positive / np.where(share > 0, share, 1.0), uniform)
            return b


        def vanilla_cfr(sf, iterations):
            """Vanilla CFR with simultaneous updates; returns the average plans and a NashConv curve."""
            regrets = [np.zeros(sf.num_sequences(i)) for i in range(2)]
            plan_sums = [np.zeros(sf.num_sequences(i)) for i in range(2)]
            curve = []
            for t in range(1, iterations + 1):
                behaviours = [regret_matching(sf, i, regrets[i]) for i in range(2)]
                plans = [sf.plan_from_behaviour(i, behaviours[i]) for i in range(2)]
                for i in range(2):
                    behaviour = behaviours[i]
                    value = sequence_payoffs(sf, i, plans)        # g_i, counterfactual (no own reach)
                    for js, seqs, starts in sf.infoset_levels(i):   # deepest information sets first
                        counts = np.diff(np.append(starts, len(seqs)))
                        infoset_value = np.add.reduceat(behaviour[seqs] * value[seqs], starts)
                        regrets[i][seqs] += value[seqs] - np.repeat(infoset_value, counts)
                        np.add.at(value, sf.players[i].infoset_parent_seq[js], infoset_value)
                    plan_sums[i] += plans[i]
                if t in (1, 3, 10, 30, 100, 300, 1000, 3000) or t == iterations:
                    curve.append((t, evaluate_plans(sf, [s / t for s in plan_sums]).nash_conv))
            return [s / iterations for s in plan_sums], curve


        cfr_plans, cfr_curve = vanilla_cfr(sf, 3000)
        cfr_eval = evaluate_plans(sf, cfr_plans)
        show_table(["iterations", "NashConv of the average"], [(t, f"{c:.2e}") for t, c in cfr_curve])
        print("value of the average:", cfr_eval.values[0], "  LP value:", -1 / 18)
        '''),
        md(r"""
        ## lpgame's CFR family

        `lpgame.learning.run` has vanilla CFR, CFR+, discounted and sampled variants behind one call;
        every checkpoint is evaluated by the same independent best-response code. Our few lines
        (simultaneous updates) and lpgame's `cfr` (alternating updates, as in the thesis's Algorithm 1)
        both converge, the alternating one faster; CFR+ is faster still. The exact LP value is the
        line their values approach.
        """),
        code('''
        import matplotlib.pyplot as plt
        from lpgame.learning import run

        lp_value = lpgame.solve(game, exact=True).value
        runs = {name: run(game, algorithm=name, iterations=3000, checkpoints=15) for name in ("cfr", "cfr+")}
        fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.5))
        left.loglog(*zip(*cfr_curve), marker="o", label="CFR in this notebook")
        for name, r in runs.items():
            left.loglog([c[0] for c in r.curve], [max(c[2], 1e-12) for c in r.curve], marker=".",
                        label=f"lpgame {name}")
            right.semilogx([c[0] for c in r.curve], r.values, marker=".", label=f"lpgame {name}")
        left.axhline(printed_eval.nash_conv, color="gray", ls=":", label="seed notebook")
        right.axhline(float(lp_value), color="black", ls="--", label=f"LP value {lp_value}")
        left.set(xlabel="iteration", ylabel="NashConv"); right.set(xlabel="iteration", ylabel="u₁")
        left.legend(fontsize=8); right.legend(fontsize=8)
        fig.tight_layout()
        display(fig)
        plt.close(fig)
        for name, r in runs.items():
            print(f"lpgame {name}: NashConv {r.nash_conv:.2e}, value {r.value:.6f}")
        '''),
        summary_cell('''
        cfr_b = [sf.behaviour_from_plan(i, cfr_plans[i])[0].tolist() for i in range(2)]
        summary = {
            "seed_fold_payoff": seed_payoff("JQ", "010"),
            "seed_printed": {"value": printed_eval.values[0], "nash_conv": printed_eval.nash_conv,
                             "gains": printed_eval.best_response_gain},
            "seed_rerun": {"nash_conv": rerun_eval.nash_conv, "strategies": to_lpgame(rerun)},
            "inline_cfr": {"nash_conv": cfr_eval.nash_conv, "value": cfr_eval.values[0],
                           "curve": cfr_curve,
                           "strategies": [sf.strategy_to_dict(i, cfr_b[i]) for i in range(2)]},
            "lpgame_learning": {name: {"nash_conv": r.nash_conv, "value": r.value}
                                for name, r in runs.items()},
            "lp_value": lp_value,
        }'''),
    ]


# ---------------------------------------------------------------------------------------- notebook 6
def opponent_modelling() -> list:
    return [
        md(r"""
        # 6. Opponent modelling in Kuhn poker

        An equilibrium guarantees the value (−1/18 for player 1) against *anyone*, but against a weak
        opponent it earns no more than that. Hoehn (2006) studies how much a player gains by modelling
        the opponent and best-responding, and what it costs when the model is wrong.

        **Hoehn's parameters** (notes/gameshrink-and-hoehn.md §B.2, with the List-of-Symbols convention
        that his tables use). After removing dominated choices, player 1 is (α, β, γ): bluff-bet with J,
        call with Q after check–bet, bet with K; player 2 is (η, ξ): call with Q facing a bet, bluff-bet
        with J after a check. The equilibria are (γ/3, (1+γ)/3, γ) against (1/3, 1/3).
        """),
        code(SETUP + "\n\nfrom fractions import Fraction\n\nimport numpy as np\n\n" + TABLE_HELPER),
        code('''
        def player1(alpha, beta, gamma):
            """Player 1 with Hoehn's parameters (never calls with J, always calls with K, checks Q first)."""
            return {"J": {"check": 1 - alpha, "bet": alpha}, "J check bet": {"fold": 1, "call": 0},
                    "Q": {"check": 1, "bet": 0}, "Q check bet": {"fold": 1 - beta, "call": beta},
                    "K": {"check": 1 - gamma, "bet": gamma}, "K check bet": {"fold": 0, "call": 1}}


        def player2(eta, xi):
            """Player 2 with Hoehn's parameters (always bets/calls with K, checks Q, folds J to a bet)."""
            return {"Q check": {"check": 1, "bet": 0}, "Q bet": {"fold": 1 - eta, "call": eta},
                    "K check": {"check": 0, "bet": 1}, "K bet": {"fold": 0, "call": 1},
                    "J check": {"check": 1 - xi, "bet": xi}, "J bet": {"fold": 1, "call": 0}}


        game = lpgame.games.make("kuhn_poker")
        # Hoehn's test opponents (B:968), at the exact fractions behind his rounded decimals (notes §B.6)
        opponents = {"O1": (Fraction(4, 5), Fraction(2, 7)), "O2": (Fraction(3, 4), Fraction(4, 5)),
                     "O3": (Fraction(2, 3), Fraction(2, 5)), "O4": (Fraction(1, 6), Fraction(1, 5)),
                     "O5": (Fraction(1, 4), Fraction(1, 6)), "O6": (Fraction(1, 4), Fraction(2, 3))}
        # Hoehn's pure strategies S_k = (α, β, γ), k = 4α + 2β + γ in binary
        pure = {f"S{k}": ((k >> 2) & 1, (k >> 1) & 1, k & 1) for k in range(8)}
        '''),
        md(r"""
        ## Expected values of the candidate counter-strategies (Hoehn's Table 4.1)

        Every entry is `lpgame.evaluate` of a profile, computed exactly in fractions. Hoehn's closed
        form (eq. 2.1)
        $\mathrm{EV} = \tfrac16[\eta(-3\alpha+\gamma) + \xi(-1+3\beta-\gamma) + \alpha - \beta]$ gives
        the same numbers, which checks the labels as much as the arithmetic.
        """),
        code('''
        def hoehn_ev(alpha, beta, gamma, eta, xi):
            return (eta * (-3 * alpha + gamma) + xi * (-1 + 3 * beta - gamma) + alpha - beta) / 6


        table41, closed_form_agrees = {}, True
        for s in ["S1", "S2", "S3", "S4", "S5", "S6"]:
            table41[s] = {}
            for o, (eta, xi) in opponents.items():
                value = lpgame.evaluate(game, [player1(*pure[s]), player2(eta, xi)], exact=True).values[0]
                table41[s][o] = value
                closed_form_agrees &= value == hoehn_ev(*pure[s], eta, xi)
        show_table(["S"] + list(opponents),
                   [[s] + [f"{float(v):.4f}" for v in row.values()] for s, row in table41.items()])
        print("eq. 2.1 agrees exactly:", closed_form_agrees)
        '''),
        md(r"""
        ## Best responses

        `lpgame.analysis.best_response` computes a pure best response to fixed realization plans by one
        bottom-up pass over the responder's information sets (no LP). Against each test opponent it
        finds Hoehn's region strategy S1…S6 and its value — his "exploitability" of the opponent — and
        the gap to the game value is what modelling is worth.
        """),
        code('''
        from lpgame.analysis.best_response import best_response

        sf = lpgame.compile_game(game)
        value = Fraction(-1, 18)


        def parameters_of(behaviour):
            """(α, β, γ) of a pure player-1 behaviour vector."""
            s = sf.strategy_to_dict(0, behaviour.tolist())
            return (int(s["J"]["bet"]), int(s["Q check bet"]["call"]), int(s["K"]["bet"]))


        best = {}
        for o, (eta, xi) in opponents.items():
            plan2 = sf.plan_from_behaviour(1, sf.behaviour_from_dict(1, player2(eta, xi)))
            response = best_response(sf, 0, [np.zeros(sf.num_sequences(0)), plan2])
            name = next(k for k, v in pure.items() if v == parameters_of(response.behaviour))
            best[o] = {"strategy": name, "value": response.value,
                       "gain_over_value": response.value - float(value)}
        show_table(["opponent", "(η, ξ)", "best response", "its value", "gain over the game value"],
                   [(o, tuple(str(p) for p in opponents[o]), r["strategy"], f"{r['value']:.4f}",
                     f"{r['gain_over_value']:.4f}") for o, r in best.items()])
        '''),
        md(r"""
        ## The price of exploring

        Hoehn's data-collection strategies bet every card to see more showdowns. Their worst case is
        minus player 2's best-response value against them: −1/3, −1/2 and −5/12, against −1/18 for
        any equilibrium.
        """),
        code('''
        exploratory = {"ExploreEta": (1, 1, 1), "ExploreXi": (1, 1, 0),
                       "BalancedExplore": (1, 1, Fraction(1, 2)),
                       "equilibrium γ = 1/2": (Fraction(1, 6), Fraction(1, 2), Fraction(1, 2))}
        worst_case = {}
        for name, params in exploratory.items():
            evaluation = lpgame.evaluate(game, [player1(*params), player2(Fraction(1, 3), Fraction(1, 3))],
                                         exact=True)
            worst_case[name] = -evaluation.best_response_values[1]
        show_table(["strategy", "(α, β, γ)", "worst case for player 1"],
                   [(n, tuple(str(p) for p in exploratory[n]), v) for n, v in worst_case.items()])
        '''),
        md(r"""
        ## The safe exploitation frontier

        Between "play the equilibrium" and "best-respond to the model" lies a one-LP compromise, the
        **ε-safe best response** (notes §B.7, the LP analogue of a restricted Nash response): keep the
        security LP of notebook 2 and add one row, $v_\emptyset \ge v^* - \varepsilon$, so that every
        feasible $x$ guarantees at least $v^* - \varepsilon$; then maximise the value against the model,
        $x^\top U y_{\text{model}}$. `lpgame.equilibria.zero_sum.safe_best_response` builds it:
        """),
        code('''
        from lpgame.equilibria.zero_sum.safe_best_response import safe_best_response_lp, safe_frontier

        model = player2(*opponents["O2"])
        model_plan = sf.plan_from_behaviour(1, sf.behaviour_from_dict(1, model))
        print(safe_best_response_lp(sf, 0, model_plan, floor=-1 / 18 - 0.05).describe())
        '''),
        md(r"""
        Against O2 (calls too often with Q, bluffs too often with J) the frontier is a straight line:
        each unit of risk buys 1.4 units of expected gain, by raising the Q-call frequency from 1/3 up
        to 1, until the full best response (0.1 per hand, worst case −1/6) at ε ≈ 1/9.
        """),
        code('''
        import matplotlib.pyplot as plt

        frontier = safe_frontier(game, model, epsilons=[0, 0.01, 0.02, 0.05, 0.1, 0.15])
        show_table(["ε", "value against O2", "guaranteed", "call with Q"],
                   [(p.epsilon, f"{p.value_vs_model:.4f}", f"{p.guaranteed:.4f}",
                     f"{p.strategy['Q check bet']['call']:.3f}") for p in frontier.points])
        print("full best response from ε =", round(frontier.full_epsilon, 6))
        fig, ax = plt.subplots(figsize=(5, 3.5))
        ax.plot([p.guaranteed for p in frontier.points], [p.value_vs_model for p in frontier.points],
                marker="o")
        ax.set(xlabel="guaranteed value (worst case)", ylabel="value against O2",
               title="ε-safe best responses to O2")
        fig.tight_layout()
        display(fig)
        plt.close(fig)
        '''),
        summary_cell('''
        summary = {
            "table41": table41,
            "closed_form_agrees": closed_form_agrees,
            "best_response": best,
            "worst_case": worst_case,
            "frontier": [{"epsilon": p.epsilon, "value_vs_model": p.value_vs_model,
                          "guaranteed": p.guaranteed} for p in frontier.points],
            "full_epsilon": frontier.full_epsilon,
            "security_value": frontier.security_value,
        }'''),
    ]


# ---------------------------------------------------------------------------------------- notebook 7
def general_sum_equilibria() -> list:
    return [
        md(r"""
        # 7. Equilibria of general-sum games

        In a zero-sum game every equilibrium gives the same value and one LP finds one. In a
        **general-sum** game the players' interests are partly shared: there can be many equilibria
        with different payoffs, and finding one is no longer an LP but a **linear complementarity
        problem** (LCP). This notebook solves that LCP by **Lemke's algorithm** on the sequence form
        (Koller, Megiddo & von Stengel 1996), step by step, then lists **all** extreme equilibria of
        a bimatrix game by vertex enumeration (Avis, Rosenberg, Savani & von Stengel 2010), and puts
        them next to the **correlated equilibria** of the same game (notebook 3).
        """),
        code(SETUP + "\n\nfrom fractions import Fraction\n\nimport numpy as np\n\n" + TABLE_HELPER),
        md(r"""
        ## The sequence-form LCP

        With payoff matrices $U_1, U_2$ over sequences and treeplex constraints $F_1 x = f_1$,
        $F_2 y = f_2$ (notebook 2), $(x, y)$ is an equilibrium exactly when each plan is a best
        response, i.e. (LP duality, with duals $p$, $q$)

        $$ F_1^\top p - U_1 y \ \ge 0 \ \perp\ x \ge 0, \qquad
           F_2^\top q - U_2^\top x \ \ge 0 \ \perp\ y \ge 0, \qquad F_1 x = f_1,\ F_2 y = f_2 .$$

        "⊥" means complementary: in every row either the slack or the variable is zero, so a
        sequence is played only if it is a best response. Writing $p = p^+ - p^-$,
        $q = q^+ - q^-$ gives a standard LCP $w = b + M z \ge 0$, $z \ge 0$, $z^\top w = 0$ with
        $z = (x, y, p^+, p^-, q^+, q^-)$ (notes/farina-thesis.md §1.12 with ε = 0). We use von
        Stengel's 3 × 2 example (Handbook of Game Theory 3, 2002), whose three equilibria are known.
        """),
        code("""
        from lpgame.compile import compile_game
        from lpgame.equilibria.general_sum.lemke import lemke, sequence_form_lcp

        game = lpgame.games.make("von_stengel_3x2")
        print("A =", game.payoff_array(0).astype(int).tolist(), " B =",
              game.payoff_array(1).astype(int).tolist())
        lcp = sequence_form_lcp(compile_game(game), exact=True)
        M = np.zeros((lcp.size, lcp.size), dtype=object)   # dense only to print this tiny one
        for j in range(lcp.size):
            rows, vals = lcp.column(j)
            M[rows, j] = vals
        show_table(["row", "b"] + lcp.names, [[lcp.names[i], lcp.b[i]] + list(M[i])
                                              for i in range(lcp.size)])
        print(f"LCP of size {lcp.size} with {lcp.nnz} nonzeros (payoffs shifted to be negative)")
        """),
        md(r"""
        ## Lemke's algorithm, pivot by pivot

        Lemke adds an artificial variable $z_0$ with a covering vector $d > 0$:
        $w = b + Mz + d z_0$. With $z_0$ large, $z = 0$ is feasible. Then it pivots: the variable that
        leaves the basis has its *complement* ($w_k \leftrightarrow z_k$) enter next, keeping all
        but one complementarity condition, until $z_0$ itself leaves: then every condition holds
        and $(x, y)$ is an equilibrium. Ties in the ratio test (degenerate games) are broken
        lexicographically; in exact mode every pivot is an integer (fraction-free) pivot.
        """),
        code("""
        solution = lemke(lcp, record_path=True)
        show_table(["pivot", "enters", "leaves", "z0 after"],
                   [(s["pivot"], s["entering"], s["leaving"], s["z0"]) for s in solution.extra["path"]])
        x = solution.z[lcp.blocks["x"]:lcp.blocks["y"]]
        y = solution.z[lcp.blocks["y"]:lcp.blocks["p+"]]
        print("x =", [str(v) for v in x], " y =", [str(v) for v in y])
        """),
        md(r"""
        `lpgame.solve` does the same for any two-player general-sum game (`concept="nash"` is the
        default) and certifies the answer **independently of the LCP**: each player's best-response
        gain against the profile, by the bottom-up best response of `lpgame.analysis`.
        """),
        code("""
        lemke_result = lpgame.solve(game, exact=True)
        print(lemke_result.summary())
        """),
        md(r"""
        ## All extreme equilibria

        The best-response polytopes $P = \{x \ge 0 : B^\top x \le 1\}$ and
        $Q = \{y \ge 0 : A y \le 1\}$ (payoffs made positive) label each point by the pure strategies
        that are unplayed or best responses. A pair of vertices carrying every label is an
        equilibrium after normalising, and these are exactly the **extreme** equilibria, degenerate
        games included. `enumerate=True` (`--all` on the command line) enumerates them.
        """),
        code("""
        every = lpgame.solve(game, enumerate=True)
        show_table(["#", "x", "y", "payoffs"],
                   [(e["index"] + 1, list(e["strategies"][0]["player 1"].values()),
                     list(e["strategies"][1]["player 2"].values()), e["values"])
                    for e in every.extra["equilibria"]])
        """),
        md(r"""
        In a **degenerate** game the equilibria need not be isolated. Changing B's top row from
        (3, 2) to (3, 3) gives player 2 two best responses to T, and a
        whole segment of equilibria appears. The **maximal Nash subsets** (the maximal complete
        bipartite subgraphs of the graph of extreme equilibria) describe the set: every mix of a
        subset's player-1 strategies against every mix of its player-2 strategies is an equilibrium.
        """),
        code("""
        degenerate = lpgame.solve("von_stengel_degenerate", enumerate=True)
        print(degenerate.summary())
        """),
        md(r"""
        ## Nash against correlated equilibria

        Every Nash equilibrium is a correlated equilibrium, so the best CE is at least as good as
        the best Nash equilibrium, and can be better: in Chicken (notebook 3) the best Nash welfare
        is 28/3 (the mixed equilibrium) but a mediator reaches 10.5.
        """),
        code("""
        chicken = lpgame.games.make("chicken")
        chicken_nash = lpgame.solve(chicken, enumerate=True)
        welfare = [sum(Fraction(v) for v in e["values"]) for e in chicken_nash.extra["equilibria"]]
        best_ce = lpgame.solve(chicken, concept="ce", objective="welfare")     # an LP (floats)
        show_table(["", "welfare"], [("best Nash equilibrium (exact)", max(welfare)),
                                     ("best correlated equilibrium", best_ce.objective)])
        """),
        summary_cell("""
        summary = {
            "lemke_pivots": solution.pivots,
            "lemke_profile": [[str(v) for v in x], [str(v) for v in y]],
            "lemke_nash_conv": str(lemke_result.certificate.nash_conv),
            "equilibria": [[list(e["strategies"][0]["player 1"].values()),
                            list(e["strategies"][1]["player 2"].values())]
                           for e in every.extra["equilibria"]],
            "degenerate_subsets": [len(s["equilibria"]) for s in degenerate.extra["nash_subsets"]],
            "chicken_best_nash_welfare": str(max(welfare)),
            "chicken_best_ce_welfare": best_ce.objective,
        }"""),
    ]


def refinements() -> list:
    return [
        md(r"""
        # Why Nash is not enough: exact refinements (QPE, EFPE)

        A Nash equilibrium is optimal against an opponent who never errs. Where equilibrium play never
        goes, it may prescribe anything. Trembling-hand refinements force every player to make small
        mistakes of size ε and take the limit ε → 0⁺ (Farina 2023, ch. 12–13; Miltersen & Sørensen
        2010). lpgame computes that limit exactly: a *trembling LP* P(ε), a basis of it proved
        optimal on a whole interval (0, ε*] in rational arithmetic, and its value at ε = 0.
        """),
        code(SETUP + "\n\nfrom fractions import Fraction\n\n"
             "from lpgame.analysis.exploitability import evaluate_plans_exact\n"
             "from lpgame.compile import compile_game\n"
             "from lpgame.equilibria.refinements.refined_equilibrium import solve_refinement"),
        md(r"""
        ## Kuhn poker: "K check, bet"

        Player 1 never checks the King in equilibrium, so the information set "K check bet" is never
        reached. Folding there is still a Nash equilibrium: its NashConv is exactly 0.
        """),
        code('''
        nash = lpgame.solve("kuhn_poker", exact=True)
        sf = compile_game("kuhn_poker")
        folding = [dict(nash.strategies[0]), nash.strategies[1]]
        folding[0]["K check bet"] = {"fold": Fraction(1), "call": Fraction(0)}
        plans = [sf.plan_from_behaviour_exact(i, sf.behaviour_from_dict_exact(i, folding[i]))
                 for i in range(2)]
        folding_nash_conv = evaluate_plans_exact(sf, plans).nash_conv
        print("unreached by player 1:", nash.unreached[0])
        print("NashConv when player 1 folds the King there:", folding_nash_conv)
        '''),
        md(r"""
        ## The trembling LP

        For the quasi-perfect equilibrium every sequence σ must have probability at least
        ε^depth(σ) (Prop. 13.2). Substituting x = x̃ + ℓ(ε) leaves the sequence-form LP with ε only in
        its right-hand side and objective. Here it is, block by block (the ε⁰ part; the ε-terms are
        added on the same blocks):
        """),
        code('''
        from lpgame.equilibria.refinements.perturbed_lp import qpe_lp

        trembling = qpe_lp(sf).tlp
        print(trembling.base.describe())
        print("powers of ε:", trembling.degree)
        '''),
        md(r"""
        ## The limit

        HiGHS solves P(ξ) for ξ = 1/8, 1/16, ...; each optimal basis is tested exactly: its basic
        values, duals and reduced costs are polynomials in ε, and the basis is optimal for all small ε
        when each has the right sign near 0. The answer states where.
        """),
        code('''
        qpe = solve_refinement("kuhn_poker", "qpe")
        efpe = solve_refinement("kuhn_poker", "efpe")
        for name, r in (("QPE", qpe), ("EFPE", efpe)):
            info = r.extra["refinement"]
            print(name, "value", r.value, "NashConv", r.certificate.nash_conv,
                  "found at ξ =", info["epsilon"]["found_at"],
                  "certified on (0, %s]" % info["epsilon"]["certified_on"],
                  "K check bet:", dict(r.strategies[0]["K check bet"]))
        print(qpe.summary())
        '''),
        md(r"""
        ## Guess-the-Ace

        Player 1 ends the game at once in every equilibrium, so player 2's guess never matters to Nash,
        even the insensible "ace of spades" (probability 1/52). The refinements guess "not ace".
        """),
        code('''
        ace = solve_refinement("guess_the_ace", "qpe")
        print(dict(ace.strategies[1]["P2"]))
        '''),
        summary_cell('''
        summary = {
            "folding_nash_conv": folding_nash_conv,
            "unreached": nash.unreached[0],
            "qpe_value": qpe.value, "efpe_value": efpe.value,
            "qpe_k_check_bet": dict(qpe.strategies[0]["K check bet"]),
            "efpe_k_check_bet": dict(efpe.strategies[0]["K check bet"]),
            "qpe_certified_on": qpe.extra["refinement"]["epsilon"]["certified_on"],
            "checks_passed": all(c["passed"] for r in (qpe, efpe)
                                 for c in r.extra["refinement"]["checks"]),
            "guess": dict(ace.strategies[1]["P2"]),
        }'''),
    ]


NOTEBOOKS = {
    "01_matrix_games_as_lps.ipynb": matrix_games,
    "02_sequence_form_kuhn.ipynb": sequence_form_kuhn,
    "03_correlated_equilibria.ipynb": correlated_equilibria,
    "04_lossless_abstraction.ipynb": lossless_abstraction,
    "05_verifying_cfr.ipynb": verifying_cfr,
    "06_opponent_modelling_kuhn.ipynb": opponent_modelling,
    "07_general_sum_equilibria.ipynb": general_sum_equilibria,
    "08_refinements.ipynb": refinements,
}


def build(name: str) -> nbformat.NotebookNode:
    """The notebook ``name`` (a key of :data:`NOTEBOOKS`), outputs empty."""
    nb = new_notebook(cells=NOTEBOOKS[name]())
    for k, cell in enumerate(nb.cells):      # stable ids: regenerating changes nothing
        cell["id"] = f"{Path(name).stem[:2]}-{k:02d}"
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    nbformat.validate(nb)
    return nb


def main(argv: list[str]) -> int:
    names = argv or list(NOTEBOOKS)
    for name in names:
        nbformat.write(build(name), HERE / name)
        print("wrote", HERE / name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
