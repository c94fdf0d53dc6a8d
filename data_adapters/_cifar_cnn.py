"""Port of a Keras ``Sequential`` HDF5 model (as saved by Keras 2.x) to a torch module, reading it with h5py.

Used for the trained CIFAR-10 CNN of ``cifar-10-model`` (see :func:`data_adapters.vision.load_cifar10_cnn`),
but written for the layer types such a model may hold: ``Conv2D`` (valid padding, or same padding with
stride 1), ``BatchNormalization``, ``MaxPooling2D``, ``AveragePooling2D``, ``GlobalAveragePooling2D``,
``Flatten``, ``Dense``, ``Dropout`` and ``Activation``, with the activations ``linear``, ``relu``,
``sigmoid``, ``tanh``, ``softmax``, ``elu``, ``selu``, ``swish``/``silu``, ``gelu``. Anything else is refused
with the layer's name rather than ported wrongly.

Layout conversions (Keras is channels-last, torch channels-first):

- a ``Conv2D`` kernel is stored ``(kh, kw, in, out)`` (HWIO); torch wants ``(out, in, kh, kw)`` (OIHW);
- a ``Dense`` kernel is ``(in, out)``; ``nn.Linear.weight`` is ``(out, in)``;
- ``Flatten`` flattens an NHWC tensor, so the port permutes NCHW -> NHWC before flattening; otherwise the
  first ``Dense`` after it would see its inputs in the wrong order (harmless only when H = W = 1).
"""
from __future__ import annotations

import json

import numpy as np
import torch
from torch import nn

__all__ = ["KerasSequential", "keras_h5_to_torch", "read_keras_h5"]

_H5_INSTALL = 'pip install "iclr26sci[vision]"'


class KerasFlatten(nn.Module):
    """Keras' ``Flatten`` on channels-last data: NCHW -> NHWC -> (N, H*W*C)."""

    def forward(self, x):
        if x.dim() == 4:
            x = x.permute(0, 2, 3, 1)
        return x.reshape(x.shape[0], -1)


class GlobalAvgPool(nn.Module):
    def forward(self, x):
        return x.mean(dim=(2, 3))


class Softmax(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=1)  # Keras' softmax is over the last (channel) axis = torch dim 1


def _activation(name: str, layer: str) -> nn.Module | None:
    acts = {"linear": None, "relu": nn.ReLU, "sigmoid": nn.Sigmoid, "tanh": nn.Tanh, "softmax": Softmax,
            "elu": nn.ELU, "selu": nn.SELU, "swish": nn.SiLU, "silu": nn.SiLU, "gelu": nn.GELU}
    if name not in acts:
        raise ValueError(f"layer {layer!r}: activation {name!r} is not supported by the port "
                         f"(supported: {sorted(acts)})")
    cls = acts[name]
    return None if cls is None else cls()


def read_keras_h5(path: str) -> tuple[list[dict], dict[str, dict[str, np.ndarray]]]:
    """The layer configs and weights of a Keras HDF5 model file.

    Returns
    -------
    layers : list of dict
        ``{"class_name": ..., "config": {...}}`` per layer, in order (the ``InputLayer`` included if present).
    weights : dict
        ``weights[layer_name][short_name]`` with short names such as ``kernel``, ``bias``, ``gamma``, ``beta``,
        ``moving_mean``, ``moving_variance`` (float32 arrays).
    """
    try:
        import h5py
    except ImportError as exc:
        raise ImportError(f"reading a Keras .h5 model needs h5py, which is not installed: {_H5_INSTALL}") from exc
    with h5py.File(path, "r") as f:
        if "model_config" not in f.attrs:
            raise ValueError(f"{path}: no 'model_config' attribute; not a full Keras model file (weights-only "
                             "files carry no architecture)")
        raw = f.attrs["model_config"]
        cfg = json.loads(raw.decode() if isinstance(raw, bytes) else raw)
        if cfg.get("class_name") != "Sequential":
            raise ValueError(f"{path}: model class {cfg.get('class_name')!r}; only Sequential models are ported")
        conf = cfg["config"]
        layers = conf["layers"] if isinstance(conf, dict) else conf
        root = f["model_weights"] if "model_weights" in f else f
        weights: dict[str, dict[str, np.ndarray]] = {}
        for layer in layers:
            name = layer["config"]["name"]
            if name not in root:
                continue
            g = root[name]
            names = [n.decode() if isinstance(n, bytes) else n for n in g.attrs.get("weight_names", [])]
            weights[name] = {n.split("/")[-1].split(":")[0]: np.asarray(g[n], dtype=np.float32) for n in names}
    return layers, weights


