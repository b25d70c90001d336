"""Domains: ALFWorld games and HumanEval problems behind one interface the loop and metrics use."""

from harness.domains._base import Attempt, Domain
from harness.domains.alfworld import AlfworldDomain
from harness.domains.humaneval import HumanEvalDomain

__all__ = ["AlfworldDomain", "Attempt", "Domain", "HumanEvalDomain"]
