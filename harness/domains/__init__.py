"""Domains: ALFWorld games and HumanEval problems behind one interface the loop and metrics use."""

from harness.domains._base import Attempt, Domain
from harness.domains.alfworld import AlfworldDomain
from harness.domains.humaneval import CodeProtocol, HumanEvalDomain

__all__ = ["AlfworldDomain", "Attempt", "CodeProtocol", "Domain", "HumanEvalDomain"]
