"""Refinements of Nash equilibrium in two-player zero-sum games, exactly: QPE, EFPE, one-sided QPE.

Each is the limit ξ → 0⁺ of the optimal solutions of a trembling LP P(ξ), where every sequence is
played with at least a perturbation of ξ (Miltersen & Sørensen 2010; Farina & Gatti 2017; Farina
2023, ch. 13). The limit is found exactly by a basis that stays optimal for all small ξ.

Modules:

* :mod:`~lpgame.equilibria.refinements.perturbed_lp` — the trembling LPs of each refinement;
* :mod:`~lpgame.equilibria.refinements.limit` — the limit loop: HiGHS at decreasing ξ, then the
  exact stage;
* :mod:`~lpgame.equilibria.refinements.basis_stability` — the exact stability test of a basis, on
  :mod:`~lpgame.equilibria.refinements.laurent_series` (the Taylor and Laurent series of the basis
  system) and :mod:`~lpgame.equilibria.refinements.exact_sparse_factor` (exact sparse LU);
* :mod:`~lpgame.equilibria.refinements.laurent_series` — the Taylor/Laurent series of its basic
  solution and duals;
* :mod:`~lpgame.equilibria.refinements.exact_sparse_factor` — exact sparse rational solves
  (block triangular form, sparse LU);
* :mod:`~lpgame.equilibria.refinements.integer_substitution` — its substitution with integers
  over common denominators (fraction-free), for long right-hand sides;
* :mod:`~lpgame.equilibria.refinements.scaled_series` — the Taylor coefficients after the last
  sign decision, fraction-free, read as Fractions on access;
* :mod:`~lpgame.equilibria.refinements.exact_limit` — an exact simplex at a fixed rational ξ, on
  :mod:`~lpgame.equilibria.refinements.updated_factor` (an exact LU with product-form updates)
  and :mod:`~lpgame.equilibria.refinements.reduced_cost_bounds` (float enclosures that decide
  the signs of its reduced costs);
* :mod:`~lpgame.equilibria.refinements.lexicographic` — an exact criss-cross over ℚ(ε);
* :mod:`~lpgame.equilibria.refinements.refined_equilibrium` — the ``nash``/``refinement`` concept.
"""
