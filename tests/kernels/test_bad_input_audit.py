"""Every kernels row of the bad-input audit (../shared/audits/bad-input-cases.md), run by id with its exact call.

Each call must raise an InputError naming the argument given here (``None``: the call is legitimate and the
test asserts its value instead, with the reason beside it). Re-running the audit's sweep for this package is
running this module.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from iclr26sci.core import InputError
from iclr26sci.kernels import (DeepKernelGP, EfficientCodingTheory, PixelRBFGP, ScratchDKL, SparseCodingTheory,
                               Task, TheoryInformedKernel, TheoryTaskSampler, bayes_factor, extract_patches,
                               gpytorch_log_evidence, ift_hypergradient, numpy_log_evidence, psi_hessian,
                               simulate_responses, solve_inner, surround_ratio, theory_match, transform_responses)

nan = float("nan")
D = torch.float64

ROWS = [
    ('kernels.006', 'images',
     'extract_patches([-np.ones((10, 10)) - np.eye(10)], 4, 5, log_luminance=True)'),
    ('kernels.021', 'patches',
     'EfficientCodingTheory().fit(np.zeros((50, 36))).sample_filters(2, rng=0)'),
    ('kernels.033', 'center',
     'theory.receptive_field(center=(-1, -1)).shape'),
    ('kernels.034', 'center',
     'theory.receptive_field(center=2.7).shape'),
    ('kernels.036', 'sign',
     'theory.receptive_field(sign=0)'),
    ('kernels.037', 'sign',
     'theory.receptive_field(sign=5).shape'),
    ('kernels.043', 'n_components',
     'SparseCodingTheory(n_components=0, rng=0).fit(patches).filters_.shape'),
    ('kernels.045', 'n_components',
     'SparseCodingTheory(n_components=100, rng=0).fit(patches).filters_.shape'),
    ('kernels.051', 'rf',
     'surround_ratio(np.array([nan, 1.0]))'),
    ('kernels.052', 'rf',
     'surround_ratio(np.zeros(9))'),
    ('kernels.076', 'index',
     'TheoryTaskSampler(theory, patches, n_tasks=4, n_support=(12,), n_query=8, rng=1)[1.7].n_support'),
    ('kernels.079', 'response',
     "simulate_responses(np.zeros((1, 3)), np.ones(1), np.zeros(1), np.ones(1), 'bernoulli', np.random.default_rng(0))[0]"),
    ('kernels.080', 'drive',
     "simulate_responses(np.full((1, 3), nan), np.ones(1), np.zeros(1), np.ones(1), 'gaussian', np.random.default_rng(0))[0]"),
    ('kernels.086', 'tasks',
     'TheoryInformedKernel(feature_dim=3, channels=3, kernel_size=3, n_outer=3, tasks_per_step=2, progress=False).meta_fit([task_with(y_support=np.ones(12))] * 2, rng=0).history_'),
    ('kernels.110', 'task_specific',
     "TheoryInformedKernel(feature_dim=3, channels=3, kernel_size=3, n_outer=3, tasks_per_step=2, progress=False, task_specific='no').meta_fit(tasks).task_specific"),
    ('kernels.114', 'k',
     'tik.preferred_stimuli(0).shape'),
    ('kernels.115', 'k',
     'tik.preferred_stimuli(-2).shape'),
    ('kernels.134', 'input_dim',
     'TheoryInformedKernel(feature_dim=3, channels=3, kernel_size=3, n_outer=3, tasks_per_step=2, progress=False).init_extractor(36.0)'),
    ('kernels.155', 'architecture',
     "ScratchDKL(feature_dim=2, architecture='rnn', n_iters=3).fit(Xs, ys)"),
    ('kernels.160', 'include_noise',
     "gp.predict(Xs[:2], include_noise='no')[1]"),
    ('kernels.166', 'iters',
     'solve_inner(Ft, zt, psi0, psi0, 3.0, iters=-1)'),
    ('kernels.167', 'tol',
     'solve_inner(Ft, zt, psi0, psi0, 3.0, tol=-1.0, iters=3)'),
    ('kernels.168', 'max_step',
     'solve_inner(Ft, zt, psi0, psi0, 3.0, max_step=0.0, iters=3)'),
    ('kernels.176', 'kind',
     "transform_responses(np.ones(3), 'log')"),
    ('kernels.178', 'y',
     "transform_responses(np.array([nan, 1.0]), 'sqrt')"),
    ('kernels.184', 'y',
     'numpy_log_evidence(np.eye(3), np.full(3, nan), 0.5)'),
    ('kernels.185', 'K',
     'numpy_log_evidence(np.triu(np.ones((3, 3))), np.zeros(3), 0.5)'),
    ('kernels.189', 'y',
     'gpytorch_log_evidence(np.zeros((5, 2)), np.full(5, nan), 1.0, 1.0, 0.1)'),
    ('kernels.197', 'laplace',
     "bayes_factor(tik, PixelRBFGP(), Xs, ys, laplace='yes').log_bf"),
    ('kernels.203', 'grid',
     'theory_match(tik, PixelRBFGP(), Xs, ys, grid=10**7)'),
    ('kernels.031', 'center',
     'theory.receptive_field(center=(10, 10))'),
    ('kernels.032', 'center',
     'theory.receptive_field(center=99)'),
    ('kernels.038', 'center',
     "theory.receptive_field(center='middle')"),
    ('kernels.046', 'max_patches',
     'SparseCodingTheory(n_components=4, max_patches=0, rng=0).fit(patches)'),
    ('kernels.047', 'alpha',
     "SparseCodingTheory(method='dictionary', n_components=4, alpha=-1.0, rng=0).fit(patches).filters_.shape"),
    ('kernels.053', 'rf',
     'surround_ratio(np.array([]))'),
    ('kernels.054', 'rf',
     "surround_ratio('abc')"),
    ('kernels.065', 'rate',
     'TheoryTaskSampler(theory, patches, n_tasks=4, n_support=(12,), n_query=8, rng=1, rate=5.0)'),
    ('kernels.069', 'gain',
     'TheoryTaskSampler(theory, patches, n_tasks=4, n_support=(12,), n_query=8, rng=1, gain=(1e300, 1e300))[0].y_support'),
    ('kernels.070', 'rate',
     'TheoryTaskSampler(theory, patches, n_tasks=4, n_support=(12,), n_query=8, rng=1, rate=(1e300, 1e300))[0].y_support'),
    ('kernels.072', 'alpha',
     'TheoryTaskSampler(theory, patches, n_tasks=4, n_support=(12,), n_query=8, rng=1, alpha=[0.5, 0.5])'),
    ('kernels.075', 'index',
     'TheoryTaskSampler(theory, patches, n_tasks=4, n_support=(12,), n_query=8, rng=1)[10]'),
    ('kernels.077', 'index',
     "TheoryTaskSampler(theory, patches, n_tasks=4, n_support=(12,), n_query=8, rng=1)['a']"),
    ('kernels.078', 'rate',
     "simulate_responses(np.zeros((1, 3)), np.ones(1), np.zeros(1), -np.ones(1), 'poisson', np.random.default_rng(0))"),
    ('kernels.081', 'gen',
     "simulate_responses(np.zeros((1, 3)), np.ones(1), np.zeros(1), np.ones(1), 'poisson', 0)"),
    ('kernels.082', 'gain',
     "simulate_responses(np.zeros((2, 3)), np.ones(3), np.zeros(2), np.ones(2), 'poisson', np.random.default_rng(0))"),
    ('kernels.083', 'tasks',
     'TheoryInformedKernel(feature_dim=3, channels=3, kernel_size=3, n_outer=3, tasks_per_step=2, progress=False).meta_fit([task_with(X_support=np.full((12, 36), nan))] * 2, rng=0).history_'),
    ('kernels.084', 'tasks',
     'TheoryInformedKernel(feature_dim=3, channels=3, kernel_size=3, n_outer=3, tasks_per_step=2, progress=False).meta_fit([task_with(y_support=np.ones(5))] * 2, rng=0).history_'),
    ('kernels.101', 'kernel_size',
     'TheoryInformedKernel(feature_dim=3, channels=3, kernel_size=0, n_outer=3, tasks_per_step=2, progress=False).meta_fit(tasks)'),
    ('kernels.102', 'channels',
     'TheoryInformedKernel(feature_dim=3, channels=0, kernel_size=3, n_outer=3, tasks_per_step=2, progress=False).meta_fit(tasks)'),
    ('kernels.103', 'n_layers',
     'TheoryInformedKernel(feature_dim=3, channels=3, kernel_size=3, n_outer=3, tasks_per_step=2, progress=False, n_layers=0).meta_fit(tasks).features(Xs).shape'),
    ('kernels.104', 'n_layers',
     'TheoryInformedKernel(feature_dim=3, channels=3, kernel_size=3, n_outer=3, tasks_per_step=2, progress=False, n_layers=-1).meta_fit(tasks).features(Xs).shape'),
    ('kernels.105', 'hidden',
     "TheoryInformedKernel(feature_dim=3, channels=3, kernel_size=3, n_outer=3, tasks_per_step=2, progress=False, architecture='mlp', hidden=(-4,)).meta_fit(tasks)"),
    ('kernels.116', 'k',
     'tik.preferred_stimuli(1.5)'),
    ('kernels.117', 'at',
     'tik.preferred_stimuli(2, at=np.zeros((1, 5)))'),
    ('kernels.118', 'at',
     'tik.preferred_stimuli(2, at=np.full((1, 36), nan))'),
    ('kernels.129', 'zs',
     'tik.meta_step(torch.zeros(2, 5, 36, dtype=D), torch.zeros(2, 4, dtype=D), torch.zeros(2, 3, 36, dtype=D), torch.zeros(2, 3, dtype=D))'),
    ('kernels.130', 'Xs',
     'tik.meta_step(np.zeros((2, 5, 36)), np.zeros((2, 5)), np.zeros((2, 3, 36)), np.zeros((2, 3)))'),
    ('kernels.131', 'Xs',
     'tik.meta_step(torch.full((2, 5, 36), nan, dtype=D), torch.zeros(2, 5, dtype=D), torch.zeros(2, 3, 36, dtype=D), torch.zeros(2, 3, dtype=D))[0]'),
    ('kernels.132', 'input_dim',
     'TheoryInformedKernel(feature_dim=3, channels=3, kernel_size=3, n_outer=3, tasks_per_step=2, progress=False).init_extractor(0)'),
    ('kernels.133', 'input_dim',
     'TheoryInformedKernel(feature_dim=3, channels=3, kernel_size=3, n_outer=3, tasks_per_step=2, progress=False).init_extractor(35)'),
    ('kernels.135', 'calibrate',
     'TheoryInformedKernel(feature_dim=3, channels=3, kernel_size=3, n_outer=3, tasks_per_step=2, progress=False).init_extractor(36, rng=0, calibrate=np.zeros((4, 16)))'),
    ('kernels.143', 'model',
     'DeepKernelGP().fit(Xs, ys)'),
    ('kernels.144', 'init_lengthscale',
     "type('G', (DeepKernelGP,), {'_features': lambda self, X: X})(init_lengthscale=-1.0).fit(Xs, ys).log_evidence()"),
    ('kernels.145', 'init_lengthscale',
     "type('G', (DeepKernelGP,), {'_features': lambda self, X: X})(init_lengthscale='auto').fit(Xs, ys)"),
    ('kernels.146', 'init_lengthscale',
     "type('G', (DeepKernelGP,), {'_features': lambda self, X: X})(init_lengthscale=0.0).fit(Xs, ys).log_evidence()"),
    ('kernels.151', 'lr',
     'ScratchDKL(feature_dim=2, channels=2, n_iters=3, lr=-1.0, rng=0).fit(Xs, ys).log_evidence()'),
    ('kernels.152', 'lr',
     'ScratchDKL(feature_dim=2, channels=2, n_iters=3, lr=nan, rng=0).fit(Xs, ys).log_evidence()'),
    ('kernels.154', 'feature_dim',
     'ScratchDKL(feature_dim=0, channels=2, n_iters=3, rng=0).fit(Xs, ys).log_evidence()'),
    ('kernels.162', 'z',
     'solve_inner(Ft, torch.full((2, 10), nan, dtype=D), psi0, psi0, 3.0)'),
    ('kernels.163', 'psi0',
     'solve_inner(Ft, zt, torch.zeros(2, 3, dtype=D), torch.zeros(2, 3, dtype=D), 3.0)'),
    ('kernels.164', 'F',
     'solve_inner(Ft.numpy(), zt.numpy(), psi0.numpy(), psi0.numpy(), 3.0)'),
    ('kernels.165', 'prior_scale',
     'solve_inner(Ft, zt, psi0, psi0, -3.0)'),
    ('kernels.169', 'z',
     'solve_inner(Ft, zt[:1], psi0, psi0, 3.0)'),
    ('kernels.170', 'fn',
     'psi_hessian(3, psi0)'),
    ('kernels.171', 'psi',
     'psi_hessian(lambda p: (p ** 2).sum(-1), np.zeros((2, 3)))'),
    ('kernels.172', 'psi',
     'psi_hessian(lambda p: (p ** 2).sum(-1), torch.zeros(3, dtype=D))'),
    ('kernels.173', 'method',
     "ift_hypergradient(tik.feature_extractor_, torch.as_tensor(Xs[None]), zt[:1, :12] if zt.shape[1] >= 12 else torch.zeros(1, 12, dtype=D), torch.as_tensor(Xs[None]), torch.zeros(1, 12, dtype=D), torch.zeros(1, 6, dtype=D), torch.zeros(1, 6, dtype=D), 1.0, method='bogus')"),
    ('kernels.174', 'neumann_steps',
     "ift_hypergradient(tik.feature_extractor_, torch.as_tensor(Xs[None]), torch.randn(1, 12, dtype=D), torch.as_tensor(Xs[None]), torch.randn(1, 12, dtype=D), torch.zeros(1, 6, dtype=D), torch.zeros(1, 6, dtype=D), 1.0, method='neumann', neumann_steps=-1)[0]"),
    ('kernels.175', 'psi_star',
     'ift_hypergradient(tik.feature_extractor_, torch.as_tensor(Xs[None]), torch.randn(1, 12, dtype=D), torch.as_tensor(Xs[None]), torch.randn(1, 12, dtype=D), torch.zeros(1, 3, dtype=D), torch.zeros(1, 3, dtype=D), 1.0)'),
    ('kernels.177', 'y',
     "transform_responses(-np.ones(3), 'sqrt')"),
    ('kernels.179', None,
     "transform_responses([1.0, 4.0], 'sqrt')"),
    ('kernels.180', 'y',
     "transform_responses('abc', 'sqrt')"),
    ('kernels.181', 'noise',
     'numpy_log_evidence(np.eye(3), np.zeros(3), -2.0)'),
    ('kernels.182', 'K',
     'numpy_log_evidence(-np.eye(3), np.zeros(3), 0.5)'),
    ('kernels.183', 'y',
     'numpy_log_evidence(np.eye(3), np.zeros(4), 0.5)'),
    ('kernels.186', 'noise',
     'gpytorch_log_evidence(np.zeros((5, 2)), np.zeros(5), 1.0, 1.0, -1.0)'),
    ('kernels.187', 'outputscale',
     'gpytorch_log_evidence(np.zeros((5, 2)), np.zeros(5), -1.0, 1.0, 0.1)'),
    ('kernels.188', 'lengthscale',
     'gpytorch_log_evidence(np.zeros((5, 2)), np.zeros(5), 1.0, [1.0, 1.0, 1.0], 0.1)'),
    ('kernels.190', 'y',
     'gpytorch_log_evidence(np.zeros((5, 2)), np.zeros(3), 1.0, 1.0, 0.1)'),
    ('kernels.202', 'model_theory',
     "theory_match('tik', PixelRBFGP(), Xs, ys, grid=3)"),
]

#: rows whose call is legitimate: the right answer is a value (reason in the comment)
VALUES = {
    # a list is an array-like of counts: the square root is the right answer, not an error
    "kernels.179": lambda out: np.allclose(out, [1.0, 2.0]),
}


@pytest.fixture(scope="module")
def ns(tiny_kernels):
    patches, theory, tasks, tik = tiny_kernels(4)
    Xs, ys = tasks[0].X_support, tasks[0].y_support
    gp = tik.fit(Xs, ys)
    gt = torch.Generator().manual_seed(0)
    Ft = torch.randn(2, 10, 3, dtype=D, generator=gt)
    zt = torch.randn(2, 10, dtype=D, generator=gt)
    psi0 = torch.zeros(2, 6, dtype=D)

    def task_with(**kw):
        return dataclasses.replace(tasks[0], **kw)

    env = dict(globals())
    env.update(patches=patches, theory=theory, tasks=tasks, tik=tik, gp=gp, Xs=Xs, ys=ys, Ft=Ft, zt=zt,
               psi0=psi0, task_with=task_with, np=np, torch=torch, D=D, nan=nan)
    return env


def _run(call, env):
    if call.startswith("exec:"):
        exec(call[len("exec:"):].lstrip("; "), env)
        return None
    return eval(call, env)


@pytest.mark.bad_input("kernels.extract_patches", "kernels.EfficientCodingTheory", "kernels.SparseCodingTheory",
                       "kernels.surround_ratio", "kernels.TheoryTaskSampler", "kernels.simulate_responses",
                       "kernels.Task", "kernels.TheoryInformedKernel", "kernels.ScratchDKL", "kernels.NeuronGP",
                       "kernels.DeepKernelGP", "kernels.solve_inner", "kernels.psi_hessian",
                       "kernels.ift_hypergradient", "kernels.transform_responses", "kernels.numpy_log_evidence",
                       "kernels.gpytorch_log_evidence", "kernels.bayes_factor", "kernels.theory_match")
@pytest.mark.parametrize("rid, argument, call", ROWS, ids=[r[0] for r in ROWS])
def test_audit_row(ns, rid, argument, call):
    env = dict(ns)
    if argument is None:
        assert VALUES[rid](_run(call, env)), rid
        return
    with pytest.raises(InputError, match=f"`{argument}`"):
        _run(call, env)
