"""The answer to a solve: value, strategies, certificate, size and timings; JSON in and out.

The JSON object written by :meth:`Result.to_dict` (and ``lpgame solve --json``) has the keys

``game``, ``concept``, ``backend``, ``exact``
``value``         player 1's value: a number, or a string such as "-1/18" in exact mode
``values``        one value per player
``strategies``    one {information set: {action: probability}} per player
``unreached``     per player, the information sets the player's own strategy never reaches
                  (the behaviour there is valid but arbitrary: uniform)
``certificate``   {"nash_conv", "exploitability", "best_response_gain", "exact"}: computed by the
                  independent best-response path, not by the LP (for ``maximin`` also
                  ``security_gap``)
``size``          {"rows", "cols", "nnz"} of the LP
``seconds``       {"total", "solve"}
plus concept-specific keys (``minimax_strategies`` for maximin; ``abstraction`` with ``before``,
``after`` and ``seconds`` when solved with ``abstraction="gameshrink"``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lpgame.io.json_io import (
    number_from_json,
    number_to_json,
    read_json,
    strategies_from_json,
    strategies_to_json,
    write_json,
)


@dataclass
class Certificate:
    """How far the returned profile is from equilibrium, by the independent best-response path.

    ``nash_conv`` is the sum of the players' best-response gains (the seeds' ε);
    ``exploitability`` is nash_conv / n (OpenSpiel's "exploitability" for two players).
    ``exact`` is True when both were computed in rational arithmetic.
    """

    nash_conv: object
    exploitability: object
    best_response_gain: list
    exact: bool = False
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        out = {"nash_conv": number_to_json(self.nash_conv),
               "exploitability": number_to_json(self.exploitability),
               "best_response_gain": [number_to_json(g) for g in self.best_response_gain],
               "exact": self.exact}
        for key, value in self.extra.items():
            out[key] = [number_to_json(v) for v in value] if isinstance(value, list) \
                else number_to_json(value)
        return out


@dataclass
class Result:
    """Value, strategies and certificate of a solved solution concept (see module docstring)."""

    game: str
    concept: str
    value: object
    values: list
    strategies: list[dict]
    certificate: Certificate
    size: dict
    seconds: dict
    backend: str = "highs"
    exact: bool = False
    unreached: list[list[str]] = field(default_factory=list)
    extra: dict = field(default_factory=dict)
    plans: list | None = field(default=None, repr=False)
    lp: object = field(default=None, repr=False)

    def to_dict(self) -> dict:
        out = {
            "game": self.game,
            "concept": self.concept,
            "backend": self.backend,
            "exact": self.exact,
            "value": number_to_json(self.value),
            "values": [number_to_json(v) for v in self.values],
            "strategies": strategies_to_json(self.strategies),
            "unreached": self.unreached,
            "certificate": self.certificate.to_dict(),
            "size": dict(self.size),
            "seconds": {k: float(v) for k, v in self.seconds.items()},
        }
        for key, value in self.extra.items():
            if key.endswith("strategies"):
                out[key] = strategies_to_json(value)
            elif isinstance(value, list):
                out[key] = [number_to_json(v) for v in value]
            else:
                out[key] = value
        return out

    def save(self, path: str | Path) -> None:
        """Write the JSON object to ``path``."""
        write_json(self.to_dict(), path)

    @classmethod
    def from_dict(cls, data: dict) -> Result:
        cert = data.get("certificate", {})
        extra_cert = {k: _extra_from_json(k, v) for k, v in cert.items()
                      if k not in ("nash_conv", "exploitability", "best_response_gain", "exact")}
        extra = {k: _extra_from_json(k, v) for k, v in data.items() if k not in _RESULT_KEYS}
        return cls(
            game=data.get("game", ""),
            concept=data.get("concept", "nash"),
            value=number_from_json(data.get("value")),
            values=[number_from_json(v) for v in data.get("values", [])],
            strategies=strategies_from_json(data),
            certificate=Certificate(
                number_from_json(cert.get("nash_conv")),
                number_from_json(cert.get("exploitability")),
                [number_from_json(g) for g in cert.get("best_response_gain", [])],
                bool(cert.get("exact", False)), extra_cert),
            size=data.get("size", {}),
            seconds=data.get("seconds", {}),
            backend=data.get("backend", "highs"),
            exact=bool(data.get("exact", False)),
            unreached=data.get("unreached", []),
            extra=extra,
        )

    @classmethod
    def load(cls, path: str | Path) -> Result:
        return cls.from_dict(read_json(path))

    def summary(self, player_names: list[str] | None = None, digits: int = 6,
                max_infosets: int | None = 200) -> str:
        """Human-readable report: value, strategies as tables, certificate, size, time.

        A player with more than ``max_infosets`` information sets gets only that many lines, the
        ones the strategy reaches first; a closing line counts the rest (``to_dict``/``save``
        keep them all). ``None`` prints every one.
        """
        names = player_names or [f"player {i + 1}" for i in range(len(self.strategies))]
        lines = [f"{self.game}: {self.concept}" + (" (exact)" if self.exact else ""),
                 f"value for player 1: {_fmt(self.value, digits)}"]
        if len(self.values) > 1:
            lines.append("values: " + ", ".join(f"{n} {_fmt(v, digits)}"
                                                 for n, v in zip(names, self.values)))
        for i, strat in enumerate(self.strategies):
            lines.append("")
            title = "maximin strategy" if self.concept == "maximin" else "strategy"
            lines.append(f"{names[i]} {title}:")
            unreached = set(self.unreached[i]) if i < len(self.unreached) else set()
            shown = list(strat)
            if max_infosets is not None and len(shown) > max_infosets:
                shown = [j for j in shown if j not in unreached][:max_infosets]
            width = max((len(k) for k in shown), default=10)
            for infoset in shown:
                probs = "  ".join(f"{a}={_fmt(p, 4)}" for a, p in strat[infoset].items())
                mark = "   (unreached)" if infoset in unreached else ""
                lines.append(f"  {infoset:<{width}}  {probs}{mark}")
            if len(shown) < len(strat):
                rest = len(strat) - len(shown)
                rest_unreached = len(unreached) - sum(j in unreached for j in shown)
                what = (f"{rest} unreached information sets" if rest == rest_unreached else
                        f"{rest} more information sets ({rest_unreached} of them unreached)")
                lines.append(f"  ... {what} not shown; --json writes every one")
        c = self.certificate
        lines.append("")
        lines.append(f"certificate ({'exact' if c.exact else 'floating point'}, independent "
                     "best responses):")
        lines.append(f"  nash_conv (sum of best-response gains) = {_fmt(c.nash_conv, 3)}")
        lines.append(f"  exploitability (nash_conv / {len(self.strategies)}, OpenSpiel's) = "
                     f"{_fmt(c.exploitability, 3)}")
        for key, value in c.extra.items():
            lines.append(f"  {key} = {value if not isinstance(value, list) else [_fmt(v, 3) for v in value]}")
        s = self.size
        lines.append(f"LP: {s.get('rows')} rows, {s.get('cols')} columns, {s.get('nnz')} nonzeros;"
                     f" backend {self.backend}; {self.seconds.get('total', 0):.3f} s total, "
                     f"{self.seconds.get('solve', 0):.3f} s solving")
        shrink = self.extra.get("abstraction")
        if isinstance(shrink, dict) and "before" in shrink:
            b, a = shrink["before"]["lp"], shrink["after"]["lp"]
            lines.append(f"abstraction {shrink.get('method')}: {shrink.get('message')}; LP "
                         f"{b['rows']}×{b['cols']} → {a['rows']}×{a['cols']} "
                         f"({shrink.get('seconds', 0):.3f} s to shrink); certificate computed in the "
                         f"{shrink.get('certificate_game', 'original game')}")
        oracle = self.extra.get("double_oracle")
        if isinstance(oracle, dict) and "rounds" in oracle:
            (k1, k2), (n1, n2) = oracle["kept_sequences"], oracle["sequences"]
            lines.append(f"double oracle: {oracle['rounds']} rounds; the last restricted game kept "
                         f"{k1} of {n1} and {k2} of {n2} sequences (the LP above is its LP)")
        return "\n".join(lines)


_RESULT_KEYS = ("game", "concept", "backend", "exact", "value", "values", "strategies", "unreached",
                "certificate", "size", "seconds")


def _extra_from_json(key: str, value):
    """Inverse of how :meth:`Result.to_dict` writes a concept-specific (``extra``) entry."""
    if key.endswith("strategies"):
        return strategies_from_json(value)
    if isinstance(value, list):
        return [number_from_json(v) for v in value]
    return value


def _fmt(value, digits: int) -> str:
    from fractions import Fraction
    if isinstance(value, Fraction):
        return str(value)
    if value is None:
        return "-"
    try:
        return f"{float(value):.{digits}g}"
    except (TypeError, ValueError):
        return str(value)
