"""Two-player zero-sum games: the value and a Nash equilibrium, and safe play against a model.

The family rests on one program, the sequence-form security LP (Koller, Megiddo & von Stengel
1996): max f₂ᵀv s.t. F₁x = f₁, F₂ᵀv − Uᵀx ≤ 0, x ≥ 0.

Modules:

* :mod:`~lpgame.equilibria.zero_sum.security` — the security LP, dense, sparse or through a
  signal game's payoff operator;
* :mod:`~lpgame.equilibria.zero_sum.signal_operator_lp` — the same LP for ordered-signal games
  with public cards, with U applied through sorted-strength prefix sums (the showdown operator of
  :mod:`lpgame.game.showdown_operator`) instead of stored leaves;
* :mod:`~lpgame.equilibria.zero_sum.operator_learning` — an approximate equilibrium of the same
  games by CFR+/DCFR through the operator, certified by its NashConv and value interval;
* :mod:`~lpgame.equilibria.zero_sum.solution` — what the solvers return, and the constant-sum check;
* :mod:`~lpgame.equilibria.zero_sum.nash` — the ``nash`` concept for zero-sum games (the whole LP);
* :mod:`~lpgame.equilibria.zero_sum.double_oracle` — the same equilibrium by restricted LPs grown
  by best responses (McMahan, Gordon & Blum 2003; Bošanský et al. 2014);
* :mod:`~lpgame.equilibria.zero_sum.maximin` — the ``maximin`` concept: security strategies of
  general-sum games;
* :mod:`~lpgame.equilibria.zero_sum.safe_best_response` — best responses to an opponent model and
  the ε-safe best response frontier (Hoehn et al. 2005; Ganzfried & Sandholm 2015).
"""
