"""Method layer: 3-D scene methods on the shared :mod:`iclr26sci.geom` layer.

Three papers share this sub-package, one public module each:

- :mod:`iclr26sci.scene3d.ssdgs`: SSD-GS ("SSD-GS: Scattering and Shadow Decomposition for Relightable 3D
  Gaussian Splatting", arXiv:2604.13333), relightable Gaussians with diffuse, specular, subsurface and shadow parts;
- :mod:`iclr26sci.scene3d.gaussian_fusion`: GaussianFusion (arXiv:2607.00746), camera-LiDAR fusion through 3-D
  Gaussians for semantic occupancy and detection, with a BEV-fusion baseline;
- :mod:`iclr26sci.scene3d.josh`: JOSH (arXiv:2501.02158), joint optimisation of cameras, scene and humans from
  monocular video, with scale anchoring by contact.

All are built on :mod:`iclr26sci.geom` (cameras, the pure-torch Gaussian rasterizer, open3d ray casting, the body
model, kinematic chains). Each module's public names are listed in its ``__all__``; the package re-exports them
lazily (PEP 562), reading those lists from the source without importing the modules, so
``import iclr26sci.scene3d`` loads no torch.
"""
from __future__ import annotations

from iclr26sci.core._lazy import lazy_loader, literal_all

#: the public modules whose ``__all__`` this package re-exports
_MODULES = ("ssdgs", "gaussian_fusion", "josh")


#: public name -> the module that defines it
_WHERE = literal_all(__file__, _MODULES)

__all__ = list(_WHERE)

__getattr__, __dir__ = lazy_loader(__name__, _WHERE)
