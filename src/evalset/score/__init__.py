"""Scoring a run of the system under test against a set: run files, metrics, judges, the
pinned report and the per-category gate."""
