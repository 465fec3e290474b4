"""The team of a TMECor problem: members, opponent and leaf weights (Farina 2023, §11.1).

The team T plays against one opponent o in a zero-sum team game; the team's utility at a leaf is
the opponent's loss, u_T(z) = −u_o(z), and everything the formulations read is the leaf weight
p_c(z) u_T(z) (:func:`lpgame.analysis.team_gaps.team_leaf_weights`). For two members the
relevant-pair space of :class:`lpgame.equilibria.correlated.efce.CorrelationPlanSpace` (Farina 2023, Def. 9.3,
Def. 9.5) is built on the two members' part of the sequence form, the opponent and chance being the
environment (Lemma 11.3: the opponent turned into chance).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lpgame.analysis.team_gaps import team_leaf_weights
from lpgame.equilibria.correlated.efce import CorrelationPlanSpace
from lpgame.errors import OptionError
from lpgame.sequence_form import SequenceForm


@dataclass
class Team:
    """The team (0-based members), the opponent and the team's leaf weights p_c(z) u_T(z)."""

    sf: SequenceForm
    members: tuple[int, ...]
    opponent: int
    leaf_weight: np.ndarray

    @property
    def scale(self) -> float:
        """The team's payoff range (at least 1), the unit of the tolerances."""
        u = -self.sf.terminal_payoffs[:, self.opponent]
        return max(1.0, float(u.max() - u.min())) if u.size else 1.0


def make_team(sf: SequenceForm, team) -> Team:
    """Check ``team`` (1-based player numbers, as users count them) against the game."""
    n = sf.num_players
    if team is None:
        raise OptionError("concept 'tmecor' needs the team's players, e.g. team=(1, 2) "
                          "(1-based; --team 1,2 on the command line)")
    try:
        members = tuple(int(p) for p in team)
    except (TypeError, ValueError):
        raise OptionError(f"option 'team' of concept 'tmecor' must list player numbers, e.g. "
                          f"(1, 2); got {team!r}") from None
    if not members or len(set(members)) != len(members) or any(
            p != q for p, q in zip(members, team)):
        raise OptionError(f"option 'team' of concept 'tmecor' must list distinct player numbers; "
                          f"got {team!r}")
    bad = [p for p in members if not 1 <= p <= n]
    if bad:
        raise OptionError(f"team players {bad} do not exist in {sf.game.name}: its players are "
                          f"1..{n}")
    outside = [p for p in range(1, n + 1) if p not in members]
    if not outside:
        raise OptionError(f"team {members} includes every player of {sf.game.name}: TMECor needs "
                          "an opponent outside the team")
    if len(outside) > 1:
        raise OptionError(f"team {members} of {sf.game.name} leaves players {outside} outside: "
                          "tmecor solves a team against exactly one opponent; put all but one "
                          "player in the team")
    _refuse_the_games_opponent_in_the_team(sf, members, outside[0])
    zero_based = tuple(sorted(p - 1 for p in members))
    return Team(sf, zero_based, outside[0] - 1, team_leaf_weights(sf, outside[0] - 1))


def games_opponent(sf: SequenceForm) -> int | None:
    """The one player (1-based) that the game's own payoffs set against all the others, or None.

    That is a game of three or more players where all players but one receive the same
    non-constant payoff at every leaf and the remaining player receives its negative (a zero-sum
    team game, such as team matching pennies, whose opponent is player 1). In such a game the
    team must be the players who share the payoff."""
    n = sf.num_players
    payoffs = np.asarray(sf.terminal_payoffs, dtype=float)
    if n < 3 or payoffs.size == 0:
        return None
    tolerance = 1e-12 * max(float(np.abs(payoffs).max()), 1e-300)
    for candidate in range(n):
        others = [i for i in range(n) if i != candidate]
        shared = payoffs[:, others[0]]
        if float(shared.max() - shared.min()) <= tolerance:
            continue
        if all(np.abs(payoffs[:, i] - shared).max() <= tolerance for i in others) and \
                np.abs(payoffs[:, candidate] + shared).max() <= tolerance:
            return candidate + 1
    return None


def _refuse_the_games_opponent_in_the_team(sf: SequenceForm, members: tuple[int, ...],
                                           left_out: int) -> None:
    """A team that contains the game's own opponent (:func:`games_opponent`) would play for the
    opponent against the players who share its payoff: refused, naming the opponent."""
    opponent = games_opponent(sf)
    if opponent is None or opponent == left_out:
        return
    names = sf.game.player_names
    team = [p for p in range(1, sf.num_players + 1) if p != opponent]
    raise OptionError(
        f"team {', '.join(map(str, members))} of {sf.game.name} includes player {opponent} "
        f"({names[opponent - 1]}), the game's only opponent: players "
        f"{', '.join(map(str, team))} share one payoff and player {opponent} receives its "
        f"negative. Players are numbered from 1: use --team "
        f"{','.join(map(str, team))} (team=({', '.join(map(str, team))}))")


class _MemberPairView:
    """Two team members' part of a sequence form, read by :class:`CorrelationPlanSpace`: the
    opponent and chance are the environment (Lemma 11.3: the opponent turned into chance)."""

    num_players = 2

    def __init__(self, sf: SequenceForm, members: tuple[int, int]):
        self.game = sf.game
        self.players = [sf.players[i] for i in members]
        self.terminal_sequences = sf.terminal_sequences[:, list(members)]
        self._sf, self._members = sf, members

    def sequence_labels(self, player: int) -> list[str]:
        return self._sf.sequence_labels(self._members[player])


def team_plan_space(team: Team) -> CorrelationPlanSpace | None:
    """The relevant-pair space of a two-member team (None for a team of one)."""
    if len(team.members) != 2:
        return None
    return CorrelationPlanSpace(_MemberPairView(team.sf, team.members))
