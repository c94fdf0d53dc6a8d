"""Layer 1: the shared 3-D layer -- rotations, cameras, a pure-torch Gaussian rasterizer, warps, metrics.

Modules (each adds its names to ``__all__`` below):

- ``_transforms``: quaternions (wxyz), 6-D rotations, SO(3)/SE(3) exp and log, and the shared validators
  :func:`check_rotation` / :func:`check_rigid` (orthonormal, det +1);
- ``_camera``: the pinhole :class:`Camera` (OpenCV / gsplat convention);
- ``_rasterize``: :func:`rasterize_gaussians` (tiled) and its per-pixel reference;
- ``_strategy``: the 3DGS initial-scale rule and the densification strategy;
- ``_warp``: backward warping and forward z-buffer splatting;
- ``_align``: Umeyama / Procrustes alignment; ``_chains``: MST kinematic chains;
- ``_metrics``: SSIM, PSNR, robust losses, optical-flow EPE / F1-all, Chamfer distance.

- ``_raycast``: :class:`RaycastScene` (open3d ray casting with a numpy fallback);
- ``_body``: :class:`BodyModel` (SMPL-topology stand-in, optional ``anny``);
- ``_scenes``: synthetic meshes and scene generators (OLAT, driving with LiDAR, human video);
- ``_mocap``: real motion capture -- the DeepMimic clips shipped with pybullet, played on the DeepMimic
  humanoid by numpy forward kinematics (:func:`deepmimic_forward_kinematics`), and the MuJoCo humanoids.

A new module adds its names to ``_WHERE`` below. Names load on first access (PEP 562), so
``import iclr26sci.geom`` does not import torch.
"""
from __future__ import annotations

from iclr26sci.core._lazy import lazy_loader

#: public name -> the private module that defines it
_WHERE = {
    "quat_normalize": "_transforms", "quat_to_rotmat": "_transforms", "rotmat_to_quat": "_transforms",
    "quat_multiply": "_transforms", "rot6d_to_rotmat": "_transforms", "rotmat_to_rot6d": "_transforms",
    "so3_exp": "_transforms", "so3_log": "_transforms", "se3_exp": "_transforms", "se3_log": "_transforms",
    "hat": "_transforms", "check_rotation": "_transforms", "check_rigid": "_transforms",
    "Camera": "_camera",
    "rasterize_gaussians": "_rasterize", "rasterize_gaussians_reference": "_rasterize",
    "project_gaussians": "_rasterize", "RasterResult": "_rasterize", "ProjectedGaussians": "_rasterize",
    "init_log_scales": "_strategy", "DefaultStrategy": "_strategy",
    "backward_warp": "_warp", "forward_splat": "_warp",
    "umeyama": "_align", "SimilarityTransform": "_align",
    "kinematic_chain": "_chains", "compose_chain": "_chains", "KinematicChain": "_chains",
    "ssim": "_metrics", "psnr": "_metrics", "charbonnier": "_metrics", "geman_mcclure": "_metrics",
    "huber": "_metrics", "epe": "_metrics", "flow_f1_all": "_metrics", "chamfer_distance": "_metrics",
    "RaycastScene": "_raycast", "RaycastRender": "_raycast", "LidarSweep": "_raycast",
    "BodyModel": "_body", "BodyOutput": "_body", "SMPL_PARENTS": "_body", "SMPL_JOINT_NAMES": "_body",
    "uv_sphere": "_scenes", "box_mesh": "_scenes", "olat_scene": "_scenes", "driving_scene": "_scenes",
    "human_video": "_scenes", "OLATScene": "_scenes", "DrivingScene": "_scenes", "HumanVideo": "_scenes",
    "load_deepmimic_clip": "_mocap", "deepmimic_forward_kinematics": "_mocap", "MotionFK": "_mocap",
    "load_deepmimic_skeleton": "_mocap", "load_humanoid_skeleton": "_mocap", "load_mujoco_model": "_mocap",
    "humanoid_model_names": "_mocap", "Skeleton": "_mocap", "Joint": "_mocap", "DEEPMIMIC_TO_MUJOCO": "_mocap",
    "DEEPMIMIC_SCALE": "_mocap",
}

__all__ = list(_WHERE)


__getattr__, __dir__ = lazy_loader(__name__, _WHERE)
