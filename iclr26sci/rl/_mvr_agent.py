r"""MVR on a stable-baselines3 off-policy backbone (TQC from sb3-contrib by default, SAC, or any class)."""
from __future__ import annotations

import copy
import math
import time

import gymnasium as gym
import numpy as np

from iclr26sci.core import InputError, check_bool, check_in_range, check_is_fitted, check_option, check_positive_int

from ._mvr_core import MVRShaper, StateRelevance
from ._mvr_env import MultiViewEnv, _rng_or_seed, env_seed
from ._mvr_scorers import VideoTextScorer

SHAPING_OPTIONS = ("mvr", "pbrs", None)


class _ShapingWrapper(gym.Wrapper):
    """Adds the current shaping term to the task reward; keeps the task reward and the term in ``info``."""

    def __init__(self, env, shaper):
        super().__init__(env)
        self.shaper = shaper
        self._obs = None
        self.seconds = 0.0

    def reset(self, **kw):
        obs, info = self.env.reset(**kw)
        self._obs = np.asarray(obs, dtype=np.float32).ravel()
        return obs, info

    def step(self, action):
        obs, r, term, trunc, info = self.env.step(action)
        if not np.isfinite(r):
            raise InputError("env", f"returned a non-finite reward {r!r}", "finite task rewards")
        nobs = np.asarray(obs, dtype=np.float32).ravel()
        F = 0.0
        if self.shaper is not None and self.shaper.trained_:
            t = time.perf_counter()
            F = float(self.shaper.shaping(self._obs[None], nobs[None], np.array([float(term)]))[0])
            self.seconds += time.perf_counter() - t
        info = dict(info, task_reward=float(r), mvr_shaping=F)
        self._obs = nobs
        return obs, float(r) + F, term, trunc, info


def _backbone_class(backbone):
    if isinstance(backbone, str):
        name = check_option(backbone, "backbone", ("tqc", "sac"))
        if name == "tqc":
            from sb3_contrib import TQC

            return TQC
        from stable_baselines3 import SAC

        return SAC
    from stable_baselines3.common.off_policy_algorithm import OffPolicyAlgorithm

    if isinstance(backbone, type) and issubclass(backbone, OffPolicyAlgorithm):
        return backbone
    raise InputError("backbone", f"got {backbone!r}", "'tqc', 'sac' or a stable-baselines3 off-policy algorithm class")