class KerasSequential(nn.Module):
    """A ported Keras ``Sequential`` model: named groups of torch layers run in order.

    Each group starts at a ``Conv2D`` (``block0``, ``block1``, ...), the ``Flatten`` (``flatten``) or a
    ``Dense`` (``dense0``, ...) and holds the activation, BatchNorm, pooling and dropout layers that follow it
    in the Keras model. ``blocks`` lists the convolutional groups (the places to hook per-block features).

    Examples
    --------
    >>> m = KerasSequential([("block0", nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU()))], classes=("a",))
    >>> m(torch.zeros(2, 3, 5, 5)).shape
    torch.Size([2, 4, 3, 3])
    """

    def __init__(self, groups, classes=(), input_shape=None):
        super().__init__()
        for name, module in groups:
            self.add_module(name, module)
        self.group_names = tuple(name for name, _ in groups)
        self.classes = tuple(classes)
        self.input_shape = input_shape

    @property
    def blocks(self) -> list[nn.Module]:
        """The convolutional groups, in order."""
        return [getattr(self, n) for n in self.group_names if n.startswith("block")]

    def forward(self, x):
        for name in self.group_names:
            x = getattr(self, name)(x)
        return x

    @torch.no_grad()
    def predict_scores(self, images01, batch_size: int = 256) -> np.ndarray:
        """Class scores of images given in [0, 1] (numpy or tensor, ``(B, C, H, W)``), as numpy."""
        from iclr26sci.core import InputError, check_positive_int

        batch_size = check_positive_int(batch_size, "batch_size")
        x = torch.as_tensor(np.asarray(images01) if not torch.is_tensor(images01) else images01)
        if self.input_shape is not None and (x.dim() != 4 or tuple(x.shape[1:]) != tuple(self.input_shape)):
            raise InputError("images", f"has shape {tuple(x.shape)}", f"(batch, {', '.join(map(str, self.input_shape))})")
        if not torch.is_floating_point(x):
            raise InputError("images", f"has dtype {x.dtype}", "floats in [0, 1] (divide uint8 pixels by 255)")
        if x.numel() and (not torch.isfinite(x).all() or x.min() < 0 or x.max() > 1):
            raise InputError("images", "has values outside [0, 1]", "intensities in [0, 1] (the model scales by 255)")
        was = self.training
        self.eval()
        p = next(self.parameters())
        out = [self(x[i:i + batch_size].to(device=p.device, dtype=p.dtype) * 255.0).cpu()
               for i in range(0, x.shape[0], batch_size)]
        self.train(was)
        return torch.cat(out).numpy() if out else np.zeros((0, len(self.classes)), np.float32)

    def predict(self, images01, batch_size: int = 256) -> np.ndarray:
        """Predicted labels (argmax of the scores) of images in [0, 1]."""
        return self.predict_scores(images01, batch_size).argmax(axis=1)

    def predict_proba(self, images01, batch_size: int = 256) -> np.ndarray:
        """Softmax of the scores (the probabilities the model was trained to output)."""
        s = self.predict_scores(images01, batch_size)
        s = np.exp(s - s.max(axis=1, keepdims=True))
        return s / s.sum(axis=1, keepdims=True)


def _pair(v):
    return tuple(v) if isinstance(v, (list, tuple)) else (v, v)


