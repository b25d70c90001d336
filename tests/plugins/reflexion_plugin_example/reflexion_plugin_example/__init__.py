"""An example plugin of reflexion-harness: everything here reaches the harness through entry points alone.

source (a reflection source that writes a fixed lesson), critic (a source with its own prompts for each domain and
its own evidence kind, shown on report.html by its own renderer), backend (a stand-in model that answers by rule,
no LLM), sums (a domain of sums to answer, as one DomainSpec), audit (a loader for a format the harness cannot read).
"""
