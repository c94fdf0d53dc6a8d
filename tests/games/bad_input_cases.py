"""Bad-input sweep cases for iclr26sci.games (format: tests/bad_input_sweep.py)."""
from bad_input_sweep import Case
from iclr26sci.games import PolymatrixGame, expected_nash_gap


def _g():
    return PolymatrixGame.random(4, 2, p=1.0, rng=0)  # the audit's 4-player 2-action game


CASES = [
    Case("games.142", "expected_nash_gap", "dp_kwargs track",
         lambda: expected_nash_gap(_g(), 2, rng=0, track=True), ("dp_kwargs",)),
    Case("games.144", "expected_nash_gap", "misspelled kwarg epsilonn",
         lambda: expected_nash_gap(_g(), 2, rng=0, epsilonn=1.0), ("dp_kwargs",)),
]
