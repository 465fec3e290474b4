"""CFR+ and DCFR on two treeplexes whose payoff gradient comes from an operator, not a game tree.

Setting: a two-player zero-sum game in sequence form, max_x min_y xᵀUy over the treeplexes
X = {x ≥ 0 : F_1 x = f_1}, Y = {y ≥ 0 : F_2 y = f_2} (Koller, Megiddo & von Stengel 1996), where U
is available only as the two products g_1 = U·y and g_2 = −Uᵀ·x (e.g.
:class:`lpgame.game.showdown_operator.SignalPayoffOperator`, which applies U of an ordered-signal
game without building a leaf). The treeplexes are given by their information sets' first sequence,
action count, parent sequence and depth (:class:`lpgame.game.showdown_operator.Treeplex`).

**Counterfactual regret on a treeplex** (Zinkevich et al. 2007; Farina 2023, Algs 4.3/4.4; as in
:mod:`lpgame.learning.treeplex`): for behaviour b and sequence payoffs g, bottom-up over depths,

    q[ja] = g[ja] + Σ_{j': p_{j'} = ja} V(j'),    V(j) = Σ_a b[ja] q[ja],    r[ja] = q[ja] − V(j).

**CFR+** (Tammelin 2014; Tammelin, Burch, Johanson & Bowling, IJCAI 2015): R ← max(R + r, 0),
b = R / Σ_a R (uniform at 0), alternating updates (player 1 against y_t, then player 2 against
x_{t+1}), and the average plan weighted by t (linear averaging). **DCFR** (Brown & Sandholm,
AAAI 2019) with (α, β, γ) = (1.5, 0, 2): before adding r_t, positive cumulative regrets are
multiplied by t^α/(t^α + 1), negative ones by t^β/(t^β + 1), and the average by (t/(t+1))^γ.
**Predictive CFR+** (Farina, Kroer & Sandholm, AAAI 2021): R ← max(R + r, 0) as in CFR+, but the
behaviour is played from max(R + m, 0) with the prediction m = the last instantaneous regret, and
the average is weighted by t² (quadratic averaging).

Averages are taken on realization plans (sequence form), so they are exact plans of X and Y. The
certificate is the caller's: :meth:`OperatorCFR.average` gives the average profile, whose NashConv
the operator's best responses compute (:meth:`SignalPayoffOperator.nash_conv`):

    NashConv(x̄, ȳ) = BR_1 − BR_2 ≥ 0,   BR_1 = max_x xᵀUȳ,   BR_2 = min_y x̄ᵀUy,   BR_2 ≤ v* ≤ BR_1.

**The certified run** (:func:`certified_run`, the one loop of the ``nash`` method ``operator_cfr``
and of ``benchmarks/bench_rhode_island.py``) iterates and, every ``check_every`` iterations, may
certify the average. Rule: a certificate is taken at a check when (a) no cheap ``screen`` is given,
or the screen (e.g. the filtered game's NashConv) fell below its value at the last certificate or
reached the target, and (b) at least ``spacing`` × the last certificate's duration has passed since
it ended (``spacing`` = 4 keeps certificates to at most a fifth of the run); and always at the end.
The profile with the lowest certified NashConv is kept. The run stops when a certificate reaches
``target`` × ``scale`` (status "converged"), at ``iterations`` (a total, counted across resumed
runs: "iteration limit"), or when the time left is under twice the longest iteration plus twice the
longest certificate plus ``reserve`` seconds ("time limit"; at least one iteration is run). With a
``checkpoint`` folder the learner's state goes to ``state.npz`` there every ``checkpoint_every``
seconds and at the end, with a fingerprint of the problem (the treeplexes' structure, the payoffs
U·y and Uᵀ·x at the uniform plans under fixed random weights, the algorithm, the caller's
``identity``); a later run with the same folder checks the fingerprint and goes on from that state,
so its iterates are those of an uninterrupted run.
"""

from __future__ import annotations

import hashlib
import math
import os
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from lpgame import progress
from lpgame.errors import OptionError, StrategyError

ALGORITHMS = ("cfr+", "dcfr", "pcfr+")


