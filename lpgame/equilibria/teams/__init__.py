"""Teams: a team of players who correlate before play, against one opponent (TMECor).

The team-maxmin equilibrium with correlation (Celli & Gatti 2018; Farina 2023, ch. 11) is a
zero-sum game between the opponent and the team's joint plans.

Modules:

* :mod:`~lpgame.equilibria.teams.tmecor_team` — the team, its opponent and the leaf weights;
* :mod:`~lpgame.equilibria.teams.team_belief_dag` — the team belief DAG, whose flow polytope is
  the convex hull of the team's joint pure plans (Zhang, Farina & Sandholm 2023);
* :mod:`~lpgame.equilibria.teams.tmecor_lp` — TMECor as one LP (von Stengel–Forges polytope or
  DAG flows); :mod:`~lpgame.equilibria.teams.tmecor_exact` solves it in exact arithmetic with an
  exact saddle-point certificate;
* :mod:`~lpgame.equilibria.teams.tmecor_learning` — TMECor by regret minimisation on the team
  belief DAG (PCFR⁺ per belief against the opponent's treeplex, to a target gap);
* :mod:`~lpgame.equilibria.teams.tmecor_oracle` and
  :mod:`~lpgame.equilibria.teams.tmecor_column_generation` — column generation over joint plans;
* :mod:`~lpgame.equilibria.teams.tmecor` — the ``tmecor`` concept.
"""
