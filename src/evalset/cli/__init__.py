"""The `evalset` command: a typer app whose commands parse, call one library function, print."""

from __future__ import annotations

import sys

import typer

from evalset.cli import corpus, holdout, inspect, setup, versions

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
        from evalset import __version__

        typer.echo(f"evalset {__version__}")
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


def main() -> None:
    """Entry point: run the app and turn evalset's errors into one sentence and an exit code."""
    from evalset.errors import EvalsetError

    try:
        code = app(standalone_mode=False)
    except EvalsetError as exc:
        if "--json" in sys.argv:
            from evalset.cli.output import emit_json

            emit_json({"error": str(exc), "exit_code": exc.exit_code})
        typer.echo(f"evalset: {exc}", err=True)
        sys.exit(exc.exit_code)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        typer.echo("evalset: aborted.", err=True)
        sys.exit(130)
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as exc:  # click's usage errors and anything unexpected
        # Recognised by interface: typer may carry its own copy of click's exception classes.
        show, exit_code = getattr(exc, "show", None), getattr(exc, "exit_code", None)
        if callable(show) and isinstance(exit_code, int):
            show()
            sys.exit(exit_code)
        typer.echo(
            f"evalset: internal error ({type(exc).__name__}: {exc}); please report it "
            "with the command you ran.",
            err=True,
        )
        sys.exit(3)
    sys.exit(code if isinstance(code, int) else 0)
