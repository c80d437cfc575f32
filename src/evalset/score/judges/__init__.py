"""Judges: one small decision at a time (does this text assert this claim?), behind one
protocol (``base``), with the built-in ``exact``, ``command`` and ``openai`` judges, plug-ins
(``registry``), a verdict cache (``cache``) and a runner (``runner``)."""