class MVR:
    r"""MVR: multi-view video reward shaping on an off-policy stable-baselines3 agent.

    Every ``collect_every`` environment steps the clips recorded by the :class:`MultiViewEnv` are scored by
    the frozen ``scorer`` (per view, then view-averaged: :math:`S(c) = \frac1V\sum_v\langle e_v(c), g\rangle`)
    and added to the relevance buffer; every ``relevance_retrain_every`` steps the state-relevance network is
    retrained (Bradley-Terry on :math:`\sigma(100\,\Delta S)` plus alignment), the reference set is refreshed
    and the whole replay buffer is **relabelled**: each stored reward is :math:`r_t + F_{new}(s_t)` afterwards.
    New transitions store :math:`\tilde r_t = r_t + F(s_t)` (0 before the first retrain), with

    - ``shaping="mvr"``: :math:`F(s) = \operatorname{clip}(w_s\log\sigma((f_\psi(s) - f_\psi(s'))/\tau), -5, 5)`,
      :math:`s' \sim U(R)` (the official code; additive, non-positive, *not* potential-based);
    - ``shaping="pbrs"``: :math:`F = \gamma\Phi(s_{t+1})(1 - d_{t+1}) - \Phi(s_t)` (policy-invariant);
    - ``shaping=None``: the backbone on the task reward alone (same recording, for overhead comparisons off).

    Parameters
    ----------
    env : MultiViewEnv
        From :func:`make_multiview_env` (its clips are the video side).
    scorer : VideoTextScorer
        The frozen video-text model (or a stand-in).
    prompt : str, optional
        The task description given to the scorer.
    backbone : {"tqc", "sac"} or class, default "tqc"
        TQC (sb3-contrib) or SAC, or any stable-baselines3 off-policy algorithm class.
    shaping : {"mvr", "pbrs", None}, default "mvr"
    relevance_retrain_every : int, default 10000
        Environment steps between retrains (the code's ``relabel_freq`` is 50k of 10M).
    collect_every : int, optional
        Steps between clip scorings (default ``relevance_retrain_every // 5``; the code's 10k).
    w_s, tau, n_top : float, float, int
        Shaping weight 0.1, temperature 0.1, reference clips 10 (the code's).
    relevance : StateRelevance, optional
        The relevance network and its training settings (default hidden 256, CPU-sized).
    faithful_quirks : bool, default False
        See :class:`MVRShaper`.
    backbone_kwargs : dict, optional
        Passed to the backbone (e.g. ``learning_starts``, ``policy_kwargs``, ``train_freq``).
    device : str, default "cpu"
        A torch device available here (checked at construction).
    rng : None, int, SeedSequence or Generator, optional
        Seeds everything random in :meth:`learn`: the backbone (stable-baselines3's ``seed``: its networks,
        exploration noise, the action space and the environment resets), the relevance network (also one
        passed as ``relevance`` whose own ``rng`` is None: a seeded copy is used) and the shaper's reference
        draws; and :meth:`evaluate`'s episodes when it is given no ``rng`` of its own. The same ``rng`` gives
        the same numbers (on the same machine, torch build and thread count). None: fresh entropy.

    Attributes
    ----------
    model_ : the stable-baselines3 agent
    shaper_ : MVRShaper
    history_ : dict
        Per retrain: ``timesteps``, ``mean_abs_F`` and ``mean_abs_r`` (over the steps since the previous retrain),
        ``relevance_val_accuracy``, ``n_clips``; per episode: ``episode_timesteps``, ``episode_task_return``;
        and the wall times ``seconds_total``, ``seconds_render``, ``seconds_score``, ``seconds_retrain``,
        ``seconds_relabel``, ``seconds_shaping``.

    References
    ----------
    Luo et al., "MVR: Multi-view Video Reward Shaping for Reinforcement Learning", ICLR 2026, arXiv:2603.01694;
    Kuznetsov et al. (2020), TQC, arXiv:2005.04269.

    Examples
    --------
    >>> from iclr26sci.rl.mvr import MVR, MotionDescriptorScorer, OscillatorEnv, StateRelevance, make_multiview_env
    >>> env = make_multiview_env(OscillatorEnv(horizon=20), cameras=["side"], clip_len=2, every=5, size=(8, 8))
    >>> ref = env.rollout_clips(env.unwrapped.oscillate_policy(0.5), 20, rng=0)
    >>> agent = MVR(env, MotionDescriptorScorer.from_reference(env, ref), backbone="sac", shaping="mvr",
    ...             relevance_retrain_every=40, relevance=StateRelevance(hidden=8, min_updates=0, max_epochs=1),
    ...             backbone_kwargs=dict(learning_starts=60, policy_kwargs=dict(net_arch=[8])), rng=0)
    >>> agent.learn(total_timesteps=80).history_["timesteps"]
    [40, 80]
    """

    def __init__(self, env, scorer, prompt=None, backbone="tqc", shaping="mvr", relevance_retrain_every=10_000,
                 collect_every=None, w_s=0.1, tau=0.1, n_top=10, relevance=None, faithful_quirks=False,
                 backbone_kwargs=None, device="cpu", rng=None):
        self.env = env
        self.scorer = scorer
        self.prompt = prompt
        self.backbone = backbone
        self.shaping = shaping
        self.relevance_retrain_every = relevance_retrain_every
        self.collect_every = collect_every
        self.w_s = w_s
        self.tau = tau
        self.n_top = n_top
        self.relevance = relevance
        self.faithful_quirks = faithful_quirks
        self.backbone_kwargs = backbone_kwargs
        self.device = device
        self.rng = rng
        self._validate()

    def __repr__(self):
        b = self.backbone if isinstance(self.backbone, str) else getattr(self.backbone, "__name__", "?")
        fitted = f"; {self.model_.num_timesteps} steps" if hasattr(self, "model_") else ""
        return f"MVR(backbone={b!r}, shaping={self.shaping!r}, V={getattr(self.env, 'n_views', '?')}{fitted})"

    def _validate(self):
        if not isinstance(self.env, MultiViewEnv):
            raise InputError("env", f"got {type(self.env).__name__}",
                             "a MultiViewEnv from make_multiview_env (it renders the clips)")
        if not isinstance(self.scorer, VideoTextScorer) and not callable(getattr(self.scorer, "score", None)):
            raise InputError("scorer", f"got {type(self.scorer).__name__}",
                             "a VideoTextScorer (score(clip, prompt) -> (scores (V,), embeddings (V, D)))")
        if self.prompt is not None and not isinstance(self.prompt, str):
            raise InputError("prompt", f"got {type(self.prompt).__name__}", "a string or None")
        _backbone_class(self.backbone)
        if self.shaping not in SHAPING_OPTIONS:
            raise InputError("shaping", f"got {self.shaping!r}", "'mvr', 'pbrs' or None")
        self._retrain = check_positive_int(self.relevance_retrain_every, "relevance_retrain_every")
        self._collect = (max(1, self._retrain // 5) if self.collect_every is None
                         else check_positive_int(self.collect_every, "collect_every"))
        check_in_range(self.w_s, "w_s", 0.0, None, low_open=True)
        check_in_range(self.tau, "tau", 0.0, None, low_open=True)
        check_positive_int(self.n_top, "n_top")
        if self.relevance is not None and not isinstance(self.relevance, StateRelevance):
            raise InputError("relevance", f"got {type(self.relevance).__name__}", "a StateRelevance or None")
        check_bool(self.faithful_quirks, "faithful_quirks")
        if self.backbone_kwargs is not None and not isinstance(self.backbone_kwargs, dict):
            raise InputError("backbone_kwargs", f"got {type(self.backbone_kwargs).__name__}", "a dict or None")
        if not isinstance(self.device, str):
            raise InputError("device", f"got {type(self.device).__name__}", "a torch device name such as 'cpu'")
        from ._checks import check_device, check_rng

        check_device(self.device)
        check_rng(self.rng)
        if self.backbone_kwargs is not None and "gamma" in self.backbone_kwargs:
            g = self.backbone_kwargs["gamma"]
            if isinstance(g, bool) or not isinstance(g, (int, float, np.integer, np.floating)) or not 0 < g <= 1:
                raise InputError("backbone_kwargs", f"has gamma={g!r}", "a discount gamma in (0, 1]")

    def _seeds(self):
        """(backbone int seed, relevance rng, shaper rng) from ``rng``: an int is used for all three (as before)."""
        if self.rng is None or isinstance(self.rng, (int, np.integer)):
            r = None if self.rng is None else int(self.rng)
            return r, r, r
        from iclr26sci.core import seed_sequence

        kids = seed_sequence(self.rng).spawn(3)
        return int(kids[0].generate_state(1)[0] >> 1), kids[1], kids[2]

    def _score(self, clips):
        """Per-view scores (N, V) and embeddings (N, V, D), with the scorer's output checked."""
        V = self.env.n_views
        S, E = [], []
        for c in clips:
            out = self.scorer.score(c.frames, self.prompt)
            if not (isinstance(out, tuple) and len(out) == 2):
                raise InputError("scorer", f"score() returned {type(out).__name__}",
                                 "a pair (scores of shape (V,), view embeddings of shape (V, D))")
            s, e = np.asarray(out[0], dtype=float), np.asarray(out[1], dtype=float)
            if s.shape != (V,):
                raise InputError("scorer", f"returned scores of shape {s.shape}", f"shape ({V},): one per view")
            if e.ndim != 2 or e.shape[0] != V:
                raise InputError("scorer", f"returned view embeddings of shape {e.shape}", f"shape ({V}, D)")
            if not (np.isfinite(s).all() and np.isfinite(e).all()) or np.abs(s).max() > 1 + 1e-6:
                raise InputError("scorer", "returned non-finite scores or scores outside [-1, 1]",
                                 "finite cosine scores in [-1, 1]")
            S.append(s)
            E.append(e)
        return np.stack(S), np.stack(E)

    def _probe(self):
        """Render one short clip and score it: bad cameras, scorers and rewards fail before training."""
        env = self.env
        seed = self._seed_int
        obs, _ = env.reset(seed=seed)
        if seed is not None:
            env.action_space.seed(seed)
        frames = []
        for _ in range(env.clip_len):
            frames.append(env.render_views())
            for _ in range(env.every):
                obs, r, term, trunc, _ = env.env.step(env.action_space.sample())
                if not np.isfinite(r):
                    raise InputError("env", f"returned a non-finite reward {r!r}", "finite task rewards")
                if term or trunc:
                    env.env.reset()
        from ._mvr_env import MultiViewClip

        clip = MultiViewClip(frames=np.stack(frames).transpose(1, 0, 2, 3, 4), states=np.zeros((1, 1)),
                             rewards=np.zeros(1))
        self._score([clip])
        env.pop_clips()

    def learn(self, total_timesteps, progress=None):
        """Train for ``total_timesteps`` environment steps; returns self."""
        from stable_baselines3.common.callbacks import BaseCallback
        from stable_baselines3.common.vec_env import DummyVecEnv

        self._validate()
        total = check_positive_int(total_timesteps, "total_timesteps")
        if progress is not None and not isinstance(progress, (bool, np.bool_)):
            raise InputError("progress", f"got {progress!r}", "True, False or None")
        self._seed_int, rel_rng, shaper_rng = self._seeds()
        self._probe()
        if self.relevance is None:
            rel = StateRelevance(hidden=256, device=self.device, rng=rel_rng)
        elif self.relevance.rng is None and rel_rng is not None:
            # the user's network settings, seeded by the agent's rng (the user's object is left untouched)
            rel = StateRelevance(**{**self.relevance.get_params(), "rng": rel_rng})
        else:
            rel = self.relevance
        kind = self.shaping or "mvr"
        kw = dict(self.backbone_kwargs or {})
        gamma = float(kw.get("gamma", 0.99))
        self.shaper_ = MVRShaper(shaping=kind, w_s=self.w_s, tau=self.tau, n_top=self.n_top, gamma=gamma,
                                 faithful_quirks=self.faithful_quirks, relevance=rel, rng=shaper_rng)
        shaper = self.shaper_ if self.shaping is not None else None
        recorder = self.env
        shaped = _ShapingWrapper(recorder, shaper)
        vec = DummyVecEnv([lambda: shaped])
        cls = _backbone_class(self.backbone)
        kw.setdefault("verbose", 0)
        self.model_ = cls("MlpPolicy", vec, seed=self._seed_int, device=self.device, **kw)
        hist = {k: [] for k in ("timesteps", "mean_abs_F", "mean_abs_r", "relevance_val_accuracy", "n_clips",
                                "episode_timesteps", "episode_task_return")}
        secs = {"render": 0.0, "score": 0.0, "retrain": 0.0, "relabel": 0.0}
        agent = self
        rb_F = np.zeros(self.model_.replay_buffer.rewards.shape, dtype=np.float32)
        self._rb_F = rb_F

        class _CB(BaseCallback):
            def __init__(self):
                super().__init__(0)
                self.absF, self.absr, self.ep = [], [], 0.0

            def _on_step(self):
                rb = self.model.replay_buffer
                info = self.locals["infos"][0]
                rb_F[rb.pos] = info.get("mvr_shaping", 0.0)
                self.absF.append(abs(info.get("mvr_shaping", 0.0)))
                self.absr.append(abs(info.get("task_reward", 0.0)))
                self.ep += info.get("task_reward", 0.0)
                if self.locals["dones"][0]:
                    hist["episode_timesteps"].append(self.num_timesteps)
                    hist["episode_task_return"].append(self.ep)
                    self.ep = 0.0
                n = self.num_timesteps
                if n % agent._collect == 0:
                    agent._collect_clips(secs)
                if n % agent._retrain == 0 and agent.shaper_.n_clips >= 2:
                    agent._retrain_and_relabel(secs)
                    hist["timesteps"].append(n)
                    hist["mean_abs_F"].append(float(np.mean(self.absF)) if self.absF else 0.0)
                    hist["mean_abs_r"].append(float(np.mean(self.absr)) if self.absr else 0.0)
                    h = getattr(agent.shaper_.relevance, "history_", {})   # none while every score tied
                    hist["relevance_val_accuracy"].append(h["val_accuracy"][-1] if h.get("val_accuracy")
                                                          else float("nan"))
                    hist["n_clips"].append(agent.shaper_.n_clips)
                    self.absF, self.absr = [], []
                return True

        t0 = time.perf_counter()
        r0 = recorder.render_seconds
        self.model_.learn(total_timesteps=total, callback=_CB(), progress_bar=bool(progress))
        hist["seconds_total"] = time.perf_counter() - t0
        hist["seconds_render"] = recorder.render_seconds - r0
        hist["seconds_score"], hist["seconds_retrain"], hist["seconds_relabel"] = (secs["score"], secs["retrain"],
                                                                                   secs["relabel"])
        hist["seconds_shaping"] = shaped.seconds
        hist["overhead_fraction"] = ((hist["seconds_render"] + secs["score"] + secs["retrain"] + secs["relabel"]
                                      + shaped.seconds) / max(hist["seconds_total"], 1e-9))
        self.history_ = hist
        return self

    def _collect_clips(self, secs):
        clips = self.env.pop_clips()
        if not clips:
            return
        t = time.perf_counter()
        S, E = self._score(clips)
        self.shaper_.add_clips(np.stack([c.states for c in clips]), S.mean(1), E)
        secs["score"] += time.perf_counter() - t

    def _retrain_and_relabel(self, secs):
        if self.shaping is None:
            return
        t = time.perf_counter()
        self.shaper_.retrain()
        secs["retrain"] += time.perf_counter() - t
        t = time.perf_counter()
        self.relabel()
        secs["relabel"] += time.perf_counter() - t

    def relabel(self):
        """Replace the shaping term of every stored transition by the current one (rewards r + F_new(s))."""
        check_is_fitted(self, "model_", method="relabel")
        rb = self.model_.replay_buffer
        end = rb.buffer_size if rb.full else rb.pos
        for a in range(0, end, 4096):
            b = min(end, a + 4096)
            obs = rb.observations[a:b, 0].reshape(b - a, -1)
            nobs = rb.next_observations[a:b, 0].reshape(b - a, -1)
            new = self.shaper_.shaping(obs, nobs, rb.dones[a:b, 0].astype(float)).astype(np.float32)
            rb.rewards[a:b, 0] += new - self._rb_F[a:b, 0]
            self._rb_F[a:b, 0] = new

    def predict(self, obs, deterministic=True):
        """The trained policy's action for ``obs``."""
        check_is_fitted(self, "model_", method="predict")
        check_bool(deterministic, "deterministic")
        space = self.model_.observation_space
        try:
            o = np.asarray(obs, dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError("obs", f"got {type(obs).__name__}", f"an observation of shape {space.shape}") from None
        if o.shape != space.shape and o.shape[1:] != space.shape:
            raise InputError("obs", f"has shape {o.shape}", f"{space.shape} (or (n, *{space.shape}) for a batch)")
        if not np.all(np.isfinite(o)):
            raise InputError("obs", "has NaN or infinite entries", "a finite observation")
        return self.model_.predict(obs, deterministic=deterministic)[0]

    def evaluate(self, n_episodes=10, rng=None, deterministic=True, *, seed=None):
        """Mean task return over ``n_episodes`` episodes on a fresh copy of the environment (no shaping).

        Parameters
        ----------
        n_episodes : int, default 10
        rng : None, int, SeedSequence or Generator
            Seeds the episodes' resets (an int ``s`` seeds episode ``i`` with ``s + i``); None uses the agent's
            ``rng`` (so an agent built with a seed evaluates reproducibly; fresh entropy when that is None too).
        deterministic : bool, default True
            The policy's mean action (True) or a sample.
        seed : int, optional
            Deprecated alias of ``rng``.

        Returns a dict with ``mean``, ``se`` (standard error), ``returns`` and ``lengths``.
        """
        check_is_fitted(self, "model_", method="evaluate")
        rng = _rng_or_seed(rng, seed, "evaluate")
        n = check_positive_int(n_episodes, "n_episodes")
        check_bool(deterministic, "deterministic")
        if rng is None:
            rng = self.rng
        if rng is None:
            seeds = [None] * n
        elif isinstance(rng, (int, np.integer)):
            seeds = [int(rng) + i for i in range(n)]
        else:
            first = env_seed(rng)
            seeds = [first + i for i in range(n)]
        base = self.env.env
        spec = getattr(base, "spec", None)
        env = gym.make(spec) if spec is not None else copy.deepcopy(base)
        rets, lens = [], []
        for i in range(n):
            obs, _ = env.reset(seed=seeds[i])
            done, R, k = False, 0.0, 0
            while not done:
                obs, r, term, trunc, _ = env.step(self.model_.predict(obs, deterministic=deterministic)[0])
                R += float(r)
                k += 1
                done = term or trunc
            rets.append(R)
            lens.append(k)
        env.close()
        rets = np.asarray(rets)
        return {"mean": float(rets.mean()), "se": float(rets.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan"),
                "returns": rets.tolist(), "lengths": lens}
