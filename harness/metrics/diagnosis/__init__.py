"""Is the diagnosis right: each reflection's claims scored against its trial's computed ground truth, aggregated per
task and then over tasks, beside chance and heuristic rows, and compared paired between reflection sources.

Pure functions of records (`harness.records.diagnosis_log.TrialDiagnosis`); the rules that compute the ground truth
and read the claims are the domains' (`DomainSpec.truth`, `.claims`, `.line_diagnosis`).
"""
