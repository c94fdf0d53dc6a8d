"""Kinematic chains: a minimum spanning tree over pairwise costs, and pose composition along it."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from iclr26sci.core import InputError

__all__ = ["kinematic_chain", "compose_chain", "KinematicChain"]


@dataclass(frozen=True)
class KinematicChain:
    """A spanning tree rooted at ``root``.

    Attributes
    ----------
    parent : ndarray of int (n,)
        Parent of each node, -1 for the root.
    order : ndarray of int (n,)
        Breadth-first order from the root: every node comes after its parent.
    cost : float
        Total edge cost of the tree.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.geom import kinematic_chain
    >>> ch = kinematic_chain(np.array([[0, 1, 4], [1, 0, 2], [4, 2, 0]], float))
    >>> ch
    KinematicChain(n=3, root=0, cost=3)
    """

    parent: np.ndarray
    order: np.ndarray
    cost: float

    def __repr__(self):
        return f"KinematicChain(n={len(self.parent)}, root={int(self.order[0])}, cost={self.cost:.4g})"

    def to_dict(self) -> dict:
        return {"parent": self.parent.tolist(), "order": self.order.tolist(), "cost": self.cost}

    def summary(self) -> str:
        depth = np.zeros(len(self.parent), int)
        for i in self.order[1:]:
            depth[i] = depth[self.parent[i]] + 1
        return f"spanning tree over {len(self.parent)} nodes, depth {int(depth.max())}, total cost {self.cost:.4g}"


def kinematic_chain(costs, root: int = 0) -> KinematicChain:
    """Minimum spanning tree over a symmetric matrix of pairwise costs, as a rooted chain (JOSH's camera chain).

    Parameters
    ----------
    costs : array-like (n, n)
        Cost of linking node i and j (e.g. a relative-pose uncertainty); symmetric, finite on the
        edges to be used; ``inf`` means "no edge". The diagonal is ignored.
    root : int
        Node that gets parent -1.

    Returns
    -------
    KinematicChain

    Raises
    ------
    InputError
        Non-square or asymmetric costs, negative costs, a root out of range, or a disconnected graph.

    References
    ----------
    Kruskal (1956); scipy.sparse.csgraph.minimum_spanning_tree.

    Examples
    --------
    >>> import numpy as np
    >>> c = np.array([[0, 1, 4], [1, 0, 2], [4, 2, 0]], float)
    >>> ch = kinematic_chain(c)
    >>> ch.parent.tolist(), ch.order.tolist(), ch.cost
    ([-1, 0, 1], [0, 1, 2], 3.0)
    """
    from scipy.sparse.csgraph import breadth_first_order, minimum_spanning_tree

    if isinstance(costs, torch.Tensor):
        costs = costs.detach().cpu().numpy()
    try:
        c = np.asarray(costs, dtype=float)
    except (TypeError, ValueError):
        raise InputError("costs", "cannot be read as a float matrix", "an (n, n) array of edge costs") from None
    if c.ndim != 2 or c.shape[0] != c.shape[1] or c.shape[0] < 1:
        raise InputError("costs", f"has shape {c.shape}", "a square (n, n) matrix with n >= 1")
    n = c.shape[0]
    if isinstance(root, bool) or not isinstance(root, (int, np.integer)) or not 0 <= root < n:
        raise InputError("root", f"got {root!r}", f"a node index in [0, {n - 1}]")
    off = ~np.eye(n, dtype=bool)
    if np.isnan(c[off]).any():
        raise InputError("costs", "contains NaN", "finite costs, or inf for a missing edge")
    if (c[off] < 0).any():
        raise InputError("costs", "contains negative costs", "costs >= 0")
    if not np.array_equal(c[off], c.T[off]):
        raise InputError("costs", "is not symmetric", "a symmetric cost matrix")
    # scipy treats 0 as "no edge": shift finite costs by a constant (the tree is unchanged by it)
    w = np.where(off & np.isfinite(c), c + 1.0, 0.0)
    tree = minimum_spanning_tree(w)
    sym = tree + tree.T
    order, pred = breadth_first_order(sym, int(root), directed=False, return_predecessors=True)
    if len(order) != n:
        raise InputError("costs", "describes a disconnected graph", "finite costs that connect every node")
    parent = np.where(pred < 0, -1, pred).astype(int)
    parent[root] = -1
    cost = float(sum(c[i, parent[i]] for i in range(n) if parent[i] >= 0))
    return KinematicChain(parent=parent, order=np.asarray(order, int), cost=cost)


def compose_chain(relative, chain: KinematicChain, root_pose=None) -> torch.Tensor:
    """Absolute poses from relative poses along a chain: ``T_i = T_parent(i) @ relative[i]``.

    Parameters
    ----------
    relative : tensor (n, 4, 4)
        ``relative[i]`` maps node i's frame into its parent's frame (ignored for the root); rigid
        transforms ``[[R, t], [0, 1]]`` with ``R`` a rotation (checked).
    chain : KinematicChain
    root_pose : tensor (4, 4), optional
        The root's absolute pose (identity by default).

    Returns
    -------
    tensor (n, 4, 4)

    Examples
    --------
    >>> import torch, numpy as np
    >>> ch = KinematicChain(parent=np.array([-1, 0, 1]), order=np.array([0, 1, 2]), cost=0.0)
    >>> rel = torch.eye(4).repeat(3, 1, 1); rel[:, 0, 3] = 1.0
    >>> compose_chain(rel, ch)[:, 0, 3]
    tensor([0., 1., 2.])
    """
    from ._transforms import check_rigid

    if not isinstance(chain, KinematicChain):
        raise InputError("chain", f"got {type(chain).__name__}", "a KinematicChain (from kinematic_chain)")
    rel = check_rigid(relative, "relative")
    n = len(chain.parent)
    if rel.ndim != 3 or rel.shape[0] != n:
        raise InputError("relative", f"has shape {tuple(rel.shape)}", f"shape ({n}, 4, 4), one pose per node")
    if root_pose is None:
        root_pose = torch.eye(4, dtype=rel.dtype, device=rel.device)
    else:
        root_pose = check_rigid(root_pose, "root_pose").to(rel)
        if root_pose.ndim != 2:
            raise InputError("root_pose", f"has shape {tuple(root_pose.shape)}", "one 4x4 rigid transform")
    out = [None] * n
    for i in chain.order.tolist():
        p = int(chain.parent[i])
        out[i] = root_pose if p < 0 else out[p] @ rel[i]
    return torch.stack(out)
