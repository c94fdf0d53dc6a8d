"""Bad-input sweep cases for data_adapters (format: tests/bad_input_sweep.py). Each call runs in an empty temporary
working directory, so relative file names below are scratch files of that directory."""
import numpy as np

import data_adapters as D
from bad_input_sweep import Case

S6 = np.arange(24.0).reshape(6, 4)
R6 = np.array([[0, 1, 2, 0, 1, 3], [1, 1, 0, 2, 0, 0]], dtype=float)
NAN = float("nan")


def _h5_garbage():
    with open("rec.h5", "w") as f:
        f.write("x")
    import os

    try:
        return D.load_recording("rec.h5")
    finally:
        os.remove("rec.h5")          # the scratch input is not an output of the call


def _npz(name, **arrays):
    import os

    np.savez(name + ".npz", **arrays)
    try:
        return D.load_recording(name + ".npz")
    finally:
        os.remove(name + ".npz")


def _rec(**kw):
    a = dict(stimuli=S6, responses=R6, neuron_ids=("a", "b"), stimulus_shape=(2, 2))
    a.update(kw)
    return D.Recording(**a)


IMGS = np.random.default_rng(0).random((2, 3, 8, 8))

CASES = [
    # the two rows of ../shared/audits/bad-input-cases.md
    Case("data_adapters.041", "load_recording", "HDF5 file h5py cannot read", _h5_garbage, ("path",)),
    Case("data_adapters.049", "load_recording", "object-dtype array in file (pickle)", lambda: _npz(
        "k7", stimuli=np.array([[1, "a"]], dtype=object), responses=R6), ("stimuli",)),
    Case("data_adapters.101", "load_recording", "missing file", lambda: D.load_recording("nope.npz"), ("path",)),
    Case("data_adapters.102", "load_recording", "unknown extension", lambda: D.load_recording(__file__), ("path",)),
    Case("data_adapters.103", "load_recording", "path an int", lambda: D.load_recording(3), ("path",)),
    Case("data_adapters.104", "load_recording", "counts 'yes'", lambda: D.load_recording("x.npz", counts="yes"),
         ("counts", "path")),
    Case("data_adapters.105", "Recording", "responses with NaN", lambda: _rec(responses=R6 * NAN), ("responses",)),
    Case("data_adapters.106", "Recording", "trial count mismatch", lambda: _rec(responses=R6[:, :5]), ("responses",)),
    Case("data_adapters.107", "Recording", "fractional counts", lambda: _rec(responses=R6 + 0.5), ("responses",)),
    Case("data_adapters.108", "Recording", "negative counts", lambda: _rec(responses=-R6), ("responses",)),
    Case("data_adapters.109", "Recording", "duplicate ids", lambda: _rec(neuron_ids=("a", "a")), ("neuron_ids",)),
    Case("data_adapters.110", "Recording", "stimulus shape mismatch", lambda: _rec(stimulus_shape=(3, 3)),
         ("stimulus_shape",)),
    Case("data_adapters.111", "Recording.neuron", "index 5 of 2", lambda: _rec().neuron(5), ("i",)),
    Case("data_adapters.112", "Recording.split", "n_train = n_trials", lambda: _rec().split(6), ("n_train",)),
    Case("data_adapters.113", "Recording.split", "bad rng", lambda: _rec().split(3, rng="x"), ("rng",)),
    Case("data_adapters.114", "save_recording", "folder missing", lambda: D.save_recording("no/dir/x.npz", S6, R6),
         ("path",)),
    Case("data_adapters.115", "save_recording", "NaN responses", lambda: D.save_recording("x.npz", S6, R6 * NAN),
         ("responses",)),
    Case("data_adapters.116", "save_recording", "ids of the wrong count", lambda: D.save_recording(
        "x.npz", S6, R6, ["a"]), ("neuron_ids",)),
    Case("data_adapters.117", "load_nhefs", "unknown outcome", lambda: D.load_nhefs("weight"), ("outcome",)),
    Case("data_adapters.118", "load_nsw", "unknown control", lambda: D.load_nsw("cps3"), ("control",)),
    Case("data_adapters.119", "load_graph", "unknown graph", lambda: D.load_graph("nope"), ("name",)),
    Case("data_adapters.120", "load_graph", "name an int", lambda: D.load_graph(3), ("name",)),
    Case("data_adapters.121", "load_natural_images", "unknown image", lambda: D.load_natural_images(["nope"]),
         ("names",)),
    Case("data_adapters.122", "load_natural_image_patches", "size 0", lambda: D.load_natural_image_patches(size=0),
         ("size",)),
    Case("data_adapters.123", "load_natural_image_patches", "size beyond the images", lambda:
         D.load_natural_image_patches(size=5000, n=2), ("size",)),
    Case("data_adapters.124", "load_natural_image_patches", "bad rng", lambda: D.load_natural_image_patches(
        n=2, rng="x"), ("rng",)),
    Case("data_adapters.125", "load_natural_image_patches", "whiten 'yes'", lambda: D.load_natural_image_patches(
        n=2, whiten="yes"), ("whiten",)),
    Case("data_adapters.126", "load_natural_image_patches", "n 0", lambda: D.load_natural_image_patches(n=0), ("n",)),
    Case("data_adapters.127", "load_word_pairs", "unknown set", lambda: D.load_word_pairs("nope"), ("name",)),
    Case("data_adapters.128", "load_fashion_mnist", "split 'val'", lambda: D.load_fashion_mnist("val"), ("split",)),
    Case("data_adapters.129", "load_fashion_mnist", "n 0", lambda: D.load_fashion_mnist(n=0), ("n",)),
    Case("data_adapters.130", "load_fashion_mnist", "bad rng", lambda: D.load_fashion_mnist(n=5, rng="x"), ("rng",)),
    Case("data_adapters.131", "load_fashion_mnist", "root that does not exist", lambda: D.load_fashion_mnist(
        n=5, root="no/such/dir"), ("root",)),
    Case("data_adapters.132", "load_mnist_subset", "n -1", lambda: D.load_mnist_subset(n=-1), ("n",)),
    Case("data_adapters.133", "load_sklearn_digits", "n beyond the set", lambda: D.load_sklearn_digits(n=10 ** 6),
         ("n",)),
    Case("data_adapters.134", "load_sklearn_digits", "n 2.5", lambda: D.load_sklearn_digits(n=2.5), ("n",)),
    Case("data_adapters.135", "load_cifar10_cnn", "missing path", lambda: D.load_cifar10_cnn("no/such.pt"),
         ("path",)),
    Case("data_adapters.136", "load_cifar10_cnn", "device tpu", lambda: D.load_cifar10_cnn(device="tpu"),
         ("device",)),
    Case("data_adapters.137", "corrupt_images", "unknown corruption", lambda: D.corrupt_images(IMGS, "rain", 1),
         ("corruption",)),
    Case("data_adapters.138", "corrupt_images", "severity 6", lambda: D.corrupt_images(IMGS, "gaussian_noise", 6),
         ("severity",)),
    Case("data_adapters.139", "corrupt_images", "images outside [0, 1]", lambda: D.corrupt_images(
        IMGS * 255, "gaussian_noise", 1), ("images",)),
    Case("data_adapters.140", "corrupt_images", "NaN image", lambda: D.corrupt_images(
        IMGS * NAN, "gaussian_noise", 1), ("images",)),
    Case("data_adapters.141", "corrupt_images", "2-D images", lambda: D.corrupt_images(IMGS[0, 0], "gaussian_noise", 1),
         ("images",)),
    Case("data_adapters.142", "corrupt_images", "bad rng", lambda: D.corrupt_images(IMGS, "gaussian_noise", 1, rng="x"),
         ("rng",)),
    Case("data_adapters.143", "corrupt_images", "backend option", lambda: D.corrupt_images(
        IMGS, "gaussian_noise", 1, backend="gpu"), ("backend",)),
    Case("data_adapters.144", "load_castle_simu", "downsample 0", lambda: D.load_castle_simu(downsample=0),
         ("downsample",)),
    Case("data_adapters.145", "load_castle_simu", "view 99", lambda: D.load_castle_simu(views=[99]), ("views",)),
    Case("data_adapters.146", "load_visp_sequence", "unknown name", lambda: D.load_visp_sequence("nope"), ("name",)),
    Case("data_adapters.147", "load_cgal_mesh", "unknown mesh", lambda: D.load_cgal_mesh("nope"), ("name",)),
    Case("data_adapters.148", "load_cgal_point_cloud", "unknown cloud", lambda: D.load_cgal_point_cloud("nope"),
         ("name",)),
    Case("data_adapters.149", "cgal_names", "kind option", lambda: D.cgal_names("volume"), ("kind",)),
    Case("data_adapters.150", "load_stereo_motorcycle", "grey 'yes'", lambda: D.load_stereo_motorcycle(grey="yes"),
         ("grey",)),
    Case("data_adapters.151", "load_pyvista_mesh", "unknown mesh", lambda: D.load_pyvista_mesh("nope"), ("name",)),
    Case("data_adapters.152", "load_deepmimic_clip", "unknown clip", lambda: D.load_deepmimic_clip("nope"), ("name",)),
    Case("data_adapters.153", "champ_problem", "unknown id", lambda: D.champ_problem("nope"), ("problem_id",)),
    Case("data_adapters.154", "champ_answer_kind", "id an int", lambda: D.champ_answer_kind(3), ("problem_id",)),
    Case("data_adapters.155", "load_champ", "unknown category", lambda: D.load_champ("nope"), ("category",)),
    Case("data_adapters.156", "load_champ_conversations", "unknown model", lambda: D.load_champ_conversations(
        model="nope"), ("model",)),
    Case("data_adapters.157", "load_champ_conversations", "unknown setting", lambda: D.load_champ_conversations(
        setting="nope"), ("setting",)),
    Case("data_adapters.158", "grade_champ_answer", "response an int", lambda: D.grade_champ_answer(
        3, D.load_champ()[0].identifier), ("response",)),
    Case("data_adapters.159", "grade_champ_answer", "backend option", lambda: D.grade_champ_answer(
        "1", D.load_champ()[0].identifier, backend="x"), ("backend",)),
    Case("data_adapters.160", "humaneval_problem", "unknown task", lambda: D.humaneval_problem("HumanEval/9999"),
         ("task_id",)),
    Case("data_adapters.161", "run_python", "code an int", lambda: D.run_python(3), ("code",)),
    Case("data_adapters.162", "run_python", "timeout 0", lambda: D.run_python("x = 1", timeout=0), ("timeout",)),
    Case("data_adapters.163", "run_python", "memory_mb 0", lambda: D.run_python("x = 1", memory_mb=0),
         ("memory_mb",)),
    Case("data_adapters.164", "run_python", "isolation option", lambda: D.run_python("x = 1", isolation="vm"),
         ("isolation",)),
    Case("data_adapters.165", "run_python", "timeout NaN", lambda: D.run_python("x = 1", timeout=NAN), ("timeout",)),
    Case("data_adapters.166", "run_many", "programs a string", lambda: D.run_many("x = 1"), ("programs",)),
    Case("data_adapters.167", "run_many", "n_workers 0", lambda: D.run_many(["x = 1"], n_workers=0), ("n_workers",)),
    Case("data_adapters.168", "run_humaneval", "problem a string", lambda: D.run_humaneval("p", "c"), ("problem",)),
    Case("data_adapters.169", "run_humaneval_batch", "count mismatch", lambda: D.run_humaneval_batch(
        list(D.load_humaneval()[:2]), ["x"]), ("completions",)),
    Case("data_adapters.170", "load_humanoid_skeleton", "unknown model", lambda: D.load_humanoid_skeleton("nope"),
         ("name",)),
    Case("data_adapters.171", "load_mujoco_model", "unknown model", lambda: D.load_mujoco_model("nope"), ("name",)),
    Case("data_adapters.172", "deepmimic_forward_kinematics", "clip an int", lambda:
         D.deepmimic_forward_kinematics(3), ("clip",)),
    Case("data_adapters.173", "load_stardist_nuclei", "kind option", lambda: D.load_stardist_nuclei("4d"), ("kind",)),
    Case("data_adapters.174", "champ_teacher_records", "unknown setting", lambda: D.champ_teacher_records("nope"),
         ("prompt_setting",)),
    Case("data_adapters.175", "load_champ_teachers", "split 1.5", lambda: D.load_champ_teachers(split=1.5),
         ("split",)),
    Case("data_adapters.176", "load_champ_teachers", "bad rng", lambda: D.load_champ_teachers(rng="x"), ("rng",)),
    Case("data_adapters.177", "load_champ_teachers", "unknown ood_category", lambda: D.load_champ_teachers(
        ood_category="nope"), ("ood_category",)),
    Case("data_adapters.178", "MicroscopyImage", "NaN image", lambda: D.MicroscopyImage(
        np.full((4, 4), NAN), None, "x", "y", "z"), ("image",)),
]