class TreeplexArrays:
    """Per-depth index arrays of a treeplex (``first``, ``count``, ``parent``, ``depth`` per
    information set; sequence 0 the empty sequence): the vectorised recursions of the docstring."""

    def __init__(self, first, count, parent, depth, num_sequences: int):
        self.first = np.asarray(first, dtype=np.int64)
        self.count = np.asarray(count, dtype=np.int64)
        self.parent = np.asarray(parent, dtype=np.int64)
        self.depth = np.asarray(depth, dtype=np.int64)
        self.num_sequences = int(num_sequences)
        H = len(self.first)
        ends = np.cumsum(self.count)
        local = np.arange(int(ends[-1]) if H else 0) - np.repeat(ends - self.count, self.count)
        self.seqs = np.repeat(self.first, self.count) + local          # sequences, infoset order
        self.owner = np.repeat(np.arange(H), self.count)
        covered = np.zeros(self.num_sequences, dtype=np.int64)
        np.add.at(covered, self.seqs, 1)
        if covered[0] != 0 or np.any(covered[1:] != 1):
            raise StrategyError("the treeplex's information sets do not cover its sequences "
                                "1..n−1 exactly once")
        self.levels = []                  # (infosets, their sequences, reduceat starts), deepest last
        for d in sorted(set(self.depth.tolist())):
            js = np.flatnonzero(self.depth == d)
            seqs = np.repeat(self.first[js], self.count[js]) + _ranges(self.count[js])
            starts = np.concatenate([[0], np.cumsum(self.count[js])[:-1]]).astype(np.int64)
            self.levels.append((js, seqs, starts))
        self.seq_parent = np.zeros(self.num_sequences, dtype=np.int64)
        self.seq_parent[self.seqs] = self.parent[self.owner]
        self.seq_owner = np.full(self.num_sequences, -1, dtype=np.int64)
        self.seq_owner[self.seqs] = self.owner

    @classmethod
    def of(cls, treeplex) -> TreeplexArrays:
        """From anything with ``first``, ``count``, ``parent``, ``depth``, ``num_sequences``."""
        return cls(treeplex.first, treeplex.count, treeplex.parent, treeplex.depth,
                   treeplex.num_sequences)

    def normalise(self, weights: np.ndarray) -> np.ndarray:
        """Behaviour ∝ non-negative ``weights`` per information set, uniform where they sum to 0."""
        w = np.asarray(weights, dtype=float)
        sums = np.bincount(self.owner, weights=w[self.seqs], minlength=len(self.first))
        b = np.ones(self.num_sequences)
        s = sums[self.owner]
        b[self.seqs] = np.where(s > 0, w[self.seqs] / np.where(s > 0, s, 1.0),
                                1.0 / self.count[self.owner])
        return b

    def plan(self, behaviour: np.ndarray) -> np.ndarray:
        """x[ja] = b[ja]·x[p_j], top-down (x[∅] = 1): a valid realization plan for any b that sums
        to 1 per information set."""
        x = np.zeros(self.num_sequences)
        x[0] = 1.0
        for _, seqs, _ in self.levels:
            x[seqs] = behaviour[seqs] * x[self.seq_parent[seqs]]
        return x

    def project(self, plan: np.ndarray) -> np.ndarray:
        """A valid realization plan from an approximate one (an LP solver's iterate): negatives
        clipped, each information set's behaviour b(a|j) = x⁺[ja]/Σ_b x⁺[jb] (uniform where the
        set has no mass), then the plan rebuilt top-down, so F x = f holds exactly in floats up to
        rounding of the products."""
        return self.plan(self.normalise(np.clip(np.asarray(plan, dtype=float), 0.0, None)))

    def regrets(self, g: np.ndarray, behaviour: np.ndarray) -> np.ndarray:
        """r[ja] = q[ja] − V(j) of the docstring (0 at ∅)."""
        q = np.array(g, dtype=float, copy=True)
        V = np.zeros(len(self.first))
        for js, seqs, starts in reversed(self.levels):
            values = np.add.reduceat(behaviour[seqs] * q[seqs], starts)
            V[js] = values
            q += np.bincount(self.parent[js], weights=values, minlength=self.num_sequences)
        r = np.zeros(self.num_sequences)
        r[self.seqs] = q[self.seqs] - V[self.owner]
        return r


def _ranges(counts: np.ndarray) -> np.ndarray:
    ends = np.cumsum(counts)
    return np.arange(int(ends[-1]) if len(ends) else 0) - np.repeat(ends - counts, counts)


