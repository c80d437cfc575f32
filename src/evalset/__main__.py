"""`python -m evalset` runs the command line."""

try:
    from evalset.cli import command
except KeyboardInterrupt:  # before the command line can say it: as in Python's start-up
    raise SystemExit(130) from None
command()
