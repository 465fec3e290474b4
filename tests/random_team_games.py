"""Random three-player team games and a brute-force TMECor reference for the TMECor tests.

``matrix_game_value`` recomputes a TMECor value with no sequence form, correlation plan or MILP:
the team's joint reduced plans (enumerated from every pure behaviour strategy) against the
opponent's reduced plans, as a matrix game solved by ``scipy.optimize.linprog``. ``team_games``
draws small games with private signals for the two members and a drawn move order and observation
pattern; ``SimultaneousGame`` is n players moving blind, the last one the opponent.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
from hypothesis import strategies as st
from scipy.optimize import linprog

from lpgame.game.rules import CHANCE_PLAYER, TERMINAL_PLAYER, expand


# ---------------------------------------------------------------- independent reference
def reduced_plans(sf, player):
    """Reduced plans by brute force over behaviour choices: every pure behaviour strategy, turned
    into its realization plan, duplicates removed (no lpgame plan enumeration)."""
    p = sf.players[player]
    choices = [range(int(k)) for k in p.infoset_num_actions]
    plans = set()
    for pick in itertools.product(*choices):
        b = np.zeros(p.num_sequences)
        b[0] = 1
        for j, a in enumerate(pick):
            b[int(p.infoset_first_seq[j]) + a] = 1
        plans.add(tuple(sf.plan_from_behaviour(player, b).astype(int)))
    return np.array(sorted(plans), dtype=float)


def matrix_game_value(sf, team, opponent):
    """max over distributions of joint team plans, min over opponent plans, by linprog."""
    seqs = sf.terminal_sequences
    weight = -sf.terminal_chance * sf.terminal_payoffs[:, opponent]
    member_plans = [reduced_plans(sf, i) for i in team]
    joint = list(itertools.product(*[range(len(p)) for p in member_plans]))
    reach = np.array([np.prod([member_plans[m][k[m]][seqs[:, i]] for m, i in enumerate(team)],
                              axis=0) for k in joint])
    opp = reduced_plans(sf, opponent)[:, seqs[:, opponent]]
    A = (reach * weight) @ opp.T                       # team joint plan × opponent plan
    n, m = A.shape
    # max v s.t. Σ_k μ_k A[k, j] ≥ v for every j, Σ μ = 1, μ ≥ 0
    res = linprog(np.concatenate([np.zeros(n), [-1.0]]),
                  A_ub=np.hstack([-A.T, np.ones((m, 1))]), b_ub=np.zeros(m),
                  A_eq=np.concatenate([np.ones(n), [0.0]])[None, :], b_eq=[1.0],
                  bounds=[(0, None)] * n + [(None, None)], method="highs")
    assert res.status == 0
    return -res.fun


class RandomTeamGame:
    """Chance deals private signals to the two team members (players 1, 2), then the three players
    move once each in a drawn order; each mover sees the actions of the earlier movers it is drawn
    to observe. Zero-sum: the opponent (player 3) pays the team's payoff."""

    num_players = 3
    player_names = ["member 1", "member 2", "opponent"]

    def __init__(self, signals, deal, order, observe, actions, payoffs, split):
        self.signals, self.deal, self.order = signals, deal, order
        self.observe, self.actions = observe, actions
        self.payoffs_table, self.split = payoffs, split
        self.name = "random_team_game"

    def initial_state(self):
        return ()

    def current_player(self, state):
        if not state:
            return CHANCE_PLAYER
        if len(state) == 4:
            return TERMINAL_PLAYER
        return self.order[len(state) - 1]

    def chance_outcomes(self, state):
        return [(f"{a}-{b}", self.deal[a][b]) for a in range(self.signals[0])
                for b in range(self.signals[1]) if self.deal[a][b] > 0]

    def legal_actions(self, state):
        return [str(a) for a in range(self.actions[self.current_player(state)])]

    def apply(self, state, action):
        return state + (action,)

    def infoset_key(self, state):
        player = self.current_player(state)
        seen = [f"{self.order[k]}:{state[k + 1]}" for k in range(len(state) - 1)
                if self.observe[player][self.order[k]]]
        signal = state[0].split("-")[player] if player < 2 else ""
        return f"P{player + 1} s{signal} " + " ".join(seen)

    def payoffs(self, state):
        a, b = (int(x) for x in state[0].split("-"))
        moves = {self.order[k]: int(state[k + 1]) for k in range(3)}
        team = self.payoffs_table[a][b][moves[0]][moves[1]][moves[2]]
        first = self.split[a][b][moves[0]][moves[1]][moves[2]]
        return (first, team - first, -team)


@st.composite
def team_games(draw, private=True):
    s1 = draw(st.integers(1, 2)) if private else 1
    s2 = draw(st.integers(1, 2)) if private else 1
    weights = [[draw(st.integers(0, 3)) for _ in range(s2)] for _ in range(s1)]
    if sum(map(sum, weights)) == 0:
        weights[0][0] = 1
    total = sum(map(sum, weights))
    deal = [[Fraction(w, total) for w in row] for row in weights]
    order = draw(st.permutations([0, 1, 2]))
    observe = [[draw(st.booleans()) and i != j for j in range(3)] for i in range(3)]
    if not private:          # the opponent's move is public: every later mover sees it
        for i in range(2):
            observe[i][2] = True
    actions = [draw(st.integers(2, 3)) for _ in range(3)]
    signals = (s1, s2, 1)

    def plan_count(i):      # each player moves once: one information set per thing it observes
        infosets = signals[i] * math.prod(actions[j] for j in order[:order.index(i)]
                                          if observe[i][j])
        return actions[i] ** infosets
    # keep the brute-force matrix game small: drop observations until it is
    def too_big():
        return plan_count(0) * plan_count(1) > 2048 or plan_count(2) > 256
    public = set() if private else {(0, 2), (1, 2)}
    flags = [(i, j) for i in (0, 1, 2) for j in (0, 1, 2) if observe[i][j] and (i, j) not in public]
    while flags and too_big():
        i, j = flags.pop()
        observe[i][j] = False
    if too_big():
        actions[0] = actions[1] = 2

    def table(lo, hi):
        return [[[[[draw(st.integers(lo, hi)) for _ in range(actions[2])] for _ in range(actions[1])]
                  for _ in range(actions[0])] for _ in range(s2)] for _ in range(s1)]
    rules = RandomTeamGame((s1, s2), deal, tuple(order), observe, actions, table(-3, 3),
                           table(-2, 2))
    return expand(rules)


class SimultaneousGame:
    """n players choose one of two actions each without seeing anything; the last player is the
    opponent and pays the team the table's entry."""

    def __init__(self, players, table):
        self.num_players, self.table = players, table
        self.player_names = [f"p{i + 1}" for i in range(players)]
        self.name = "simultaneous_team_game"

    def initial_state(self):
        return ()

    def current_player(self, state):
        return TERMINAL_PLAYER if len(state) == self.num_players else len(state)

    def chance_outcomes(self, state):  # pragma: no cover - no chance
        return []

    def legal_actions(self, state):
        return ["a", "b"]

    def apply(self, state, action):
        return state + (action,)

    def infoset_key(self, state):
        return f"P{len(state) + 1}"

    def payoffs(self, state):
        team = self.table[int("".join("0" if a == "a" else "1" for a in state), 2)]
        return (team,) + (0,) * (self.num_players - 2) + (-team,)
