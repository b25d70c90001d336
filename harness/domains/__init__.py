"""Domains: each one a package (`alfworld/`, `humaneval/`) holding everything it knows, behind `base.Domain`.

`registry.build_domain` makes the run's domain from its env config. Nothing is imported here, so a record model of
a domain (`<domain>.models`) can be read without loading any domain's machinery.
"""
