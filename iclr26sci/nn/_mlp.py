"""Multi-layer perceptrons: the one constructor every nn method builds its small networks with."""
from __future__ import annotations

from iclr26sci.core import InputError, check_in_range, check_option, check_positive_int

#: activation name -> torch.nn class name
_ACTIVATIONS = {
    "relu": "ReLU", "silu": "SiLU", "gelu": "GELU", "tanh": "Tanh", "elu": "ELU",
    "leaky_relu": "LeakyReLU", "softplus": "Softplus", "sigmoid": "Sigmoid",
}
_NORMS = ("layer", "batch")


def mlp(in_dim, out_dim, hidden=(128, 128), act="silu", dropout=0.0, norm=None):
    r"""A fully connected network ``in_dim -> hidden[0] -> ... -> hidden[-1] -> out_dim``.

    Each hidden layer computes

    .. math::

        h_{k} = \operatorname{dropout}_p\bigl(\phi(\operatorname{norm}(W_k h_{k-1} + b_k))\bigr),

    and the output layer is the affine map :math:`W_{K+1} h_K + b_{K+1}` (no activation, no norm), so
    the network can be used for regression, logits or velocities alike. Weights use PyTorch's default
    initialisation (Kaiming-uniform), drawn from torch's global generator: wrap the call in
    ``torch.manual_seed`` or let :func:`iclr26sci.nn.fit` / the estimators re-seed it.

    Parameters
    ----------
    in_dim : int
        Number of input features (the last axis of the input).
    out_dim : int
        Number of outputs (the last axis of the result).
    hidden : sequence of int, default (128, 128)
        Widths of the hidden layers, in order; ``()`` gives a single affine layer.
    act : {"silu", "relu", "gelu", "tanh", "elu", "leaky_relu", "softplus", "sigmoid"}, default "silu"
        The nonlinearity :math:`\phi` applied after every hidden layer.
    dropout : float in [0, 1), default 0.0
        Probability :math:`p` of zeroing a hidden unit during training (inverted dropout; off in
        ``eval()`` mode).
    norm : {None, "layer", "batch"}, default None
        Normalisation of each hidden pre-activation: ``"layer"`` (LayerNorm over the features) or
        ``"batch"`` (BatchNorm1d over the batch).

    Returns
    -------
    torch.nn.Sequential
        Input ``(..., in_dim)`` -> output ``(..., out_dim)`` (``norm="batch"`` needs 2-D input).
        The attributes ``in_dim`` and ``out_dim`` are set on it.

    References
    ----------
    Goodfellow, Bengio and Courville, *Deep Learning*, MIT Press 2016, chapter 6.
    Srivastava et al., "Dropout: a simple way to prevent neural networks from overfitting", JMLR 2014.

    Examples
    --------
    >>> import torch
    >>> net = mlp(in_dim=2, out_dim=3, hidden=(16, 16), act="silu")
    >>> net(torch.zeros(5, 2)).shape
    torch.Size([5, 3])
    >>> len(mlp(4, 1, hidden=()))
    1
    """
    import torch.nn as tnn

    in_dim = check_positive_int(in_dim, "in_dim")
    out_dim = check_positive_int(out_dim, "out_dim")
    if isinstance(hidden, (str, bytes)) or not hasattr(hidden, "__iter__"):
        raise InputError("hidden", f"got {hidden!r}", "a sequence of positive layer widths such as (128, 128)")
    widths = [check_positive_int(h, "hidden") for h in hidden]
    act = check_option(act, "act", tuple(_ACTIVATIONS))
    dropout = check_in_range(dropout, "dropout", 0.0, 1.0, high_open=True)
    if norm is not None:
        norm = check_option(norm, "norm", _NORMS)

    layers = []
    prev = in_dim
    for w in widths:
        layers.append(tnn.Linear(prev, w))
        if norm == "layer":
            layers.append(tnn.LayerNorm(w))
        elif norm == "batch":
            layers.append(tnn.BatchNorm1d(w))
        layers.append(getattr(tnn, _ACTIVATIONS[act])())
        if dropout > 0.0:
            layers.append(tnn.Dropout(dropout))
        prev = w
    layers.append(tnn.Linear(prev, out_dim))
    net = tnn.Sequential(*layers)
    net.in_dim = in_dim
    net.out_dim = out_dim
    return net
