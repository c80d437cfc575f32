"""The `evalset` command.

``main`` runs the plain forms of the commands that run on every commit and CI step
(``snapshot``, ``status``, ``stale`` with their flags, ``score retrieval SET RUN`` and
``score answers SET RUN --judge J`` with ``-o FILE`` and their flags, and ``--version``)
straight from
``evalset.cli.run``, and every other form (help, the other commands, options given any
other way) through the typer app in ``evalset.cli.app``. Both paths run the same command
bodies. The reason is start-up time: the typer app imports pydantic and builds a validator
per option, about 0.2 s, which is most of what an unchanged snapshot may take.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

_FLAGS = {
    "snapshot": ("--json",),
    "status": ("--json", "--coverage"),
    "stale": ("--json", "--no-fail", "--fix-moved", "--skip-sealed"),
}


_SCORE_FLAGS = ("--json", "--allow-stale", "--skip-invalid")


def plain_form(argv: list[str]) -> Callable[[], None] | None:
    """The command body to run for ``argv`` when it is a plain form, else None."""
    if argv == ["--version"]:
        from evalset.cli.run import version

        return version
    if argv[:2] == ["score", "retrieval"]:
        return _plain_score(argv[2:])
    if argv[:2] == ["score", "answers"]:
        return _plain_answers(argv[2:])
    if not argv or argv[0] not in _FLAGS:
        return None
    command, allowed = argv[0], _FLAGS[argv[0]]
    flags: set[str] = set()
    names: list[str] = []
    fmt = "text"
    rest = iter(argv[1:])
    for arg in rest:
        if command == "stale" and arg == "--format":
            fmt = next(rest, "")
            if fmt not in ("text", "md"):
                return None  # typer explains
        elif arg in allowed and arg not in flags:
            flags.add(arg)
        elif command in ("stale", "status") and not arg.startswith("-"):
            names.append(arg)
        else:
            return None
    from evalset.cli import run

    as_json = "--json" in flags
    if command == "snapshot":
        return lambda: run.snapshot(None, as_json)
    if command == "status":
        return lambda: run.status("--coverage" in flags, as_json, names)
    return lambda: run.stale(
        names, as_json, fmt, "--fix-moved" in flags, "--no-fail" in flags, "--skip-sealed" in flags
    )


def _plain_score(args: list[str]) -> Callable[[], None] | None:
    """``score retrieval SET RUN``, with ``-o``/``--output FILE`` and the flags of
    ``_SCORE_FLAGS``, each at most once; any other form is typer's."""
    given: list[str] = []
    flags: set[str] = set()
    output: str | None = None
    rest = iter(args)
    for arg in rest:
        if arg in ("-o", "--output") and output is None:
            output = next(rest, "-")
            if output.startswith("-"):
                return None
        elif arg in _SCORE_FLAGS and arg not in flags:
            flags.add(arg)
        elif not arg.startswith("-") and len(given) < 2:
            given.append(arg)
        else:
            return None
    if len(given) != 2:
        return None
    from pathlib import Path

    from evalset.cli import run

    set_ref, run_file = given
    return lambda: run.score_set(
        set_ref,
        Path(run_file),
        Path(output) if output is not None else None,
        allow_stale="--allow-stale" in flags,
        skip_invalid="--skip-invalid" in flags,
        as_json="--json" in flags,
    )


def _plain_answers(args: list[str]) -> Callable[[], None] | None:
    """``score answers SET RUN --judge J``, with ``-o``/``--output FILE`` and the flags of
    ``_SCORE_FLAGS``, each at most once; any other form is typer's."""
    given: list[str] = []
    flags: set[str] = set()
    values: dict[str, str] = {}
    rest = iter(args)
    for arg in rest:
        key = "output" if arg in ("-o", "--output") else "judge" if arg == "--judge" else None
        if key is not None and key not in values:
            values[key] = next(rest, "-")
            if values[key].startswith("-"):
                return None
        elif arg in _SCORE_FLAGS and arg not in flags:
            flags.add(arg)
        elif not arg.startswith("-") and len(given) < 2:
            given.append(arg)
        else:
            return None
    if len(given) != 2 or "judge" not in values:
        return None
    from pathlib import Path

    from evalset.cli import run

    set_ref, run_file = given
    output = values.get("output")
    return lambda: run.score_answers(
        set_ref,
        Path(run_file),
        values["judge"],
        Path(output) if output is not None else None,
        allow_stale="--allow-stale" in flags,
        skip_invalid="--skip-invalid" in flags,
        as_json="--json" in flags,
    )


