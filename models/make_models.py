"""Write the generated model files of this folder from lpgame's catalog (see catalog.toml).

Run from the repository root: ``python models/make_models.py``. The hand-written files
(rojas_ex_2_2.efg, rojas_ex_c2.nfg) are not touched. The known values in catalog.toml do not come
from lpgame: each entry names its source.
"""

from pathlib import Path

import lpgame
from lpgame.io.files import write_game_file

HERE = Path(__file__).resolve().parent

MODELS = {
    "kuhn_poker.efg": ("kuhn_poker", {}, "Kuhn poker (2 players, 3 cards)"),
    "one_card_poker_4.efg": ("one_card_poker", {"N": 4, "structured": False},
                             "One-Card Poker OCP(4)"),
    "matching_pennies.nfg": ("matching_pennies", {}, "Matching pennies"),
    "rock_paper_scissors.nfg": ("rock_paper_scissors", {}, "Rock-paper-scissors"),
    "ficha_vs_domino.nfg": ("ficha_vs_domino", {}, "Ficha vs. domino (Chvatal)"),
    "colonel_blotto_5_3.nfg": ("colonel_blotto", {"S": 5, "N": 3},
                               "Colonel Blotto, 5 soldiers, 3 battlefields"),
    "sm2.nfg": ("sm2", {}, "SM2, Farina's small matrix"),   # payoff version (labels are 1, 2)
    "battle_of_the_sexes.nfg": ("battle_of_the_sexes", {}, "Battle of the sexes"),
    "chicken.nfg": ("chicken", {}, "Chicken (Aumann's payoffs)"),
}


def main() -> None:
    for file, (name, params, title) in MODELS.items():
        game = lpgame.games.make(name, **params)
        game.name = title
        options = {"form": "payoff"} if file == "sm2.nfg" else {}
        write_game_file(game, HERE / file, **options)
        print("wrote", file)


if __name__ == "__main__":
    main()
