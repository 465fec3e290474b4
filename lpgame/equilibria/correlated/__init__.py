"""Correlated equilibria: a mediator recommends, no player gains by deviating.

Normal-form CE and CCE are LPs over distributions on pure profiles (Aumann 1974; Hannan 1957).
For extensive-form games, EFCE, EFCCE and NFCCE (von Stengel & Forges 2008; Farina et al. 2020)
are LPs over correlation plans where the game is triangle-free, and are solved by learning or by
column generation over joint pure plans where it is not or the LP is too large.

Modules:

* :mod:`~lpgame.equilibria.correlated.ce_cce` — CE and CCE of the (reduced) normal form;
  :mod:`~lpgame.equilibria.correlated.reduced_plans` counts and enumerates the reduced plans and
  builds the reduced normal form (shared with the other families),
  :mod:`~lpgame.equilibria.correlated.reduced_payoffs` sums its payoffs in rationals;
  :mod:`~lpgame.equilibria.correlated.ce_cce_exact` solves CE and CCE in exact arithmetic (and
  registers them); :mod:`~lpgame.equilibria.correlated.ce_optimality` proves
  their optimum by a dual bound;
* :mod:`~lpgame.equilibria.correlated.efce` — EFCE, EFCCE and NFCCE of two-player games by the
  von Stengel–Forges LP; :mod:`~lpgame.equilibria.correlated.efce_exact` solves them in exact
  arithmetic (and registers them), :mod:`~lpgame.equilibria.correlated.plan_optimality` proves
  their optimum by a dual bound, :mod:`~lpgame.equilibria.correlated.plan_decomposition`
  decomposes a plan into a distribution (realisability);
* :mod:`~lpgame.equilibria.correlated.correlation_decomposition` and
  :mod:`~lpgame.equilibria.correlated.scaled_extension` — the correlation-plan polytope as a chain
  of scaled extensions (Farina 2023, ch. 10), for learning;
* :mod:`~lpgame.equilibria.correlated.efce_learning` — optimal EFCE by the Lagrangian saddle point,
  with :mod:`~lpgame.equilibria.correlated.efce_learning_bound` (its certified upper bound);
* :mod:`~lpgame.equilibria.correlated.efce_n_player` — optimal EFCE of n-player games by column
  generation: its master LP (:mod:`~lpgame.equilibria.correlated.efce_master`), pricing
  (:mod:`~lpgame.equilibria.correlated.efce_pricing`), bounds
  (:mod:`~lpgame.equilibria.correlated.efce_bounds`) and target-gap run
  (:mod:`~lpgame.equilibria.correlated.efce_elastic_run`), with
  :mod:`~lpgame.equilibria.correlated.efce_tuple_relaxation` (an upper bound) and
  :mod:`~lpgame.equilibria.correlated.efce_balanced_mix` (the stopping mix and a lower bound);
* :mod:`~lpgame.equilibria.correlated.efce_correlation_dag` — exact optimal EFCE, EFCCE and NFCCE
  for any number of players: one LP over the flows of the correlation DAG
  (:mod:`~lpgame.equilibria.correlated.correlation_dag`, built or counted by
  :mod:`~lpgame.equilibria.correlated.correlation_dag_search`), ``method="correlation_dag"``;
* :mod:`~lpgame.equilibria.correlated.efce_n_player_default` — the default EFCE entry for three
  or more players: the DAG LP where the DAG fits a cap, column generation otherwise;
* :mod:`~lpgame.equilibria.correlated.efce_dag_learning` — optimal EFCE by regret minimisation on
  the correlation DAG's flows (the Lagrangian of Farina 2023, ch. 10), ``method="dag_learning"``,
  with :mod:`~lpgame.equilibria.correlated.efce_dag_deviators` (its trigger deviators: best
  response or regret matching⁺ on their subtrees).
"""
