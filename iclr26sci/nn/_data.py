"""The labelled image container shared by the vision adapters, the small models and the methods."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from iclr26sci.core import InputError, as_generator, check_positive_int


@dataclass(frozen=True, eq=False)
class ImageSet:
    """Labelled images, channels first, float32 in [0, 1].

    Parameters
    ----------
    images : ndarray, shape (n, channels, height, width)
        Pixel intensities scaled to [0, 1] (float32).
    labels : ndarray of int64, shape (n,)
        Class index of each image, in ``0 .. len(classes) - 1``.
    classes : tuple of str
        Class names, indexed by label.
    name : str
        Where the images come from (e.g. ``"fashion-mnist/train"``).

    Examples
    --------
    >>> import numpy as np
    >>> s = ImageSet(np.zeros((4, 1, 8, 8), np.float32), np.array([0, 1, 0, 1]), ("a", "b"), "toy")
    >>> s
    ImageSet('toy', n=4, shape=(1, 8, 8), classes=2)
    >>> train, val = s.split(0.5, rng=0)
    >>> len(train), len(val)
    (2, 2)
    """

    images: np.ndarray
    labels: np.ndarray
    classes: tuple = field(default=())
    name: str = "images"

    def __post_init__(self):
        x = np.asarray(self.images)
        if x.ndim != 4:
            raise InputError("images", f"has shape {x.shape}", "a 4-D array (n, channels, height, width)")
        if x.shape[0] == 0:
            raise InputError("images", "is empty", "at least one image")
        if not np.issubdtype(x.dtype, np.floating):
            raise InputError("images", f"has dtype {x.dtype}", "floats in [0, 1] (divide uint8 pixels by 255)")
        x = x.astype(np.float32, copy=False)
        if not np.all(np.isfinite(x)):
            raise InputError("images", "contains NaN or infinite values", "finite intensities in [0, 1]")
        y = np.asarray(self.labels)
        if y.ndim != 1 or y.shape[0] != x.shape[0]:
            raise InputError("labels", f"has shape {y.shape} for {x.shape[0]} images", f"shape ({x.shape[0]},)")
        if not np.issubdtype(y.dtype, np.integer):
            raise InputError("labels", f"has dtype {y.dtype}", "integer class indices")
        classes = tuple(str(c) for c in self.classes) or tuple(str(c) for c in range(int(y.max()) + 1))
        if y.min() < 0 or y.max() >= len(classes):
            raise InputError("labels", f"range over [{y.min()}, {y.max()}]", f"indices in [0, {len(classes) - 1}]")
        object.__setattr__(self, "images", x)
        object.__setattr__(self, "labels", y.astype(np.int64, copy=False))
        object.__setattr__(self, "classes", classes)

    def __len__(self) -> int:
        return int(self.images.shape[0])

    @property
    def shape(self) -> tuple:
        """The shape of one image, ``(channels, height, width)``."""
        return tuple(self.images.shape[1:])

    @property
    def n_classes(self) -> int:
        """The number of classes."""
        return len(self.classes)

    def __repr__(self) -> str:
        return f"ImageSet({self.name!r}, n={len(self)}, shape={self.shape}, classes={self.n_classes})"

    def subset(self, index) -> "ImageSet":
        """The images at ``index`` (an integer array, a boolean mask or a slice), as a new set."""
        if isinstance(index, slice):
            idx = np.arange(len(self))[index]
        else:
            idx = np.asarray(index)
            if idx.dtype == bool:
                if idx.shape != (len(self),):
                    raise InputError("index", f"is a mask of shape {idx.shape}", f"shape ({len(self)},)")
                idx = np.flatnonzero(idx)
            elif not np.issubdtype(idx.dtype, np.integer):
                raise InputError("index", f"has dtype {idx.dtype}", "integer positions, a boolean mask or a slice")
            elif idx.size and (idx.min() < -len(self) or idx.max() >= len(self)):
                raise InputError("index", "has positions outside the set", f"positions in [0, {len(self) - 1}]")
        if idx.size == 0:
            raise InputError("index", "selects no image", "at least one position")
        return ImageSet(self.images[idx], self.labels[idx], self.classes, self.name)

    def sample(self, n: int, rng=None) -> "ImageSet":
        """``n`` images drawn without replacement (seeded by ``rng``)."""
        n = check_positive_int(n, "n")
        if n > len(self):
            raise InputError("n", f"is {n} but the set holds {len(self)} images", f"at most {len(self)}")
        return self.subset(np.sort(as_generator(rng).choice(len(self), n, replace=False)))

    def split(self, fraction: float, rng=None) -> tuple["ImageSet", "ImageSet"]:
        """Split at random into ``(rest, held_out)``, the held-out part a ``fraction`` of the images."""
        if not isinstance(fraction, (int, float)) or not 0.0 < float(fraction) < 1.0:
            raise InputError("fraction", f"is {fraction!r}", "a number strictly between 0 and 1")
        n_out = int(round(float(fraction) * len(self)))
        if n_out < 1 or n_out >= len(self):
            raise InputError("fraction", f"leaves {n_out} of {len(self)} images held out", "a split with both parts non-empty")
        perm = as_generator(rng).permutation(len(self))
        return self.subset(np.sort(perm[n_out:])), self.subset(np.sort(perm[:n_out]))

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """``(images, labels)`` as numpy arrays."""
        return self.images, self.labels
