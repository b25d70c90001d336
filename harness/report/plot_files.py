"""The names of the report's PNG files, apart from the drawing: the document links them without loading matplotlib,
which a report written without plots (and every start of a run) then never imports."""

RRR_DISTRIBUTION = "rrr_distribution.png"
RRR_VS_TRIALS = "rrr_vs_trials.png"
SOLVED_AND_MENTION = "solved_and_mention.png"
THRESHOLD_CURVES = "threshold_curves.png"
"""Drawn by harness.report._threshold_plot, from the runs' records."""
PLOT_FILES = (RRR_DISTRIBUTION, RRR_VS_TRIALS, SOLVED_AND_MENTION, THRESHOLD_CURVES)
SEMANTIC_VS_RRR = "semantic_vs_rrr.png"
"""Drawn only when the report is asked for semantic RRR."""
CARRIERS_BY_STEP = "propagation_carriers.png"
"""A plant-and-trace run's plot (harness.report._propagation_plot)."""
