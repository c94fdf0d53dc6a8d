"""Re-run of the data_adapters rows of ../shared/audits/bad-input-cases.md, one case per row id.

Each row runs the audit's exact call and asserts an ``InputError`` naming the right argument; rows
that used to write a file also check that nothing was written.
"""
import os

import numpy as np
import pytest

from data_adapters import load_natural_image_patches, load_natural_images
from data_adapters.recordings import Recording, load_recording, save_recording
from iclr26sci.core import InputError

S6 = np.arange(24.0).reshape(6, 4)                       # 6 trials of 2x2 stimuli, flattened
R6 = np.array([[0, 1, 2, 0, 1, 3], [1, 1, 0, 2, 0, 0]], dtype=float)


@pytest.fixture
def ns(tmp_path):
    scr = str(tmp_path)

    def fresh(name):
        path = os.path.join(scr, name)
        if os.path.exists(path):
            os.remove(path)
        return path

    def npz(key, **arrays):
        path = os.path.join(scr, key + ".npz")
        np.savez(path, **arrays)
        return path

    return {"np": np, "os": os, "SCR": scr, "fresh": fresh, "npz": npz, "S6": S6, "R6": R6,
            "Recording": Recording, "load_recording": load_recording, "save_recording": save_recording,
            "load_natural_images": load_natural_images, "load_natural_image_patches": load_natural_image_patches,
            "rec": Recording(S6, R6, ("a", "b"), (2, 2))}


# id -> (exact call, argument the InputError must name, file that must not have been written or None)
ROWS = {
    "data_adapters.017": ("load_natural_image_patches(8, 5, whiten=True, names=['camera'])", "n", None),
    "data_adapters.028": ("Recording(S6, R6, 'ab', (2, 2)).neuron_ids", "neuron_ids", None),
    "data_adapters.029": ("Recording(S6, R6, ('a', 'a'), (2, 2)).neuron('a')", "neuron_ids", None),
    "data_adapters.032": ("rec.neuron(1.7)", "i", None),
    "data_adapters.033": ("rec.neuron(-1)", "i", None),
    "data_adapters.054": ("save_recording(fresh('s2.npz'), S6, R6[:, :3])", "responses", "s2.npz"),
    "data_adapters.055": ("save_recording(fresh('s3.npz'), S6, R6, neuron_ids=['a'])", "neuron_ids", "s3.npz"),
    "data_adapters.056": ("save_recording(fresh('s4.npz'), S6, -R6)", "responses", "s4.npz"),
    "data_adapters.059": ("save_recording(fresh('s5.npz'), np.zeros((0, 4)), np.zeros((2, 0)))", "stimuli", "s5.npz"),
    "data_adapters.061": ("save_recording(fresh('s7.npz'), S6, R6, neuron_ids='ab')", "neuron_ids", "s7.npz"),
    "data_adapters.009": ("load_natural_images([])", "names", None),
    "data_adapters.011": ("load_natural_images(3)", "names", None),
    "data_adapters.016": ("load_natural_image_patches(4, 1, whiten=True)", "n", None),
    "data_adapters.030": ("rec.neuron(5)", "i", None),
    "data_adapters.048": ("exec(\"open(fresh('bad.npz'), 'wb').write(b'not a zip'); "
                          "_ = load_recording(os.path.join(SCR, 'bad.npz'))\")", "path", None),
    "data_adapters.049": ("load_recording(npz('k7', stimuli=np.array([[1, 'a']], dtype=object), responses=R6))",
                          "stimuli", None),
    "data_adapters.041": ("exec(\"open(fresh('rec.h5'), 'w').write('x'); "
                          "_ = load_recording(os.path.join(SCR, 'rec.h5'))\")", "path", None),
    "data_adapters.052": ("load_recording(npz('k9', stimuli=S6, responses=R6 + 0.5), counts='no').counts", "counts", None),
    "data_adapters.057": ("save_recording(os.path.join(SCR, 'no_such_dir', 'x.npz'), S6, R6)", "path", None),
    "data_adapters.058": ("save_recording(3, S6, R6)", "path", None),
}


@pytest.mark.parametrize("row", sorted(ROWS))
def test_audit_row(row, ns):
    call, arg, written = ROWS[row]
    with pytest.raises(InputError, match=f"`{arg}`"):
        eval(call, ns, ns)
    if written:
        assert not os.path.exists(os.path.join(ns["SCR"], written)), "a file was written before the error"


def test_audit_rows_cover_every_data_adapters_id():
    import pathlib
    import re

    audit = pathlib.Path("/work/shared/audits/bad-input-cases.md")
    if not audit.exists():
        pytest.skip("the audit file is not on this machine")
    ids = set(re.findall(r"^\| (data_adapters\.\d+) \|", audit.read_text(), flags=re.M))
    assert ids <= set(ROWS), sorted(ids - set(ROWS))
