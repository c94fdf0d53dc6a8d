"""Validation of the shared neural layer (report section "nn").

The checks live in one module per part, each registering under the method key ``"nn"``:

- ``validation.nn_flow``: flow matching on Gaussian data, solver orders, the SDE conversion's marginals,
  per-step log-likelihoods and KL against closed forms;
- ``validation.nn_lm``: the language model's log-probabilities, sampling frequencies and LoRA;
- ``validation.nn_vision``: the cached Fashion-MNIST classifier's clean accuracy;
- ``validation.nn_generative``: the cached flow models' samples, judged by that classifier.
"""
import importlib
import importlib.util

for _part in ("nn_flow", "nn_lm", "nn_vision", "nn_generative"):
    if importlib.util.find_spec(f"validation.{_part}") is not None:
        importlib.import_module(f"validation.{_part}")
