"""gensim's bundled text data: the Lee corpus, its human similarity ratings, word-pair ratings."""
from __future__ import annotations

import numpy as np

from ._base import adapter, check_choice, package_file

__all__ = ["load_lee_corpus", "load_lee_similarity", "load_word_pairs"]


def _test_data(name: str) -> str:
    return package_file("gensim", "test", "test_data", name)


def _read_docs(path: str) -> list[str]:
    with open(path, encoding="latin-1") as fh:
        return [line.strip() for line in fh if line.strip()]


@adapter(returns="(list[str], list[str])", source="gensim test_data lee_background.cor, lee.cor",
         description="Lee news corpus: 300 background documents and the 50 rated test documents")
def load_lee_corpus() -> tuple[list[str], list[str]]:
    """The Lee corpus shipped with gensim: ``(background_docs, test_docs)`` (300 and 50 texts).

    The 300 background news articles are for training; the 50 test articles
    are those rated pairwise by humans (:func:`load_lee_similarity`).

    Examples
    --------
    >>> background, test = load_lee_corpus()
    >>> len(background), len(test)
    (300, 50)
    """
    return _read_docs(_test_data("lee_background.cor")), _read_docs(_test_data("lee.cor"))


@adapter(returns="(list[str], np.ndarray (50, 50))", source="gensim test_data lee.cor, similarities0-1.txt",
         description="the 50 Lee documents with their mean human pairwise similarity ratings in [0, 1]")
def load_lee_similarity() -> tuple[list[str], np.ndarray]:
    """The 50 Lee test documents and their symmetric human similarity matrix (Lee et al. 2005).

    gensim stores the upper triangle; it is mirrored here so ``sim`` is
    symmetric with a unit diagonal.

    Examples
    --------
    >>> docs, sim = load_lee_similarity()
    >>> len(docs), sim.shape, float(sim[0, 0])
    (50, (50, 50), 1.0)
    """
    docs = _read_docs(_test_data("lee.cor"))
    upper = np.loadtxt(_test_data("similarities0-1.txt"))
    if upper.shape != (len(docs), len(docs)):
        raise ValueError(f"similarity file has shape {upper.shape} for {len(docs)} documents")
    sim = np.triu(upper) + np.triu(upper, 1).T
    return docs, sim


@adapter(returns="pandas.DataFrame(word1, word2, score)", source="gensim test_data wordsim353.tsv, simlex999.txt",
         description="WordSim-353 and SimLex-999 human word-pair similarity ratings")
def load_word_pairs(name: str = "wordsim353"):
    """WordSim-353 (relatedness, 0-10) or SimLex-999 (similarity, 0-10) word pairs.

    Parameters
    ----------
    name : {"wordsim353", "simlex999"}
        Which benchmark: WordSim-353 rates relatedness ("coffee"-"cup" high),
        SimLex-999 rates similarity proper ("coffee"-"cup" low).

    Returns
    -------
    pandas.DataFrame
        Columns ``word1``, ``word2`` (lower case) and ``score`` (0-10).

    Examples
    --------
    >>> len(load_word_pairs("wordsim353")), len(load_word_pairs("simlex999"))
    (353, 999)
    """
    import pandas as pd

    check_choice(name, "name", ["wordsim353", "simlex999"])
    path = _test_data("wordsim353.tsv" if name == "wordsim353" else "simlex999.txt")
    df = pd.read_csv(path, sep="\t", comment="#", header=None, names=["word1", "word2", "score"])
    df["word1"] = df["word1"].str.lower()
    df["word2"] = df["word2"].str.lower()
    return df.dropna().reset_index(drop=True)
