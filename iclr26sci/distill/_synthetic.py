"""A synthetic multi-domain QA task with templated text teachers of controlled per-domain accuracy."""
from __future__ import annotations

import numpy as np

from iclr26sci.core import InputError, as_generator, check_array, check_bool, check_memory, check_positive_int

from ._data import MultiTeacherData

__all__ = ["SyntheticRationaleQA", "DEFAULT_TEACHER_ACCURACY", "SYNTHETIC_DOMAINS"]

#: p_{k,d}: teacher k's accuracy on domain d (the specification's K=4 example)
DEFAULT_TEACHER_ACCURACY = ((0.9, 0.6, 0.7), (0.6, 0.9, 0.6), (0.7, 0.7, 0.9), (0.55, 0.55, 0.55))
SYNTHETIC_DOMAINS = ("commonsense", "biomedical", "arithmetic")

_OBJ = ["lamp", "chair", "table", "kettle", "anvil", "pillow", "hammer", "bucket", "drum", "ladder", "basket",
        "bottle", "helmet", "saddle", "barrel", "candle", "mirror", "shovel", "violin", "wagon", "cannon", "feather",
        "brick", "boulder", "crate", "engine", "globe", "harp", "kayak", "lantern", "magnet", "needle"]
_OBJ_OOD = ["piano", "sofa", "trumpet", "bench", "canoe", "tractor", "spoon", "pebble", "quilt", "statue", "sled",
            "cart"]
_SYL = ["ra", "to", "mi", "ze", "vo", "ka", "lu", "pe", "si", "no", "ba", "fi"]
_ENZ = ["kinase", "protease", "lipase", "oxidase", "ligase", "reductase"]
_NAMES = ["Tom", "Ana", "Lee", "Sam", "Mia", "Raj", "Eva", "Kim"]
_NAMES_OOD = ["Zoe", "Ben", "Ivy", "Max"]
_LET = "abcd"

_OPEN = ["Let us think step by step.", "Reasoning:", "First recall the facts.", "Consider the question."]
_Q = {
    ("commonsense", 0): "Which is heavier, the {x} or the {y}?",
    ("commonsense", 1): "Between the {x} and the {y}, which one is heavier in weight?",
    ("biomedical", 0): "Which enzyme does {d} inhibit?",
    ("biomedical", 1): "The drug {d} blocks the activity of which enzyme?",
    ("arithmetic", 0): "{p} has {a} apples, gets {b} more and gives away {c}. How many apples are left?",
    ("arithmetic", 1): "Starting with {a} apples, {p} receives {b} apples and then gives away {c}. How many remain?",
}


