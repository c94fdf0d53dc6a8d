r"""The MindPilot pseudo-model: an exact GP regression with FIXED (untrained) hyper-parameters.

With data :math:`\mathcal D = \{(z_i, y_i)\}`, :math:`y_i = -\kappa R_i` (a loss, :math:`\kappa = 100`), a
constant prior mean :math:`m` and the kernel
:math:`k(z, z') = s\,\exp(-\lVert z - z'\rVert^2 / (2\ell^2))` with :math:`\ell = \sqrt d`, :math:`s = \log 2`
(gpytorch's ``ScaleKernel`` default, softplus(0)) and noise :math:`\sigma_n^2 = 10^{-4}`:

.. math::

    \mu(z) = m + k(z, Z)\,\alpha, \qquad \alpha = (K + \sigma_n^2 I)^{-1}(y - m),

    \nabla_z \mu(z) = \sum_i \alpha_i\, k(z, z_i)\, (z_i - z) / \ell^2,

    \sigma^2(z) = s - k(z, Z)(K + \sigma_n^2 I)^{-1} k(Z, z).

The pseudo-target of an embedding :math:`z` is one gradient-descent step on the predicted loss,
:math:`z^+ = z - \eta\,\nabla\mu(z)` (ascent on the predicted reward). These settings are read from the
official code (``model/pseudo_target_model.py``: ConstantMean, ScaleKernel(RBF, ARD) with the length-scales
set to :math:`\sqrt d`, likelihood noise 1e-4, the model kept in eval mode and never trained).
:meth:`PseudoModel.to_gpytorch` builds that gpytorch model, which gives the same predictions.
"""
from __future__ import annotations

import math

import numpy as np
from sklearn.base import BaseEstimator

from iclr26sci.core import InputError, check_array, check_in_range, check_is_fitted

__all__ = ["PseudoModel"]


