"""Solution concepts, grouped by family; one registered module per concept.

Each concept module builds its program (a :class:`~lpgame.lp.LinearProgram`, a MILP, an LCP, or a
loop of them) from a :class:`~lpgame.sequence_form.SequenceForm`, registers itself with
:mod:`lpgame.registry`, and leaves its certificate to independent code in :mod:`lpgame.analysis`.
The registry finds every concept by walking this package, so a new concept is one new module in
its family's folder and touches nothing else.

Families (each folder's docstring lists its modules):

* :mod:`~lpgame.equilibria.zero_sum` — two-player zero-sum Nash: the sequence-form LP, the double
  oracle, maximin strategies and safe best responses;
* :mod:`~lpgame.equilibria.general_sum` — two-player general-sum Nash: Lemke's algorithm, all
  extreme equilibria, optimal Nash and Stackelberg commitment;
* :mod:`~lpgame.equilibria.correlated` — CE and CCE of the normal form; EFCE, EFCCE and NFCCE of
  extensive-form games by LP, learning and column generation;
* :mod:`~lpgame.equilibria.teams` — TMECor, with the team belief DAG;
* :mod:`~lpgame.equilibria.refinements` — QPE, EFPE and one-sided QPE, with their ε-parametric LP
  machinery.

:mod:`~lpgame.equilibria.profiles` is the one module that several families share: a strategy
profile with its independent Nash certificate.
"""