class SyntheticRationaleQA:
    r"""Synthetic QA in three domains with K templated teachers of known per-domain accuracy.

    Domains: *commonsense* (which of two objects is heavier, from a hidden weight table), *biomedical*
    (which enzyme a drug inhibits, from a hidden drug-enzyme map, 3 options) and *arithmetic* (a two-step
    apples problem, 3 options). Teacher k answers a domain-d question correctly with probability
    :math:`p_{k,d}`: a correct rationale states the true facts and ends "Thus, the answer is (x)." with
    the gold option; a wrong one fabricates facts for a wrong option. With probability :math:`u_k` the
    body supports a different option than the final line (self-contradiction). Each teacher has its own
    phrasing (opener and fact wording), so rationales are real text with meaningful embeddings.

    The OOD split (``generate(..., ood=True)``) uses unseen object/person names and a held-out question
    template family for every domain.

    Parameters
    ----------
    accuracy : array (K, 3), default :data:`DEFAULT_TEACHER_ACCURACY`
        :math:`p_{k,d}`.
    contradiction : array (K,), default 0.05 for every teacher
        :math:`u_k`.
    rng : int or Generator, default 0
        Seed of the hidden world (weights, drug-enzyme map) and of the default draws.

    Examples
    --------
    >>> g = SyntheticRationaleQA(rng=0)
    >>> d = g.generate(300)
    >>> d.K, sorted(set(d.domains)), bool(abs(d.teacher_accuracy()[3] - 0.55) < 0.1)
    (4, ['arithmetic', 'biomedical', 'commonsense'], True)
    """

    def __init__(self, accuracy=None, contradiction=None, rng=0):
        acc = np.asarray(DEFAULT_TEACHER_ACCURACY if accuracy is None else accuracy, dtype=float) \
            if not isinstance(accuracy, str) else accuracy
        acc = check_array(acc, "accuracy", ndim=2)
        if acc.shape[1] != 3 or acc.shape[0] < 2 or np.any(acc < 0) or np.any(acc > 1):
            raise InputError("accuracy", f"has shape {acc.shape} or values outside [0, 1]",
                             "a (K, 3) array of probabilities, K >= 2 (one column per domain)")
        K = acc.shape[0]
        u = np.full(K, 0.05) if contradiction is None else check_array(contradiction, "contradiction", ndim=1)
        if u.shape != (K,) or np.any(u < 0) or np.any(u > 1):
            raise InputError("contradiction", f"has shape {u.shape} or values outside [0, 1]", f"{K} probabilities")
        self.accuracy, self.contradiction, self.K = acc, u, K
        gen = as_generator(rng)
        self._gen = gen
        self.weights = {o: int(w) for o, w in zip(_OBJ + _OBJ_OOD, gen.permutation(np.arange(1, 1 + len(_OBJ) + len(_OBJ_OOD))))}
        drugs = sorted({_SYL[a] + _SYL[b] + _SYL[c] + "n" for a, b, c in gen.integers(0, len(_SYL), (80, 3))})
        drugs = [d.capitalize() for d in drugs]
        self.drugs, self.drugs_ood = drugs[:-12], drugs[-12:]
        self.target = {d: _ENZ[int(gen.integers(0, len(_ENZ)))] for d in drugs}

    def __repr__(self):
        return f"SyntheticRationaleQA(K={self.K})"

    def expected_accuracy(self, domains) -> np.ndarray:
        """:math:`p_{k, d(q)}` for each question's domain, shape (n, K) (to measure exact router regret).

        Examples
        --------
        >>> SyntheticRationaleQA(rng=0).expected_accuracy(["biomedical"]).tolist()
        [[0.6, 0.9, 0.7, 0.55]]
        """
        if isinstance(domains, (str, bytes)) or not hasattr(domains, "__iter__"):
            raise InputError("domains", f"got {domains!r}", f"a list of domain names from {SYNTHETIC_DOMAINS}")
        idx = []
        for d in domains:
            if d not in SYNTHETIC_DOMAINS:
                raise InputError("domains", f"{d!r} is not a synthetic domain", f"one of {SYNTHETIC_DOMAINS}")
            idx.append(SYNTHETIC_DOMAINS.index(d))
        return self.accuracy[:, idx].T

    # ----------------------------------------------------------------------------------- one question
    def _question(self, dom, ood, gen):
        fam = 1 if ood else 0
        if dom == "commonsense":
            pool = _OBJ_OOD if ood else _OBJ
            x, y = gen.choice(pool, 2, replace=False)
            opts = [str(x), str(y)]
            gold = int(self.weights[x] < self.weights[y])
            q = _Q[(dom, fam)].format(x=x, y=y)
            ctx = {"kind": "cs", "opts": opts}
        elif dom == "biomedical":
            d = str(gen.choice(self.drugs_ood if ood else self.drugs))
            others = [e for e in _ENZ if e != self.target[d]]
            opts = [self.target[d]] + [str(e) for e in gen.choice(others, 2, replace=False)]
            perm = gen.permutation(3)
            opts = [opts[j] for j in perm]
            gold = int(np.flatnonzero(perm == 0)[0])
            q = _Q[(dom, fam)].format(d=d)
            ctx = {"kind": "bio", "drug": d, "opts": opts}
        else:
            p = str(gen.choice(_NAMES_OOD if ood else _NAMES))
            a, b = (int(v) for v in gen.integers(2, 10, 2))
            c = int(gen.integers(1, a + b))
            r = a + b - c
            wrong = sorted({r + int(s) for s in (-2, -1, 1, 2, 3) if r + s >= 0} - {r})
            opts = [r] + [int(v) for v in gen.choice(wrong, 2, replace=False)]
            perm = gen.permutation(3)
            opts = [str(opts[j]) for j in perm]
            gold = int(np.flatnonzero(perm == 0)[0])
            q = _Q[(dom, fam)].format(p=p, a=a, b=b, c=c)
            ctx = {"kind": "ar", "a": a, "b": b, "c": c, "opts": opts}
        q = q + " " + " ".join(f"({_LET[j]}) {o}" for j, o in enumerate(opts))
        return q, gold, ctx

    def _body(self, ctx, support, gold, style, gen):
        """Rationale facts that support option ``support`` (true facts when it is the gold option)."""
        opts = ctx["opts"]
        if ctx["kind"] == "cs":
            x, y = opts
            wx, wy = self.weights[x], self.weights[y]
            if support != gold:            # fabricate weights that reverse the comparison
                wx, wy = wy, wx
            heavy = opts[support]
            facts = [f"The {x} weighs {wx} kilograms.", f"The {y} weighs {wy} kilograms."] if style % 2 == 0 else \
                [f"A {x} has a weight of {wx}.", f"A {y} has a weight of {wy}."]
            return " ".join(facts) + f" So the {heavy} is heavier."
        if ctx["kind"] == "bio":
            e = opts[support]
            return (f"{ctx['drug']} binds to the {e} active site." if style % 2 == 0 else
                    f"It is known that {ctx['drug']} targets {e}.") + f" So {ctx['drug']} inhibits {e}."
        a, b, c = ctx["a"], ctx["b"], ctx["c"]
        r = int(opts[support])
        s = a + b if support == gold else r + c
        return (f"{a} plus {b} is {s}." if style % 2 == 0 else f"Adding {b} to {a} gives {s}.") + \
            f" {s} minus {c} is {r}."

    def generate(self, n: int, *, ood: bool = False, domains=None, rng=None) -> MultiTeacherData:
        """Draw ``n`` questions (domains uniform, or cycling through ``domains``) with the K rationales each.

        Parameters
        ----------
        n : int
            Number of questions.
        ood : bool, default False
            Unseen names and the held-out question templates.
        domains : list of str, optional
            Restrict to these domains (default: all three).
        rng : int or Generator, optional
            Seed of the draws (default: the generator's own stream, so successive calls differ).

        Examples
        --------
        >>> d = SyntheticRationaleQA(rng=0).generate(3, rng=1)
        >>> d.rationales[0][0].endswith(")."), d.answers[0][0]
        (True, '(')
        """
        n = check_positive_int(n, "n")
        check_memory(2000.0 * n * self.K, "n", "the generated questions and rationales (about 2 kB per rationale)")
        ood = check_bool(ood, "ood")
        doms = list(SYNTHETIC_DOMAINS) if domains is None else (
            [domains] if isinstance(domains, str) else list(domains))
        for d in doms:
            if d not in SYNTHETIC_DOMAINS:
                raise InputError("domains", f"{d!r} is not a synthetic domain", f"a subset of {SYNTHETIC_DOMAINS}")
        if not doms:
            raise InputError("domains", "is empty", f"a non-empty subset of {SYNTHETIC_DOMAINS}")
        gen = self._gen if rng is None else as_generator(rng)
        Q, R, A, TA, D = [], [], [], [], []
        for i in range(n):
            dom = doms[int(gen.integers(0, len(doms)))]
            di = SYNTHETIC_DOMAINS.index(dom)
            q, gold, ctx = self._question(dom, ood, gen)
            nopt = len(ctx["opts"])
            rats, tans = [], []
            for k in range(self.K):
                ok = gen.random() < self.accuracy[k, di]
                final = gold if ok else int(gen.choice([j for j in range(nopt) if j != gold]))
                support = final
                if gen.random() < self.contradiction[k]:
                    support = int(gen.choice([j for j in range(nopt) if j != final]))
                body = self._body(ctx, support, gold, k, gen)
                rats.append(f"{_OPEN[k % len(_OPEN)]} {body} Thus, the answer is ({_LET[final]}).")
                tans.append(f"({_LET[final]})")
            Q.append(q)
            R.append(rats)
            A.append(f"({_LET[gold]})")
            TA.append(tans)
            D.append(dom)
        return MultiTeacherData(Q, R, A, teacher_answers=TA, domains=D,
                                teachers=[f"teacher{k}" for k in range(self.K)])
