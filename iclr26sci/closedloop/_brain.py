r"""A simulated EEG brain on a real head model: image -> cortical sources -> forward model -> 17-channel EEG.

No EEG recording ships offline, so the "brain" is simulated, through real biophysics:

- **Head model.** MNE's bundled fsaverage files (``mne/data/fsaverage``: ``fsaverage-head.fif``, the scalp
  surface; ``fsaverage-inner_skull-bem.fif``, the inner-skull surface; ``fsaverage-trans.fif``, the
  head<->MRI transform). The bundle has a single BEM layer (inner skull), and MNE refuses EEG forward
  models with a one-layer BEM, so the conductor is MNE's four-shell spherical model
  (:func:`mne.make_sphere_model`: brain, CSF, skull, scalp, relative radii 0.90/0.92/0.97/1.0) fitted by
  least squares to the upper half of the bundled scalp surface; the sources are a 10 mm grid inside the
  bundled inner-skull surface (and inside 0.85 of the sphere), of which the ``n_sources`` most posterior
  ones (head coordinates; parieto-occipital, about 47 mm behind and 40 mm above the sphere centre,
  the summed gain peaking at POz) are used with fixed random orientations. The electrodes are the
  paper's 17 occipito-parietal channels (THINGS-EEG2: P7, P5, P3, P1, Pz, P2, P4, P6, P8, PO7, PO3, POz, PO4,
  PO8, O1, Oz, O2) at their standard 10-05 positions (MNE's bundled ``standard_1005`` montage).
  :func:`mne.make_forward_solution` gives the gain matrix.
- **Sources.** An image's pixels, standardised by the pool, drive a latent code
  :math:`h = \tanh(W x / \sqrt p)` (``n_latent`` units). Source :math:`j` emits an alpha rhythm (8-12 Hz),
  a beta rhythm (13-30 Hz) and an evoked response,

  .. math::

      s_j(t) = q\,\big[a_j e^{(A h)_j} \sin(2\pi f^\alpha_j t + \phi_j) + b_j e^{(B h)_j}
      \sin(2\pi f^\beta_j t + \psi_j) + (C h)_j\, \mathrm{erp}(t - \tau_j)\big],

  with fixed random frequencies, phases, latencies and gains (seeded by ``rng``). The EEG is
  :math:`X = G s + \varepsilon`, 17 x 250 samples at 250 Hz (one second, as the paper's 17 x 250), with white
  sensor noise :math:`\varepsilon` whose variance is the pool's mean clean signal power divided by
  :math:`10^{\mathrm{SNR}/10}`.
- **Features and rewards** (as the paper's): *semantic*: a fixed linear decoder of the EEG into the brain's
  latent space (ridge regression fitted once on clean pool EEG, the stand-in for the ATM-S EEG encoder),
  reward :math:`(\cos(\varphi(X), \varphi^*) + 1)/2` with :math:`\varphi^*` the decoded clean EEG of a target
  image; *psd* / *alpha*: the multitaper PSD (:func:`mne.time_frequency.psd_array_multitaper`, adaptive,
  ``normalization="full"``, 1-40 Hz) flattened over channels, reward the cosine to a target PSD: that of a
  target image (``"psd"``) or a spectrum that boosts alpha (``"alpha"``). With ``psd_scale="raw"`` (the
  paper's feature) the PSD itself is compared and the alpha target is the pool's mean PSD with its 8-12 Hz
  bins multiplied by ``alpha_gain``; the default ``"db_baseline"`` compares the PSD in dB relative to the
  pool's mean PSD (baseline-normalised power), whose alpha target is ``10 log10(alpha_gain)`` dB on the 8-12
  Hz bins and 0 dB elsewhere. Deviation, measured: on the raw scale the flattened PSD is dominated by the
  spatial pattern of the alpha peak, and its cosine to the alpha-boosted target does not track the alpha
  power ratio (correlation -0.08 over 200 digit images), so a raw-scale "alpha" target would not ask for
  more alpha.
"""
from __future__ import annotations

import functools
import math
import os
from numbers import Integral

import numpy as np

from iclr26sci.core import InputError, as_generator, check_array, check_in_range, check_option, check_positive_int

from ._base import _check_images, _check_pool, _check_rng

__all__ = ["SimulatedEEGBrain", "THINGS_EEG_CHANNELS", "head_model"]

