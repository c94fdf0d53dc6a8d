import functools
import os

import numpy as np
import pytest

from iclr26sci.core import InputError, as_generator, map_replicates, progress, spawn


def _replicate(seed, size=5):
    g = as_generator(seed)
    return g.standard_normal(size)


def test_serial_and_process_pool_bit_identical():
    seeds = spawn(2024, 6)
    a = map_replicates(_replicate, seeds, executor="serial")
    b = map_replicates(_replicate, seeds, executor="local", n_workers=2)
    for x, y in zip(a, b):
        assert np.array_equal(x, y)
    # order follows the seeds
    assert np.array_equal(a[3], _replicate(seeds[3]))


def test_int_seeds_and_partial():
    out = map_replicates(functools.partial(_replicate, size=2), [1, 2, 3], executor="serial")
    assert [o.shape for o in out] == [(2,)] * 3


def test_dask_local_cluster_bit_identical():
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    seeds = spawn(99, 4)
    ref = map_replicates(_replicate, seeds, executor="serial")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        got = map_replicates(_replicate, seeds, executor=client)
        via_address = map_replicates(_replicate, seeds, executor="dask", scheduler=cluster.scheduler_address)
    for r, g, h in zip(ref, got, via_address):
        assert np.array_equal(r, g) and np.array_equal(r, h)


def test_bad_inputs():
    with pytest.raises(InputError, match="seeds"):
        map_replicates(_replicate, 5)
    with pytest.raises(InputError, match=r"seeds\[1\]"):
        map_replicates(_replicate, [1, -2])
    with pytest.raises(InputError, match="executor"):
        map_replicates(_replicate, [1], executor="threads")
    with pytest.raises(InputError, match="fn"):
        map_replicates(3, [1])
    with pytest.raises(InputError, match="scheduler"):
        map_replicates(_replicate, [1], executor="local", scheduler="tcp://x:1")
    assert map_replicates(_replicate, []) == []


def test_progress_silent_under_ci(monkeypatch):
    monkeypatch.setenv("CI", "true")
    it = [1, 2, 3]
    assert progress(it) is it