class OperatorCFR:
    """CFR+ or DCFR (docstring) on ``treeplexes`` = (X, Y) with ``payoffs(player, other_plan)``:
    player 1's sequence payoffs, U·y for player 0 and Uᵀ·x for player 1 (the signature of
    :meth:`SignalPayoffOperator.sequence_payoffs`). Player 1 maximises, player 2 minimises."""

    def __init__(self, treeplexes, payoffs: Callable[[int, np.ndarray], np.ndarray],
                 algorithm: str = "cfr+"):
        if algorithm not in ALGORITHMS:
            raise OptionError(f"algorithm={algorithm!r}: choose one of {', '.join(ALGORITHMS)}")
        self.algorithm = algorithm
        self.plex = [t if isinstance(t, TreeplexArrays) else TreeplexArrays.of(t)
                     for t in treeplexes]
        self.payoffs = payoffs
        self.regret = [np.zeros(p.num_sequences) for p in self.plex]
        self.behaviour = [p.normalise(np.zeros(p.num_sequences)) for p in self.plex]
        self.current = [p.plan(b) for p, b in zip(self.plex, self.behaviour)]
        self.sum = [np.zeros(p.num_sequences) for p in self.plex]
        self.last = [np.zeros(p.num_sequences) for p in self.plex]     # PCFR+'s prediction
        self.weight = 0.0
        self.t = 0

    def _update(self, player: int, t: int) -> None:
        sign = 1.0 if player == 0 else -1.0
        g = sign * self.payoffs(player, self.current[1 - player])
        r = self.plex[player].regrets(g, self.behaviour[player])
        R = self.regret[player]
        if self.algorithm == "dcfr":
            a = t ** 1.5
            R *= np.where(R > 0, a / (a + 1.0), 0.5)
            R += r
        else:
            np.maximum(R + r, 0.0, out=R)
        self.last[player] = r
        played = np.maximum(R + r, 0.0) if self.algorithm == "pcfr+" else np.maximum(R, 0.0)
        self.behaviour[player] = self.plex[player].normalise(played)
        self.current[player] = self.plex[player].plan(self.behaviour[player])

    def iterate(self, steps: int = 1) -> None:
        """``steps`` alternating iterations, each adding the new plans to the averages."""
        for _ in range(steps):
            self.t += 1
            t = self.t
            if self.algorithm == "cfr+":
                w, keep = float(t), 1.0
            elif self.algorithm == "pcfr+":
                w, keep = float(t) ** 2, 1.0
            else:
                keep, w = (t / (t + 1.0)) ** 2 if t > 1 else 0.0, 1.0
            for player in (0, 1):
                self._update(player, t)
            for player in (0, 1):
                self.sum[player] *= keep
                self.sum[player] += w * self.current[player]
            self.weight = self.weight * keep + w

    def average(self) -> list[np.ndarray]:
        """The average realization plans (the current ones before any iteration)."""
        if self.weight == 0:
            return [c.copy() for c in self.current]
        return [s / self.weight for s in self.sum]

    def state(self) -> dict:
        """Arrays that :meth:`restore` takes back (a checkpoint)."""
        return {"regret_1": self.regret[0], "regret_2": self.regret[1], "sum_1": self.sum[0],
                "sum_2": self.sum[1], "last_1": self.last[0], "last_2": self.last[1],
                "weight": np.array(self.weight), "t": np.array(self.t),
                "algorithm": np.array(self.algorithm)}

    def restore(self, state) -> None:
        """Go on from a :meth:`state` of the same algorithm on the same treeplexes."""
        if str(state["algorithm"]) != self.algorithm:
            raise StrategyError(f"checkpoint of {state['algorithm']}, not {self.algorithm}")
        for i in (0, 1):
            R = np.asarray(state[f"regret_{i + 1}"], dtype=float)
            if R.shape != (self.plex[i].num_sequences,):
                raise StrategyError(f"checkpoint regrets of player {i + 1} have shape {R.shape}, "
                                    f"expected ({self.plex[i].num_sequences},)")
            self.regret[i] = R.copy()
            self.sum[i] = np.asarray(state[f"sum_{i + 1}"], dtype=float).copy()
            self.last[i] = np.asarray(state[f"last_{i + 1}"], dtype=float).copy()
            played = R + self.last[i] if self.algorithm == "pcfr+" else R
            self.behaviour[i] = self.plex[i].normalise(np.maximum(played, 0.0))
            self.current[i] = self.plex[i].plan(self.behaviour[i])
        self.weight = float(state["weight"])
        self.t = int(state["t"])


