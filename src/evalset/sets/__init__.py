"""Set files: the model, loading and surgical editing, positions and findings, validation,
near-duplicate questions, citations, fingerprints, sealed items and the JSON Schemas.

Everything above this layer (staleness, versions, holdout, intake, export, score) reads and
writes set files through it; it depends only on the corpus and the shared modules."""