#: the 17 occipito-parietal channels of THINGS-EEG2 used by MindPilot's EEG encoders
THINGS_EEG_CHANNELS = ("P7", "P5", "P3", "P1", "Pz", "P2", "P4", "P6", "P8", "PO7", "PO3", "POz", "PO4", "PO8",
                       "O1", "Oz", "O2")
_MONTAGES = ("standard_1005", "standard_1020")
_TARGETS = ("semantic", "psd", "alpha")
_HEADS = ("fsaverage",)


def _make_montage(name):
    """MNE's bundled montage; MNE 1.13 renamed standard_1005/1020 to colin27_* (same positions)."""
    import warnings

    import mne

    alias = {"standard_1005": "colin27_1005", "standard_1020": "colin27_1020"}.get(name)
    if alias and alias in mne.channels.get_builtin_montages():
        return mne.channels.make_standard_montage(alias)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return mne.channels.make_standard_montage(name)


def _fsaverage_dir():
    import mne

    d = os.path.join(os.path.dirname(mne.__file__), "data", "fsaverage")
    for f in ("fsaverage-head.fif", "fsaverage-inner_skull-bem.fif", "fsaverage-trans.fif"):
        if not os.path.exists(os.path.join(d, f)):
            raise InputError("head", f"needs MNE's bundled {f}, missing from {d}", "an MNE install with mne/data/fsaverage")
    return d


@functools.lru_cache(maxsize=8)
def _head_model_cached(montage, channels, grid_mm):
    import mne
    from scipy.spatial import Delaunay

    d = _fsaverage_dir()
    with mne.utils.use_log_level("ERROR"):
        trans = mne.read_trans(os.path.join(d, "fsaverage-trans.fif"))          # head -> MRI
        itr = mne.transforms.invert_transform(trans)
        scalp = mne.read_bem_surfaces(os.path.join(d, "fsaverage-head.fif"))[0]["rr"]
        inner = mne.read_bem_surfaces(os.path.join(d, "fsaverage-inner_skull-bem.fif"))[0]["rr"]
        info = mne.create_info(list(channels), 250.0, "eeg")
        info.set_montage(_make_montage(montage))
        rr = mne.transforms.apply_trans(itr, scalp)
        rr = rr[rr[:, 2] > 0.0]                                                 # the cranium above the ears
        A = np.c_[2 * rr, np.ones(len(rr))]
        sol = np.linalg.lstsq(A, (rr ** 2).sum(1), rcond=None)[0]
        r0, R = sol[:3], float(np.sqrt(sol[3] + sol[:3] @ sol[:3]))
        sphere = mne.make_sphere_model(r0=r0, head_radius=R)
        g = grid_mm / 1000.0
        lo, hi = inner.min(0), inner.max(0)
        axes = [np.arange(lo[i] + g / 2, hi[i], g) for i in range(3)]
        grid = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, 3)
        inside = Delaunay(inner).find_simplex(grid) >= 0
        inside &= np.linalg.norm(mne.transforms.apply_trans(itr, grid) - r0, axis=1) < 0.85 * R
        grid = grid[inside]
        src = mne.setup_volume_source_space(subject=None, pos=dict(rr=grid, nn=np.tile([0.0, 0.0, 1.0], (len(grid), 1))))
        fwd = mne.make_forward_solution(info, trans=trans, src=src, bem=sphere, meg=False, eeg=True)
        gain = fwd["sol"]["data"]                                               # (n_ch, 3 n_src) V / (A m)
        pos = fwd["src"][0]["rr"][fwd["src"][0]["vertno"]]                      # head coords (MNE converts), m
        elec = np.array([c["loc"][:3] for c in info["chs"]])
    return {"gain": gain, "pos": pos, "sphere_center": r0, "sphere_radius": R, "electrodes_head": elec,
            "channels": tuple(channels), "montage": montage}


