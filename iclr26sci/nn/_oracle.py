r"""Exact flow-matching velocity fields for Gaussian data (and class-conditional Gaussian mixtures).

Time convention of :mod:`iclr26sci.nn`: :math:`t \in [0, 1]`, :math:`t = 0` is the source
:math:`x_0 \sim N(0, I)`, :math:`t = 1` is the data :math:`x_1 \sim N(m, \Sigma)`.

*Linear path* (independent coupling, rectified flow / conditional flow matching with
``sigma_min`` :math:`= \sigma_{\min}`): :math:`x_t = \alpha_t x_1 + \beta_t x_0` with
:math:`\alpha_t = t`, :math:`\beta_t = 1 - (1 - \sigma_{\min}) t`. The marginal is Gaussian,
:math:`p_t = N(\alpha_t m, C_t)` with :math:`C_t = \alpha_t^2 \Sigma + \beta_t^2 I`, and the marginal
velocity :math:`v(x, t) = E[\dot\alpha_t x_1 + \dot\beta_t x_0 \mid x_t = x]` is affine in ``x``:

.. math::

    v(x, t) = \dot\alpha_t m + (\dot\alpha_t \alpha_t \Sigma + \dot\beta_t \beta_t I)\, C_t^{-1} (x - \alpha_t m).

*OT path* (the population limit of minibatch OT-CFM): noise and data are coupled by the optimal
transport map :math:`x_1 = m + A x_0`, :math:`A = \Sigma^{1/2}`, so
:math:`x_t = t m + B_t x_0` with :math:`B_t = (1 - t) I + t A`, :math:`p_t = N(t m, B_t^2)` and
:math:`v(x, t) = m + (A - I) B_t^{-1} (x - t m)`. Minibatch OT-CFM approaches this field as the batch grows;
with a finite batch its field lies between the linear and the OT one, so compare a trained OT-CFM model with
this oracle only loosely.

With several classes (``mean`` of shape (K, d)) the oracle is class-conditional: label ``k`` selects
:math:`N(m_k, \Sigma_k)`; the label ``K`` (or ``cond=None``) is the mixture :math:`\sum_k w_k N(m_k, \Sigma_k)`,
whose linear-path velocity is the posterior-weighted average
:math:`v(x, t) = \sum_k \pi_k(x, t) v_k(x, t)`, :math:`\pi_k \propto w_k N(x; \alpha_t m_k, C_{k,t})`.

References
----------
Lipman, Chen, Ben-Hamu, Nickel, Le (2023), Flow matching for generative modeling, ICLR.
Tong et al. (2024), Improving and generalizing flow-based generative models with minibatch optimal transport, TMLR.
"""
from __future__ import annotations

from numbers import Integral

import numpy as np

from iclr26sci.core import InputError, as_generator, check_array, check_in_range, check_option

__all__ = ["GaussianFlowOracle"]


def _sqrtm_psd(S: np.ndarray) -> np.ndarray:
    w, V = np.linalg.eigh(S)
    return (V * np.sqrt(np.clip(w, 0.0, None))) @ V.T