# ------------------------------------------------------------------ the certified run
@dataclass
class CertifiedRun:
    """What :func:`certified_run` returns: the best certificate (the ``certify`` dict with the
    lowest ``nash_conv``) and the iteration it was taken at, the iteration count at the end, why the
    run stopped, one row [iteration, seconds, NashConv / scale] per certificate, the iteration a
    checkpoint resumed from (0: a fresh start) and the run's seconds."""

    best: dict
    best_iteration: int
    iterations: int
    status: str
    history: list = field(default_factory=list)
    resumed_at: int = 0
    seconds: float = 0.0


def checkpoint_folder(checkpoint) -> Path:
    """The checkpoint folder, created if missing; :class:`OptionError` for a value that is not a
    path, a path that is a file, or a folder that cannot be made."""
    if not isinstance(checkpoint, (str, os.PathLike)) or not str(checkpoint).strip():
        raise OptionError(f"checkpoint is a folder for the learner's state; got {checkpoint!r}")
    folder = Path(checkpoint)
    if folder.exists() and not folder.is_dir():
        raise OptionError(f"checkpoint {str(folder)!r} is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OptionError(f"checkpoint {str(folder)!r}: cannot make the folder ({exc})") from None
    return folder


def fingerprint(cfr: OperatorCFR, identity: dict | None = None) -> dict:
    """What identifies the problem of ``cfr`` in a checkpoint (module docstring), as arrays."""
    digest = hashlib.sha256()
    for p in cfr.plex:
        for a in (p.first, p.count, p.parent, p.depth, [p.num_sequences]):
            digest.update(np.asarray(a, dtype="<i8").tobytes())
    rng = np.random.default_rng(20261128)
    uniform = [p.plan(p.normalise(np.zeros(p.num_sequences))) for p in cfr.plex]
    payoffs = [float(rng.standard_normal(p.num_sequences) @ cfr.payoffs(i, uniform[1 - i]))
               for i, p in enumerate(cfr.plex)]
    return {"fingerprint_structure": np.array(digest.hexdigest()),
            "fingerprint_payoffs": np.array(payoffs),
            **{k: np.array(str(v)) for k, v in (identity or {}).items()}}


def _resume(cfr: OperatorCFR, path: Path, mine: dict) -> None:
    """Restore ``cfr`` from the state file ``path`` after checking its fingerprint against ``mine``
    (a state written before fingerprints were kept is checked by its identity and shapes)."""
    where = f"checkpoint {str(path.parent)!r}"
    try:
        with np.load(path, allow_pickle=False) as data:
            state = {k: data[k] for k in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise OptionError(f"{where}: cannot read {path.name} ({exc})") from None
    missing = [k for k in ("regret_1", "regret_2", "sum_1", "sum_2", "last_1", "last_2", "weight",
                           "t", "algorithm") if k not in state]
    if missing:
        raise OptionError(f"{where}: {path.name} is not a learner's state (missing "
                          f"{', '.join(missing)})")
    if str(state["algorithm"]) != cfr.algorithm:
        raise OptionError(f"{where} holds a run of {state['algorithm']}, not {cfr.algorithm}: "
                          "choose another folder or that algorithm")
    for k, v in mine.items():
        if k == "fingerprint_payoffs" and k in state:
            theirs = np.asarray(state[k], dtype=float)
            same = theirs.shape == v.shape and all(
                math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-300) for a, b in zip(theirs, v))
        elif k in state:
            same = str(state[k]) == str(v)
        else:
            same = k.startswith("fingerprint_")     # a state from before fingerprints were kept
        if not same:
            what = {"fingerprint_structure": "its information sets differ",
                    "fingerprint_payoffs": "its payoffs differ"}.get(k, f"{k} differs")
            raise OptionError(f"{where} holds a run of another game ({what}): choose another "
                              "folder")
    try:
        cfr.restore(state)
    except (StrategyError, ValueError, IndexError) as exc:
        raise OptionError(f"{where}: {exc}") from None


def _atomic_savez(path: Path, **arrays) -> None:
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, **arrays)
    tmp.replace(path)


