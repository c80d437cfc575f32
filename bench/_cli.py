"""The command line of a benchmark that takes no options: `--help` prints what it measures
and how, instead of starting a run of up to a minute."""

from __future__ import annotations

import argparse


def takes_no_options(doc: str | None) -> None:
    parser = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.parse_args()