def keras_h5_to_torch(path: str, classes=()) -> KerasSequential:
    """Build the torch port of the Keras ``Sequential`` model stored in ``path`` (eval mode, float32)."""
    layers, weights = read_keras_h5(path)
    groups: list[tuple[str, list[nn.Module]]] = []
    shape = None  # (C, H, W) or (F,) of the current tensor, channels first
    counts = {"block": 0, "dense": 0}

    def current():
        if not groups:
            groups.append(("input", []))
        return groups[-1][1]

    def start(kind):
        name = f"{kind}{counts[kind]}" if kind in counts else kind
        if kind in counts:
            counts[kind] += 1
        groups.append((name, []))
        return groups[-1][1]

    for layer in layers:
        kind, cfg = layer["class_name"], layer["config"]
        lname = cfg.get("name", kind)
        w = weights.get(lname, {})
        if "batch_input_shape" in cfg and shape is None:
            bis = cfg["batch_input_shape"][1:]
            shape = (bis[2], bis[0], bis[1]) if len(bis) == 3 else tuple(bis)
        if kind == "InputLayer":
            continue
        if cfg.get("data_format", "channels_last") != "channels_last":
            raise ValueError(f"layer {lname!r}: data_format {cfg['data_format']!r}; only channels_last is ported")
        if kind == "Conv2D":
            k = w["kernel"]  # (kh, kw, in, out)
            kh, kw, cin, cout = k.shape
            stride, dil = _pair(cfg.get("strides", 1)), _pair(cfg.get("dilation_rate", 1))
            if cfg.get("groups", 1) != 1:
                raise ValueError(f"layer {lname!r}: grouped convolutions are not ported")
            pad = cfg.get("padding", "valid")
            if pad == "valid":
                padding = 0
            elif pad == "same" and stride == (1, 1) and kh % 2 == 1 and kw % 2 == 1:
                padding = (dil[0] * (kh // 2), dil[1] * (kw // 2))
            else:
                raise ValueError(f"layer {lname!r}: padding {pad!r} with strides {stride} is not ported")
            conv = nn.Conv2d(cin, cout, (kh, kw), stride=stride, padding=padding, dilation=dil,
                             bias=bool(cfg.get("use_bias", True)))
            conv.weight.data = torch.from_numpy(np.ascontiguousarray(k.transpose(3, 2, 0, 1)))
            if conv.bias is not None:
                conv.bias.data = torch.from_numpy(w["bias"].copy())
            mods = start("block")
            mods.append(conv)
            act = _activation(cfg.get("activation", "linear"), lname)
            if act is not None:
                mods.append(act)
            if shape is not None:
                H = (shape[1] + 2 * (padding if isinstance(padding, int) else padding[0]) - dil[0] * (kh - 1) - 1) // stride[0] + 1
                W = (shape[2] + 2 * (padding if isinstance(padding, int) else padding[1]) - dil[1] * (kw - 1) - 1) // stride[1] + 1
                shape = (cout, H, W)
        elif kind == "BatchNormalization":
            axis = cfg.get("axis", -1)
            axis = axis[0] if isinstance(axis, (list, tuple)) else axis
            ndim = len(shape) + 1 if shape is not None else None
            if ndim is not None and axis not in (-1, ndim - 1):
                raise ValueError(f"layer {lname!r}: BatchNormalization over axis {axis}; only the channel axis is ported")
            C = w["moving_mean"].shape[0]
            bn = (nn.BatchNorm2d if (shape is None or len(shape) == 3) else nn.BatchNorm1d)(
                C, eps=float(cfg.get("epsilon", 1e-3)), momentum=1.0 - float(cfg.get("momentum", 0.99)))
            bn.weight.data = torch.from_numpy(w["gamma"].copy()) if cfg.get("scale", True) else torch.ones(C)
            bn.bias.data = torch.from_numpy(w["beta"].copy()) if cfg.get("center", True) else torch.zeros(C)
            bn.running_mean.data = torch.from_numpy(w["moving_mean"].copy())
            bn.running_var.data = torch.from_numpy(w["moving_variance"].copy())
            if not cfg.get("scale", True):
                bn.weight.requires_grad_(False)
            if not cfg.get("center", True):
                bn.bias.requires_grad_(False)
            current().append(bn)
        elif kind in ("MaxPooling2D", "AveragePooling2D"):
            if cfg.get("padding", "valid") != "valid":
                raise ValueError(f"layer {lname!r}: padding {cfg['padding']!r}; only valid pooling is ported")
            ps = _pair(cfg.get("pool_size", 2))
            st = _pair(cfg.get("strides") or ps)
            pool = (nn.MaxPool2d if kind == "MaxPooling2D" else nn.AvgPool2d)(ps, st)
            current().append(pool)
            if shape is not None:
                shape = (shape[0], (shape[1] - ps[0]) // st[0] + 1, (shape[2] - ps[1]) // st[1] + 1)
        elif kind == "GlobalAveragePooling2D":
            current().append(GlobalAvgPool())
            shape = (shape[0],) if shape is not None else None
        elif kind == "Flatten":
            start("flatten").append(KerasFlatten())
            shape = (int(np.prod(shape)),) if shape is not None else None
        elif kind == "Dense":
            k = w["kernel"]  # (in, out)
            if shape is not None and (len(shape) != 1 or shape[0] != k.shape[0]):
                raise ValueError(f"layer {lname!r}: Dense kernel expects {k.shape[0]} inputs, the tensor has shape {shape}")
            lin = nn.Linear(k.shape[0], k.shape[1], bias=bool(cfg.get("use_bias", True)))
            lin.weight.data = torch.from_numpy(np.ascontiguousarray(k.T))
            if lin.bias is not None:
                lin.bias.data = torch.from_numpy(w["bias"].copy())
            mods = start("dense")
            mods.append(lin)
            act = _activation(cfg.get("activation", "linear"), lname)
            if act is not None:
                mods.append(act)
            shape = (k.shape[1],)
        elif kind == "Dropout":
            current().append(nn.Dropout(float(cfg.get("rate", 0.0))))
        elif kind == "Activation":
            act = _activation(cfg.get("activation", "linear"), lname)
            if act is not None:
                current().append(act)
        else:
            raise ValueError(f"layer {lname!r}: Keras layer type {kind!r} is not supported by the port")
    input_shape = None
    first = next((lay["config"] for lay in layers if "batch_input_shape" in lay["config"]), None)
    if first is not None:
        bis = first["batch_input_shape"][1:]
        input_shape = (bis[2], bis[0], bis[1]) if len(bis) == 3 else tuple(bis)
    model = KerasSequential([(n, nn.Sequential(*mods)) for n, mods in groups], classes=classes,
                            input_shape=input_shape)
    return model.eval()
