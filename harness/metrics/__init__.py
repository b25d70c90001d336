"""Pure functions over records: RRR, frozen memory, object mention, Spearman, per-condition figures, cost, Fisher's
exact test and Wilson intervals. Nothing here calls a model or writes a file but `run.write_metrics`."""
