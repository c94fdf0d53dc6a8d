"""Social graphs that ship inside networkx."""
from __future__ import annotations

from ._base import adapter, check_choice

__all__ = ["load_graph", "GRAPH_NAMES"]

GRAPH_NAMES = ("karate", "les_miserables", "florentine_families", "davis_southern_women")


@adapter(returns="networkx.Graph", source="networkx.generators.social",
         description="karate club, Les Miserables, Florentine families, Davis southern women graphs")
def load_graph(name: str = "karate"):
    """One of networkx's bundled social graphs, relabelled to integers ``0..n-1``.

    The original node names are kept in the node attribute ``"label"``.

    Parameters
    ----------
    name : {"karate", "les_miserables", "florentine_families", "davis_southern_women"}
        Which graph: Zachary's karate club (34 members), the co-appearance
        network of Les Miserables' characters, the marriage ties of
        Renaissance Florentine families, or Davis's women-event bipartite graph.

    Returns
    -------
    networkx.Graph

    Examples
    --------
    >>> g = load_graph("karate")
    >>> g.number_of_nodes(), g.number_of_edges()
    (34, 78)
    """
    import networkx as nx

    check_choice(name, "name", GRAPH_NAMES)
    g = {"karate": nx.karate_club_graph, "les_miserables": nx.les_miserables_graph,
         "florentine_families": nx.florentine_families_graph,
         "davis_southern_women": nx.davis_southern_women_graph}[name]()
    g = nx.Graph(g)
    mapping = {node: i for i, node in enumerate(g.nodes())}
    h = nx.relabel_nodes(g, mapping)
    nx.set_node_attributes(h, {i: str(node) for node, i in mapping.items()}, "label")
    h.graph["name"] = name
    return h
