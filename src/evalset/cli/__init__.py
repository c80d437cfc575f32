"""The `evalset` command.

``main`` runs the plain forms of the commands that run on every commit and CI step
(``snapshot``, ``status``, ``stale`` with their flags, ``score retrieval SET RUN`` and
``score answers SET RUN --judge J`` with ``-o FILE`` and their flags, ``score retrieval
--qrels QRELS --run RUN`` with ``--json``, and ``--version``)
straight from
``evalset.cli.run``, and every other form (help, the other commands, options given any
other way) through the typer app in ``evalset.cli.app``. Both paths run the same command
bodies. The reason is start-up time: the typer app imports pydantic and builds a validator
per option, about 0.2 s, which is most of what an unchanged snapshot may take.
"""

from __future__ import annotations

import errno
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # not imported at run time: see ``command``
    from collections.abc import Callable
    from typing import NoReturn

_FLAGS = {
    "snapshot": ("--json",),
    "status": ("--json", "--coverage"),
    "stale": ("--json", "--no-fail", "--fix-moved", "--skip-sealed", "--require-snapshot"),
}


_SCORE_FLAGS = ("--json", "--allow-stale", "--skip-invalid")


GROUPS = ("score",)
"""The commands whose first argument is a command of their own (`evalset score retrieval`)."""


def command_run(argv: list[str]) -> str | None:
    """The command ``argv`` runs, without its arguments and options (``score retrieval``,
    ``stale``), when its words say one."""
    words = [arg for arg in argv[:2] if not arg.startswith("-")]
    if not words or words[0] != argv[0]:
        return None
    return " ".join(words[:2] if words[0] in GROUPS and len(words) == 2 else words[:1])


def plain_form(argv: list[str]) -> Callable[[], None] | None:
    """The command body to run for ``argv`` when it is a plain form, else None."""
    if argv == ["--version"]:
        from evalset.cli.run import version

        return version
    if argv[:2] == ["score", "retrieval"]:
        return _plain_score(argv[2:]) or _plain_trec(argv[2:])
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
    if as_json and fmt == "md":
        return None  # typer explains: one of them chooses what is printed
    if command == "snapshot":
        return lambda: run.snapshot(None, as_json)
    if command == "status":
        return lambda: run.status("--coverage" in flags, as_json, names)
    return lambda: run.stale(
        names, as_json, fmt, "--fix-moved" in flags, "--no-fail" in flags,
        "--skip-sealed" in flags, require_snapshot="--require-snapshot" in flags,
    )  # fmt: skip


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


def _plain_trec(args: list[str]) -> Callable[[], None] | None:
    """``score retrieval --qrels QRELS --run RUN``, with ``--json``, each at most once; any
    other form (``--k``, a value that looks like an option) is typer's."""
    values: dict[str, str] = {}
    as_json = False
    rest = iter(args)
    for arg in rest:
        if arg in ("--qrels", "--run") and arg not in values:
            values[arg] = next(rest, "")
            if not values[arg] or values[arg].startswith("-"):
                return None
        elif arg == "--json" and not as_json:
            as_json = True
        else:
            return None
    if len(values) != 2:
        return None
    from pathlib import Path

    from evalset.cli import run

    qrels, trec_run = Path(values["--qrels"]), Path(values["--run"])
    return lambda: run.score_trec_files(qrels, trec_run, as_json=as_json)


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
    which a scoring command may end as soon as its output is written (``_leave``), with
    Ctrl-C handled from here on (``evalset.interrupts``). What runs before (Python's
    start-up, importing this module, which imports nothing but ``sys`` and ``errno``) is
    as short as it can be; a Ctrl-C while the handler is set up ends the command at once,
    silently, as one in Python's start-up does."""
    try:
        from evalset import interrupts

        interrupts.install()
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    try:
        main(end_early=True)
    except KeyboardInterrupt:  # as the command ended, after main had said how it ended
        _interrupted()


INTERRUPTED = "interrupted; no file was left half-written (run the command again to finish it)."
"""What Ctrl-C prints: every write replaces a whole file, so a file is as it was or as the
command completes it."""


def main(end_early: bool = False) -> None:
    """Run the command and turn evalset's errors into one sentence and an exit code; Ctrl-C
    (from the first import on) into one line and exit status 130, never 0, though it
    arrived where Python could not raise it (``evalset.interrupts``); output that cannot
    be written into one sentence and exit status 2 (141 for a broken pipe: see
    ``evalset.cli.streams``).
    ``end_early``: this process runs nothing else after it (see ``command``)."""
    import os

    pid = os.getpid()
    try:
        from evalset.cli import streams

        streams.prepare()
        _main(end_early)
    except KeyboardInterrupt:
        if os.getpid() != pid:  # a helper forked to share the work, just before its own try
            os._exit(130)
        _interrupted()
    except Exception as exc:
        from evalset.cli.streams import OutputLost

        if not isinstance(exc, OutputLost):
            raise
        _output_lost(exc.error)


