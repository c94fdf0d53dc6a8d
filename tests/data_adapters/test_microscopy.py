"""The microscopy adapter: scikit-image's cell and stardist's bundled nuclei images with masks."""
from __future__ import annotations

import numpy as np
import pytest

from iclr26sci.core import InputError
from data_adapters.microscopy import load_cell_image, load_stardist_nuclei

BAD_INPUT_EXEMPT = {
    "data_adapters.MicroscopyImage": "a record returned by the microscopy loaders",
    "data_adapters.STARDIST_IMAGES": "a constant dict of stardist's example files",
    "data_adapters.load_cell_image": "takes no arguments",
}


def test_cell_image():
    im = load_cell_image()
    assert im.image.shape == (660, 550) and im.mask is None and 0 <= im.image.min() < im.image.max() <= 1
    assert im.n_objects == 0 and "cell" in repr(im) and im.to_dict()["licence"] == "BSD-3-Clause"


@pytest.mark.parametrize("kind,shape,objects", [("2d", (512, 512), 125), ("3d", (31, 61, 57), 51),
                                                ("he", (300, 500, 3), 0)])
def test_stardist_images(kind, shape, objects):
    im = load_stardist_nuclei(kind)
    assert im.image.shape == shape and im.n_objects == objects
    if im.mask is not None:
        assert im.mask.shape == im.image.shape and im.mask.dtype == np.int64
        # nuclei are brighter than the background
        assert im.image[im.mask > 0].mean() > im.image[im.mask == 0].mean()


@pytest.mark.bad_input("data_adapters.load_stardist_nuclei")
def test_stardist_bad_kind():
    with pytest.raises(InputError, match="kind"):
        load_stardist_nuclei("4d")
