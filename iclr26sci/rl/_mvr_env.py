"""Multi-view clip recording for gymnasium environments (MuJoCo, headless) and MVR's toy environments."""
from __future__ import annotations

import os
import time
from dataclasses import dataclass

import gymnasium as gym
import numpy as np

from iclr26sci.core import InputError, check_bool, check_positive_int

#: named free cameras for MuJoCo tasks: name -> (azimuth, elevation) in degrees. The paper's four views are
#: the azimuths 90, 180, 270 and 0 ("side", "front", "other_side", "back"); its single-view baseline 125.
CAMERAS = {"side": (90.0, -10.0), "front": (180.0, -10.0), "other_side": (270.0, -10.0), "back": (0.0, -10.0),
           "top": (90.0, -89.0), "diagonal": (125.0, -20.0)}


@dataclass
class MultiViewClip:
    """One recorded clip: ``frames`` (V, F, H, W, 3) uint8, ``states`` (L, d), task ``rewards`` (L,).

    Built by :class:`MultiViewEnv` when an episode ends (``pop_clips``, ``rollout_clips``).

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.rl.mvr import MultiViewClip
    >>> MultiViewClip(np.zeros((2, 8, 4, 4, 3), np.uint8), np.zeros((128, 17)), np.zeros(128))
    MultiViewClip(frames=(2, 8, 4, 4, 3), states=(128, 17))
    """

    frames: np.ndarray
    states: np.ndarray
    rewards: np.ndarray

    def __repr__(self):
        return f"MultiViewClip(frames={self.frames.shape}, states={self.states.shape})"


class _MuJoCoViews:
    """Free tracking cameras (or the model's named cameras) rendered with mujoco.Renderer."""

    def __init__(self, unwrapped, cameras, size, distance, fast, track_body):
        import mujoco

        self.mujoco = mujoco
        self.model, self.unwrapped = unwrapped.model, unwrapped
        h, w = size
        self.renderer = mujoco.Renderer(self.model, h, w)
        import atexit

        atexit.register(self.close)  # free the GL context before interpreter teardown (avoids noisy __del__)
        named = [self.model.camera(i).name for i in range(self.model.ncam)]
        self.cams = []
        for c in cameras:
            if c in CAMERAS:
                cam = mujoco.MjvCamera()
                cam.type = mujoco.mjtCamera.mjCAMERA_TRACKING
                cam.trackbodyid = int(track_body)
                cam.distance = float(distance if distance is not None else 1.6 * self.model.stat.extent)
                cam.azimuth, cam.elevation = CAMERAS[c]
                self.cams.append(cam)
            elif c in named:
                self.cams.append(c)
            else:
                raise InputError("cameras", f"{c!r} is not a known camera",
                                 f"one of {sorted(CAMERAS)} or the model's cameras {named}")
        self.fast = fast

    def render(self):
        out = []
        for cam in self.cams:
            self.renderer.update_scene(self.unwrapped.data, camera=cam)
            if self.fast:
                f = self.mujoco.mjtRndFlag
                for k in (f.mjRND_SHADOW, f.mjRND_REFLECTION, f.mjRND_SKYBOX):
                    self.renderer.scene.flags[k] = 0
            out.append(self.renderer.render().copy())
        return np.stack(out)

    def close(self):
        r, self.renderer = getattr(self, "renderer", None), None
        if r is not None:
            try:
                r.close()
            except Exception:  # noqa: BLE001 - the GL context may already be gone at interpreter exit
                pass


class _CustomViews:
    def __init__(self, unwrapped, cameras, size):
        names = list(getattr(unwrapped, "camera_names", ()))
        for c in cameras:
            if c not in names:
                raise InputError("cameras", f"{c!r} is not a camera of {type(unwrapped).__name__}",
                                 f"one of {names}")
        self.unwrapped, self.cameras, self.size = unwrapped, list(cameras), size

    def render(self):
        h, w = self.size
        return np.stack([np.asarray(self.unwrapped.render_view(c, h, w), dtype=np.uint8) for c in self.cameras])

    def close(self):
        pass