def _caused_by_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` was raised because of a Ctrl-C: a library that was interrupted may
    raise its own error from the ``KeyboardInterrupt`` (pydantic, building a model class
    while a command imports it, raises a ``RuntimeError`` about ``__set_name__``)."""
    seen: set[int] = set()
    found: BaseException | None = exc
    while found is not None and id(found) not in seen:
        if isinstance(found, KeyboardInterrupt):
            return True
        seen.add(id(found))
        found = found.__cause__ or found.__context__
    return False


def _output_lost(error: OSError) -> None:
    """Standard output could not be written: quietly for a broken pipe (the reader has all
    it wanted: `evalset log | head`), else in one sentence on standard error."""
    from evalset.cli import streams
    from evalset.cli.output import echo

    streams.discard_output()
    if isinstance(error, BrokenPipeError):
        sys.exit(streams.BROKEN_PIPE)
    echo(f"evalset: {streams.lost_sentence(error)}", err=True)
    sys.exit(streams.UNUSABLE)


def _interrupted() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the line short
    from contextlib import suppress

    from evalset.cli.output import echo, emit_json
    from evalset.cli.streams import OutputLost

    if "--json" in sys.argv:
        with suppress(OutputLost):  # the line below says it
            emit_json({"error": INTERRUPTED, "exit_code": 130})
    echo(f"evalset: {INTERRUPTED}", err=True)
    # CPython notes a KeyboardInterrupt that ends code run from a string (``exec``, as
    # dataclasses build their methods), caught or not, and under `python -m` ends the
    # process by SIGINT rather than with this status; running such code clears the note.
    exec("None")
    sys.exit(130)


def _main(end_early: bool) -> None:
    from evalset import interrupts
    from evalset.cli.output import as_typed
    from evalset.cli.streams import OutputLost, failed
    from evalset.errors import EvalsetError, NoWorkspace
    from evalset.fsio import forget_reads

    _short_lived()
    forget_reads()  # a command's inputs are told apart from its own reads alone
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
                interrupts.check()  # the process ends here: a Ctrl-C not raised yet is said
                _leave(code)
    except OutputLost:
        raise
    except EvalsetError as exc:
        if isinstance(exc, NoWorkspace):
            exc.command = command_run(sys.argv[1:]) or exc.command
        _error(as_typed(str(exc)), exc.exit_code)
    except MemoryError:  # input larger than a memory limit allows, past the checks on size
        _error(
            "ran out of memory reading the input; raise the memory limit (ulimit -v) or give "
            "smaller input.",
            2,
        )
    except OSError as exc:  # from click's or typer's output (help, usage), or unexpected
        lost = failed(sys.stdout) or (exc if isinstance(exc, BrokenPipeError) else None)
        if lost is None and exc.errno == errno.ENAMETOOLONG:  # a path given, wherever used
            from evalset.fsio import TOO_LONG

            _error(f"{exc.filename}: {TOO_LONG}", 2)
        if lost is None:
            _internal(exc)
        raise OutputLost(lost) from exc
    except Exception as exc:  # anything unexpected
        if _caused_by_interrupt(exc):  # Ctrl-C, wrapped by a library it interrupted
            raise KeyboardInterrupt from exc
        _internal(exc)
    lost = failed(sys.stdout)
    if lost is not None:
        raise OutputLost(lost)
    interrupts.check()  # a Ctrl-C that arrived where it could not be raised: never exit 0
    sys.exit(code)


def _error(message: str, exit_code: int) -> NoReturn:
    """An error, in one sentence on standard error (and as a document under --json: one that
    cannot be written leaves the sentence to say it)."""
    from evalset.cli.output import echo, emit_json
    from evalset.cli.streams import OutputLost

    if "--json" in sys.argv:
        try:
            emit_json({"error": message, "exit_code": exit_code})
        except OutputLost:
            from evalset.cli.streams import discard_output

            discard_output()
    echo(f"evalset: {message}", err=True)
    sys.exit(exit_code)


def _internal(exc: Exception) -> NoReturn:
    from evalset.cli.output import echo

    echo(
        f"evalset: internal error ({type(exc).__name__}: {exc}); please report it "
        "with the command you ran.",
        err=True,
    )
    sys.exit(3)
