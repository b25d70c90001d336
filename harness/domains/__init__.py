"""Domains: each one a package (`alfworld/`, `humaneval/`, `hotpotqa/`) holding everything it knows, behind
`base.Domain`, and named by one `spec.DomainSpec` (its `spec.py`).

`registry.build_domain` makes the run's domain from its env config. What a domain leaves in its records is in
`harness.records.<domain>`, so a record is read without loading any domain.
"""
