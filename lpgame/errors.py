"""lpgame's exception classes.

Every error lpgame raises on bad input or a failed computation is one of these, and its message
says what was wrong and where (the node, information set, file line or LP size concerned).
"""

from __future__ import annotations


class LpgameError(Exception):
    """Base class of every error raised by lpgame."""


def did_you_mean(word: str, candidates) -> str:
    """``" (did you mean 'kuhn_poker'?)"`` for a misspelt ``word`` among ``candidates`` (at most
    three close matches, by :func:`difflib.get_close_matches`), or ``""`` when none is close."""
    import difflib
    matches = difflib.get_close_matches(str(word), [str(c) for c in candidates], n=3, cutoff=0.6)
    if not matches:
        return ""
    return f" (did you mean {' or '.join(repr(m) for m in matches)}?)"


class InvalidGameError(LpgameError, ValueError):
    """The game is malformed: not a rooted tree, no perfect recall, bad probabilities or payoffs."""


class GameFileError(InvalidGameError):
    """A game file (Gambit .efg/.nfg, JSON) could not be read; the message names the line."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None):
        where = []
        if path is not None:
            where.append(str(path))
        if line is not None:
            where.append(f"line {line}")
        prefix = (":".join(where) + ": ") if where else ""
        super().__init__(prefix + message)
        self.path = path
        self.line = line


class UnknownGameError(LpgameError, KeyError):
    """A catalog name or game parameter that lpgame does not know."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class StrategyError(LpgameError, ValueError):
    """A strategy does not fit its game: unknown information sets or actions, bad probabilities."""


class SolverError(LpgameError, RuntimeError):
    """The LP solver did not return an optimal solution (status, model size in the message).
    ``iterate``: where a first-order solver stopped at a limit (HiGHS PDLP), its last iterate as a
    solution whose status is ``"limit reached"`` (never optimal); None otherwise."""

    iterate = None

    def __init__(self, message: str, status: str | None = None, size: dict | None = None):
        super().__init__(message)
        self.status = status
        self.size = size


class SolverTimeLimitError(SolverError):
    """The solver hit its time limit; ``best_bound`` holds the best objective bound it reported.

    The double oracle also gives ``plans``: player 1's realization plan that guarantees it at
    least ``objective`` and player 2's that holds player 1 to at most ``best_bound``; and
    ``kept_sequences``, the sequence sets its next round would have used (pass them back as
    ``initial_sequences`` to go on). HiGHS PDLP gives ``iterate`` (see :class:`SolverError`).
    """

    def __init__(self, message: str, status: str | None = None, size: dict | None = None,
                 best_bound: float | None = None, objective: float | None = None,
                 plans: list | None = None, kept_sequences: list | None = None,
                 iterate=None):
        super().__init__(message, status, size)
        self.iterate = iterate
        self.best_bound = best_bound
        self.objective = objective
        self.plans = plans
        self.kept_sequences = kept_sequences


class ModelTooLargeError(LpgameError, MemoryError):
    """A model would need more memory than allowed; the message gives the prediction and the limit."""


class SolverMemoryError(SolverError, ModelTooLargeError):
    """The solver ran out of memory while solving (HiGHS's status "Memory limit reached": one of its
    allocations failed, as under an address-space cap); both a solver error and a model that is too
    large, so handlers of either catch it."""


class ExactCheckError(LpgameError, ArithmeticError):
    """Exact mode could not certify the solution in rational arithmetic."""


class OptionError(LpgameError, ValueError):
    """An option or parameter is unknown, of the wrong type or out of range; the message names it."""


class ConceptMismatchError(InvalidGameError):
    """The game does not fit the solution concept; the message names the concepts that do fit."""


class UnknownSolverError(OptionError, SolverError):
    """An unknown backend or solver name: an option error, and a solver error as before."""
