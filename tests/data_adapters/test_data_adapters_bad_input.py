"""Bad input to every public loader of data_adapters (a clear InputError naming the argument), and a
coverage check like tests/test_public_api.py's for the data_adapters package."""
import ast
import json
import pathlib

import numpy as np
import pytest

import data_adapters as da
from data_adapters.recordings import Recording
from iclr26sci.core import InputError

#: names in data_adapters.__all__ that take no user input (the convention of tests/test_public_api.py,
#: kept under another name because that test resolves BAD_INPUT_EXEMPT keys inside iclr26sci)
DATA_ADAPTERS_EXEMPT = {
    "data_adapters.ADAPTERS": "a registry dict of the loaders, no call",
    "data_adapters.GRAPH_NAMES": "a constant tuple of names",
    "data_adapters.NATURAL_IMAGE_NAMES": "a constant tuple of names",
    "data_adapters.load_lee_corpus": "takes no arguments (reads the file shipped with gensim)",
    "data_adapters.load_lee_similarity": "takes no arguments (reads the files shipped with gensim)",
    "data_adapters.load_thornton_hiv": "takes no arguments (reads the table shipped with causaldata)",
    "data_adapters.FASHION_MNIST_CLASSES": "a constant tuple of class names",
    "data_adapters.CIFAR10_CLASSES": "a constant tuple of class names",
    "data_adapters.CORRUPTIONS": "a constant tuple of corruption names",
    "data_adapters.CIFAR_C_CORRUPTIONS": "a constant tuple of corruption names",
    "data_adapters.CIFAR_C_CONSTANTS": "a constant dict of the CIFAR-10-C severity constants",
}


def _raises(arg, f, *a, **k):
    with pytest.raises(InputError, match=f"`{arg}`"):
        f(*a, **k)


@pytest.mark.bad_input("data_adapters.load_nhefs", "data_adapters.load_nsw", "data_adapters.load_graph",
                       "data_adapters.load_word_pairs")
def test_choice_loaders_bad():
    _raises("outcome", da.load_nhefs, "bmi")
    _raises("outcome", da.load_nhefs, ["death"])
    _raises("control", da.load_nsw, "psid")
    _raises("control", da.load_nsw, None)
    _raises("name", da.load_graph, "petersen")
    _raises("name", da.load_graph, 3)
    _raises("name", da.load_word_pairs, "men")


@pytest.mark.bad_input("data_adapters.load_natural_images", "data_adapters.load_natural_image_patches")
def test_image_loaders_bad():
    _raises("names", da.load_natural_images, ["lena"])
    _raises("names", da.load_natural_images, "camera")
    _raises("names", da.load_natural_images, [])
    _raises("size", da.load_natural_image_patches, size=1)
    _raises("size", da.load_natural_image_patches, size=4.0)
    _raises("n", da.load_natural_image_patches, n=0)
    _raises("n", da.load_natural_image_patches, size=8, n=64, whiten=True)
    _raises("whiten", da.load_natural_image_patches, whiten="no")
    _raises("remove_mean", da.load_natural_image_patches, remove_mean=1)
    _raises("rng", da.load_natural_image_patches, rng="seed")
    _raises("n", da.load_natural_image_patches, size=64, n=10**12)       # 32 PiB: refused before allocating
    _raises("size", da.load_natural_image_patches, size=4000, n=10, names=["camera"])


@pytest.mark.bad_input("data_adapters.Recording", "data_adapters.load_recording", "data_adapters.save_recording")
def test_recording_bad(tmp_path):
    S, R = np.zeros((4, 4)), np.ones((2, 4))
    _raises("stimuli", Recording, np.zeros((0, 4)), np.ones((2, 0)), ("a", "b"), (2, 2))
    _raises("responses", Recording, S, R[:, :3], ("a", "b"), (2, 2))
    _raises("responses", Recording, S, R + 0.5, ("a", "b"), (2, 2))
    _raises("neuron_ids", Recording, S, R, ("a",), (2, 2))
    _raises("neuron_ids", Recording, S, R, ("a", 1), (2, 2))
    _raises("stimulus_shape", Recording, S, R, ("a", "b"), (3, 3))
    _raises("stimulus_shape", Recording, S, R, ("a", "b"), "2x2")
    _raises("counts", Recording, S, R, ("a", "b"), (2, 2), counts="yes")
    rec = Recording(S, R, ("a", "b"), (2, 2))
    _raises("i", rec.neuron, "c")
    _raises("i", rec.neuron, True)
    _raises("n_train", rec.split, 4)
    _raises("n_train", rec.split, 0)
    _raises("path", da.load_recording, 3)
    _raises("path", da.load_recording, tmp_path / "missing.npz")
    p = da.save_recording(tmp_path / "r.npz", S, R)
    _raises("transpose", da.load_recording, p, transpose="no")
    _raises("stimuli_key", da.load_recording, p, stimuli_key="x")
    _raises("stimuli_key", da.load_recording, p, stimuli_key=3)
    (tmp_path / "r.txt").write_text("x")
    _raises("path", da.load_recording, tmp_path / "r.txt")
    _raises("counts", da.save_recording, tmp_path / "q.npz", S, R, counts="no")
    assert not (tmp_path / "q.npz").exists()
    assert da.save_recording(tmp_path / "rates", S, R + 0.5, counts=False).endswith("rates.npz")


def test_recording_result_api():
    rec = Recording(np.zeros((500, 256)), np.ones((3, 500)), ("a", "b", "c"), (16, 16), source="x.npz")
    assert len(repr(rec)) < 120 and "3 neurons x 500 trials" in rec.summary()
    json.dumps(rec.to_dict())
    assert rec == Recording(np.zeros((500, 256)), np.ones((3, 500)), ("a", "b", "c"), (16, 16))
    assert rec != Recording(np.zeros((500, 256)), np.ones((3, 500)), ("a", "b", "d"), (16, 16))


def _declared():
    covered, exempt = set(), dict(DATA_ADAPTERS_EXEMPT)
    for path in pathlib.Path(__file__).parent.rglob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "bad_input":
                covered |= {a.value for a in node.args if isinstance(a, ast.Constant)}
            # a test module may declare its own exemptions (the convention of tests/test_public_api.py)
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "BAD_INPUT_EXEMPT"
                                                    for t in node.targets):
                exempt.update({k: v for k, v in ast.literal_eval(node.value).items()
                               if k.startswith("data_adapters.")})
    return covered, exempt


def test_every_public_data_adapter_has_a_bad_input_test():
    covered, exempt = _declared()
    missing = [n for n in da.__all__ if f"data_adapters.{n}" not in covered | set(exempt)]
    assert not missing, f"data_adapters: public names without a @pytest.mark.bad_input test: {missing}"
    stale = [k for k in exempt if k.split(".", 1)[1] not in da.__all__]
    assert not stale, stale
