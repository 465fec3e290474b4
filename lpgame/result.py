"""The answer to a solve, one shape for every concept: :class:`SolveResult` and its kinds.

Every result has (JSON keys of :meth:`SolveResult.to_dict`, ``lpgame solve --json``)

``kind``          ``"profile"`` (a strategy per player: :class:`Result`), ``"correlated"``
                  (a distribution or correlation plan:
                  :class:`~lpgame.equilibria.correlated.ce_cce.CorrelatedResult`), or a concept's own
``game``, ``concept``, ``variant`` (the registry entry that solved it), ``backend``
``exact``         True when the numbers are rationals certified in exact arithmetic (only then)
``value``         player 1's value (a number, or a string such as "-1/18" in exact mode)
``values``        one value per player
``certificate``   ``{"gain", "exact", "deviations", ...}``: the largest gain of the concept's
                  deviations, computed by :mod:`lpgame.analysis` independently of the formulation,
                  plus the concept's own fields (``nash_conv``, ``exploitability``,
                  ``best_response_gain`` for profiles)
``size``          ``{"rows", "cols", "nnz"}`` of the LP (the last one, for loops of LPs)
``seconds``       ``{"total", "solve", ...}``
``solver``        which solver actually ran: ``{"name", "backend", "crossover", "tolerance",
                  "exact_certification"}``

Profile results add ``strategies`` (one {information set: {action: probability}} per player) and
``unreached``; correlated results add ``objective``, ``payoffs``, ``distribution`` or
``correlation_plan`` (and the older ``gap``, ``bound``). Concept-specific entries follow
(``minimax_strategies`` for maximin, ``abstraction``, ``double_oracle``, ...).

:func:`render` is the one text renderer: ``lpgame solve`` prints every result through it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from lpgame.errors import StrategyError
from lpgame.io.json_io import (
    number_from_json,
    number_to_json,
    read_json,
    strategies_from_json,
    strategies_to_json,
    write_json,
)
from lpgame.number_format import ROUNDING, rounding_tolerance
from lpgame.number_format import format_number as number_text


@dataclass
class Certificate:
    """How far the answer is from satisfying its concept, by an independent path.

    ``gain`` is the largest gain of the concept's deviations (for Nash: ``nash_conv``, the sum of
    the players' best-response gains, the seeds' ε; for maximin: the largest security gap; for
    correlated concepts: the largest trigger or deviation gain). ``exploitability`` is
    nash_conv / n (OpenSpiel's "exploitability" for two players). ``exact`` is True when it was
    computed in rational arithmetic. ``deviations`` says, in words, which deviations were checked.
    """

    nash_conv: object = None
    exploitability: object = None
    best_response_gain: list = field(default_factory=list)
    exact: bool = False
    extra: dict = field(default_factory=dict)
    gain: object = None
    deviations: str = "best responses of each player (lpgame.analysis.best_response)"

    def __post_init__(self):
        if self.gain is None:
            self.gain = self.nash_conv

    def to_dict(self) -> dict:
        out = {"gain": number_to_json(self.gain), "exact": self.exact,
               "deviations": self.deviations}
        if self.nash_conv is not None or self.best_response_gain:
            out.update({"nash_conv": number_to_json(self.nash_conv),
                        "exploitability": number_to_json(self.exploitability),
                        "best_response_gain": [number_to_json(g) for g in self.best_response_gain]})
        for key, value in self.extra.items():
            out[key] = _to_json(value)
        return out

    @classmethod
    def from_dict(cls, data: dict) -> Certificate:
        if not isinstance(data, dict):
            raise StrategyError(f"a result's 'certificate' must be an object, got {type(data).__name__}")
        known = ("nash_conv", "exploitability", "best_response_gain", "exact", "gain", "deviations")
        return cls(number_from_json(data.get("nash_conv")),
                   number_from_json(data.get("exploitability")),
                   [number_from_json(g) for g in data.get("best_response_gain", [])],
                   bool(data.get("exact", False)),
                   {k: _from_json(k, v) for k, v in data.items() if k not in known},
                   number_from_json(data.get("gain")),
                   data.get("deviations", cls.deviations))


@dataclass(kw_only=True)
class SolveResult:
    """What every concept returns (see the module docstring for the fields)."""

    kind = "base"

    game: str
    concept: str
    values: list = field(default_factory=list)
    certificate: Certificate = field(default_factory=Certificate)
    value: object = None
    size: dict = field(default_factory=dict)
    seconds: dict = field(default_factory=dict)
    solver: dict = field(default_factory=dict)
    backend: str = "highs"
    exact: bool = False
    variant: str = "default"
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.value is None and self.values:
            self.value = self.values[0]

    # ----------------------------------------------------------------------------------- JSON
    def to_dict(self) -> dict:
        out = {"kind": self.kind, "game": self.game, "concept": self.concept,
               "variant": self.variant, "backend": self.backend, "exact": self.exact,
               "value": number_to_json(self.value),
               "values": [number_to_json(v) for v in self.values]}
        out.update(self._own_dict())
        out.update({"certificate": self.certificate.to_dict(), "size": dict(self.size),
                    "seconds": {k: float(v) for k, v in self.seconds.items()},
                    "solver": {k: _to_json(v) for k, v in self.solver.items()}})
        for key, value in self.extra.items():
            out[key] = strategies_to_json(value) if key.endswith("strategies") else _to_json(value)
        return out

    def _own_dict(self) -> dict:
        return {}

    def to_json(self, path: str | Path | None = None) -> str:
        """The JSON text; written to ``path`` (atomically) when given."""
        return write_json(self.to_dict(), path)

    def save(self, path: str | Path) -> None:
        """Write the JSON object to ``path``."""
        write_json(self.to_dict(), path)

    @classmethod
    def from_dict(cls, data: dict) -> SolveResult:
        """A result read back from :meth:`to_dict`'s object (the kind picks the class)."""
        if not isinstance(data, dict):
            raise StrategyError(f"a result must be a JSON object, got {type(data).__name__}")
        kind = data.get("kind") or ("correlated" if "objective_spec" in data else "profile")
        target = _KINDS.get(kind)
        if target is None:      # kinds are registered by concept modules: load them first
            from lpgame.registry import load_builtin_concepts
            load_builtin_concepts()
            target = _KINDS.get(kind)
        if target is None:
            raise StrategyError(f"unknown result kind {kind!r}; known: {', '.join(sorted(_KINDS))}")
        if cls is not SolveResult and not issubclass(target, cls):
            raise StrategyError(f"this file holds a {kind!r} result, not a {cls.kind!r} one")
        return target._from_dict(data)

    @classmethod
    def load(cls, path: str | Path) -> SolveResult:
        return cls.from_dict(read_json(path, expect=dict, what="solve result"))

    @classmethod
    def _common(cls, data: dict) -> dict:
        return dict(game=data.get("game", ""), concept=data.get("concept", "nash"),
                    variant=data.get("variant", "default"),
                    value=number_from_json(data.get("value")),
                    values=[number_from_json(v) for v in data.get("values", [])],
                    certificate=Certificate.from_dict(data.get("certificate", {})),
                    size=data.get("size", {}), seconds=data.get("seconds", {}),
                    solver=data.get("solver", {}), backend=data.get("backend", "highs"),
                    exact=bool(data.get("exact", False)))

    # ----------------------------------------------------------------------------------- text
    def summary(self, player_names: list[str] | None = None, **options) -> str:
        """Human-readable report (:func:`render`)."""
        return render(self, player_names=player_names, **options)

    def body_lines(self, names: list[str], **options) -> list[str]:
        """The concept-specific lines of the report (strategies, distribution, ...)."""
        return []

    def headline(self) -> str:
        return f"{self.game}: {self.concept}"

    def variant_text(self) -> str:
        """The registry entry that ran, for the headline: `` [lp]``, `` [refinement: qpe]``,
        `` [lp, abstraction gameshrink]``; empty for a concept's only (default) entry."""
        words = [] if self.variant == "default" else [self.variant]
        refinement = self.extra.get("refinement")
        if isinstance(refinement, dict) and refinement.get("name") and words:
            words[0] += f": {refinement['name']}"
        if isinstance(self.extra.get("double_oracle"), dict) and "double_oracle" not in words:
            words.append("double_oracle")
        if isinstance(self.extra.get("abstraction"), dict):
            words.append(f"abstraction {self.extra['abstraction'].get('method', '')}".rstrip())
        return f" [{', '.join(words)}]" if words else ""

    def value_label(self) -> str | None:
        """What ``value`` is, for the report (None: no value line)."""
        return "value for player 1"


@dataclass(kw_only=True)
class Result(SolveResult):
    """A strategy profile with its values and certificate (Nash, maximin, refinements, ...)."""

    kind = "profile"

    strategies: list[dict] = field(default_factory=list)
    unreached: list[list[str]] = field(default_factory=list)
    plans: list | None = field(default=None, repr=False)
    lp: object = field(default=None, repr=False)

    def _own_dict(self) -> dict:
        return {"strategies": strategies_to_json(self.strategies), "unreached": self.unreached}

    @classmethod
    def _from_dict(cls, data: dict) -> Result:
        extra = {k: _from_json(k, v) for k, v in data.items() if k not in _PROFILE_KEYS}
        return cls(**cls._common(data), strategies=strategies_from_json(data),
                   unreached=data.get("unreached", []), extra=extra)

    def body_lines(self, names: list[str], max_infosets: int | None = 200,
                   decimals: int | None = None, **options) -> list[str]:
        lines = []
        for i, strat in enumerate(self.strategies):
            lines.append("")
            title = "maximin strategy" if self.concept == "maximin" else "strategy"
            lines.append(f"{names[i]} {title}:")
            unreached = set(self.unreached[i]) if i < len(self.unreached) else set()
            shown = list(strat)
            if max_infosets is not None and len(shown) > max_infosets:
                shown = [j for j in shown if j not in unreached][:max_infosets]
            width = max((len(k) for k in shown), default=10)
            mark_text = "   (" + self.extra.get("unreached_label", "unreached") + ")"
            for infoset in shown:
                probs = "  ".join(f"{a}={format_number(p, 4, decimals)}"
                                  for a, p in strat[infoset].items())
                mark = mark_text if infoset in unreached else ""
                lines.append(f"  {infoset:<{width}}  {probs}{mark}")
            if len(shown) < len(strat):
                rest = len(strat) - len(shown)
                rest_unreached = len(unreached) - sum(j in unreached for j in shown)
                what = (f"{rest} unreached information sets" if rest == rest_unreached else
                        f"{rest} more information sets ({rest_unreached} of them unreached)")
                lines.append(f"  ... {what} not shown; --json writes every one")
        return lines


_PROFILE_KEYS = ("kind", "game", "concept", "variant", "backend", "exact", "value", "values",
                 "strategies", "unreached", "certificate", "size", "seconds", "solver")

_KINDS: dict[str, type] = {"profile": Result}


def register_result_kind(cls: type) -> type:
    """Make ``SolveResult.from_dict`` read results of ``cls.kind`` (a class decorator)."""
    _KINDS[cls.kind] = cls
    return cls


# ---------------------------------------------------------------------------------------- render
def render(result: SolveResult, player_names: list[str] | None = None, digits: int = 6,
           decimals: int | None = None, **options) -> str:
    """The text report of any result: headline (with the registry entry that ran), values, the
    concept's own lines, certificate, size, the solver that ran and timings. Numbers follow
    :mod:`lpgame.number_format`: ``decimals`` digits after the point when given, and in floating
    point, numbers below the certificate's rounding tolerance print as 0 with the tolerance."""
    n = len(result.values) or len(getattr(result, "strategies", []) or [])
    names = player_names or [f"player {i + 1}" for i in range(n)]
    c = result.certificate
    tolerance = None if c.exact else rounding_tolerance(c.extra.get("payoff_range"))

    def number(value, places=digits):
        return format_number(value, places, decimals, None if result.exact else tolerance)

    lines = [result.headline() + result.variant_text()
             + (" (exact rational arithmetic)" if result.exact else "")]
    label = result.value_label()
    if result.value is not None and label:
        lines.append(f"{label}: {number(result.value)}")
    if len(result.values) > 1:
        lines.append("values: " + ", ".join(f"{name} {number(v)}"
                                            for name, v in zip(names, result.values)))
    lines.extend(result.body_lines(names, decimals=decimals, **options))
    lines.append("")
    lines.append(f"certificate ({'exact' if c.exact else 'floating point'}, independent of the "
                 f"formulation: {c.deviations}):")
    lines.append(f"  largest deviation gain = {number(c.gain, 3)}")
    if c.nash_conv is not None and c.best_response_gain:
        lines.append(f"  nash_conv (sum of best-response gains) = {number(c.nash_conv, 3)}")
        lines.append(f"  exploitability (nash_conv / {len(c.best_response_gain)}, OpenSpiel's) = "
                     f"{number(c.exploitability, 3)}")
    for key, value in c.extra.items():     # relative_* figures are already divided by the range
        scale = None if c.exact else ROUNDING if key.startswith("relative") else tolerance
        lines.append(f"  {key} = {_text(value, decimals, scale)}")
    lines.extend(_size_lines(result))
    lines.append("solver: " + solver_text(result.solver, result.backend) + "; "
                 f"{result.seconds.get('total', 0):.3f} s total, "
                 f"{result.seconds.get('solve', 0):.3f} s solving")
    lines.extend(_extra_lines(result))
    return "\n".join(lines)


def _size_lines(result: SolveResult) -> list[str]:
    """The size of what was solved: one LP or MILP, or a count of LPs (Stackelberg's multiple
    LPs); nothing where the concept recorded no size."""
    s = result.size or {}
    if s.get("rows") is not None:
        what = "MILP" if s.get("integers") else "LP"
        return [f"{what}: {s.get('rows')} rows, {s.get('cols')} columns, {s.get('nnz')} nonzeros"
                + (f", {s['integers']} integer variables" if s.get("integers") else "")]
    if s.get("lps") is not None:
        method = (result.solver or {}).get("method")
        return [f"LPs: {s['lps']} solved" + (f" (method {method})" if method else "")]
    return []


def solver_text(solver: dict, backend: str) -> str:
    """``HiGHS simplex (backend highs, tolerance 1e-07), basis certified in rationals``."""
    if not solver or not solver.get("name"):
        return f"backend {backend}"
    parts = [f"backend {solver.get('backend') or backend}"]
    if solver.get("crossover") is not None:
        parts.append("with crossover" if solver["crossover"] else "no crossover")
    if solver.get("tolerance") is not None:
        parts.append(f"tolerance {solver['tolerance']:.0e}")
    text = f"{solver['name']} ({', '.join(parts)})"
    if solver.get("exact_certification"):
        text += ", certified in rational arithmetic"
    return text


def _extra_lines(result: SolveResult) -> list[str]:
    lines = []
    shrink = result.extra.get("abstraction")
    if isinstance(shrink, dict) and "before" in shrink:
        b, a = shrink["before"]["lp"], shrink["after"]["lp"]
        lines.append(f"abstraction {shrink.get('method')}: {shrink.get('message')}; LP "
                     f"{b['rows']}×{b['cols']} → {a['rows']}×{a['cols']} "
                     f"({shrink.get('seconds', 0):.3f} s to shrink); certificate computed in the "
                     f"{shrink.get('certificate_game', 'original game')}")
    oracle = result.extra.get("double_oracle")
    if isinstance(oracle, dict) and "rounds" in oracle:
        (k1, k2), (n1, n2) = oracle["kept_sequences"], oracle["sequences"]
        lines.append(f"double oracle: {oracle['rounds']} rounds; the last restricted game kept "
                     f"{k1} of {n1} and {k2} of {n2} sequences (the LP above is its LP)")
    return lines


# ---------------------------------------------------------------------------------------- numbers
def format_number(value, digits: int = 6, decimals: int | None = None,
                  tolerance: float | None = None) -> str:
    """A number for a table, by lpgame's one number policy (:mod:`lpgame.number_format`)."""
    return number_text(value, digits, decimals, tolerance)


def _text(value, decimals: int | None = None, tolerance: float | None = None) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(_text(v, decimals, tolerance) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{k} {_text(v, decimals, tolerance)}" for k, v in value.items())
    if isinstance(value, (Fraction, float, int)) and not isinstance(value, bool):
        return format_number(value, 6, decimals, tolerance)
    return str(value)


def _to_json(value):
    if isinstance(value, dict):
        return {k: _to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_to_json(v) for v in value]
    if isinstance(value, str):
        return value
    try:
        return number_to_json(value)
    except (TypeError, ValueError):
        return value


def _from_json(key: str, value):
    """Inverse of how :meth:`SolveResult.to_dict` writes a concept-specific entry."""
    if key.endswith("strategies"):
        return strategies_from_json(value)
    if isinstance(value, list):
        return [number_from_json(v) if isinstance(v, str) and _looks_numeric(v) else v
                for v in value]
    return value


def _looks_numeric(text: str) -> bool:
    body = text.lstrip("-")
    num, _, den = body.partition("/")
    return num.isdigit() and (not den or den.isdigit())
