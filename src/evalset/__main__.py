"""`python -m evalset` runs the command line."""

from evalset.cli import command

command()
