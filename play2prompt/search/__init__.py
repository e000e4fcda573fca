"""Generic searches (beam, Monte Carlo) over anything a SearchSpace proposes and scores."""

from play2prompt.search._base import Node, Scored, SearchResult, SearchSpace, scored, top
from play2prompt.search.beam import beam_search
from play2prompt.search.montecarlo import beam_budget, monte_carlo_search

__all__ = ["Node", "Scored", "SearchResult", "SearchSpace", "beam_budget", "beam_search",
           "monte_carlo_search", "scored", "top"]
