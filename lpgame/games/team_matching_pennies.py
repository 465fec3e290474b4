"""Team matching pennies: a team of two against one opponent (Farina 2023, §11.2, Fig. 11.1).

Rules (L4766–4828; notes/farina-thesis.md §1.11): every player has a penny. First the opponent
secretly turns theirs heads (H) or tails (T); then team member 1 secretly turns theirs; finally team
member 2 turns theirs, seeing neither earlier penny. If all three pennies match, the team wins 1 (each
team member gets the team's payoff 1) and the opponent loses 1; otherwise nobody gains anything.

Known values (Farina, Lemmas 11.1 and 11.2):

* team maxmin (TME, the team members randomise independently): 1/4, at x_H = y_H = 1/2;
* minmax (the opponent commits first): 1/2, at z_H = 1/2; this is also the TMECor value (the team
  correlates ex ante: HH or TT with probability 1/2 each), which the minmax theorem restores.

``merge_team=False`` (default) gives the three-player game (players: opponent, team member 1, team
member 2). ``merge_team=True`` gives the two-player zero-sum game of the opponent against the team as
one player with perfect recall: the team picks member 1's penny, then member 2's knowing it, which is
exactly ex-ante correlation of the two pennies; its value to the team is the TMECor/minmax value 1/2.

Labels: actions ``"H"``/``"T"``; information sets ``"opponent"``, ``"team member 1"``,
``"team member 2"`` (merged: ``"team member 2 after H"``/``"after T"``).
"""

from __future__ import annotations

from lpgame.game.rules import TERMINAL_PLAYER, expand
from lpgame.games.registry import register

PENNY = ("H", "T")


class TeamMatchingPenniesRules:
    """Rules object (module docstring). State: the pennies turned so far, a tuple of "H"/"T"."""

    def __init__(self, merge_team: bool = False):
        self.merge_team = merge_team
        self.num_players = 2 if merge_team else 3
        self.player_names = (["opponent", "team"] if merge_team
                             else ["opponent", "team member 1", "team member 2"])
        self.name = f"team_matching_pennies(merge_team={merge_team})"

    def initial_state(self):
        return ()

    def current_player(self, state) -> int:
        if len(state) == 3:
            return TERMINAL_PLAYER
        return min(len(state), 1) if self.merge_team else len(state)

    def legal_actions(self, state) -> list[str]:
        return list(PENNY)

    def chance_outcomes(self, state):  # pragma: no cover - no chance in this game
        raise NotImplementedError("team matching pennies has no chance nodes")

    def apply(self, state, action: str):
        return state + (action,)

    def infoset_key(self, state) -> str:
        if not state:
            return "opponent"
        if len(state) == 1:
            return "team member 1"
        return f"team member 2 after {state[1]}" if self.merge_team else "team member 2"

    def payoffs(self, state) -> tuple:
        team = 1 if len(set(state)) == 1 else 0
        return (-team, team) if self.merge_team else (-team, team, team)


@register("team_matching_pennies", "Team matching pennies: two team members vs one opponent "
          "(TME 1/4, minmax 1/2)", "Farina 2023 §11.2; notes/farina-thesis.md §1.11")
def team_matching_pennies(merge_team: bool = False):
    """The three-player game, or with ``merge_team=True`` the opponent against the team as one
    player (module docstring)."""
    return expand(TeamMatchingPenniesRules(merge_team))
