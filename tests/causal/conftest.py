"""Shared fixtures of the causal tests: the objects the bad-input audit's calls refer to."""
import warnings

import numpy as np
import pytest

nan = float("nan")


@pytest.fixture(scope="session")
def ns():
    """The names the audit's calls refer to (validation DGP V1 with n = 150, d = 2, K = 2; nuisances at
    Gamma = 2; a fitted learner; 400 rows of thornton_hiv) plus every public name of iclr26sci.causal."""
    from data_adapters import load_thornton_hiv

    import iclr26sci.causal as causal
    from iclr26sci.causal import SharpPolicyLearner, cross_fit_nuisances, quantile_level, score_matrix, simulate_v1

    data, _ = simulate_v1(150, 2.0, d=2, rng=0)
    N = data.n
    X, A, Y = data.X, data.A, data.Y
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nuis = cross_fit_nuisances(X, A, Y, 2, [quantile_level(2.0), quantile_level(2.0, "lower")], cv=2, rng=0)
        learner = SharpPolicyLearner(cv=2, rng=0).fit(data)
    E = nuis.e
    Q, NL, NU = nuis.get(quantile_level(2.0))
    G = score_matrix(nuis, Y, A, 2.0)
    hiv = load_thornton_hiv().subset(np.arange(400))
    env = {name: getattr(causal, name) for name in causal.__all__ if name not in ("MLPPolicy", "MLPClassifier64",
                                                                                   "MLPRegressor64")}
    env.update(np=np, nan=nan, N=N, X=X, A=A, Y=Y, data=data, nuis=nuis, learner=learner, E=E, Q=Q, NL=NL,
               NU=NU, G=G, hiv=hiv)
    return env
