import numpy as np
import pytest

from data_adapters.recordings import Recording, load_recording, save_recording
from iclr26sci.core import InputError


def test_roundtrip_npz(tmp_path):
    g = np.random.default_rng(0)
    S = g.standard_normal((30, 4, 4))
    R = g.poisson(2.0, (3, 30))
    p = save_recording(tmp_path / "rec.npz", S, R, neuron_ids=["a", "b", "c"])
    rec = load_recording(p)
    assert rec.stimuli.shape == (30, 16) and rec.stimulus_shape == (4, 4)
    assert rec.n_neurons == 3 and rec.n_trials == 30
    assert np.array_equal(rec.neuron("b"), R[1])
    tr, te = rec.split(20, rng=0)
    assert tr.n_trials == 20 and te.n_trials == 10


def test_transposed_and_hdf5(tmp_path):
    g = np.random.default_rng(1)
    S = g.standard_normal((12, 9))
    R = g.poisson(1.0, (12, 2))
    np.savez(tmp_path / "t.npz", stimuli=S, responses=R)
    with pytest.raises(InputError, match="responses"):
        load_recording(tmp_path / "t.npz")
    assert load_recording(tmp_path / "t.npz", transpose=True).n_neurons == 2
    h5py = pytest.importorskip("h5py")
    with h5py.File(tmp_path / "r.h5", "w") as f:
        f["stimuli"] = S
        f["responses"] = R.T
    assert load_recording(tmp_path / "r.h5").responses.shape == (2, 12)


def test_recording_errors(tmp_path):
    S = np.zeros((5, 4))
    with pytest.raises(InputError, match="path"):
        load_recording(tmp_path / "missing.npz")
    np.savez(tmp_path / "neg.npz", stimuli=S, responses=-np.ones((1, 5)))
    with pytest.raises(InputError, match="responses"):
        load_recording(tmp_path / "neg.npz")
    np.savez(tmp_path / "nan.npz", stimuli=np.full((5, 4), np.nan), responses=np.ones((1, 5)))
    with pytest.raises(InputError, match="stimuli"):
        load_recording(tmp_path / "nan.npz")
    np.savez(tmp_path / "len.npz", stimuli=S, responses=np.ones((2, 4)))
    with pytest.raises(InputError, match="responses"):
        load_recording(tmp_path / "len.npz")
    np.savez(tmp_path / "key.npz", x=S)
    with pytest.raises(InputError, match="stimuli_key"):
        load_recording(tmp_path / "key.npz")
    (tmp_path / "f.txt").write_text("x")
    with pytest.raises(InputError, match="path"):
        load_recording(tmp_path / "f.txt")
    with pytest.raises(InputError, match="responses"):
        Recording(S, np.full((1, 5), 0.5), ("a",), (4,))