def certified_run(cfr: OperatorCFR, certify: Callable[[list], dict], scale: float, *,
                  iterations: int | None = None, time_limit: float | None = None,
                  target: float | None = None, check_every: int = 10,
                  screen: Callable[[list], float] | None = None, spacing: float = 4.0,
                  reserve: float = 0.0, checkpoint=None, checkpoint_every: float = 600.0,
                  identity: dict | None = None,
                  on_checkpoint: Callable[[Path, dict, int], None] | None = None,
                  log: Callable[[str], None] | None = None) -> CertifiedRun:
    """Run ``cfr`` by the rule of the module docstring. ``certify(plans)`` returns a dict with at
    least ``nash_conv`` and ``value_bounds`` = [BR_2, BR_1]; ``scale`` (the payoff range) makes
    NashConv relative; ``target`` is relative to it. ``on_checkpoint(folder, best, iteration)``
    also saves the best certified profile at each checkpoint (the average is certified first when
    it was not); ``log`` receives one line per certificate and checkpoint. :class:`OptionError`
    for a run without an iteration or time limit, a ``check_every`` under 1, a bad checkpoint."""
    if iterations is None and time_limit is None:
        raise OptionError("a certified run needs an iteration limit or a time limit")
    if int(check_every) < 1:
        raise OptionError(f"check_every must be at least 1 iteration; got {check_every!r}")
    start = time.perf_counter()
    say = log or (lambda text: None)
    name = f"operator CFR ({cfr.algorithm})"
    folder = checkpoint_folder(checkpoint) if checkpoint is not None else None
    mine = fingerprint(cfr, identity) if folder is not None else {}
    if folder is not None and (folder / "state.npz").exists():
        _resume(cfr, folder / "state.npz", mine)
        say(f"resumed {cfr.algorithm} at iteration {cfr.t}")
    resumed_at = cfr.t
    best: dict | None = None
    best_iteration = certified_at = -1
    history: list = []
    step = longest_cert = last_cert = 0.0
    last_cert_end: float | None = None
    screened = math.inf

    def take(what: str) -> bool:
        """Certify the average; True when it reaches the target."""
        nonlocal best, best_iteration, certified_at, longest_cert, last_cert, last_cert_end
        t0 = time.perf_counter()
        cert = certify(cfr.average())
        last_cert_end = time.perf_counter()
        last_cert = last_cert_end - t0
        longest_cert = max(longest_cert, last_cert)
        certified_at, elapsed = cfr.t, last_cert_end - start
        relative = cert["nash_conv"] / scale
        low, high = cert["value_bounds"]
        history.append([cfr.t, round(elapsed, 3), relative])
        progress.report(name, iteration=cfr.t, relative_nash_conv=relative, value_low=low,
                        value_high=high)
        say(f"{what} {cfr.algorithm} iteration {cfr.t} {elapsed:.0f} s: NashConv "
            f"{cert['nash_conv']:.4e} (relative {relative:.3e}), value in [{low:.6f}, {high:.6f}]")
        if best is None or cert["nash_conv"] <= best["nash_conv"]:
            best, best_iteration = cert, cfr.t
        return target is not None and best["nash_conv"] <= target * scale

    def save() -> None:
        if folder is None:
            return
        if on_checkpoint is not None and best is not None:
            on_checkpoint(folder, best, best_iteration)
        _atomic_savez(folder / "state.npz", **mine, **cfr.state())
        say(f"checkpoint {folder} (best relative NashConv {best['nash_conv'] / scale:.3e}, "
            f"iteration {best_iteration})" if best is not None else f"checkpoint {folder}")

    last_save = time.perf_counter()
    status = ""
    while not status:
        now = time.perf_counter()
        if iterations is not None and cfr.t >= iterations:
            status = "iteration limit"
            break
        if time_limit is not None and cfr.t > resumed_at \
                and time_limit - (now - start) < 2 * step + 2 * longest_cert + reserve:
            status = "time limit"
            break
        cfr.iterate(1)
        step = max(step, time.perf_counter() - now)
        if cfr.t % check_every == 0:
            value = screen(cfr.average()) if screen is not None else None
            wanted = value is None or value < screened or (
                target is not None and value <= target * scale)
            spaced = last_cert_end is None or \
                time.perf_counter() - last_cert_end >= spacing * last_cert
            if wanted and spaced:
                if value is not None:
                    screened = min(screened, value)
                if take("progress"):
                    status = "converged"
        if folder is not None and time.perf_counter() - last_save >= checkpoint_every:
            if on_checkpoint is not None and certified_at != cfr.t and take("checkpoint"):
                status = "converged"
            save()
            last_save = time.perf_counter()
    if certified_at != cfr.t and take("final"):
        status = "converged"
    save()
    return CertifiedRun(best, best_iteration, cfr.t, status, history, resumed_at,
                        time.perf_counter() - start)


__all__ = ["ALGORITHMS", "CertifiedRun", "OperatorCFR", "TreeplexArrays", "certified_run",
           "checkpoint_folder", "fingerprint"]
