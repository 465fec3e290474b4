"""`lpgame verify --refinement` and `lpgame draw --refinement`: an outside strategy's off-path play
is compared with the refined equilibrium's, whose play is rational where equilibrium play never
goes (issue 22).

Independent fact used: in Kuhn poker, player 1 holding the King facing a bet after checking holds
the best card, so calling wins the pot and folding loses the ante: any rational (sequentially
optimal) play calls there with probability 1, while a plain Nash LP may leave the set uniform.
"""

from __future__ import annotations

import json

import pytest

import lpgame
from lpgame.analysis.verify import verify
from lpgame.cli import main


def test_verify_compares_off_path_play_with_the_qpe():
    plain = lpgame.solve("kuhn_poker")
    assert "K check bet" in plain.unreached[0]
    report = verify("kuhn_poker", plain, refinement="qpe", top=3)
    worst = report.off_reference[0]
    assert worst["infoset"] == "K check bet" and worst["unreached_by_reference"]
    assert worst["reference"] == {"fold": 0.0, "call": 1.0}
    assert worst["difference"] == pytest.approx(plain.strategies[0]["K check bet"]["fold"])
    assert report.to_dict()["refinement"] == "qpe"
    # on-path play of an equilibrium agrees with the refined equilibrium's there (same value -1/18)
    assert all(d["difference"] < 1e-9 for d in report.off_reference[1:])


def test_cli_verify_and_draw_with_a_refined_reference(tmp_path, capsys):
    strategy = tmp_path / "kuhn.json"
    assert main(["solve", "kuhn_poker", "--json", str(strategy), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["verify", "kuhn_poker", str(strategy), "--refinement", "efpe", "--json", "-",
                 "--quiet"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["refinement"] == "efpe" and obj["off_reference"][0]["infoset"] == "K check bet"
    picture = tmp_path / "kuhn_qpe.png"
    assert main(["draw", "kuhn_poker", "--out", str(picture), "--refinement", "qpe", "--quiet"]) == 0
    assert picture.stat().st_size > 1000
    assert main(["verify", "kuhn_poker", str(strategy), "--refinement", "sgpe", "--quiet"]) == 2
    assert capsys.readouterr().err.count("lpgame: error:") == 1