def head_model(montage="standard_1005", channels=THINGS_EEG_CHANNELS, grid_mm=10.0) -> dict:
    r"""The EEG forward model on MNE's bundled fsaverage head (cached in-process).

    Parameters
    ----------
    montage : {"standard_1005", "standard_1020"}
        MNE's bundled electrode positions.
    channels : sequence of str
        Electrode names (default: the 17 occipito-parietal channels of THINGS-EEG2).
    grid_mm : float, default 10
        Spacing of the volume source grid inside the inner skull.

    Returns
    -------
    dict
        ``gain`` (n_channels, 3 n_sources) in V/(A m), ``pos`` (n_sources, 3) source positions (head
        coordinates, m), the fitted sphere's ``sphere_center`` and ``sphere_radius``, ``electrodes_head``.

    Examples
    --------
    >>> hm = head_model()                                   # doctest: +SKIP
    >>> hm["gain"].shape[0]                                 # doctest: +SKIP
    17
    >>> head_model(montage="biosemi64")
    Traceback (most recent call last):
    ...
    iclr26sci.core._errors.InputError: invalid argument `montage`: got 'biosemi64'; expected one of 'standard_1005', 'standard_1020'
    """
    montage = check_option(montage, "montage", list(_MONTAGES))
    channels = _check_channels(channels, montage)
    grid_mm = check_in_range(grid_mm, "grid_mm", 5.0, 30.0)
    return _head_model_cached(montage, channels, float(grid_mm))


def _check_channels(channels, montage):
    if isinstance(channels, str) or not hasattr(channels, "__iter__"):
        raise InputError("channels", f"got {channels!r}", "a sequence of electrode names")
    channels = tuple(channels)
    if not channels or not all(isinstance(c, str) for c in channels):
        raise InputError("channels", f"got {channels!r}", "a non-empty sequence of electrode names")
    if len(set(channels)) != len(channels):
        raise InputError("channels", "has duplicate names", "distinct electrode names")
    names = set(_make_montage(montage).ch_names)
    bad = [c for c in channels if c not in names]
    if bad:
        raise InputError("channels", f"has names not in the {montage} montage: {bad}", f"electrodes of {montage}")
    return channels


def _erp(t):
    """A P1-N1-like evoked waveform (difference of two Gaussians), peak near 0.1 s and trough near 0.17 s."""
    return np.exp(-0.5 * ((t - 0.10) / 0.02) ** 2) - 0.8 * np.exp(-0.5 * ((t - 0.17) / 0.03) ** 2)


