"""The problem statement of a candidate, written as symptoms: the linked issue's text where the user's source
gives one, else what the failing tests show before the fix. Never the commit message: it names the fix.

Issues are linked the way GitHub links them (`fixes #12`, `closes #12` …) in the
commit or pull-request message. Issue texts come from an issues export beside
the history (JSON lines of `number`, `title`, `body` and optionally `comments`
with `createdAt` and `body`, as `gh issue list --json` writes them); comments
made before the fix was first committed become the hints, as in SWE-bench.
Without an issue, the statement lists each FAIL_TO_PASS behaviour by its
test's name with what it shows at the base commit, as a user's traceback would:
the frames inside the project and pytest's `E` lines (the exception, the
values compared), never the test's code; where those lines do not say what a
test expects to be raised or warned (the base commit failed otherwise), the
behaviour adds it (`expected: raises ValueError matching 'multiplier'`).
Where an endpoint is configured, the builder agent (`taskforge.agents.swe`) rewrites the
text into the issue a user would have filed, from the symptoms and the diff; a rewrite that
quotes the fix or leaves out a required name is sent back, and a rewrite that fails or is
skipped leaves the raw text. Every statement ends up naming the interface the hidden tests
need (the names only the solution brings) and what its FAIL_TO_PASS tests expect to be raised or
warned, appended when the text does not state them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path

from taskforge.agents.client import Agents
from taskforge.agents.swe import rewrite_problem_statement
from taskforge.graders.swe.expectations import Expectation
from taskforge.graders.swe.patch import is_test_path
from taskforge.graders.swe.specification import FRAME, INTERFACE_NAMES_NOTE, INTERFACE_SPECS_NOTE, SYMPTOMS_CLOSING
from taskforge.graders.swe.statement import mentions
from taskforge.schemas import InputError

LINK_KEYWORDS = ("close", "closes", "closed", "fix", "fixes", "fixed", "resolve", "resolves", "resolved")
_LINK = re.compile(rf"\b(?:{'|'.join(LINK_KEYWORDS)})\b:?\s+#(\d+)", re.IGNORECASE)
_PR_SUFFIX = re.compile(r"\s*\(#(\d+)\)\s*$")
_MERGED_PR = re.compile(r"^Merge pull request #(\d+)", re.IGNORECASE)


def linked_issues(message: str) -> list[int]:
    """Issue numbers a message says it closes, fixes or resolves, in order, without repeats."""
    return list(dict.fromkeys(int(n) for n in _LINK.findall(message)))


def pull_request_number(message: str) -> int | None:
    """The pull request a commit merges (`Merge pull request #N`) or was squashed from (`subject (#N)`)."""
    first = message.strip().splitlines()[0] if message.strip() else ""
    for pattern in (_MERGED_PR, _PR_SUFFIX):
        match = pattern.search(first)
        if match:
            return int(match[1])
    return None


@dataclass(frozen=True)
class Issue:
    """One issue of an issues export, with its comments as (created_at, body) pairs."""

    number: int
    title: str
    body: str
    comments: tuple[tuple[str, str], ...] = ()


def load_issues(path: Path) -> dict[int, Issue]:
    """Issues by number from a JSON-lines export; a bad line is an input error naming the file and line."""
    issues = {}
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            comments = tuple((str(c.get("createdAt") or c.get("created_at") or ""), str(c.get("body") or ""))
                             for c in raw.get("comments") or [])
            issues[int(raw["number"])] = Issue(int(raw["number"]), str(raw.get("title") or ""),
                                               str(raw.get("body") or ""), comments)
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise InputError(str(path), f"line {lineno} is not an issue record ({type(exc).__name__})") from None
    return issues


def shown_tests(fail_to_pass: list[str], about: set[str], limit: int) -> list[str]:
    """The FAIL_TO_PASS tests a statement lists, at most `limit`, in their own order: first one case of each test
    function the change is about (`about`: tests of functions the test patch adds or changes), then further cases
    of those, then the other tests (ones that only fail with them, e.g. in a module that no longer imports)."""
    cases: dict[str, int] = {}
    ranked = []
    for position, test in enumerate(fail_to_pass):
        function = test.split("[", 1)[0]
        cases[function] = cases.get(function, -1) + 1
        ranked.append((test not in about, cases[function], position))
    return [fail_to_pass[position] for *_, position in sorted(sorted(ranked)[:limit], key=lambda rank: rank[2])]


@dataclass(frozen=True)
class Symptom:
    """One behaviour that is wrong at the base commit: the test that shows it, what it printed there, and what it
    expects to be raised or warned (`graders.swe.expectations`)."""

    test: str
    failure: str
    expected: tuple[Expectation, ...] = ()


def behaviour(test: str) -> str:
    """A test id as the behaviour it checks: `tests/test_api.py::TestArray::test_append_float[x]` →
    `Array: append float (case x)`."""
    parts = test.split("::")[1:] or [test]
    name, _, case = parts[-1].partition("[")
    words = re.sub(r"^test_?|_", " ", name).strip() if name.startswith("test") else name.replace("_", " ")
    owner = [re.sub(r"^Test_?", "", p).replace("_", " ") for p in parts[:-1]]
    text = ": ".join([*filter(None, owner), words or name])
    return f"{text} (case {case.rstrip(']')})" if case else text


MAX_ERROR_LINES = 12
MAX_FRAMES = 6


def error_lines(failure: str) -> str:
    """What a failure says happened, as a user's traceback would: the frames inside the project (the test's own
    frames and code left out, and those outside the repository: the standard library's, the installed packages')
    and pytest's `E` lines (the exception, the values compared); else its end."""
    frames: list[list[str]] = []
    errors: list[str] = []
    for line in failure.splitlines():
        frame = FRAME.match(line)
        if frame:
            frames.append([line] if not is_test_path(frame[1]) and not frame[1].startswith("/") else [])
        elif line.startswith("E "):
            errors.append(line[1:].strip())
        elif frames and frames[-1] and line.startswith("    "):
            frames[-1].append(line)
    shown = [line for frame in frames[-MAX_FRAMES:] for line in frame] + errors[:MAX_ERROR_LINES]
    return "\n".join(shown or failure.strip().splitlines()[-5:])


