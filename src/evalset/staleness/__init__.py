"""Staleness: which items cite text that changed since a person verified them, and
recording that they were checked again (`evalset stale`, `evalset verify`)."""