class SimulatedEEGBrain:
    r"""A simulated EEG "brain": images -> 17-channel EEG on the fsaverage head -> feature -> reward.

    Calling the brain on a batch of images returns one noisy reward per image (a fresh noise draw per
    presentation); :meth:`true_reward` gives the noise-free rewards; :meth:`eeg` the EEG itself.

    Parameters
    ----------
    images : array (N, *image_shape)
        The stimulus pool: it standardises the pixels, fits the semantic decoder and sets the noise level.
    head : {"fsaverage"}, default "fsaverage"
        Head model (MNE's bundled fsaverage; see the module notes).
    n_channels : int, default 17
        Number of electrodes; 17 means the THINGS-EEG2 occipito-parietal set. Other values need
        ``channels``.
    channels : sequence of str, optional
        Electrode names (overrides ``n_channels``; must be in the montage).
    montage : {"standard_1005", "standard_1020"}, default "standard_1005"
    snr_db : float or inf, default 10
        Sensor SNR in dB (pool-mean clean power over noise power); ``inf`` is noise-free.
    target : {"semantic", "psd", "alpha"}, default "semantic"
        The feature and target (see the module notes).
    target_image : array (*image_shape), optional
        The target image for "semantic" / "psd" (default: a random pool image, ``target_index_``; remove
        it from the optimiser's pool, as the paper does).
    alpha_gain : float > 1, default 3
        For ``target="alpha"``: the factor on the 8-12 Hz power asked for.
    psd_scale : {"db_baseline", "raw"}, default "db_baseline"
        PSD feature scale (see the module notes; "raw" is the paper's).
    n_sources : int, default 32
        Posterior sources used.
    n_latent : int, default 16
        Size of the brain's latent code h.
    rng : int or Generator, optional
        Seed of the brain's fixed parameters and of the noise stream.

    Attributes
    ----------
    target_index_ : int or None
        Pool index of the target image (None for "alpha" or a given ``target_image``).
    noise_sd_ : float
        Sensor noise standard deviation (V).
    target_feature_ : ndarray
        :math:`\varphi^*`.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.closedloop import SimulatedEEGBrain
    >>> pool = np.random.default_rng(0).random((60, 8, 8))
    >>> brain = SimulatedEEGBrain(images=pool, snr_db=10, target="semantic", rng=0)   # doctest: +SKIP
    >>> brain.eeg(pool[:2]).shape                                                    # doctest: +SKIP
    (2, 17, 250)
    >>> SimulatedEEGBrain(images=pool, target="gamma")
    Traceback (most recent call last):
    ...
    iclr26sci.core._errors.InputError: invalid argument `target`: got 'gamma'; expected one of 'semantic', 'psd', 'alpha'
    """

    sfreq = 250.0
    n_times = 250

    def __init__(self, images, head="fsaverage", n_channels=17, *, channels=None, montage="standard_1005", snr_db=10.0,
                 target="semantic", target_image=None, alpha_gain=3.0, psd_scale="db_baseline", n_sources=32, n_latent=16,
                 rng=None):
        pool = _check_pool(images, "images", min_rows=2)
        check_option(head, "head", list(_HEADS))
        montage = check_option(montage, "montage", list(_MONTAGES))
        self.target = check_option(target, "target", list(_TARGETS))
        if channels is None:
            n_ch = check_positive_int(n_channels, "n_channels")
            if n_ch != len(THINGS_EEG_CHANNELS):
                raise InputError("n_channels", f"is {n_ch} without `channels`",
                                 f"{len(THINGS_EEG_CHANNELS)} (the THINGS-EEG2 set) or explicit channel names")
            channels = THINGS_EEG_CHANNELS
        self.channels = _check_channels(channels, montage)
        if isinstance(snr_db, bool) or not isinstance(snr_db, (Integral, float, np.floating, np.integer)):
            raise InputError("snr_db", f"got {snr_db!r}", "a real number of dB, or inf for no noise")
        snr = float(snr_db)
        if math.isnan(snr) or snr == -math.inf:
            raise InputError("snr_db", f"is {snr_db!r}", "a finite number of dB, or +inf for no noise")
        self.snr_db = snr
        self.alpha_gain = check_in_range(alpha_gain, "alpha_gain", 1.0, 1e3, low_open=True)
        self.psd_scale = check_option(psd_scale, "psd_scale", ["db_baseline", "raw"])
        n_src = check_positive_int(n_sources, "n_sources")
        n_lat = check_positive_int(n_latent, "n_latent")
        self.image_shape = tuple(pool.shape[1:])
        flat = pool.reshape(len(pool), -1)
        if not float((flat - flat.mean(0)).std()) > 0:
            raise InputError("images", "are all identical", "a pool of varied images (the brain standardises pixels "
                             "by the pool's spread)")
        if target_image is not None:
            target_image = _check_images(np.asarray(target_image, float)[None], self.image_shape, "target_image")[0]
        self._rng_master = as_generator(_check_rng(rng))
        prm = np.random.default_rng(self._rng_master.integers(2 ** 63))
        self._noise_rng = np.random.default_rng(self._rng_master.integers(2 ** 63))

        hm = head_model(montage, self.channels)
        pos = hm["pos"]
        if n_src > len(pos):
            raise InputError("n_sources", f"is {n_src}", f"at most {len(pos)} (the grid's sources)")
        order = np.argsort(pos[:, 1], kind="stable")[:n_src]                     # most posterior (head-frame y)
        ori = prm.standard_normal((n_src, 3))
        ori /= np.linalg.norm(ori, axis=1, keepdims=True)
        G = hm["gain"].reshape(len(self.channels), -1, 3)[:, order, :]
        self.leadfield_ = np.einsum("csk,sk->cs", G, ori)                        # (n_ch, n_src)
        self.source_pos_ = pos[order]

        X = pool.reshape(len(pool), -1)
        self._px_mean = X.mean(0)
        self._px_sd = float((X - self._px_mean).std())                # one scale: no pixel is amplified
        p = X.shape[1]
        self._W = prm.standard_normal((n_lat, p)) / math.sqrt(p)
        self._A = 0.6 * prm.standard_normal((n_src, n_lat)) / math.sqrt(n_lat) * 1.5
        self._B = 0.6 * prm.standard_normal((n_src, n_lat)) / math.sqrt(n_lat) * 1.5
        self._C = prm.standard_normal((n_src, n_lat)) / math.sqrt(n_lat)
        self._fa = prm.uniform(8.5, 11.5, n_src)
        self._fb = prm.uniform(14.0, 28.0, n_src)
        self._pa = prm.uniform(0, 2 * np.pi, n_src)
        self._pb = prm.uniform(0, 2 * np.pi, n_src)
        self._lat = prm.uniform(-0.02, 0.03, n_src)
        self._a0 = prm.uniform(0.5, 1.0, n_src)
        self._b0 = prm.uniform(0.2, 0.5, n_src)
        self._q = 10e-9                                                           # 10 nA m
        t = np.arange(self.n_times) / self.sfreq
        self._sin_a = np.sin(2 * np.pi * self._fa[:, None] * t + self._pa[:, None])
        self._sin_b = np.sin(2 * np.pi * self._fb[:, None] * t + self._pb[:, None])
        self._erp = _erp(t[None, :] - self._lat[:, None])
        L = self.leadfield_
        self._Ma, self._Mb, self._Me = ((L.T[:, :, None] * w[:, None, :]).reshape(n_src, -1)
                                        for w in (self._sin_a, self._sin_b, self._erp))

        clean = self._clean(pool)
        power = float(np.mean(clean ** 2))
        self.signal_power_ = power
        self.noise_sd_ = 0.0 if snr == math.inf else math.sqrt(power / 10 ** (snr / 10))
        self._eeg_scale = math.sqrt(power)

        # the semantic decoder: ridge from clean EEG to the latent code, fitted on (up to) 400 pool images
        n_fit = min(len(pool), 400)
        sub = prm.choice(len(pool), size=n_fit, replace=False)
        F = clean[sub].reshape(n_fit, -1) / self._eeg_scale
        H = self._latent(pool[sub])
        Fm = F.mean(0)
        Fc = F - Fm
        lam = 1e-2 * np.trace(Fc @ Fc.T) / n_fit
        self._dec_mean = Fm
        self._dec = Fc.T @ np.linalg.solve(Fc @ Fc.T + lam * np.eye(n_fit), H - H.mean(0))
        self._dec_bias = H.mean(0)

        self.target_index_ = None
        self._psd_base = None
        if self.target in ("psd", "alpha"):
            self._psd_base = self._psd(clean[sub[:64]]).mean(0)                  # the pool's baseline PSD
        if self.target == "alpha":
            band = (self.freqs_ >= 8.0) & (self.freqs_ <= 12.0)
            if self.psd_scale == "raw":
                tgt = self._psd_base.copy()
                tgt[:, band] *= self.alpha_gain
            else:
                tgt = np.zeros_like(self._psd_base)
                tgt[:, band] = 10 * np.log10(self.alpha_gain)
            self.target_feature_ = tgt.reshape(-1)
        else:
            if target_image is None:
                self.target_index_ = int(prm.integers(len(pool)))
                target_image = pool[self.target_index_]
            self.target_image_ = np.asarray(target_image, float)
            self.target_feature_ = self._feature(self._clean(target_image[None]))[0]

    # ------------------------------------------------------------------ the generative model
    def _latent(self, images):
        X = (images.reshape(len(images), -1) - self._px_mean) / self._px_sd
        return np.tanh(X @ self._W.T)

    def _amplitudes(self, images):
        h = self._latent(images)
        return (self._a0 * np.exp(h @ self._A.T), self._b0 * np.exp(h @ self._B.T), h @ self._C.T)

    def _sources(self, images):
        """Source time courses (n, n_src, T) in A m."""
        amp_a, amp_b, amp_e = self._amplitudes(images)
        S = amp_a[:, :, None] * self._sin_a + amp_b[:, :, None] * self._sin_b + amp_e[:, :, None] * self._erp
        return self._q * S

    def _clean(self, images):
        # X[n, c, t] = sum_s amp[n, s] L[c, s] wave[s, t] for each of the three components: one matmul each
        n = len(images)
        amp_a, amp_b, amp_e = self._amplitudes(images)
        X = amp_a @ self._Ma + amp_b @ self._Mb + amp_e @ self._Me
        return (self._q * X).reshape(n, len(self.channels), self.n_times)

    def _psd(self, X):
        import warnings

        from mne.time_frequency import psd_array_multitaper

        with warnings.catch_warnings():     # "iterative multi-taper PSD did not converge": MNE keeps its last weights
            warnings.filterwarnings("ignore", message=".*multi-taper.*")
            psd, freqs = psd_array_multitaper(X, self.sfreq, fmin=1.0, fmax=40.0, adaptive=True,
                                              normalization="full", verbose=False)
        self.freqs_ = freqs
        return psd

    def _feature(self, X):
        if self.target == "semantic":
            F = X.reshape(len(X), -1) / self._eeg_scale
            return (F - self._dec_mean) @ self._dec + self._dec_bias
        psd = self._psd(X)
        if self.psd_scale == "db_baseline":
            psd = 10 * np.log10(np.maximum(psd, 1e-300) / self._psd_base)
        return psd.reshape(len(X), -1)

    def _reward(self, X):
        phi = self._feature(X)
        t = self.target_feature_
        cos = phi @ t / (np.linalg.norm(phi, axis=1) * np.linalg.norm(t) + 1e-300)
        return (cos + 1.0) / 2.0 if self.target == "semantic" else cos

    # ------------------------------------------------------------------ public
    def with_target(self, target_image, rng=None):
        """The same brain (head, sources, decoder, noise level) with another target image, and its own
        noise stream; cheap (no forward model or decoder refit). Not for ``target="alpha"``.

        Examples
        --------
        >>> import numpy as np
        >>> pool = np.random.default_rng(0).random((30, 4, 4))
        >>> b = SimulatedEEGBrain(pool, rng=0)                      # doctest: +SKIP
        >>> float(b.with_target(pool[3]).true_reward(pool[3:4])[0])   # doctest: +SKIP
        1.0
        """
        import copy

        if self.target == "alpha":
            raise InputError("target_image", "was given to an alpha-target brain", "a semantic or psd brain")
        img = _check_images(np.asarray(target_image, float)[None], self.image_shape, "target_image")[0]
        new = copy.copy(self)
        new._noise_rng = np.random.default_rng(_check_rng(rng))
        new.target_index_ = None
        new.target_image_ = img
        new.target_feature_ = new._feature(new._clean(img[None]))[0]
        return new

    def _check(self, images):
        images = _check_images(images, self.image_shape)
        if len(images) == 0:
            raise InputError("images", "is empty", "at least one image")
        return images

    def eeg(self, images, noise=True) -> np.ndarray:
        """EEG (n, n_channels, 250) in volts for images (n, *image_shape); ``noise=False``: clean.

        Examples
        --------
        >>> import numpy as np
        >>> b = SimulatedEEGBrain(np.random.default_rng(0).random((30, 4, 4)), rng=0)   # doctest: +SKIP
        >>> b.eeg(np.zeros((1, 4, 4)), noise=False).shape                               # doctest: +SKIP
        (1, 17, 250)
        """
        images = self._check(images)
        if not isinstance(noise, (bool, np.bool_)):
            raise InputError("noise", f"got {noise!r}", "True or False")
        X = self._clean(images)
        if noise and self.noise_sd_ > 0:
            X = X + self.noise_sd_ * self._noise_rng.standard_normal(X.shape)
        return X

    def __call__(self, images) -> np.ndarray:
        """Noisy rewards (one per image), from one noisy EEG presentation each."""
        return self._reward(self.eeg(images, noise=True))

    def true_reward(self, images) -> np.ndarray:
        """Noise-free rewards (the clean EEG's feature against the target).

        Examples
        --------
        >>> import numpy as np
        >>> b = SimulatedEEGBrain(np.random.default_rng(0).random((30, 4, 4)), rng=0)   # doctest: +SKIP
        >>> b.true_reward(b.target_image_[None])                                        # doctest: +SKIP
        array([1.])
        """
        return self._reward(self.eeg(images, noise=False))

    def alpha_ratio(self, images, noise=False) -> np.ndarray:
        """Fraction of the 1-40 Hz multitaper power in 8-12 Hz, averaged over channels, per image.

        Examples
        --------
        >>> import numpy as np
        >>> b = SimulatedEEGBrain(np.random.default_rng(0).random((30, 4, 4)), target="alpha", rng=0)  # doctest: +SKIP
        >>> float(b.alpha_ratio(np.zeros((1, 4, 4)))[0]) < 1                                           # doctest: +SKIP
        True
        """
        psd = self._psd(self.eeg(images, noise=noise))
        band = (self.freqs_ >= 8.0) & (self.freqs_ <= 12.0)
        return (psd[:, :, band].sum(-1) / psd.sum(-1)).mean(-1)

    def __repr__(self):
        return (f"SimulatedEEGBrain(target={self.target!r}, channels={len(self.channels)}, snr_db={self.snr_db:g}, "
                f"sources={self.leadfield_.shape[1]})")
