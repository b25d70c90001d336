"""Domains: each one a package (`alfworld/`, `humaneval/`) holding everything it knows, behind `base.Domain`.

`registry.build_domain` makes the run's domain from its env config. What a domain leaves in its records is in
`harness.records.<domain>`, so a record is read without loading any domain.
"""
