"""An answers report as terminal text and as a pull-request comment: the judge and how far
people agree with it first, then the answers to start reading from (and, when the run
retrieved too, the items whose search missed), then each metric per category with its
interval."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evalset.display import md_code, md_row, md_text
from evalset.score.markdown import (
    MAX_MISSES,
    TERMINAL_MISSES,
    cell,
    comment,
    invalid_lines,
    marks,
    miss_rows,
    more_misses,
    retrieval_miss_lines,
    retrieval_miss_table,
    scored_trials,
    split_details,
    stale_and_missing,
    title,
)


def judge_line(data: dict[str, Any]) -> str:
    judge = data["judge"]
    usage = judge["usage"]
    line = (
        f"judge {judge['name']} (version {judge['version']}): {usage['calls']} call(s), "
        f"{usage['cached']} cached, {usage['failed']} failed"
    )
    if usage.get("tokens"):
        line += f", {usage['tokens']} tokens"
    if usage.get("cost") is not None:
        line += f", cost {usage['cost']:.4f}"
    return line


def agreement_line(data: dict[str, Any], shown: Callable[[str], str] = str) -> str:
    """How far people agree with the judge; ``shown`` shows the labels file's path (as
    text of the output form)."""
    found = data["judge"].get("agreement")
    if not found:
        return (
            "agreement with people: not checked (give --labels LABELS.csv, or run `evalset "
            "agreement`), so these numbers rest on the judge alone"
        )
    if found["agreement"] is None:
        return (
            f"agreement with people: not measured, the judge decided none of the "
            f"{found['labels']['rows']} labelled claim(s) of {shown(found['labels']['path'])}"
        )
    from evalset.score.agreement import (  # (its label files: not for every report)
        kappa_text,
        share_text,
    )

    value = kappa_text(found)
    rows = found["labels"]["rows"]
    # the claims the judge could not decide are not in the figures: say how few they rest on
    undecided = (
        f"{found['n']} of the {rows} labelled claim(s) of {shown(found['labels']['path'])} (the "
        f"judge could not decide {rows - found['n']})"
        if found["n"] < rows
        else f"{found['n']} labelled claim(s) of {shown(found['labels']['path'])}"
    )
    agreed = share_text(found["agreement"])
    return f"agreement with people: kappa {value}, {agreed} agreed, on {undecided}"


def ppi_line(data: dict[str, Any]) -> str | None:
    found = data.get("ppi")
    if not found:
        return None
    estimate = found.get("coverage")
    if estimate is None:
        return f"PPI coverage: not estimated ({found['note']})"
    raw = data["overall"]["coverage"]
    return (
        f"PPI coverage: {estimate['value']:.3f} [{estimate['low']:.3f}, {estimate['high']:.3f}] "
        f"beside the judge's {cell(raw)} ({estimate['labelled']} labelled item(s), "
        f"{estimate['unlabelled']} unlabelled)"
    )


def one_line(answer: str) -> str:
    """An answer as the lists show it: on one line, each run of white space (line breaks
    too) as one space; "(nothing)" when it is blank, as scoring takes it."""
    return " ".join(answer.split()) or "(nothing)"


def miss_cells(miss: dict[str, Any]) -> list[str]:
    """An answer miss as a table row: item (with its marks), category, split, failed
    trials (with several), problems, the answer on one line."""
    return [
        miss["id"] + marks(miss),
        str(miss.get("category")),
        miss.get("split", ""),
        f"{miss['failed']}/{miss['trials']} trials" if miss["trials"] > 1 else "",
        "; ".join(miss["problems"]),
        one_line(miss["answer"]),
    ]


def miss_lines(miss: dict[str, Any]) -> tuple[str, str, str]:
    ident, category, split, failed, problems, answer = miss_cells(miss)
    trials = f"  {failed}" if failed else ""
    return f"{ident}  {category} ({split}){trials}", problems, answer


def notes(data: dict[str, Any], shown: Callable[[str], str] = str) -> list[str]:
    """What a reader must know besides the numbers (``shown`` shows an item id as text of
    the output form, as ``stale_and_missing`` takes it)."""
    counts = data["counts"]
    out = []
    if data["judge"]["name"] == "exact":
        out.append(
            "judge exact: normalised containment, fit only for short extractive facts; key "
            "points an answer words differently count as missed"
        )
    both = data["report"].get("kind") == "retrieval+answers"
    out += stale_and_missing(
        data, "retrieving and answering nothing" if both else "answering nothing", shown
    )
    if counts.get("judge_errors"):
        out.append(
            f"{counts['judge_errors']} claim(s) the judge could not decide: their items have no "
            'value for the metrics that need them (report: "judge_errors")'
        )
    if counts.get("violations"):
        out.append(f"{counts['violations']} must_not_say assertion(s) in all (report: "
                   '"violations")')  # fmt: skip
    if counts.get("sealed"):
        out.append(
            f"{counts['sealed']} sealed holdout item(s) not scored (their labels need the key)"
        )
    out += invalid_lines(data)
    unretrieved = data.get("retrieval_not_scored")
    if unretrieved:
        lines = ", ".join(f"line {x['line']} {shown(x['id'])}" for x in unretrieved[:5])
        more = f", … ({len(unretrieved) - 5} more)" if len(unretrieved) > 5 else ""
        out.append(
            f"retrieval not scored: {len(unretrieved)} line(s) of answerable items have no "
            f'"retrieved" while others have one ({lines}{more}); give each line what was '
            "retrieved (an empty list when nothing came back) to score retrieval too (report: "
            '"retrieval_not_scored")'
        )
    faithful = data["overall"].get("faithfulness", {})
    if not faithful.get("n"):
        failed = sum(1 for e in data.get("judge_errors", []) if e.get("claim") == "statements")
        out.append(
            f"faithfulness not scored: the judge could not split {failed} answer(s) into "
            "statements (judge_errors says why)"
            if failed
            else "faithfulness not scored: it needs run lines with contexts and a judge that "
            "splits answers into statements"
        )
    return out


def text_lines(data: dict[str, Any]) -> list[tuple[str, str | None]]:
    """(line, colour) of the terminal output, before the tables."""
    counts = data["counts"]
    out: list[tuple[str, str | None]] = [
        (
            f"{title(data)}: {counts['scored']} item(s) scored, {scored_trials(data)} "
            f"trial(s), run {data['run']['path']}",
            "bold",
        ),
        (judge_line(data), None),
        (agreement_line(data), None if data["judge"].get("agreement") else "yellow"),
    ]
    misses = data["answer_misses"]
    if misses:
        out.append((f"answer misses, start reading here ({len(misses)} item(s)):", "red"))
        for miss in misses[:TERMINAL_MISSES]:
            head, problems, answer = miss_lines(miss)
            out.append((f"  {head}", None))
            out.append((f"      {problems}", None))
            out.append((f"      answer  {answer}", None))
        more = more_misses(misses)
        if more:
            out.append((more, None))
    else:
        out.append(("no answer misses: every answer covered its key points, asserted no "
                    "must_not_say entry and declined exactly when it should", None))  # fmt: skip
    if "misses" in data:  # the run retrieved too: where the search step missed
        out += retrieval_miss_lines(data, "retrieval misses")
    return out


def _capital(line: str) -> str:
    """``line`` with a capital first letter, the rest as it was (a path keeps its case)."""
    return line[:1].upper() + line[1:]


def markdown(data: dict[str, Any]) -> str:
    """The report as a pull-request comment."""
    pin = data["evalset"]
    out = [
        f"### Answers: {md_text(title(data))}",
        "",
        f"Run {md_code(data['run']['path'])} ({data['run']['sha256'][:19]}…), "
        f"{data['counts']['scored']} item(s) scored, {scored_trials(data)} trial(s); set "
        f"fingerprint `{pin.get('fingerprint', '')[:19]}…`, {data['tool']}.",
        "",
        f"**Judge:** {md_code(data['judge']['name'])}. {_capital(agreement_line(data, md_text))}.",
        "",
    ]
    ppi = ppi_line(data)
    if ppi:
        out += [ppi, ""]
    misses = data["answer_misses"]
    if misses:
        # "failed": in how many trials, a column only when some item had several
        several = any(m["trials"] > 1 for m in misses)
        names = ["item", "category", "split", *(["failed"] if several else []), "problems",
                 "answer"]  # fmt: skip
        out += [
            f"**Answer misses, start reading here:** {len(misses)} item(s).",
            "",
            md_row(names),
            "|---" * len(names) + "|",
        ]
        rows = []
        for m in misses[:MAX_MISSES]:
            cells = [md_text(c) for c in miss_cells(m)]
            cells[0] = f"{md_code(m['id'])}{marks(m)}"
            rows.append(md_row(cells if several else cells[:3] + cells[4:]))
        out += miss_rows(rows, len(misses))
    else:
        out += ["**No answer misses.**", ""]
    if "misses" in data:  # the run retrieved too
        out += retrieval_miss_table(data, "Retrieval misses")
    after = ["", "Values with their 95% interval over items; n = items scored.", ""]
    after += split_details(data)
    after += ["<details><summary>Definitions</summary>", ""]
    after += [f"- `{name}`: {d['definition']}" for name, d in data["definitions"].items()]
    after += ["", "</details>"]
    after += [f"\n> {note}" for note in notes(data, md_text)]
    return comment(data, out, after)