class PseudoModel(BaseEstimator):
    r"""Exact GP with fixed hyper-parameters over image embeddings; mean, gradient, variance, pseudo-target.

    Parameters
    ----------
    lengthscale : float > 0, optional
        RBF length-scale :math:`\ell` (default :math:`\sqrt d`, the official setting).
    outputscale : float > 0, default log(2)
        Kernel amplitude :math:`s` (gpytorch's untrained ScaleKernel value, softplus(0)).
    noise : float > 0, default 1e-4
        Likelihood noise variance :math:`\sigma_n^2`.
    mean : float, default 0.0
        Constant prior mean :math:`m` (gpytorch's untrained ConstantMean).

    Attributes
    ----------
    X_, y_ : ndarray
        The data (appended by :meth:`add`).
    alpha_ : ndarray
        :math:`(K + \sigma_n^2 I)^{-1}(y - m)`.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.closedloop import PseudoModel
    >>> gp = PseudoModel().fit(np.eye(3), [-1.0, 0.0, 1.0])
    >>> np.round(gp.predict(np.eye(3)), 2)
    array([-1.,  0.,  1.])
    >>> gp.gradient(np.zeros((1, 3))).shape
    (1, 3)
    """

    def __init__(self, lengthscale=None, outputscale=math.log(2.0), noise=1e-4, mean=0.0):
        self.lengthscale = lengthscale
        self.outputscale = outputscale
        self.noise = noise
        self.mean = mean
        self._params(1)

    def _params(self, d):
        ls = math.sqrt(d) if self.lengthscale is None else check_in_range(self.lengthscale, "lengthscale", 0,
                                                                          low_open=True)
        s = check_in_range(self.outputscale, "outputscale", 0, low_open=True)
        nz = check_in_range(self.noise, "noise", 0, low_open=True)
        m = check_in_range(self.mean, "mean")
        if not np.isfinite(ls) or not np.isfinite(s) or not np.isfinite(nz) or not np.isfinite(m):
            raise InputError("lengthscale", "or another hyper-parameter is infinite", "finite hyper-parameters")
        return ls, s, nz, m

    def _k(self, A, B):
        d2 = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2.0 * A @ B.T
        return self.s_ * np.exp(-0.5 * np.maximum(d2, 0.0) / self.ls_ ** 2)

    def fit(self, X, y):
        """Set the data (replacing any previous data); the hyper-parameters are not trained.

        Parameters
        ----------
        X : array (n, d)
            Embeddings.
        y : array (n,)
            Targets (MindPilot passes the loss ``-kappa * reward``).

        Examples
        --------
        >>> import numpy as np
        >>> PseudoModel().fit(np.zeros((1, 2)), [1.0]).alpha_.shape
        (1,)
        """
        X = check_array(X, "X", ndim=2, min_rows=1)
        y = check_array(y, "y", ndim=1)
        if len(y) != len(X):
            raise InputError("y", f"has {len(y)} values for {len(X)} embeddings", "one target per row of X")
        self.ls_, self.s_, self.noise_, self.m_ = self._params(X.shape[1])
        self.X_, self.y_ = X.copy(), y.copy()
        self._refit()
        return self

    def add(self, X, y):
        """Append data (the official ``add_model_data``) and refresh the solve.

        Examples
        --------
        >>> import numpy as np
        >>> gp = PseudoModel().add(np.zeros((1, 2)), [1.0]).add(np.ones((1, 2)), [0.0])
        >>> gp.X_.shape
        (2, 2)
        """
        if not hasattr(self, "X_"):
            return self.fit(X, y)
        X = check_array(X, "X", ndim=2, shape=(None, self.X_.shape[1]))
        y = check_array(y, "y", ndim=1)
        if len(y) != len(X):
            raise InputError("y", f"has {len(y)} values for {len(X)} embeddings", "one target per row of X")
        self.X_ = np.vstack([self.X_, X])
        self.y_ = np.concatenate([self.y_, y])
        self._refit()
        return self

    def _refit(self):
        K = self._k(self.X_, self.X_) + self.noise_ * np.eye(len(self.X_))
        try:
            L = np.linalg.cholesky(K)
        except np.linalg.LinAlgError:
            raise InputError("noise", f"is {self.noise_:g}, too small for the kernel matrix of these points to be "
                             "numerically positive definite (repeated or nearly repeated embeddings)",
                             "a larger noise (e.g. the default 1e-4), or distinct embeddings") from None
        if not np.all(np.isfinite(L)):
            raise InputError("noise", "gives a non-finite Cholesky factor", "a larger noise")
        self.L_ = L
        self.alpha_ = np.linalg.solve(self.L_.T, np.linalg.solve(self.L_, self.y_ - self.m_))

    def _check_z(self, Z, name="Z"):
        check_is_fitted(self, "alpha_", method=name)
        return check_array(Z, name, ndim=2, shape=(None, self.X_.shape[1]))

    def predict(self, Z, return_std=False):
        r"""Posterior mean :math:`\mu(z)` (and the latent standard deviation :math:`\sigma(z)`).

        Examples
        --------
        >>> import numpy as np
        >>> gp = PseudoModel().fit(np.zeros((1, 2)), [-5.0])
        >>> mu, sd = gp.predict(np.zeros((1, 2)), return_std=True)
        >>> bool(abs(mu[0] + 5) < 1e-2 and sd[0] < 0.011)
        True
        """
        Z = self._check_z(Z)
        if not isinstance(return_std, (bool, np.bool_)):
            raise InputError("return_std", f"got {return_std!r}", "True or False")
        Ks = self._k(Z, self.X_)
        mu = self.m_ + Ks @ self.alpha_
        if not return_std:
            return mu
        v = np.linalg.solve(self.L_, Ks.T)
        var = np.maximum(self.s_ - (v * v).sum(0), 0.0)
        return mu, np.sqrt(var)

    def gradient(self, Z):
        r"""Gradient of the posterior mean, :math:`\sum_i \alpha_i k(z, z_i)(z_i - z)/\ell^2`, one row per z.

        Examples
        --------
        >>> import numpy as np
        >>> gp = PseudoModel().fit(np.ones((1, 2)), [1.0])
        >>> bool(np.all(gp.gradient(np.zeros((1, 2))) > 0))   # mean rises towards a datum with y > m
        True
        """
        Z = self._check_z(Z)
        Ks = self._k(Z, self.X_) * self.alpha_[None, :]                     # (m, n)
        return (Ks @ self.X_ - Ks.sum(1, keepdims=True) * Z) / self.ls_ ** 2

    def pseudo_target(self, Z, step_size=1.0):
        r"""One step :math:`z^+ = z - \eta\,\nabla\mu(z)` (descent on the predicted loss).

        Examples
        --------
        >>> import numpy as np
        >>> gp = PseudoModel().fit(np.ones((1, 2)), [-1.0])               # a low loss at (1, 1)
        >>> bool(np.all(gp.pseudo_target(np.zeros((1, 2)), 1.0) > 0))    # the step moves towards it
        True
        """
        eta = check_in_range(step_size, "step_size", 0)
        Z = self._check_z(Z)
        return Z - eta * self.gradient(Z)

    def to_gpytorch(self):
        """The same model as a gpytorch ``ExactGP`` in eval mode (as the official code builds it).

        Examples
        --------
        >>> import numpy as np, torch                                        # doctest: +SKIP
        >>> gp = PseudoModel().fit(np.eye(2), [1.0, -1.0])                    # doctest: +SKIP
        >>> model, lik = gp.to_gpytorch()                                     # doctest: +SKIP
        >>> with torch.no_grad():                                             # doctest: +SKIP
        ...     m = lik(model(torch.eye(2, dtype=torch.float64))).mean.numpy()
        >>> bool(np.allclose(m, gp.predict(np.eye(2)), atol=1e-6))            # doctest: +SKIP
        True
        """
        check_is_fitted(self, "alpha_", method="to_gpytorch")
        import gpytorch
        import torch

        X = torch.as_tensor(self.X_, dtype=torch.float64)
        y = torch.as_tensor(self.y_, dtype=torch.float64)
        d = X.shape[1]

        class _Exact(gpytorch.models.ExactGP):
            def __init__(self, x, t, lik):
                super().__init__(x, t, lik)
                self.mean_module = gpytorch.means.ConstantMean()
                self.covar_module = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel(ard_num_dims=d))

            def forward(self, x):
                return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))

        lik = gpytorch.likelihoods.GaussianLikelihood(
            noise_constraint=gpytorch.constraints.GreaterThan(min(1e-6, self.noise_ / 2)))
        model = _Exact(X, y, lik).double()
        lik.double()
        lik.noise = self.noise_
        model.mean_module.constant.data.fill_(self.m_)
        model.covar_module.outputscale = self.s_
        model.covar_module.base_kernel.lengthscale = self.ls_
        model.eval()
        lik.eval()
        model.requires_grad_(False)
        return model, lik

    def __repr__(self):
        n = len(self.X_) if hasattr(self, "X_") else 0
        return f"PseudoModel(n={n}, lengthscale={self.lengthscale}, noise={self.noise})"
