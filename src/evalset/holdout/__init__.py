"""The holdout: the deterministic split, sealing holdout items with age, and coverage."""
