r"""MVR's toy environments: a rendered 1-D oscillator (video vs image claim) and a tabular gridworld (policy invariance)."""
from __future__ import annotations

import math

import gymnasium as gym
import numpy as np

from iclr26sci.core import InputError, check_array, check_in_range, check_positive_int


class OscillatorEnv(gym.Env):
    r"""A damped, driven 1-D oscillator that renders itself from two cameras: the dynamic-motion toy of MVR.

    State :math:`s = (x, v)`, action :math:`u \in [-1, 1]`, semi-implicit Euler with step ``dt``:

    .. math:: \dot v = -\omega^2 x - c\,v + b\,u,\qquad \dot x = v,

    with :math:`\omega = 2\pi/\text{period}`. The task reward is the control cost :math:`-\kappa u^2` only,
    so a task-only agent stays still and any oscillation comes from the shaping; with ``target_amplitude``
    A set it is :math:`\exp(-(a(s) - A)^2 / (2 w^2)) - \kappa u^2` (w = ``amplitude_width``), with the energy amplitude
    :math:`a(s) = \sqrt{x^2 + v^2/\omega^2}` (a per-step task reward for the C3-6 check). The target behaviour is
    "oscillate with amplitude A"; pausing at the pose :math:`x = A` is feasible (it needs
    :math:`u = \omega^2 A/b \le 1`), which is what an image-level score rewards. Frames: a bright square on
    black at horizontal (camera ``"side"``) or vertical (``"top"``) position :math:`x`.

    Parameters
    ----------
    period : float, default 4.0
        Natural period in seconds.
    damping : float, default 0.1
        Damping c.
    gain : float, default 2.0
        Actuator gain b.
    dt : float, default 0.05
        Time step.
    horizon : int, default 200
        Steps per episode (truncation).
    control_cost : float, default 0.01
        :math:`\kappa`.
    x_range : float, default 1.5
        Rendered positions span [-x_range, x_range].
    target_amplitude : float, optional
        A, switching the task reward to amplitude tracking.
    amplitude_width : float, default 0.1
        Width w of the amplitude-tracking reward.

    Examples
    --------
    >>> from iclr26sci.rl.mvr import OscillatorEnv
    >>> env = OscillatorEnv()
    >>> obs, _ = env.reset(seed=0)
    >>> obs.shape, env.render_view("side", 8, 8).shape
    ((2,), (8, 8, 3))
    """

    camera_names = ("side", "top")
    metadata = {"render_modes": []}

    def __init__(self, period=4.0, damping=0.1, gain=2.0, dt=0.05, horizon=200, control_cost=0.01, x_range=1.5,
                 target_amplitude=None, amplitude_width=0.1):
        self.period = check_in_range(period, "period", 0.0, None, low_open=True)
        self.damping = check_in_range(damping, "damping", 0.0, None)
        self.gain = check_in_range(gain, "gain", 0.0, None, low_open=True)
        self.dt = check_in_range(dt, "dt", 0.0, None, low_open=True)
        self.horizon = check_positive_int(horizon, "horizon")
        self.control_cost = check_in_range(control_cost, "control_cost", 0.0, None)
        self.x_range = check_in_range(x_range, "x_range", 0.0, None, low_open=True)
        self.target_amplitude = (None if target_amplitude is None
                                 else check_in_range(target_amplitude, "target_amplitude", 0.0, None))
        self.amplitude_width = check_in_range(amplitude_width, "amplitude_width", 0.0, None, low_open=True)
        self.omega = 2 * math.pi / self.period
        self.observation_space = gym.spaces.Box(-10.0, 10.0, shape=(2,), dtype=np.float32)
        self.action_space = gym.spaces.Box(-1.0, 1.0, shape=(1,), dtype=np.float32)
        self.state = None
        self._t = 0

    def reset(self, *, seed=None, options=None):
        if seed is not None and (isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer))
                                 or seed < 0):
            raise InputError("seed", f"got {seed!r}", "None or a non-negative integer (gymnasium's reset seed)")
        super().reset(seed=None if seed is None else int(seed))
        self.state = self.np_random.normal(0.0, 0.02, size=2)
        self._t = 0
        return self.state.astype(np.float32), {}

    def step(self, action):
        if self.state is None:
            raise InputError("state", "is not set: step() was called before reset()", "reset() first")
        try:
            a = np.asarray(action, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            raise InputError("action", f"got {action!r}", "one finite number in [-1, 1]") from None
        if a.shape != (1,) or not np.isfinite(a[0]):
            raise InputError("action", f"got {action!r}", "one finite number (clipped to [-1, 1])")
        u = float(np.clip(a[0], -1.0, 1.0))
        x, v = self.state
        v = v + self.dt * (-self.omega ** 2 * x - self.damping * v + self.gain * u)
        x = float(np.clip(x + self.dt * v, -10, 10))
        v = float(np.clip(v, -10, 10))
        self.state = np.array([x, v])
        self._t += 1
        r = -self.control_cost * u * u
        if self.target_amplitude is not None:
            r += math.exp(-(self.amplitude(self.state) - self.target_amplitude) ** 2 / (2 * self.amplitude_width ** 2))
        return self.state.astype(np.float32), r, False, self._t >= self.horizon, {}

    def amplitude(self, state):
        r"""Energy amplitude :math:`\sqrt{x^2 + v^2/\omega^2}` of a state (x, v), or of states (..., 2)."""
        s = check_array(state, "state", ndim=None)
        if s.ndim < 1 or s.shape[-1] != 2:
            raise InputError("state", f"has shape {s.shape}", "(..., 2): position and velocity")
        return np.sqrt(s[..., 0] ** 2 + s[..., 1] ** 2 / self.omega ** 2)

    def render_view(self, camera, height, width):
        """The frame (height, width, 3) uint8 of the current state from ``camera`` ("side" or "top")."""
        if camera not in self.camera_names:
            raise InputError("camera", f"got {camera!r}", f"one of {list(self.camera_names)}")
        height, width = check_positive_int(height, "height"), check_positive_int(width, "width")
        img = np.zeros((height, width, 3), dtype=np.uint8)
        x = 0.0 if self.state is None else float(self.state[0])      # before reset: the rest position
        pos = (x + self.x_range) / (2 * self.x_range)
        r = max(1, min(height, width) // 8)
        if camera == "side":
            c = int(np.clip(round(pos * (width - 1)), 0, width - 1))
            img[height // 2 - r: height // 2 + r, max(0, c - r): c + r] = 255
        else:
            c = int(np.clip(round(pos * (height - 1)), 0, height - 1))
            img[max(0, c - r): c + r, width // 2 - r: width // 2 + r] = 255
        return img

    def hold_policy(self, pose):
        """A scripted PD controller that pauses at ``x = pose`` (what an image-level score rewards)."""
        p = check_in_range(pose, "pose")

        def pi(obs):
            x, v = float(obs[0]), float(obs[1])
            u = (self.omega ** 2 * p + 6.0 * (p - x) - 3.0 * v) / self.gain
            return np.array([np.clip(u, -1, 1)], dtype=np.float32)

        return pi

    def oscillate_policy(self, amplitude):
        """A scripted energy-pumping controller that oscillates at amplitude ``amplitude``."""
        a = check_in_range(amplitude, "amplitude", 0.0, None)
        w2 = self.omega ** 2

        def pi(obs):
            x, v = float(obs[0]), float(obs[1])
            amp = math.sqrt(x * x + v * v / w2)
            u = 4.0 * (a - amp) * (v / max(abs(v), 1e-3)) if amp > 1e-3 else (1.0 if a > 0 else 0.0)
            return np.array([np.clip(u, -1, 1)], dtype=np.float32)

        return pi


def oscillation_amplitude(xs):
    r"""Amplitude estimate :math:`\sqrt2\,\mathrm{sd}(x)` of a position trace (exact for a sinusoid).

    Parameters
    ----------
    xs : array-like, shape (T,)
        Positions over time.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.rl.mvr import oscillation_amplitude
    >>> round(oscillation_amplitude(0.5 * np.sin(np.linspace(0, 20 * np.pi, 2001))), 3)
    0.5
    """
    x = check_array(xs, "xs", ndim=1, min_rows=2)
    return float(math.sqrt(2.0) * x.std())


def gridworld_optimal_policy(reward, gamma=0.99, size=5, terminals=(), shaping=None, tol=1e-9, max_iter=100000):
    r"""Optimal greedy action sets of a deterministic ``size`` x ``size`` gridworld, by value iteration.

    Actions: up, down, left, right (moving into a wall stays). The reward of a transition
    :math:`s \xrightarrow{a} s'` is ``reward[s']`` (entering a cell) plus ``shaping[s, s']`` when given;
    transitions into a terminal cell end the episode. Returns the (size*size, 4) boolean matrix of actions
    within ``1e-7`` of the optimal Q value and the value function.

    Parameters
    ----------
    reward : array-like, shape (size*size,)
        Reward for entering each cell.
    gamma : float, default 0.99
    size : int, default 5
    terminals : sequence of int
        Terminal cells (absorbing, value 0 after entry).
    shaping : array-like, shape (size*size, size*size), optional
        Additive shaping term of each transition.

    tol : float, default 1e-9
        Stop when the largest value change of a sweep is below ``tol`` (> 0).
    max_iter : int, default 100000
        Most value-iteration sweeps (>= 1); not converging within them is an :class:`InputError` (the greedy
        sets of an unconverged value function are arbitrary: with ``max_iter=0`` every action would tie).

    Returns
    -------
    (ndarray of bool, ndarray)

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.rl.mvr import gridworld_optimal_policy
    >>> r = np.zeros(25); r[24] = 1.0
    >>> best, V = gridworld_optimal_policy(r, terminals=[24])
    >>> best[23].tolist()  # next to the goal: move right
    [False, False, False, True]
    """
    n = check_positive_int(size, "size", minimum=2)
    N = n * n
    r = check_array(reward, "reward", shape=(N,))
    gamma = check_in_range(gamma, "gamma", 0.0, 1.0, low_open=True, high_open=True)
    tol = check_in_range(tol, "tol", 0.0, None, low_open=True)
    max_iter = check_positive_int(max_iter, "max_iter")
    if isinstance(terminals, (str, bytes)) or not hasattr(terminals, "__iter__"):
        raise InputError("terminals", f"got {terminals!r}", f"a sequence of cell indices in [0, {N})")
    term = np.zeros(N, bool)
    for t in terminals:
        if not isinstance(t, (int, np.integer)) or not 0 <= t < N:
            raise InputError("terminals", f"has {t!r}", f"cell indices in [0, {N})")
        term[t] = True
    F = np.zeros((N, N)) if shaping is None else check_array(shaping, "shaping", shape=(N, N))
    nxt = np.empty((N, 4), int)
    for s in range(N):
        i, j = divmod(s, n)
        for a, (di, dj) in enumerate(((-1, 0), (1, 0), (0, -1), (0, 1))):
            ii, jj = min(max(i + di, 0), n - 1), min(max(j + dj, 0), n - 1)
            nxt[s, a] = ii * n + jj
    R = r[nxt] + F[np.arange(N)[:, None], nxt]
    V = np.zeros(N)
    cont = (~term[nxt]).astype(float)
    for _ in range(max_iter):
        Q = R + gamma * cont * V[nxt]
        Vn = Q.max(1)
        Vn[term] = 0.0
        delta = float(np.max(np.abs(Vn - V)))
        V = Vn
        if delta < tol:
            break
    else:
        raise InputError("max_iter", f"value iteration did not converge in {max_iter} sweeps (last change "
                         f"{delta:.3g} >= tol={tol:g}); the greedy action sets would be arbitrary",
                         "more iterations (about log(tol) / log(gamma) sweeps) or a larger tol")
    Q = R + gamma * cont * V[nxt]
    best = Q >= Q.max(1, keepdims=True) - 1e-7
    best[term] = True
    return best, V
