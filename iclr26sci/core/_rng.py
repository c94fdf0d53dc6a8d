"""Random-number handling following Scientific-Python SPEC 7.

Every random function in iclr26sci takes one ``rng`` keyword that may be
``None``, an ``int``, a :class:`numpy.random.SeedSequence`, a
:class:`numpy.random.BitGenerator`, a :class:`numpy.random.Generator`, or a
legacy :class:`numpy.random.RandomState` (as scikit-learn's ``random_state``
takes). The default policy: ``None`` draws fresh OS entropy (not
reproducible), an ``int`` is reproducible, and a ``Generator`` or
``RandomState`` is used (and advanced) in place, so a script that threads one
generator through its calls is reproducible from its first seed.
Independent replicates get children of :meth:`SeedSequence.spawn`, so a
result never depends on how the replicates are scheduled.
"""
from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np

from ._errors import InputError

__all__ = ["as_generator", "spawn", "torch_generator", "seed_sequence", "check_rng", "resolve_rng"]

RngLike = Any  # None | int | SeedSequence | BitGenerator | Generator


def seed_sequence(rng: RngLike = None) -> np.random.SeedSequence:
    """Return a :class:`numpy.random.SeedSequence` from any SPEC-7 seed.

    A ``Generator`` or ``BitGenerator`` contributes its own seed sequence
    when it has one, otherwise a fresh sequence is drawn from it (which
    advances it), so that the children remain reproducible given the state.

    Parameters
    ----------
    rng : None, int, SeedSequence, BitGenerator, Generator or RandomState
        The seed. ``None`` draws fresh OS entropy (not reproducible); a
        non-negative ``int`` gives the same sequence every time.

    Examples
    --------
    >>> seed_sequence(7).entropy
    7
    >>> seed_sequence(-1)
    Traceback (most recent call last):
    ...
    iclr26sci.core._errors.InputError: invalid argument `rng`: got the negative integer -1; expected a non-negative integer seed
    """
    if rng is None:
        return np.random.SeedSequence()
    if isinstance(rng, np.random.SeedSequence):
        return rng
    if isinstance(rng, (Integral, np.integer)) and not isinstance(rng, bool):
        if int(rng) < 0:
            raise InputError("rng", f"got the negative integer {int(rng)}", "a non-negative integer seed")
        return np.random.SeedSequence(int(rng))
    if isinstance(rng, np.random.RandomState):
        # a legacy generator (scikit-learn's random_state): draw the entropy from it, which advances it, so
        # the result is reproducible given its state, as with a Generator that has no seed sequence
        return np.random.SeedSequence(rng.randint(0, 2**32, size=4, dtype=np.uint64).tolist())
    if isinstance(rng, np.random.Generator):
        rng = rng.bit_generator
    if isinstance(rng, np.random.BitGenerator):
        ss = getattr(rng, "seed_seq", None) or getattr(rng, "_seed_seq", None)
        if isinstance(ss, np.random.SeedSequence):
            # Spawning from the bit generator's sequence keeps parent and
            # children statistically independent (numpy >= 1.25 also
            # offers Generator.spawn, which does the same).
            return ss.spawn(1)[0]
        return np.random.SeedSequence(rng.random_raw(4).tolist())
    raise InputError(
        "rng",
        f"got an object of type {type(rng).__name__}",
        "None, a non-negative int, a numpy SeedSequence, BitGenerator, Generator or RandomState",
    )


def check_rng(rng: RngLike, name: str = "rng") -> RngLike:
    """Check that ``rng`` is a SPEC-7 seed, without drawing from it; returns it unchanged.

    For constructors that store ``rng`` and use it later: a bad seed is refused at construction
    time, not at the first random draw.

    Parameters
    ----------
    rng : object
        The user's seed: None, a non-negative int, a SeedSequence, a BitGenerator or a Generator.
    name : str, default "rng"
        The argument's name, used in the error message.

    Examples
    --------
    >>> check_rng(3)
    3
    >>> check_rng("x")
    Traceback (most recent call last):
    ...
    iclr26sci.core._errors.InputError: invalid argument `rng`: got an object of type str; expected None, a non-negative int, a numpy SeedSequence, BitGenerator, Generator or RandomState
    """
    if rng is None or isinstance(rng, (np.random.SeedSequence, np.random.Generator, np.random.BitGenerator,
                                       np.random.RandomState)):
        return rng
    if isinstance(rng, (Integral, np.integer)) and not isinstance(rng, (bool, np.bool_)):
        if int(rng) < 0:
            raise InputError(name, f"got the negative integer {int(rng)}", "a non-negative integer seed")
        return rng
    raise InputError(name, f"got an object of type {type(rng).__name__}",
                     "None, a non-negative int, a numpy SeedSequence, BitGenerator, Generator or RandomState")


def _same_seed(a, b) -> bool:
    if a is b:
        return True
    ints = (Integral, np.integer)
    return (isinstance(a, ints) and isinstance(b, ints) and not isinstance(a, (bool, np.bool_))
            and not isinstance(b, (bool, np.bool_)) and int(a) == int(b))


