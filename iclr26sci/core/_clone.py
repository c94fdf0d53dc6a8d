"""scikit-learn cloning for estimators whose constructor takes other, already fitted, estimators."""
from __future__ import annotations

from ._errors import InputError

__all__ = ["clone_keeping_fitted"]


def _is_fitted_estimator(value) -> bool:
    if not (hasattr(value, "get_params") and hasattr(value, "fit")) or isinstance(value, type):
        return False
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    try:
        check_is_fitted(value)
    except (NotFittedError, TypeError):
        return False
    return True


def clone_keeping_fitted(estimator):
    """A scikit-learn clone that shares the estimator's already fitted estimator parameters.

    scikit-learn's :func:`~sklearn.base.clone` clones every parameter that is an estimator, which leaves it
    unfitted. An estimator built on fixed, fitted components (an image embedding fitted on a pool, a decoder
    of that embedding, a model's source statistics) cannot use unfitted ones, so its clone keeps them, as
    :class:`sklearn.frozen.FrozenEstimator` does; every other parameter is cloned as scikit-learn does
    (estimators unfitted, other objects deep-copied). Use it as the class's ``__sklearn_clone__``.

    Parameters
    ----------
    estimator : BaseEstimator
        The estimator to clone.

    Returns
    -------
    BaseEstimator
        A new, unfitted estimator of the same class with the same parameters.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.base import clone
    >>> from iclr26sci.closedloop import PCAEmbedder, PCAGenerator
    >>> emb = PCAEmbedder(2).fit(np.random.default_rng(0).random((10, 3, 3)))
    >>> gen = clone(PCAGenerator(emb, noise=0.0))          # PCAGenerator.__sklearn_clone__ is this function
    >>> gen.embedder is emb, hasattr(clone(emb), "components_")
    (True, False)
    """
    if isinstance(estimator, type) or not callable(getattr(estimator, "get_params", None)):
        raise InputError("estimator", f"got {type(estimator).__name__}",
                         "a scikit-learn estimator instance (with get_params)")
    from sklearn.base import clone

    params = {k: v if _is_fitted_estimator(v) else clone(v, safe=False)
              for k, v in estimator.get_params(deep=False).items()}
    return type(estimator)(**params)
