"""The typer app: every command, its options and its help."""

from __future__ import annotations

import re
import sys
from contextlib import suppress
from typing import Any

import typer

from evalset.cli import answers, corpus, holdout, inspect, score, setup, versions
from evalset.cli.output import broken_pipe, echo, emit_json
from evalset.cli.params import NOT_TEXT, utf8_text
from evalset.cli.run import version as print_version
from evalset.cli.streams import OutputLost, discard_output

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


def _folder(value: str | None) -> None:
    if value is not None:
        from evalset.cli.folder import enter

        enter(value)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
    folder: str = typer.Option(
        None,
        "-C",
        callback=_folder,
        metavar="DIR",
        help="Run as if evalset was started in DIR (a workspace in a subfolder), as git -C.",
    ),
) -> None:
    """Keep RAG evaluation sets as versioned, validated files in git."""


inspect.register(app)
corpus.register(app)
setup.register(app)
versions.register(app)
holdout.register(app)
score.register(app)
answers.register(app)


def command() -> Any:
    """The app as the click command it runs as, with help that reads as prose (``tidy``)."""
    import typer.main

    built = typer.main.get_command(app)
    tidy(built)
    return built


def tidy(command: Any) -> None:
    """Help for people rather than for types: each paragraph of a docstring joined into one
    line (the terminal wraps it where it fits, never mid-sentence at the docstring's own
    breaks), a value shown by a placeholder (``--ratio RATIO``, ``NAME``) instead of its type
    (``<float>``, ``<str>``), and a flag shown by its name alone (not ``<bool>``)."""
    for sub in getattr(command, "commands", {}).values():
        tidy(sub)
    if not hasattr(command, "commands"):
        command.parse_args = _once(command, command.parse_args)
    command.format_help = _guarded(command.format_help)
    if command.help:
        command.help = reflow(command.help)
    for param in command.params:
        _tidy_param(param)
    help_option = command.get_help_option

    def get_help_option(ctx: Any) -> Any:
        option = help_option(ctx)
        if option is not None:
            option.metavar = ""
            option.callback = _show_help
        return option

    command.get_help_option = get_help_option


def _once(command: Any, parse_args: Any) -> Any:
    """``parse_args`` refusing an option of one value given twice: click keeps the last and
    drops the first without a word (`split --move q-1 --move q-2` moved q-2 alone)."""

    def parse(ctx: Any, args: list[str]) -> Any:
        taking: dict[str, Any] = {}
        for param in command.params:
            if param.param_type_name == "option" and not param.is_flag:
                taking.update(dict.fromkeys([*param.opts, *param.secondary_opts], param))
        seen: dict[Any, str] = {}
        k = 0
        while k < len(args):
            token, k = args[k], k + 1
            if token == "--":
                break
            name = token.split("=", 1)[0] if token.startswith("--") else token
            if name not in taking and token[:1] == "-" and token[1:2] != "-":
                name = token[:2]  # a short option with its value attached: -oout.csv
            param = taking.get(name)
            if param is None:
                continue
            if name == token:  # its values follow
                k += param.nargs
            if param.multiple:
                continue
            if param in seen:
                import click

                twice = name if seen[param] == name else f"{seen[param]} (as {name})"
                raise click.UsageError(
                    f"{twice} was given twice, but takes one value: give it once", ctx=ctx
                )
            seen[param] = name
        return parse_args(ctx, args)

    return parse


def _show_help(ctx: Any, param: Any, value: bool) -> None:
    """``--help``, as click's callback prints it, with a failed write as ``OutputLost``: click
    ends the process with status 1 on a broken pipe (`evalset stale --help | head`), which
    would read as findings."""
    if not value or ctx.resilient_parsing:
        return
    try:
        typer.echo(ctx.get_help(), color=ctx.color)
        sys.stdout.flush()
    except OSError as exc:
        raise OutputLost(exc) from exc
    ctx.exit()