def make_multiview_env(env, cameras=("side", "front", "back"), clip_len=8, every=16, size=(64, 64),
                       record_every=1, clip_stride=None, distance=None, fast_render=True, track_body=1, **make_kwargs):
    r"""Wrap a gymnasium environment so that it records multi-view clips while it runs.

    While an episode is recorded (every ``record_every``-th episode), the wrapper keeps each step's state
    :math:`s_t` and task reward :math:`r_t`, and every ``every`` steps renders the current state from each of
    the V cameras. When the episode ends it cuts sliding windows of :math:`L = \text{clip\_len}\cdot
    \text{every}` steps with stride ``clip_stride`` (default ``every``) into :class:`MultiViewClip` records
    (``frames`` (V, F, H, W, 3), F = clip_len, ``states`` (L, d), ``rewards`` (L,)), collected by
    ``pop_clips()``. MVR's code uses L = 128, 8 frames a view, stride 16, 224 x 224 and four azimuths; the
    defaults here are small (64 x 64, three views) for CPU. An episode shorter than L but with at least two
    rendered frames gives one clip padded with its last state and frame (a fallen walker stays fallen)
    [library choice; the code drops such episodes].

    MuJoCo tasks render headless through ``mujoco.Renderer`` (``MUJOCO_GL`` defaults to ``"osmesa"`` here;
    ``"egl"`` works where a GPU driver is present); ``fast_render`` turns off shadows, reflections and the
    skybox (about 15x faster under osmesa). Other environments render by providing ``render_view(camera,
    height, width)`` and ``camera_names``.

    Parameters
    ----------
    env : str or gymnasium.Env
        An environment id (made with ``gymnasium.make(env, **make_kwargs)``) or an environment.
    cameras : sequence of str
        Camera names: MuJoCo free tracking cameras ``"side"``, ``"front"``, ``"other_side"``, ``"back"``
        (azimuths 90, 180, 270, 0), ``"top"``, ``"diagonal"`` (125, the paper's single view), or the model's
        own named cameras; for a custom environment, its ``camera_names``.
    clip_len : int, default 8
        Frames per view in a clip (>= 2: a clip must show motion).
    every : int, default 16
        Render every ``every`` steps (the code's ``rendering_freq``).
    size : (int, int), default (64, 64)
        Frame height and width in pixels.
    record_every : int, default 1
        Record one episode in ``record_every`` (the code's ``sampling_freq`` is 3); 0 turns recording off.
    clip_stride : int, optional
        Steps between clip starts (a multiple of ``every``; default ``every``).
    distance : float, optional
        Camera distance for the free cameras (default 1.6 x the model's extent).
    fast_render : bool, default True
    track_body : int, default 1
        Body the free cameras track (1 is the root body of the gymnasium locomotion tasks).
    **make_kwargs
        Passed to ``gymnasium.make`` when ``env`` is an id.

    Returns
    -------
    MultiViewEnv

    Examples
    --------
    >>> from iclr26sci.rl.mvr import OscillatorEnv, make_multiview_env
    >>> env = make_multiview_env(OscillatorEnv(), cameras=["side", "top"], clip_len=4, every=5, size=(16, 16))
    >>> _ = env.reset(seed=0)
    >>> for _ in range(40):
    ...     _ = env.step(env.action_space.sample())
    >>> _ = env.reset(seed=1)
    >>> clips = env.pop_clips(); len(clips), clips[0].frames.shape, clips[0].states.shape
    (5, (2, 4, 16, 16, 3), (20, 2))
    """
    if isinstance(env, str):
        os.environ.setdefault("MUJOCO_GL", "osmesa")
        try:
            env = gym.make(env, **make_kwargs)
        except gym.error.Error as exc:
            raise InputError("env", f"gymnasium cannot make {env!r} ({exc})", "a registered environment id") from exc
    elif not isinstance(env, gym.Env):
        raise InputError("env", f"got {type(env).__name__}", "a gymnasium environment or its id")
    return MultiViewEnv(env, cameras=cameras, clip_len=clip_len, every=every, size=size, record_every=record_every,
                        clip_stride=clip_stride, distance=distance, fast_render=fast_render, track_body=track_body)