def _short_lived() -> None:
    """Collect cyclic garbage less often, as suits one command's run: loading a 10,000-item
    set and two large manifests builds a million objects in no cycle, and the collector's
    default passes over them were a fifth of ``evalset stale``. What was imported so far is
    moved out of its sight for good (modules live as long as the process)."""
    import gc

    gc.freeze()
    gc.set_threshold(50_000, 20, 100)


def _leave(code: int) -> None:
    """End a scoring command now that its report is written and its output flushed, without
    tearing down what it built: freeing a 10,000-item set, its run and its report object by
    object took the interpreter about 0.1 s, and nothing of it is left to do (the report is
    written atomically and closed, verdicts are committed as they are saved). What the
    interpreter would run at exit runs first, as it would: it waits for no thread (a
    non-daemon one left running means the usual exit path), then runs the functions
    registered with atexit (logging's shutdown). When a plug-in was loaded (it may rely on
    the teardown to finalise its objects or flush its files), or flushing the output fails
    (the reader went away), the usual exit path runs."""
    import atexit
    import os
    import threading

    from evalset import plugins

    if plugins.loaded:
        return
    if any(not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        return
    run_exit_functions = getattr(atexit, "_run_exitfuncs", None)
    if run_exit_functions is None:
        return
    run_exit_functions()  # run once: the interpreter's own exit then finds none left
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:
        return
    os._exit(code)


def command() -> None:
    """The `evalset` program (and `python -m evalset`): ``main`` in a process of its own,
    which a scoring command may end as soon as its output is written (``_leave``)."""
    main(end_early=True)


INTERRUPTED = "interrupted; no file was left half-written (run the command again to finish it)."
"""What Ctrl-C prints: every write replaces a whole file, so a file is as it was or as the
command completes it."""


def main(end_early: bool = False) -> None:
    """Run the command and turn evalset's errors into one sentence and an exit code; Ctrl-C
    (from the first import on) into one line and exit status 130.
    ``end_early``: this process runs nothing else after it (see ``command``)."""
    import os

    pid = os.getpid()
    try:
        _main(end_early)
    except KeyboardInterrupt:
        if os.getpid() != pid:  # a helper forked to share the work, just before its own try
            os._exit(130)
        _interrupted()


def _interrupted() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the line short
    if "--json" in sys.argv:
        import json

        print(json.dumps({"error": INTERRUPTED, "exit_code": 130}, indent=2), flush=True)
    sys.stderr.write(f"evalset: {INTERRUPTED}\n")
    sys.stderr.flush()
    sys.exit(130)


def _main(end_early: bool) -> None:
    from evalset.cli.output import as_typed, echo, emit_json
    from evalset.errors import EvalsetError

    _short_lived()
    if end_early:  # a process of its own: what each bulk load builds is frozen too
        from evalset import bulk

        bulk.FREEZE = True
    try:
        from evalset.cli.folder import change_folder

        sys.argv[1:] = change_folder(sys.argv[1:])
        body = plain_form(sys.argv[1:])
        if body is None:
            from evalset.cli.app import run_app

            code = run_app()
        else:
            body()
            code = 0
            if end_early and sys.argv[1:2] == ["score"]:
                _leave(code)
    except EvalsetError as exc:
        message = as_typed(str(exc))
        if "--json" in sys.argv:
            emit_json({"error": message, "exit_code": exc.exit_code})
        echo(f"evalset: {message}", err=True)
        sys.exit(exc.exit_code)
    except MemoryError:  # input larger than a memory limit allows, past the checks on size
        message = (
            "ran out of memory reading the input; raise the memory limit (ulimit -v) or give "
            "smaller input."
        )
        if "--json" in sys.argv:
            emit_json({"error": message, "exit_code": 2})
        echo(f"evalset: {message}", err=True)
        sys.exit(2)
    except BrokenPipeError:  # the reader went away (`evalset stale | head`): stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    except Exception as exc:  # anything unexpected
        echo(
            f"evalset: internal error ({type(exc).__name__}: {exc}); please report it "
            "with the command you ran.",
            err=True,
        )
        sys.exit(3)
    sys.exit(code)
