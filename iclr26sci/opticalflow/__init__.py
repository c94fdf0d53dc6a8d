"""Method layer: DCFlow, unsupervised cross-modal optical flow (Zhang et al., ICLR 2026, arXiv:2509.24423).

Modules:

- ``_geometry``: geometric flow from (depth, K, R, t), z-buffer splatting, validity masks
  (:func:`synthesize_view`), camera-motion and crude-depth samplers;
- ``_appearance``: modality transforms, affine warps and the affine flow composition;
- ``_loss``: the trimmed L1 flow loss and :func:`flow_metrics` (EPE, F1-all);
- ``_nets``: :class:`FlowNet` (``"pwc_tiny"``, ``"raft_small"``, any user net) and the U-Net translator;
- ``_data``: :func:`crossmodal_pairs` and the Middlebury :func:`motorcycle_pair`;
- ``_dcflow``: :class:`DCFlow` and the appearance-only baseline;
- ``_classical``: OpenCV's Farneback and DIS flow under the same protocol;
- ``_io``: Middlebury ``.flo`` and KITTI 16-bit PNG flow read/write, paired-modality folder loader.

Names load on first access (PEP 562), so ``import iclr26sci.opticalflow`` imports neither torch nor cv2.
"""
from __future__ import annotations

from iclr26sci.core._lazy import lazy_loader

#: public name -> the private module that defines it
_WHERE = {
    "geometric_flow": "_geometry", "synthesize_view": "_geometry", "SynthResult": "_geometry",
    "random_camera_motion": "_geometry", "random_smooth_depth": "_geometry",
    "modality_transform": "_appearance", "MODALITIES": "_appearance", "random_affine": "_appearance",
    "warp_affine": "_appearance", "compose_affine_flow": "_appearance", "affine_flow": "_appearance",
    "trimmed_l1": "_loss", "flow_metrics": "_loss",
    "FlowNet": "_nets", "TinyPWC": "_nets", "RAFTSmall": "_nets", "TinyUNet": "_nets", "FLOW_ARCHS": "_nets",
    "CrossModalPairs": "_data", "crossmodal_pairs": "_data", "motorcycle_pair": "_data",
    "MotorcyclePair": "_data", "texture_images": "_data",
    "DCFlow": "_dcflow", "appearance_only": "_dcflow", "structural_loss": "_dcflow",
    "classical_flow": "_classical",
    "read_flo": "_io", "write_flo": "_io", "read_kitti_flow": "_io", "write_kitti_flow": "_io",
    "PairedFrames": "_io", "load_paired_folder": "_io", "FLO_TAG": "_io",
}

__all__ = list(_WHERE)


__getattr__, __dir__ = lazy_loader(__name__, _WHERE)
