"""Measurements run by hand, each one command (`python -m benchmarks.<name>`); none is part of the harness.

throughput, replay_overhead, llama_speed and peak_rss print a table and write JSON into benchmarks/results/;
run_all runs them one after another. latency_server is the instrument throughput measures against.
"""