class GaussianFlowOracle:
    r"""The exact marginal velocity field, marginal mean and covariance for Gaussian data.

    Parameters
    ----------
    mean : array of shape (d,) or (K, d)
        Mean :math:`m` of the data distribution; a (K, d) array gives K classes (class-conditional oracle).
    cov : array of shape (d, d) or (K, d, d), optional
        Covariance :math:`\Sigma` of the data (positive definite); default the identity. One (d, d) matrix
        is shared by all classes.
    path : {"linear", "ot"}, default "linear"
        Which probability path the velocity belongs to: ``"linear"`` is flow matching with independent
        noise-data pairs (what :class:`FlowMatching` with ``path="linear"`` learns), ``"ot"`` is the optimal
        transport coupling (the large-batch limit of ``path="ot-cfm"``; single Gaussian only).
    sigma_min : float in [0, 1), default 0
        Residual noise at :math:`t = 1` of the linear path, :math:`\beta_t = 1 - (1 - \sigma_{\min}) t`
        (the same meaning as in :class:`FlowMatching`). Only for ``path="linear"``.
    weights : array of shape (K,), optional
        Class probabilities :math:`w_k` of the unconditional mixture (default uniform).

    Attributes
    ----------
    event_shape : tuple
        ``(d,)``, the shape of one sample.
    n_classes : int or None
        K for a class-conditional oracle, else None.
    cond_dim : None
        (The velocity-network protocol's attribute; vector conditioning is not offered.)

    Examples
    --------
    >>> import torch
    >>> from iclr26sci.nn import GaussianFlowOracle
    >>> orc = GaussianFlowOracle(mean=[1.0, -1.0], cov=[[0.5, 0.1], [0.1, 0.3]])
    >>> orc.marginal_mean(0.5)
    array([ 0.5, -0.5])
    >>> v = orc.velocity(torch.zeros(3, 2, dtype=torch.float64), 0.0)   # at t = 0: v = m
    >>> v[0].tolist()
    [1.0, -1.0]
    """

    def __init__(self, mean, cov=None, path="linear", sigma_min=0.0, weights=None):
        m = check_array(mean, "mean", ndim=(1, 2))
        if m.size == 0 or m.shape[-1] == 0:
            raise InputError("mean", f"has shape {m.shape}", "at least one dimension and one class")
        self._conditional = m.ndim == 2
        M = m if m.ndim == 2 else m[None, :]
        K, d = M.shape
        if cov is None:
            C = np.broadcast_to(np.eye(d), (K, d, d)).copy()
        else:
            c = check_array(cov, "cov", ndim=(2, 3))
            if c.ndim == 2:
                if c.shape != (d, d):
                    raise InputError("cov", f"has shape {c.shape}", f"shape ({d}, {d}) to match mean")
                C = np.broadcast_to(c, (K, d, d)).copy()
            else:
                if c.shape != (K, d, d):
                    raise InputError("cov", f"has shape {c.shape}", f"shape ({K}, {d}, {d}) to match mean")
                C = c.copy()
            if not np.allclose(C, np.swapaxes(C, -1, -2), atol=1e-10):
                raise InputError("cov", "is not symmetric", "a symmetric positive definite matrix")
            if np.min(np.linalg.eigvalsh(C)) <= 0:
                raise InputError("cov", "is not positive definite", "a symmetric positive definite matrix")
        self.path = check_option(path, "path", ["linear", "ot"])
        self.sigma_min = check_in_range(sigma_min, "sigma_min", 0.0, 1.0, high_open=True)
        if self.path == "ot" and (K > 1 or self.sigma_min > 0):
            raise InputError("path", "'ot' is implemented for a single Gaussian with sigma_min=0",
                             "path='linear' for class-conditional oracles or sigma_min > 0")
        if weights is None:
            w = np.full(K, 1.0 / K)
        else:
            w = check_array(weights, "weights", ndim=1, nonnegative=True)
            if w.shape != (K,) or not np.isclose(w.sum(), 1.0):
                raise InputError("weights", f"has shape {w.shape} and sum {w.sum():.4g}",
                                 f"{K} non-negative class probabilities summing to 1")
        self.means = M
        self.covs = C
        self.weights = w
        self.event_shape = (d,)
        self.n_classes = K if self._conditional else None
        self.cond_dim = None
        self._sqrt = np.stack([_sqrtm_psd(Ck) for Ck in C])

    def __repr__(self):
        k = f", n_classes={self.n_classes}" if self.n_classes else ""
        return f"GaussianFlowOracle(d={self.event_shape[0]}{k}, path={self.path!r})"

    # ------------------------------------------------------------------ path coefficients
    def _coef(self, t):
        s = self.sigma_min
        return t, 1.0 - (1.0 - s) * t, 1.0, -(1.0 - s)   # alpha, beta, alpha', beta'

    def _t_scalar(self, t, name="t"):
        return check_in_range(t, name, 0.0, 1.0)

    def _component(self, cond):
        """Class index (or None for the mixture / unconditional)."""
        if cond is None:
            return None
        if not self._conditional:
            raise InputError("cond", "was given to an unconditional oracle", "cond=None")
        if isinstance(cond, (bool, np.bool_)) or not isinstance(cond, (Integral, np.integer)):
            raise InputError("cond", f"got {cond!r}", f"an int label in [0, {self.n_classes}]")
        k = int(cond)
        if not 0 <= k <= self.n_classes:
            raise InputError("cond", f"label {k} is out of range",
                             f"a label in [0, {self.n_classes - 1}] or {self.n_classes} (no condition)")
        return None if k == self.n_classes else k

    # ------------------------------------------------------------------ exact marginals
    def marginal_mean(self, t, cond=None) -> np.ndarray:
        """Exact mean of :math:`p_t` (the mixture mean when ``cond`` is None or the null label).

        Parameters
        ----------
        t : float in [0, 1]
            Time (0 noise, 1 data).
        cond : int, optional
            Class label of a class-conditional oracle.
        """
        t = self._t_scalar(t)
        k = self._component(cond)
        a = self._coef(t)[0]
        if k is None:
            return a * (self.weights @ self.means)
        return a * self.means[k]

    def marginal_cov(self, t, cond=None) -> np.ndarray:
        """Exact covariance of :math:`p_t` (the mixture's total covariance when unconditional).

        Parameters
        ----------
        t : float in [0, 1]
            Time (0 noise, 1 data).
        cond : int, optional
            Class label of a class-conditional oracle.
        """
        t = self._t_scalar(t)
        k = self._component(cond)
        ks = range(len(self.means)) if k is None else [k]
        covs = np.stack([self._cov_k(t, j) for j in ks])
        if k is not None:
            return covs[0]
        a = self._coef(t)[0]
        mu = a * self.means
        mbar = self.weights @ mu
        dm = mu - mbar
        return np.einsum("k,kij->ij", self.weights, covs) + np.einsum("k,ki,kj->ij", self.weights, dm, dm)

    def _cov_k(self, t, k):
        d = self.event_shape[0]
        if self.path == "ot":
            B = (1 - t) * np.eye(d) + t * self._sqrt[k]
            return B @ B
        a, b, _, _ = self._coef(t)
        return a * a * self.covs[k] + b * b * np.eye(d)

    def affine(self, t, cond=None):
        r"""The field at time ``t`` as :math:`v(x, t) = c + M x` (single Gaussian or one class).

        Parameters
        ----------
        t : float in [0, 1]
            Time.
        cond : int, optional
            Class label (required for a class-conditional oracle: a mixture's field is not affine).

        Returns
        -------
        c : ndarray (d,)
        M : ndarray (d, d)
        """
        t = self._t_scalar(t)
        k = self._component(cond)
        if k is None:
            if self._conditional:
                raise InputError("cond", "the mixture's velocity is not affine", "a class label")
            k = 0
        return self._affine_k(t, k)

    def _affine_k(self, t, k):
        d = self.event_shape[0]
        m = self.means[k]
        I = np.eye(d)
        if self.path == "ot":
            A = self._sqrt[k]
            B = (1 - t) * I + t * A
            M = (A - I) @ np.linalg.inv(B)
            return m - M @ (t * m), M
        a, b, da, db = self._coef(t)
        Ct = a * a * self.covs[k] + b * b * I
        M = np.linalg.solve(Ct, (da * a * self.covs[k] + db * b * I).T).T
        c = da * m - M @ (a * m)
        return c, M

    # ------------------------------------------------------------------ velocity (protocol)
    def _times(self, t, B, torch, x):
        if torch.is_tensor(t):
            tt = t.detach().to("cpu", torch.float64).reshape(-1)
            if tt.numel() == 1:
                tt = tt.expand(B)
            if tt.numel() != B:
                raise InputError("t", f"has {tt.numel()} entries", f"a scalar or one time per row ({B})")
            tt = tt.numpy()
        else:
            tt = np.asarray(t, dtype=float).reshape(-1)
            if tt.size == 1:
                tt = np.full(B, float(tt[0]))
            if tt.size != B:
                raise InputError("t", f"has {tt.size} entries", f"a scalar or one time per row ({B})")
        if not np.all(np.isfinite(tt)) or tt.min() < 0 or tt.max() > 1:
            raise InputError("t", "has values outside [0, 1]", "times in [0, 1]")
        return tt

    def _labels(self, cond, B):
        """Per-row component index, -1 for the mixture."""
        if cond is None:
            return np.full(B, -1)
        if not self._conditional:
            raise InputError("cond", "was given to an unconditional oracle", "cond=None")
        import torch

        c = cond.detach().cpu().numpy() if torch.is_tensor(cond) else np.asarray(cond)
        if c.ndim == 0:
            c = np.full(B, c.item())
        if c.shape != (B,) or not np.issubdtype(c.dtype, np.integer):
            raise InputError("cond", f"has shape {c.shape} and dtype {c.dtype}", f"integer labels of shape ({B},)")
        if c.min() < 0 or c.max() > self.n_classes:
            raise InputError("cond", f"has labels outside [0, {self.n_classes}]",
                             f"labels in [0, {self.n_classes - 1}] or {self.n_classes} (no condition)")
        return np.where(c == self.n_classes, -1, c)

    def velocity(self, x, t, cond=None, guidance=1.0):
        r"""Exact marginal velocity :math:`v(x, t)` (torch in, torch out; dtype and device of ``x``).

        Parameters
        ----------
        x : tensor of shape (B, d)
            Points.
        t : float or tensor of shape (B,)
            Times in [0, 1].
        cond : int or LongTensor (B,), optional
            Class labels (``n_classes`` = no condition = the mixture).
        guidance : float, default 1
            Classifier-free guidance weight :math:`w`: :math:`v_u + w (v_c - v_u)` (class-conditional only).
        """
        import torch

        if not torch.is_tensor(x):
            x = torch.as_tensor(np.asarray(x, dtype=float))
        d = self.event_shape[0]
        if x.ndim != 2 or x.shape[1] != d:
            raise InputError("x", f"has shape {tuple(x.shape)}", f"shape (B, {d})")
        if not torch.is_floating_point(x):
            raise InputError("x", f"has dtype {x.dtype}", "a floating-point tensor")
        B = x.shape[0]
        tt = self._times(t, B, torch, x)
        lab = self._labels(cond, B)
        w = check_in_range(guidance, "guidance")
        xn = x.detach().to("cpu", torch.float64).numpy()
        v = self._velocity_np(xn, tt, lab)
        if w != 1.0 and self._conditional:
            vu = self._velocity_np(xn, tt, np.full(B, -1))
            v = vu + w * (v - vu)
        return torch.as_tensor(v, dtype=x.dtype, device=x.device)

    __call__ = velocity

    def _velocity_np(self, x, tt, lab):
        out = np.empty_like(x)
        for tv in np.unique(tt):          # loop over distinct times (one for a solver step), not samples
            rows = tt == tv
            for k in np.unique(lab[rows]):
                r = rows & (lab == k)
                out[r] = self._mixture_v(x[r], tv) if k < 0 else self._comp_v(x[r], tv, int(k))
        return out

    def _comp_v(self, x, t, k):
        c, M = self._affine_k(t, k)
        return c + x @ M.T

    def _mixture_v(self, x, t):
        K = len(self.means)
        if K == 1:
            return self._comp_v(x, t, 0)
        a = self._coef(t)[0]
        logw = np.empty((x.shape[0], K))
        vs = []
        for k in range(K):
            C = self._cov_k(t, k)
            L = np.linalg.cholesky(C)
            z = np.linalg.solve(L, (x - a * self.means[k]).T)
            logw[:, k] = np.log(self.weights[k] + 1e-300) - 0.5 * (z * z).sum(0) - np.log(np.diag(L)).sum()
            vs.append(self._comp_v(x, t, k))
        logw -= logw.max(1, keepdims=True)
        p = np.exp(logw)
        p /= p.sum(1, keepdims=True)
        return np.einsum("bk,kbd->bd", p, np.stack(vs))

    def score(self, x, t, cond=None):
        r"""Exact score :math:`\nabla_x \log p_t(x)` of a single Gaussian / one class (numpy).

        Parameters
        ----------
        x : array (B, d)
        t : float in [0, 1)
        cond : int, optional
        """
        X = check_array(x, "x", ndim=2, shape=(None, self.event_shape[0]))
        k = self._component(cond)
        if k is None:
            if self._conditional:
                raise InputError("cond", "score of the mixture is not offered", "a class label")
            k = 0
        t = self._t_scalar(t)
        C = self._cov_k(t, k)
        mu = self.marginal_mean(t, None if not self._conditional else k)
        return -np.linalg.solve(C, (X - mu).T).T

    def sample_data(self, n, cond=None, rng=None) -> np.ndarray:
        """Draw ``n`` data points :math:`x_1` (from class ``cond``, or the mixture).

        Parameters
        ----------
        n : int >= 1
        cond : int, optional
        rng : seed or Generator
        """
        from iclr26sci.core import check_positive_int

        n = check_positive_int(n, "n")
        k = self._component(cond)
        g = as_generator(rng)
        ks = np.full(n, k) if k is not None else g.choice(len(self.means), size=n, p=self.weights)
        z = g.standard_normal((n, self.event_shape[0]))
        L = np.linalg.cholesky(self.covs)
        return self.means[ks] + np.einsum("nij,nj->ni", L[ks], z)