def _rng_or_seed(rng, seed, where):
    """``rng``, or the deprecated ``seed=`` keyword (with a DeprecationWarning); both given is an error."""
    if seed is not None:
        import warnings

        if rng is not None:
            raise InputError("seed", "was given together with rng", "rng only (seed= is its deprecated alias)")
        warnings.warn(f"{where}(seed=...) is deprecated; pass rng=... (the same int gives the same run)",
                      DeprecationWarning, stacklevel=3)
        rng = seed
    from ._checks import check_rng

    return check_rng(rng)


def env_seed(rng):
    """A gymnasium ``reset(seed=)`` value from a validated rng: None stays None, an int is used as it is, a
    SeedSequence or Generator gives a 31-bit integer drawn from it."""
    if rng is None:
        return None
    if isinstance(rng, (int, np.integer)):
        return int(rng)
    from iclr26sci.core import seed_sequence

    return int(seed_sequence(rng).generate_state(1)[0] >> 1)


def _check_size(size):
    if (not isinstance(size, (tuple, list)) or len(size) != 2
            or not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) and 4 <= s <= 1024 for s in size)):
        raise InputError("size", f"got {size!r}", "a pair (height, width) of integers in [4, 1024]")
    return int(size[0]), int(size[1])


class MultiViewEnv(gym.Wrapper):
    """A gymnasium wrapper recording multi-view clips; built by :func:`make_multiview_env`.

    Attributes: ``n_views``, ``cameras``, ``clip_len``, ``every``, ``clip_steps`` (L), ``size``,
    ``render_seconds`` (wall time spent rendering), ``n_renders``. Methods: ``pop_clips()``,
    ``render_views()`` (the V current frames), ``rollout_clips(policy, n_steps, rng)``.

    Examples
    --------
    >>> from iclr26sci.rl.mvr import OscillatorEnv, make_multiview_env
    >>> env = make_multiview_env(OscillatorEnv(), cameras=["side"], clip_len=2, every=4, size=(8, 8))
    >>> env.render_views().shape
    (1, 8, 8, 3)
    """

    def __init__(self, env, cameras, clip_len, every, size, record_every, clip_stride, distance, fast_render,
                 track_body):
        super().__init__(env)
        if isinstance(cameras, str) or not hasattr(cameras, "__iter__"):
            raise InputError("cameras", f"got {cameras!r}", "a sequence of camera names")
        cameras = list(cameras)
        if not cameras or not all(isinstance(c, str) for c in cameras):
            raise InputError("cameras", f"got {cameras!r}", "a non-empty sequence of camera names (str)")
        if len(set(cameras)) != len(cameras):
            raise InputError("cameras", f"repeats a camera in {cameras}", "distinct cameras")
        self.clip_len = check_positive_int(clip_len, "clip_len", minimum=2)
        self.every = check_positive_int(every, "every")
        self.size = _check_size(size)
        self.record_every = check_positive_int(record_every, "record_every", minimum=0)
        stride = self.every if clip_stride is None else check_positive_int(clip_stride, "clip_stride")
        if stride % self.every:
            raise InputError("clip_stride", f"got {stride}", f"a multiple of every={self.every}")
        self.clip_stride = stride
        if distance is not None and not (isinstance(distance, (int, float)) and distance > 0):
            raise InputError("distance", f"got {distance!r}", "a positive camera distance or None")
        fast_render = check_bool(fast_render, "fast_render")
        u = env.unwrapped
        if hasattr(u, "render_view"):
            self._views = _CustomViews(u, cameras, self.size)
        elif hasattr(u, "model") and hasattr(u, "data") and type(u.model).__module__.startswith("mujoco"):
            self._views = _MuJoCoViews(u, cameras, self.size, distance, bool(fast_render), track_body)
        else:
            raise InputError("env", f"{type(u).__name__} cannot render camera views",
                             "a MuJoCo environment or one with render_view(camera, height, width)")
        self.cameras = cameras
        self.n_views = len(cameras)
        self.clip_steps = self.clip_len * self.every
        self.render_seconds = 0.0
        self.n_renders = 0
        self._clips = []
        self._episode = -1
        self._recording = False
        self._last_obs = None

    def render_views(self):
        """The V current frames, (V, H, W, 3) uint8."""
        t = time.perf_counter()
        fr = self._views.render()
        self.render_seconds += time.perf_counter() - t
        self.n_renders += 1
        return fr

    def reset(self, **kwargs):
        self._finish()
        obs, info = self.env.reset(**kwargs)
        self._episode += 1
        self._recording = self.record_every > 0 and self._episode % self.record_every == 0
        self._states, self._rewards, self._frames = [], [], []
        self._t = 0
        self._last_obs = np.asarray(obs, dtype=np.float32).ravel()
        return obs, info

    def step(self, action):
        space = self.env.action_space
        if isinstance(space, gym.spaces.Box):
            try:
                a = np.asarray(action, dtype=float)
            except (TypeError, ValueError):
                raise InputError("action", f"got {type(action).__name__}", f"a numeric action of shape {space.shape}") \
                    from None
            if a.size != int(np.prod(space.shape)) or not np.all(np.isfinite(a)):
                raise InputError("action", f"has shape {a.shape}" + ("" if a.size != int(np.prod(space.shape))
                                                                     else " and NaN or inf entries"),
                                 f"a finite action of shape {space.shape}")
        if self._recording and self._t % self.every == 0:
            self._frames.append(self.render_views())
        obs, reward, terminated, truncated, info = self.env.step(action)
        if self._recording:
            self._states.append(self._last_obs)
            self._rewards.append(float(reward))
        self._last_obs = np.asarray(obs, dtype=np.float32).ravel()
        self._t += 1
        if terminated or truncated:
            self._finish()
        return obs, reward, terminated, truncated, info

    def _finish(self):
        if not self._recording or not getattr(self, "_states", None):
            self._recording = False
            return
        S, R, Fr = np.stack(self._states), np.asarray(self._rewards), np.stack(self._frames)
        self._recording = False
        self._states, self._rewards, self._frames = [], [], []
        L, F, k = self.clip_steps, self.clip_len, self.every
        if len(S) < L:
            if len(Fr) < 2:
                return
            S = np.concatenate([S, np.repeat(S[-1:], L - len(S), 0)])
            R = np.concatenate([R, np.repeat(R[-1:], L - len(R), 0)])
            Fr = np.concatenate([Fr, np.repeat(Fr[-1:], F - len(Fr), 0)]) if len(Fr) < F else Fr
        for start in range(0, len(S) - L + 1, self.clip_stride):
            fi = start // k
            self._clips.append(MultiViewClip(frames=np.ascontiguousarray(Fr[fi: fi + F].transpose(1, 0, 2, 3, 4)),
                                             states=S[start: start + L].copy(), rewards=R[start: start + L].copy()))

    def pop_clips(self):
        """The clips cut since the last call (a list of :class:`MultiViewClip`), emptying the store."""
        out, self._clips = self._clips, []
        return out

    def rollout_clips(self, policy, n_steps, rng=None, *, seed=None):
        """Run ``policy(obs) -> action`` for ``n_steps`` steps with recording on; return the clips cut.

        Used to record reference clips (a scripted gait, an expert) for :class:`DemoPrototypeScorer`.

        Parameters
        ----------
        policy : callable
            ``obs -> action``.
        n_steps : int
            Environment steps (>= 1); episodes that end are reset and continued.
        rng : None, int, SeedSequence or Generator
            Seeds the first ``reset`` (an int is passed as the environment seed; a SeedSequence or Generator gives
            one drawn from it); the later resets continue the environment's own seeded stream, so the clips are
            a function of ``rng`` and the policy. ``None``: the environment's current randomness.
        seed : int, optional
            Deprecated alias of ``rng``.
        """
        rng = _rng_or_seed(rng, seed, "rollout_clips")
        n_steps = check_positive_int(n_steps, "n_steps")
        if not callable(policy):
            raise InputError("policy", f"got {type(policy).__name__}", "a callable obs -> action")
        first = env_seed(rng)
        keep, self.record_every, self._episode = self.record_every, 1, -1
        try:
            obs, _ = self.reset(seed=first)
            for _ in range(n_steps):
                obs, _, term, trunc, _ = self.step(policy(obs))
                if term or trunc:
                    obs, _ = self.reset()
            self._finish()
        finally:
            self.record_every = keep
        return self.pop_clips()

    def close(self):
        self._views.close()
        super().close()
