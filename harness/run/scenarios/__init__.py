"""Scenarios: runs that are not trials of a task set (the planted-question reflection)."""
