"""Foundation primitives against the peers a user would otherwise pick.

* exact W1 between weighted discrete laws: ours vs scipy.stats.wasserstein_distance vs POT (ot.emd2 LP, and
  ot.wasserstein_1d); same answers, time ratios.
* W2 between discrete laws: ours (quantile coupling) vs POT's LP.
* (epsilon, delta) of k composed Gaussian mechanisms: tight GDP vs the zCDP bound (the looser accountant).

Run: python benchmarks/bench_prob.py [--quick]
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _common import print_table, timed  # noqa: E402

from iclr26sci.prob import gdp_compose, gdp_epsilon, gdp_mu_gaussian, wasserstein_distance, zcdp_epsilon  # noqa: E402


def main(quick: bool = False) -> None:
    import ot
    import scipy.stats as ss

    rng = np.random.default_rng(0)
    rows = []
    sizes = (100, 10_000, 1_000_000) if not quick else (100, 10_000)
    for n in sizes:
        x, y = rng.normal(size=n), rng.normal(0.3, 1.2, size=n)
        a, b = rng.random(n), rng.random(n)
        t_ours, w_ours = timed(wasserstein_distance, x, y, a, b)
        t_sp, w_sp = timed(ss.wasserstein_distance, x, y, a, b)
        t_1d, w_1d = timed(ot.wasserstein_1d, x, y, a / a.sum(), b / b.sum(), p=1)
        row = {"n atoms": n, "W1 ours": w_ours, "W1 scipy": w_sp, "W1 POT 1d": float(w_1d),
               "t ours [s]": t_ours, "t scipy [s]": t_sp, "t POT 1d [s]": t_1d,
               "scipy/ours": t_sp / t_ours, "POT1d/ours": t_1d / t_ours}
        if n <= 2000:
            t_lp, w_lp = timed(lambda: ot.emd2(a / a.sum(), b / b.sum(), np.abs(x[:, None] - y[None])), repeat=1)
            row.update({"W1 POT LP": w_lp, "t POT LP [s]": t_lp, "LP/ours": t_lp / t_ours})
        rows.append(row)
    print_table("Exact W1 between weighted discrete laws on the line", rows)

    rows = []
    for n in (100, 1000) if quick else (100, 1000, 3000):
        x, y = rng.normal(size=n), rng.normal(0.3, 1.2, size=n)
        a, b = rng.random(n), rng.random(n)
        t_ours, w_ours = timed(wasserstein_distance, x, y, a, b, p=2)
        t_lp, w_lp = timed(lambda: ot.emd2(a / a.sum(), b / b.sum(), (x[:, None] - y[None]) ** 2) ** 0.5, repeat=1)
        rows.append({"n atoms": n, "W2 ours": w_ours, "W2 POT LP": w_lp, "t ours [s]": t_ours,
                     "t POT LP [s]": t_lp, "LP/ours": t_lp / t_ours})
    print_table("Exact W2: quantile coupling vs transport LP", rows)

    rows = []
    for sigma, k in ((1.0, 1), (5.0, 100), (20.0, 1000), (50.0, 10_000)):
        mu = gdp_compose([gdp_mu_gaussian(1.0, sigma)] * k)
        e_g, e_z = gdp_epsilon(mu, 1e-5), zcdp_epsilon(mu ** 2 / 2, 1e-5)
        rows.append({"sigma": sigma, "compositions": k, "eps tight GDP": e_g, "eps zCDP": e_z,
                     "zCDP/GDP": e_z / e_g})
    print_table("Privacy of composed Gaussian mechanisms at delta = 1e-5 (smaller is tighter)", rows)


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
