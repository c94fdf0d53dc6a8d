"""Method layer: Agentic Predictor, multi-view encoders that predict whether an LLM agent workflow succeeds on a task.

Trirat, Jeong and Hwang, "Multi-View Encoders for Performance Prediction in LLM-Based Agentic Workflows"
(arXiv:2505.19764, ICLR 2026; v1 title "Agentic Predictor"); official code DeepAuto-AI/agentic-predictor.

Modules:

- ``_workflow``: :class:`Workflow` (operator graph, node prompts, operator code and invocation lines parsed from a
  small Python programme with :meth:`Workflow.from_code`), :data:`OPERATORS` and :func:`hash_embed`;
- ``_bench``: :class:`PairSet` (workflow-task pairs with labels), :class:`WorkflowBench` and the controlled
  :func:`synthetic_workflow_bench` of the spec (a latent-logit generator whose views each carry unique signal);
- ``_metrics``: the released :func:`accuracy`, the released ranking-based :func:`utility_score`, its core
  :func:`ranking_utility` and :func:`precision_at_k`;
- ``_model``: :class:`MultiViewWorkflowEncoder` (GATv2 views, CrossGraphAttn, ViewAttnPool, code and prompt MLP
  views), :class:`AgenticPredictor` (task encoder, head, BCE training, predictor-guided selection), the
  reconstructed cross-domain :func:`pretrain` (reconstruction + NT-Xent) and the graph baselines
  (:class:`GraphBaseline`: MLP, GCN, GAT, GCN-II, Graph Transformer);
- ``_flora``: :func:`read_flora`, the reader for users' own FLORA-Bench / G-Designer files (workflow graphs,
  task records, success labels) into a :class:`PairSet`.

Names load on first access (PEP 562), so ``import iclr26sci.agents`` imports neither torch nor torch_geometric.
"""
from __future__ import annotations

from iclr26sci.core._lazy import lazy_loader

#: public name -> the private module that defines it
_WHERE = {
    "Workflow": "_workflow", "OPERATORS": "_workflow", "hash_embed": "_workflow",
    "PairSet": "_bench", "WorkflowBench": "_bench", "synthetic_workflow_bench": "_bench",
    "accuracy": "_metrics", "utility_score": "_metrics", "ranking_utility": "_metrics",
    "precision_at_k": "_metrics",
    "MultiViewWorkflowEncoder": "_model", "AgenticPredictor": "_model", "pretrain": "_model",
    "PretrainedEncoder": "_model", "GraphBaseline": "_model",
    "read_flora": "_flora", "FLORA_ROLE_PROMPTS": "_flora",
}

__all__ = list(_WHERE)


__getattr__, __dir__ = lazy_loader(__name__, _WHERE)
