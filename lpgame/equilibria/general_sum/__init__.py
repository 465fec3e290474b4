"""Two-player general-sum games: Nash equilibria and commitment.

Modules:

* :mod:`~lpgame.equilibria.general_sum.lemke` — one Nash equilibrium by Lemke's algorithm on the
  sequence-form LCP (Koller, Megiddo & von Stengel 1996; von Stengel, van den Elzen & Talman 2002);
* :mod:`~lpgame.equilibria.general_sum.lemke_howson` — equilibria of a bimatrix game by the
  Lemke–Howson algorithm on the strategic form, from a chosen label or from all (Lemke & Howson
  1964; Shapley 1974), exact by integer pivoting;
* :mod:`~lpgame.equilibria.general_sum.enumeration` — all extreme equilibria and the maximal Nash
  subsets of a bimatrix game (Avis, Rosenberg, Savani & von Stengel 2010), exact;
* :mod:`~lpgame.equilibria.general_sum.enumeration_vertices` — the vertices of its best-response
  polytopes by exact integer pivoting (lexicographic breadth-first search), with
  :mod:`~lpgame.equilibria.general_sum.enumeration_float` (the same search float-first, with a
  posteriori error bounds and exact decisions where the floats are unsure: the same vertices,
  certified in rationals) and :mod:`~lpgame.equilibria.general_sum.enumeration_integer` (exact
  integer tableaux of a batch of bases from floats, verified, and the exact decisions on them,
  vectorised);
* :mod:`~lpgame.equilibria.general_sum.optimal_nash` — the best (or worst) equilibrium for a
  linear objective by a MILP (Sandholm, Gilpin & Conitzer 2005), with
  :mod:`~lpgame.equilibria.general_sum.optimal_nash_proof` (the exact proof by enumerating the
  extreme equilibria);
* :mod:`~lpgame.equilibria.general_sum.stackelberg` — the strong Stackelberg equilibrium:
  multiple LPs on the normal form (Conitzer & Sandholm 2006), a MILP on the sequence form
  (Bošanský & Čermák 2015), with :mod:`~lpgame.equilibria.general_sum.stackelberg_certificate`
  (one LP per follower strategy, each proven by its duals: the bound on the leader's value);
* :mod:`~lpgame.equilibria.general_sum.milp_options` — the MILP concepts' options checked against
  their meaning.
"""
