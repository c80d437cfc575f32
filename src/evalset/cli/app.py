"""The typer app: every command, its options and its help."""

from __future__ import annotations

import typer

from evalset.cli import corpus, holdout, inspect, setup, versions
from evalset.cli.output import echo
from evalset.cli.run import version as print_version

app = typer.Typer(
    name="evalset",
    help="Versioned, reviewed eval sets for RAG systems, tied to the corpus they cite.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        print_version()
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Keep RAG evaluation sets as versioned, validated files in git."""


inspect.register(app)
corpus.register(app)
setup.register(app)
versions.register(app)
holdout.register(app)


def run_app() -> int:
    """Run the app; click's usage errors are shown and give their exit code. evalset's own
    errors propagate to ``evalset.cli.main``."""
    try:
        code = app(standalone_mode=False)
    except typer.Exit as exc:
        return exc.exit_code
    except typer.Abort:
        echo("evalset: aborted.", err=True)
        return 130
    except Exception as exc:  # click's usage errors; anything else is re-raised
        # Recognised by interface: typer may carry its own copy of click's exception classes.
        show, exit_code = getattr(exc, "show", None), getattr(exc, "exit_code", None)
        if callable(show) and isinstance(exit_code, int) and hasattr(exc, "format_message"):
            show()
            return exit_code
        raise
    return code if isinstance(code, int) else 0
