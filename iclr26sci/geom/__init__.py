"""Layer 1: the shared 3-D layer -- rotations, cameras, a pure-torch Gaussian rasterizer, warps, metrics.

Modules (each adds its names to ``__all__`` below):

- ``_transforms``: quaternions (wxyz), 6-D rotations, SO(3)/SE(3) exp and log;
- ``_camera``: the pinhole :class:`Camera` (OpenCV / gsplat convention);
- ``_rasterize``: :func:`rasterize_gaussians` (tiled) and its per-pixel reference;
- ``_strategy``: the 3DGS initial-scale rule and the densification strategy;
- ``_warp``: backward warping and forward z-buffer splatting;
- ``_align``: Umeyama / Procrustes alignment; ``_chains``: MST kinematic chains;
- ``_metrics``: SSIM, PSNR, robust losses, optical-flow EPE / F1-all, Chamfer distance.

- ``_raycast``: :class:`RaycastScene` (open3d ray casting with a numpy fallback);
- ``_body``: :class:`BodyModel` (SMPL-topology stand-in, optional ``anny``);
- ``_scenes``: synthetic meshes and scene generators (OLAT, driving with LiDAR, human video).

A new module adds its import below and its names to ``__all__``.
"""
from ._align import umeyama, SimilarityTransform
from ._body import SMPL_JOINT_NAMES, SMPL_PARENTS, BodyModel, BodyOutput
from ._camera import Camera
from ._chains import kinematic_chain, compose_chain, KinematicChain
from ._metrics import (charbonnier, chamfer_distance, epe, flow_f1_all, geman_mcclure, huber, psnr, ssim)
from ._raycast import LidarSweep, RaycastRender, RaycastScene
from ._scenes import (DrivingScene, HumanVideo, OLATScene, box_mesh, driving_scene, human_video, olat_scene,
                      uv_sphere)
from ._rasterize import (ProjectedGaussians, RasterResult, project_gaussians, rasterize_gaussians,
                         rasterize_gaussians_reference)
from ._strategy import DefaultStrategy, init_log_scales
from ._transforms import (hat, quat_multiply, quat_normalize, quat_to_rotmat, rot6d_to_rotmat, rotmat_to_quat,
                          rotmat_to_rot6d, se3_exp, se3_log, so3_exp, so3_log)
from ._warp import backward_warp, forward_splat

__all__ = [
    # transforms
    "quat_normalize", "quat_to_rotmat", "rotmat_to_quat", "quat_multiply", "rot6d_to_rotmat", "rotmat_to_rot6d",
    "so3_exp", "so3_log", "se3_exp", "se3_log", "hat",
    # cameras
    "Camera",
    # Gaussian rasterizer
    "rasterize_gaussians", "rasterize_gaussians_reference", "project_gaussians", "RasterResult",
    "ProjectedGaussians", "init_log_scales", "DefaultStrategy",
    # warps, alignment, chains
    "backward_warp", "forward_splat", "umeyama", "SimilarityTransform", "kinematic_chain", "compose_chain",
    "KinematicChain",
    # losses and metrics
    "ssim", "psnr", "charbonnier", "geman_mcclure", "huber", "epe", "flow_f1_all", "chamfer_distance",
    # ray casting, body model, scenes (geom-world)
    "RaycastScene", "RaycastRender", "LidarSweep", "BodyModel", "BodyOutput", "SMPL_PARENTS", "SMPL_JOINT_NAMES",
    "uv_sphere", "box_mesh", "olat_scene", "driving_scene", "human_video", "OLATScene", "DrivingScene", "HumanVideo",
]

# ray casting, body models and synthetic scenes (open3d is imported lazily inside _raycast)
from ._raycast import LidarSweep, RaycastRender, RaycastScene
from ._body import SMPL_JOINT_NAMES, SMPL_PARENTS, BodyModel, BodyOutput
from ._scenes import (DrivingScene, HumanVideo, OLATScene, box_mesh, driving_scene, human_video, olat_scene,
                      uv_sphere)

__all__ += [
    "RaycastScene", "RaycastRender", "LidarSweep", "BodyModel", "BodyOutput", "SMPL_PARENTS", "SMPL_JOINT_NAMES",
    "uv_sphere", "box_mesh", "olat_scene", "driving_scene", "human_video", "OLATScene", "DrivingScene", "HumanVideo",
]