def resolve_rng(rng: RngLike, random_state: RngLike = None, *, default: RngLike = None) -> RngLike:
    """The seed an estimator uses, from its ``rng`` and ``random_state``, scikit-learn's name for it.

    Estimators take both parameters and store them unchanged (so ``clone``, ``get_params`` and
    ``set_params`` keep working); the seed is resolved by this function when it is used:

    - ``random_state`` None: ``rng``;
    - ``rng`` None, or ``rng`` equal to the estimator's own ``default`` (it was not passed): ``random_state``;
    - both given and the same (the same object, or equal integers): that seed;
    - both given and different: :class:`~iclr26sci.core.InputError`.

    An estimator whose ``rng`` defaults to a number (``default=0``) cannot tell ``rng=0`` passed from its
    default, so there ``random_state`` wins over ``rng=0``. The seed returned is checked as
    :func:`check_rng` does (the error names the argument it came from); nothing is drawn from it.

    Parameters
    ----------
    rng : None, int, SeedSequence, BitGenerator, Generator or RandomState
        The estimator's ``rng``.
    random_state : None, int, SeedSequence, BitGenerator, Generator or RandomState, default None
        The estimator's ``random_state`` (an alias of ``rng`` for scikit-learn users).
    default : object, default None
        The default of the estimator's ``rng`` parameter.

    Examples
    --------
    >>> resolve_rng(None, 3), resolve_rng(5, None), resolve_rng(0, 7, default=0), resolve_rng(2, 2)
    (3, 5, 7, 2)
    >>> resolve_rng(1, 2)
    Traceback (most recent call last):
    ...
    iclr26sci.core._errors.InputError: invalid argument `random_state`: got 2 while rng=1; expected only one of rng and random_state (random_state is scikit-learn's name for rng), or the same seed in both
    """
    if random_state is None:
        return check_rng(rng, "rng")
    check_rng(random_state, "random_state")
    if rng is None or _same_seed(rng, default) or _same_seed(rng, random_state):
        return random_state
    raise InputError("random_state", f"got {random_state!r} while rng={rng!r}",
                     "only one of rng and random_state (random_state is scikit-learn's name for rng), or the same "
                     "seed in both")


def as_generator(rng: RngLike = None) -> np.random.Generator:
    """Normalise ``rng`` to a :class:`numpy.random.Generator` (SPEC 7).

    A ``Generator`` is returned unchanged (shared state, as SPEC 7 asks);
    anything else seeds a new PCG64 generator.

    Parameters
    ----------
    rng : None, int, SeedSequence, BitGenerator, Generator or RandomState
        The seed or generator to use (see :func:`seed_sequence`).

    Examples
    --------
    >>> g = as_generator(0)
    >>> float(g.random()) == float(as_generator(0).random())
    True
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, np.random.BitGenerator):
        return np.random.Generator(rng)
    return np.random.default_rng(seed_sequence(rng))


def spawn(rng: RngLike, n: int) -> list[np.random.SeedSequence]:
    """Return ``n`` independent child :class:`~numpy.random.SeedSequence` objects.

    The children depend only on ``rng`` (not on the executor that later
    consumes them), which makes replicated simulations bit-reproducible.

    Parameters
    ----------
    rng : None, int, SeedSequence, BitGenerator, Generator or RandomState
        The parent seed.
    n : int >= 0
        How many independent children (one per replicate) to make.

    Examples
    --------
    >>> kids = spawn(0, 3)
    >>> len(kids), [k.spawn_key for k in kids]
    (3, [(0,), (1,), (2,)])
    """
    if not isinstance(n, (Integral, np.integer)) or isinstance(n, bool) or int(n) < 0:
        raise InputError("n", f"got {n!r}", "a non-negative integer number of children")
    return seed_sequence(rng).spawn(int(n))


def torch_generator(rng: RngLike = None, device: str = "cpu"):
    """Return a seeded :class:`torch.Generator` derived from ``rng``.

    The 63-bit seed is drawn from a child seed sequence, so numpy and torch
    streams derived from the same ``rng`` do not overlap.

    Parameters
    ----------
    rng : None, int, SeedSequence, BitGenerator, Generator or RandomState
        The seed (see :func:`seed_sequence`); a ``Generator`` is advanced.
    device : str, default "cpu"
        Torch device the generator lives on (``"cpu"``, ``"cuda"``, ...); it
        must exist on this machine.

    Examples
    --------
    >>> g = torch_generator(0)
    >>> import torch
    >>> bool(torch.rand(2, generator=g)[0] == torch.rand(2, generator=torch_generator(0))[0])
    True
    """
    import torch

    if not isinstance(device, (str, torch.device)):
        raise InputError("device", f"got {type(device).__name__}", "a torch device name such as 'cpu' or 'cuda'")
    try:
        dev = torch.device(device)
        g = torch.Generator(device=dev)
    except (RuntimeError, ValueError) as exc:
        raise InputError("device", f"got {device!r}, which torch cannot use here ({str(exc).splitlines()[0][:80]})",
                         "an available torch device such as 'cpu'") from None

    ss = seed_sequence(rng) if not isinstance(rng, np.random.Generator) else None
    if ss is None:
        seed = int(rng.integers(0, 2**63 - 1))
    else:
        seed = int(ss.generate_state(2, dtype=np.uint64)[0] >> np.uint64(1))
    g.manual_seed(seed)
    return g
