"""Humanoid bodies that install offline (MuJoCo MJCF humanoids, the DeepMimic humanoid and its motion clips).

The code lives in the shared 3-D layer, :mod:`iclr26sci.geom` (module ``_mocap``), so that the methods that
animate bodies with real motion capture can use it; this module registers its loaders as data adapters and
re-exports the same objects.
"""
from __future__ import annotations

from iclr26sci.geom._mocap import (DEEPMIMIC_SCALE, DEEPMIMIC_TO_MUJOCO, Joint, MotionFK, Skeleton,  # noqa: F401
                                   deepmimic_forward_kinematics, humanoid_model_names, load_deepmimic_skeleton,
                                   load_humanoid_skeleton, load_mujoco_model)

from ._base import adapter

__all__ = ["Joint", "Skeleton", "MotionFK", "load_humanoid_skeleton", "humanoid_model_names", "load_mujoco_model",
           "load_deepmimic_skeleton", "deepmimic_forward_kinematics", "DEEPMIMIC_TO_MUJOCO", "DEEPMIMIC_SCALE"]

adapter(returns="Skeleton", source="pybullet_data mjcf/humanoid*.xml (PyPI pybullet); /usr/share/mujoco/model "
        "(Debian libmujoco-samples)", description="MuJoCo humanoids as kinematic skeletons with numpy forward "
        "kinematics")(load_humanoid_skeleton)
adapter(returns="MotionFK", source="pybullet_data (PyPI pybullet): data/motions + humanoid/humanoid.urdf",
        description="DeepMimic motion clips played on the DeepMimic humanoid: joint positions over time")(
    deepmimic_forward_kinematics)