def shown_failure(symptom: Symptom) -> str:
    """What a statement shows of a behaviour: its error lines, then what the test expects to be raised or warned
    where those lines do not already say it (a `TypeError` for an unknown keyword never names the `ValueError`
    the fixed code must raise; pytest's `DID NOT RAISE <class 'ValueError'>` does)."""
    shown = error_lines(symptom.failure)
    return "\n".join([shown, *(f"expected: {e.text}" for e in symptom.expected if not e.stated_in(shown))])


def symptom_statement(repo: str, symptoms: list[Symptom]) -> str:
    """An issue written from what the failing tests show: each behaviour and the error it gives."""
    listed = "\n\n".join(f"{n}. {behaviour(s.test)}\n" + "\n".join(f"    {line}" for line in shown_failure(s)
                                                                       .splitlines())
                          for n, s in enumerate(symptoms, start=1))
    areas = sorted({s.test.split("::")[0].rsplit("/", 1)[-1].removeprefix("test_").removesuffix(".py")
                    for s in symptoms})
    return (f"Wrong behaviour in {repo} ({', '.join(areas)})\n"
            f"At this commit, {'this behaviour does' if len(symptoms) == 1 else 'these behaviours do'} not work "
            f"as intended; what happens instead:\n\n{listed}\n\n{SYMPTOMS_CLOSING}")


def expectation_note(text: str, expected: dict[str, list[Expectation]]) -> str:
    """What the statement adds about what the hidden tests expect to be raised or warned, where `text` does not
    state it yet (an issue's text, a rewrite, a behaviour the symptoms leave out)."""
    unstated = [f"- {behaviour(test)}: {e.text}" for test, found in expected.items() for e in found
                if not e.stated_in(text)]
    return "The checks also expect:\n" + "\n".join(unstated) if unstated else ""


def interface_note(missing: list[str], specs: dict[str, list[str]]) -> str:
    """What the statement adds about the interface the checks use: the names it does not mention yet, and the
    header and docstring of each new function or class they call."""
    parts = [INTERFACE_NAMES_NOTE + ", ".join(f"`{name}`" for name in missing) + "."] if missing else []
    if specs:
        blocks = "\n\n".join("\n".join(lines) for lines in specs.values())
        parts.append(f"{INTERFACE_SPECS_NOTE}\n\n```python\n{blocks}\n```")
    return "\n\n".join(parts)


@dataclass(frozen=True)
class Statement:
    """The problem statement, the hints, where the text came from (`issue`, `symptoms`, `rewritten`), and how
    the agent's rewrite went (`ok`, `skipped`, `failed`, with the reason)."""

    text: str
    hints: str
    origin: str
    rewrite: str = "skipped"
    rewrite_reason: str | None = None


def problem_statement(message: str, issues: dict[int, Issue], diff: str, repo: str, first_commit_at: str,
                      subject: str, agents: Agents, symptoms: list[Symptom],
                      interface: dict[str, list[str]], expected: dict[str, list[Expectation]] | None = None
                      ) -> Statement:
    """The statement of a candidate: linked issue texts (SWE-bench joins `title\\nbody`), else the symptoms,
    rewritten by the builder agent when it answers, with the `interface` stated (new names the hidden tests call,
    each with the header and docstring the solution gives it, where it defines one) and what each FAIL_TO_PASS
    test in `expected` expects to be raised or warned, where the text does not say it (the agent is told it
    with the symptoms). Hints are the linked
    issues' comments made before `first_commit_at` (ISO 8601, UTC). `diff` is the whole change, tests included
    (the agent's material)."""
    linked = [issues[n] for n in linked_issues(message) if n in issues]
    if linked:
        hints = "\n".join(body for issue in linked for at, body in issue.comments if at and at < first_commit_at)
        raw = Statement("".join(f"{i.title}\n{i.body}\n" for i in linked), hints, "issue")
    else:
        raw = Statement(symptom_statement(repo, symptoms), "", "symptoms")
    observed = "\n\n".join(f"{s.test}\n{s.failure}" + "".join(f"\nexpected: {e.text}" for e in s.expected
                                                              if not e.stated_in(s.failure)) for s in symptoms)
    reply = rewrite_problem_statement(agents, repo=repo, diff=diff, commit_message=message, subject=subject,
                                      issue_text=raw.text if linked else None, symptoms=observed,
                                      required_names=list(interface))
    chosen = (Statement(f"{reply.value.title}\n{reply.value.statement}", raw.hints, "rewritten", "ok")
              if reply.ok and reply.value is not None else replace(raw, rewrite=reply.status,
                                                                   rewrite_reason=reply.reason))
    missing = [name for name in interface if not mentions(chosen.text, name)]
    specs = {name: lines for name, lines in interface.items() if lines}
    notes = [note for note in (expectation_note(chosen.text, expected or {}), interface_note(missing, specs)) if note]
    return replace(chosen, text="\n\n".join([chosen.text.rstrip(), *notes])) if notes else chosen