def _guarded(format_help: Any) -> Any:
    """``format_help`` (which typer has rich print) with a failed write as ``OutputLost``:
    rich ends the process with status 1 on a broken pipe, which would read as findings."""

    def guarded(ctx: Any, formatter: Any) -> Any:
        try:
            return format_help(ctx, formatter)
        except OSError as exc:
            raise OutputLost(exc) from exc
        except SystemExit:  # rich's Console.on_broken_pipe, the only exit in there
            broken_pipe()

    return guarded


def _tidy_param(param: Any) -> None:
    if param.type_descriptor.annotation in (str, list[str]) and param.name not in NOT_TEXT:
        param.process_value = _text_checked(param, param.process_value)
    if getattr(param, "is_flag", False):
        param.metavar = ""
        return
    if param.param_type_name == "option":
        longest = max(param.opts, key=len).lstrip("-")
        param.metavar = param.metavar or longest.upper().replace("-", "_")
        return
    name = param.metavar = param.metavar or param.name.upper()
    usage = name if param.required else f"[{name}]"
    usage += "..." if param.nargs != 1 else ""
    # typer shows an argument's type beside its name, and braces around a required one in
    # the usage line, whatever the metavar says
    param.display_type_rich = lambda ctx: None
    param._usage_display_name = lambda: usage


def _text_checked(param: Any, process_value: Any) -> Any:
    """``process_value`` refusing a value that is not UTF-8 text (``params.utf8_text``),
    before typer converts it or a callback sees it."""

    def process(ctx: Any, value: Any) -> Any:
        option = max(param.opts, key=len) if param.param_type_name == "option" else param.metavar
        for text in [value] if isinstance(value, str) else value or ():
            if isinstance(text, str):
                utf8_text(text, option)
        return process_value(ctx, value)

    return process


def reflow(text: str) -> str:
    """A docstring's paragraphs, each joined into one line; blank lines between them kept."""
    paragraphs = re.split(r"\n\s*\n", text.strip())
    return "\n\n".join(" ".join(p.split()) for p in paragraphs)


def usage_sentence(exc: Exception) -> str:
    """A click usage error as one sentence, as ``--json`` reports it: click's message, which
    names the option and the problem, then where the options are listed."""
    ctx = getattr(exc, "ctx", None)
    path = getattr(ctx, "command_path", None) or _command_path(sys.argv[1:])
    text = " ".join(exc.format_message().split()).rstrip(".")  # type: ignore[attr-defined]
    # a group called without its command prints its help, and the error has no message
    return f"{text or 'no command given'}; see `{path} --help`."


def _command_path(argv: list[str]) -> str:
    """The command ``argv`` runs (``evalset stale``), as a usage error names it when click
    made no context for it yet: an option's value missing (``stale --format``) is found
    while the command line is parsed. Its words are the app's command names before the
    first option; ``evalset`` when the first names no command."""
    found: Any = command()
    path = ["evalset"]
    for word in argv:
        found = getattr(found, "commands", {}).get(word) if not word.startswith("-") else None
        if found is None:
            break
        path.append(word)
    return " ".join(path)


def run_app() -> int:
    """Run the app; click's usage errors are shown as one sentence, as evalset's own are,
    and give their exit code. evalset's own errors propagate to ``evalset.cli.main``."""
    try:
        code = command().main(prog_name="evalset", standalone_mode=False)
    except typer.Exit as exc:
        return exc.exit_code
    except typer.Abort:
        echo("evalset: aborted.", err=True)
        return 130
    except Exception as exc:  # click's usage errors; anything else is re-raised
        # Recognised by interface: typer may carry its own copy of click's exception classes.
        show, exit_code = getattr(exc, "show", None), getattr(exc, "exit_code", None)
        if callable(show) and isinstance(exit_code, int) and hasattr(exc, "format_message"):
            with suppress(OSError):  # to standard error: the exit status says it too
                echo(f"evalset: {usage_sentence(exc)}", err=True)
            if "--json" in sys.argv[1:]:  # a script reading the output gets the error too
                try:
                    emit_json({"error": usage_sentence(exc), "exit_code": exit_code})
                except OutputLost:  # the usage lines above said it
                    discard_output()
            return exit_code
        raise
    if code == 130:  # typer returns Ctrl-C as exit status 130; main says it, once
        raise KeyboardInterrupt
    return code if isinstance(code, int) else 0
