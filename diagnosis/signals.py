"""Signals computed from an episode's steps: pure functions the diagnosis rules are built from.

Nothing here decides a failure mode; each function measures one thing (the
calls made, near-identical repeats, queries, sources seen and cited, the final
answer, tracebacks, warnings, how a step relates to the task) so that rules stay
small and every number they report can be traced back to steps.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache, wraps
from typing import Any, Callable, NamedTuple, TypeVar

from taskforge.schemas import Episode, Step


def led(starts: str, pattern: str, flags: int = 0) -> re.Pattern[str]:
    """A pattern behind a lookahead on the characters its matches can start with (`starts`, a character class's
    contents that must hold the first character of every alternative, under the same flags): the same matches,
    found 1.3–2.2× as fast, as Python's `re` otherwise tries every alternative at every position of a text."""
    return re.compile(f"(?=[{starts}])(?:{pattern})", flags)


SEARCH_TOOL = re.compile(r"search|query|retriev|lookup|find_paper|scholar|arxiv|pubmed|google|bing", re.I)
READ_TOOL = re.compile(r"open|read|fetch|get_paper|view|browse|download|full_?text|abstract", re.I)
SUBMIT_TOOL = re.compile(r"submit|finish|answer|final|done|complete", re.I)
SUBMIT_COMMAND = re.compile(r"COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT|MINI_SWE_AGENT_FINAL_OUTPUT|^\s*submit\s*$")
SUBMIT_HINTS = ("FINAL_OUTPUT", "submit")
"""What every submit command holds (as written): a text without either is no submit command."""
VIEW_COMMAND = re.compile(r"\s*view\b")
"""Commands that hand the work in (mini-swe-agent's echo marker, SWE-agent's `submit`): never a change or a run."""
CHANGE_ACTION = re.compile(r"\b(?:str_replace|insert|apply_patch|create|write_file|edit_file)\b|sed -i|git apply|"
                           r"\bpatch -p\d|(?<![0-9&])>>?\s*(?!/dev/)[\w./-]+\.\w+|cat <<|\btee \S+\.\w+", re.I)
"""An action that changes a file: an editor command, an in-place edit, a redirect into a file, a patch applied
(a bare `patch` word, as in `cat patch.txt`, is not a change)."""
CHANGE_HINTS = ("str_replace", "insert", "apply_patch", "create", "write_file", "edit_file", "sed -i", "git apply",
                "patch -p", ">", "<<", "tee ")
"""What every change action holds (lower-cased): a text without any is no change, and the regex is not run."""
EDIT_TOOL = re.compile(r"edit|write|create|insert|apply_patch", re.I)
CHECK_ACTION = re.compile(r"pytest|unittest|runtests|\btest|python3? \S+\.py|python3? -c|verify|check|assert|reproduc",
                          re.I)
CODE_TOOL = re.compile(r"python|ipython|jupyter|run|exec|bash|shell|code|script|\bsh\b", re.I)
SHELL_TOOL = re.compile(r"bash|shell|\bsh\b|terminal|execute_command|run_command", re.I)
PROGRAM_RUN = re.compile(r"\bpython[\d.]*\b|\bpytest\b|runtests|\bRscript\b|\bnode\b|\bjulia\b|\bmvn\b|\bgradlew?\b|"
                         r"\bjava\b|\./\S+", re.I)
END_MARKERS = {"TERMINATE", "TERMINATE.", "DONE"}
"""Turns that only end a group chat: the answer is the turn before."""
FULL_TRACEBACK = "Traceback (most recent call last)"
TRACEBACK = re.compile(r"Traceback \(most recent call last\)|^\w*(Error|Exception): ", re.M)
TRACEBACK_HINTS = (FULL_TRACEBACK, "Error: ", "Exception: ")
"""What every traceback match holds: a text without any is no traceback, and the regex is not run."""
TEST_FAILURE = re.compile(r"^FAILED |^FAIL: |^ERROR: |\b\d+ failed\b|\bFAILED \(|AssertionError|"
                          r"Traceback \(most recent call last\)", re.M)
"""What a failing test or script run prints (pytest, unittest, Django's runner, a raised assertion)."""
WARNING_SIGN = led(
    "rcoilpdufevhsn",
    r"\b(?:Runtime|Convergence|Overflow|Numba\w*|Optimize|Integration|LinAlg|Precision|DataConversion|Undefined"
    r"Metric|Fit|Estimation|ValueWarning|HessianInversion)Warning\b|\bnan\b|\binf\b|overflow|divide by zero|"
    r"did not converge|failed to converge|singular matrix|ill-conditioned|perfect separation|precision loss",
    re.I)
"""Signs that a result is numerically wrong. Deprecation, future, user and syntax warnings are about the code's
age or style, not its result: they are not signs."""
WARNING_HINTS = ("warning", "nan", "inf", "overflow", "divide by zero", "converge", "singular", "ill-conditioned",
                 "separation", "precision")
"""What every warning sign holds (lower-cased); see `mentions`."""
BOILERPLATE = re.compile(
    r"WARNING: Running pip as the 'root' user[^\n]*(?:\n[^\n]*venv[^\n]*)?|\[notice\][^\n]*|"
    r"DEPRECATION: [^\n]*|<warning>.*?</warning>|The output of your last command was too long[^\n]*|"
    r"Note: you may need to restart the kernel[^\n]*|^\s*(?:Requirement already satisfied|Collecting|Downloading|"
    r"Installing collected packages|Successfully installed|Obtaining|Building wheel|Preparing metadata)[^\n]*|"
    r"\bno\b[^.\n]{0,40}?\b(?:warnings?|errors?|nan|inf|overflow)\b[^\n]*|\bEstimated tokens: [\d.,]+k?",
    re.I | re.M | re.S)
"""Harness and installer notices that are never evidence: pip's root-user warning and release notices, the
harness's "output too long" block, installer progress lines, sentences that deny a sign ("No divide by zero
warnings!"), and the size line of gitingest's repository summary ("Estimated tokens: 144.4k", TRAIL's SWE runs)."""
INSTALL_COMMAND = re.compile(r"\bpip3? install|\bconda install|\bapt(?:-get)? install|\bnpm install|setup\.py (?:develop|install)",
                             re.I)
SOURCE_ID = led(
    r"\dapds",
    r"\b10\.\d{4,9}/[^\s\"',;)\]]+|\barXiv:\s?\d{4}\.\d{4,5}(?:v\d+)?|\b\d{4}\.\d{4,5}(?:v\d+)?\b|\bPMID:?\s?\d{5,9}|"
    r"\b(?:paper|doc|source)[-_:]\w+", re.I)
ARXIV_PREFIX = re.compile(r"^arxiv:\s?")
"""The prefix an arXiv id is written with, dropped from its normalised form."""
CLAIM_TOKEN = re.compile(r"\b\d[\d,.]*\b|\b[A-Z][a-zA-Z]{3,}\b")
SHARED_FACTS = 2
"""How many of a step's facts an earlier turn must have introduced to be where they came from (`fact_origin`)."""
SENTENCE_START = re.compile(r"(?:^|[.!?:#*>\n-])[\s*_\"'(]*$")
"""What comes right before a word that opens a sentence, line, heading or list item."""
PLAN_INTENT = re.compile(r"\b(?:search|look(?:ing)? up|retriev\w*|locat\w*|brows\w*|visit\w*|inspect\w*|consult\w*|"
                         r"fetch\w*|download\w*|query)\b", re.I)
"""A plan that means to look something up."""
WORD = re.compile(r"[a-z][a-z0-9_]{3,}")
TOKEN = re.compile(r"[a-z0-9_.:/-]+")
NEAR_IDENTICAL = 0.6
"""Token overlap (Jaccard) from which two calls of one tool count as the same action."""
STOPWORDS = frozenset(
    "this that with from have what which when where their there about into your will would could should "
    "then than them they these those been being were does done make made find give show using used each "
    "only also more most some such very just like over after before under between answer please task".split())
PATCH_FILE = re.compile(r"^diff --git a/(\S+) b/", re.M)
PYTEST_ID = re.compile(r"^([\w./-]+?)(?:\.py)?::(?:\w+::)*(\w+)")
UNITTEST_ID = re.compile(r"^(\w+) \(([\w.]+)\.\w+\)")
"""`test_name (app.module.Class)`: Django's and unittest's way of naming a test."""
JAVA_TEST_ID = re.compile(r"(?:^|[:.])([A-Z]\w*Tests?)\b")
_ARGUMENT_KEYS = ("query", "q", "search", "keywords", "term", "command", "cmd", "code", "url", "path", "id")


class Action(NamedTuple):
    """What kind of action a call is, from its tool's name and its argument text alone."""

    submit: bool
    """It hands the work in (a submit tool, or a command carrying the harness's submit marker)."""
    change: bool
    """It changes a file: a changing command, or an edit tool used for anything but viewing."""
    check: bool
    """It runs a test, a script or a check (and changes nothing)."""
    runs_program: bool
    """It executes the agent's code: a code tool, or a shell command that runs a program (not one that only
    lists, prints or searches files)."""
    installs: bool
    """It installs packages (pip, conda, apt, npm, setup.py)."""


@lru_cache(maxsize=4096)
def action_of(name: str, text: str) -> Action:
    """What kind of action a call of tool `name` with argument text `text` is: worked out once per pair, as runs
    repeat the same commands often."""
    kinds = tool_kinds(name)
    submit = ("submit" in kinds and "code" not in kinds) or (mentions(text, SUBMIT_HINTS)
                                                            and bool(SUBMIT_COMMAND.search(text)))
    lowered = text.lower()
    change = not submit and ((mentions(lowered, CHANGE_HINTS) and bool(CHANGE_ACTION.search(text)))
                             or ("edit" in kinds and not VIEW_COMMAND.match(text)))
    check = not submit and not change and bool(CHECK_ACTION.search(text))
    runs_program = bool(PROGRAM_RUN.search(text)) if "shell" in kinds else "code" in kinds
    installs = "install" in lowered and bool(INSTALL_COMMAND.search(text))
    return Action(submit, change, check, runs_program, installs)


@dataclass
class Call:
    """One tool call with the step that made it, the observation that answered it (if any) and what kind of
    action it is; not to be changed once made (not frozen: a frozen dataclass sets each field through
    `object.__setattr__`, which doubles the cost of making one, and a batch of 10,000 episodes makes some 70,000).
    """

    step: int
    name: str
    arguments: str
    text: str
    observation: Step | None
    action: Action

    @property
    def is_submit(self) -> bool:
        """Whether it hands the work in (see `Action.submit`)."""
        return self.action.submit

    @property
    def is_change(self) -> bool:
        """Whether it changes a file (see `Action.change`)."""
        return self.action.change

    @property
    def is_check(self) -> bool:
        """Whether it runs a test, a script or a check (see `Action.check`)."""
        return self.action.check

    @property
    def runs_program(self) -> bool:
        """Whether it executes the agent's code (see `Action.runs_program`)."""
        return self.action.runs_program


TOOL_KINDS = {"search": SEARCH_TOOL, "read": READ_TOOL, "submit": SUBMIT_TOOL, "edit": EDIT_TOOL, "code": CODE_TOOL,
              "shell": SHELL_TOOL}


@lru_cache(maxsize=1024)
def tool_kinds(name: str) -> frozenset[str]:
    """What a tool's name says it does (`TOOL_KINDS`): worked out once per name, as runs use a few tools often."""
    return frozenset(kind for kind, pattern in TOOL_KINDS.items() if pattern.search(name))


@lru_cache(maxsize=4096)
def argument_text(arguments: str) -> str:
    """The meaningful text of call arguments: the query, command or code when present, else all values."""
    try:
        parsed = json.loads(arguments)
    except (json.JSONDecodeError, TypeError):
        return arguments
    if not isinstance(parsed, dict):
        return str(parsed)
    for key in _ARGUMENT_KEYS:
        if isinstance(parsed.get(key), str):
            return parsed[key]
    return " ".join(str(v) for v in parsed.values())


T = TypeVar("T")


def per_episode(measure: Callable[[Episode], T]) -> Callable[[Episode], T]:
    """A signal of one episode, kept for the last episode asked: the rules ask for the same signals of one
    episode many times in a row (the cache holds the episode itself, so identity cannot be mistaken)."""
    last: list[Any] = [None, None]

    @wraps(measure)
    def cached(episode: Episode) -> T:
        if last[0] is not episode:
            last[1] = measure(episode)
            last[0] = episode
        return last[1]

    return cached


def mentions(text: str, hints: tuple[str, ...]) -> bool:
    """Whether a text holds any of the hints (a lower-cased text for lower-cased hints): a substring test, far
    cheaper than the regular expression it guards (a text without any hint cannot match it). A plain loop: a
    generator under `any` costs more than the tests themselves on the short texts of calls."""
    for hint in hints:
        if hint in text:
            return True
    return False


@per_episode
def tool_steps(episode: Episode) -> list[Step]:
    """The tool steps (observations) in order: listed once per episode, as most rules look at them."""
    return [s for s in episode.steps if s.role == "tool"]


@per_episode
def assistant_steps(episode: Episode) -> list[Step]:
    """The assistant steps (the agent's turns) in order, listed once per episode."""
    return [s for s in episode.steps if s.role == "assistant"]


@per_episode
def observations_text(episode: Episode) -> str:
    """Every tool step's output in one text: one search tells a rule whether any step is worth a closer look."""
    return "\n".join([s.content for s in tool_steps(episode)])


@per_episode
def observations_lowered(episode: Episode) -> str:
    """`observations_text` lower-cased, for `mentions`."""
    return observations_text(episode).lower()


@per_episode
def assistant_text(episode: Episode) -> str:
    """Every assistant step's content in one text (see `observations_text`)."""
    return "\n".join([s.content for s in assistant_steps(episode)])


@per_episode
def assistant_lowered(episode: Episode) -> str:
    """`assistant_text` lower-cased, for `mentions`."""
    return assistant_text(episode).lower()


@per_episode
def calls(episode: Episode) -> list[Call]:
    """Every tool call in order, each paired with the tool step answering it (by id, else the next tool step)."""
    answered: dict[str, Step] = {}
    for step in episode.steps:
        if step.role == "tool" and step.tool_call_id and step.tool_call_id not in answered:
            answered[step.tool_call_id] = step
    out = []
    for position, step in enumerate(episode.steps):
        for call in step.tool_calls:
            observation = answered.get(call.id) if call.id else None
            if observation is None:
                observation = next((s for s in episode.steps[position + 1:] if s.role == "tool"), None)
                if observation is not None and any(s.tool_calls for s in episode.steps[position + 1:observation.index]):
                    observation = None
            text = argument_text(call.arguments)
            out.append(Call(step.index, call.name, call.arguments, text, observation, action_of(call.name, text)))
    return out


@lru_cache(maxsize=4096)
def words(text: str) -> frozenset[str]:
    """Lower-cased content words (4+ characters, no stopwords) of a text."""
    return frozenset(w for w in WORD.findall(text.lower()) if w not in STOPWORDS)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """Overlap of two word sets (1.0 for two empty sets: identical emptiness); the union's size is counted from the
    intersection's, not built."""
    if not a and not b:
        return 1.0
    shared = len(a & b)
    return shared / (len(a) + len(b) - shared)


@lru_cache(maxsize=4096)
def tokens(text: str) -> frozenset[str]:
    """All lower-cased tokens of a text (short ones and numbers included): the fingerprint of an action."""
    return frozenset(TOKEN.findall(text.lower()))


def near_identical_groups(items: list[Call], threshold: float = NEAR_IDENTICAL) -> list[list[Call]]:
    """Calls grouped with the first call of the same tool whose argument tokens overlap at least `threshold`."""
    groups: list[list[Call]] = []
    for item in items:
        mine = tokens(item.text)
        for group in groups:
            if group[0].name == item.name and jaccard(mine, tokens(group[0].text)) >= threshold:
                group.append(item)
                break
        else:
            groups.append([item])
    return groups


def searches(episode: Episode) -> list[Call]:
    """Calls that search (queries to a search engine, index or paper database)."""
    return [c for c in calls(episode) if "search" in tool_kinds(c.name)]


def reads(episode: Episode) -> list[Call]:
    """Calls that open, read or fetch one item (a paper, page or file)."""
    return [c for c in calls(episode) if "read" in (kinds := tool_kinds(c.name)) and "search" not in kinds]


@lru_cache(maxsize=1024)
def source_ids(text: str) -> frozenset[str]:
    """Identifiers of sources mentioned in a text: DOIs, arXiv ids, PMIDs, `paper:`/`doc:` ids (normalised); worked
    out once per text, as several rules read the same observations and answers."""
    return frozenset(ARXIV_PREFIX.sub("", m.lower()).rstrip(".") for m in SOURCE_ID.findall(text))


def task_text(episode: Episode) -> str:
    """The task as posed: the first user message, else the question the transcript recorded."""
    return next((s.content for s in episode.steps if s.role == "user"), str(episode.metadata.get("question", "")))


@per_episode
def code_runs(episode: Episode) -> list[Call]:
    """Calls that ran code and were answered, submissions and installs left out."""
    return [c for c in calls(episode) if "code" in tool_kinds(c.name) and c.observation is not None
            and not c.is_submit and not c.action.installs]


@per_episode
def changes(episode: Episode) -> list[Call]:
    """Calls that changed a file, in order."""
    return [c for c in calls(episode) if c.is_change]


@per_episode
def submitted_files(episode: Episode) -> list[str]:
    """The files the submitted patch touches (from `metadata.submission`), in order."""
    return PATCH_FILE.findall(str(episode.metadata.get("submission") or ""))


@per_episode
def solution_changes(episode: Episode) -> list[Call]:
    """Changes to files the submitted patch touches (a scratch script written and deleted is not part of the
    solution); every change when the trace recorded no patch."""
    names = {path.rsplit("/", 1)[-1] for path in submitted_files(episode)}
    made = changes(episode)
    if not names:
        return made
    return [c for c in made if any(name in c.text for name in names)]


def test_locators(name: str) -> frozenset[str]:
    """What a command running a test would name: its file's stem and its function (`tests/test_x.py::test_y`),
    its module and app (`test_y (app.tests.Class)`), or its Java class; nothing for a test named by a sentence."""
    name = name.strip()
    if match := PYTEST_ID.match(name):
        return frozenset({match.group(1).rsplit("/", 1)[-1], match.group(2)})
    if match := UNITTEST_ID.match(name):
        module = match.group(2)
        return frozenset({match.group(1), module, module.split(".", 1)[0]} - {"tests", "test"})
    if match := JAVA_TEST_ID.search(name):
        return frozenset({match.group(1)})
    return frozenset({name}) if re.fullmatch(r"test_\w+", name) else frozenset()


def runs_of_tests(episode: Episode, names: list[str], after: int = -1) -> list[Call]:
    """Program runs after step `after` (submission left out) whose command names one of the tests (see
    `test_locators`): a `grep` for a test's name is not a run of it."""
    locators = set().union(*map(test_locators, names)) if names else set()
    if not locators:
        return []
    return [c for c in calls(episode) if c.step > after and not c.is_submit and c.runs_program
            and any(locator in c.text for locator in locators)]


def actor_of(episode: Episode, index: int) -> str | None:
    """The agent behind a step: its actor, or for an observation the actor of the turn that called it."""
    for step in reversed(episode.steps[:index + 1]):
        if step.role == "assistant" and step.actor:
            return step.actor
        if step.role == "assistant":
            return None
    return None


def first_executed_turn(episode: Episode) -> int | None:
    """The earliest assistant turn whose action ran: the first result the rest of the episode built on."""
    return next((c.step for c in calls(episode) if c.observation is not None and not c.is_submit), None)


def first_statement(episode: Episode, answer: Answer) -> int:
    """The earliest assistant turn that already states the final answer (its numbers and names that the task does
    not mention); the answer's own turn when none does."""
    claim = _claim_tokens(answer.text) - _claim_tokens(task_text(episode))
    if not claim:
        return answer.step
    for step in episode.steps[:answer.step + 1]:
        if step.role == "assistant" and len(_claim_tokens(step.content) & claim) * 2 >= len(claim):
            return step.index
    return answer.step


def fact_origin(episode: Episode, index: int) -> int:
    """Where the facts a step builds on came from: the earliest earlier agent turn that first stated at least
    `SHARED_FACTS` of the numbers and names the step states and the task does not (all of them when it states
    fewer); the step itself when no earlier turn did. The first step poses the task and is never the origin: its
    facts are given. In a multi-agent run this is the agent that introduced a wrong fact the others reused. The
    acting agent's own survey of facts and plan before its first action (`own_plan`) is no origin either: it
    decided nothing until it acted (TRAIL's annotators never mark a smolagents facts survey; on Who&When's
    calibration part step accuracy 48 → 49 %, agent unchanged)."""
    given = _claim_tokens(task_text(episode)) | _claim_tokens(str(episode.metadata.get("question", "")))
    target = _claim_tokens(episode.steps[index].content) - given
    if not target:
        return index
    needed = min(SHARED_FACTS, len(target))
    seen = set(given)
    planned = own_plan(episode)
    for step in episode.steps[:index]:
        stated = _claim_tokens(step.content)
        new, seen = stated - seen, seen | stated
        if step.role == "assistant" and step.index > episode.steps[0].index and step.index not in planned \
                and len(new & target) >= needed:
            return step.index
    return index


def own_plan(episode: Episode) -> set[int]:
    """The turns before the first action (`plan_turns`) taken by the agent that then took it: its own survey of
    facts and plan, not a turn of another agent that handed it facts."""
    first = next((c.step for c in calls(episode)), None)
    actor = episode.steps[first].actor if first is not None else None
    return {s.index for s in plan_turns(episode) if s.actor == actor}


@lru_cache(maxsize=1024)
def _claim_tokens(text: str) -> frozenset[str]:
    """Numbers and capitalised names in a text: what an answer claims; worked out once per text, as several rules
    trace the same steps' facts."""
    return frozenset(CLAIM_TOKEN.findall(text))


def unsupported_claims(episode: Episode, index: int) -> set[str]:
    """The numbers and names a step states that neither the task nor any observation before it holds; a capitalised
    word that opens a sentence, line or heading ("Conclusion", "Given") is no name."""
    given = _claim_tokens(task_text(episode)) | _claim_tokens(str(episode.metadata.get("question", "")))
    for step in episode.steps[:index]:
        if step.role == "tool":
            given |= _claim_tokens(step.content)
    text = episode.steps[index].content
    stated = {m.group(0) for m in CLAIM_TOKEN.finditer(text)
              if m.group(0)[0].isdigit() or not SENTENCE_START.search(text[max(0, m.start() - 4):m.start()])}
    return stated - given


def plan_turns(episode: Episode) -> list[Step]:
    """The agent's turns before its first action (its survey of facts and its plan), the first step left out."""
    first = next((c.step for c in calls(episode)), None)
    return [s for s in episode.steps[1:first] if s.role == "assistant" and not s.tool_calls] if first else []


def retrieved(episode: Episode) -> bool:
    """Whether anything was retrieved: a call of a tool that neither runs code nor answers returned without error,
    or another agent (a managed search agent) took a turn."""
    if any(c.observation is not None and not failed(c.observation) and not tool_kinds(c.name) & {"code", "submit"}
           for c in calls(episode)):
        return True
    actors = {s.actor for s in episode.steps if s.role == "assistant" and s.actor}
    return len(actors) > 1


def expected_answer(episode: Episode) -> str | None:
    """The answer the task expected, when the trace recorded it."""
    value = episode.metadata.get("expected_answer")
    return str(value) if value not in (None, "") else None


def evidence_text(text: str) -> str:
    """An observation without the boilerplate that is never evidence (see `BOILERPLATE`)."""
    return BOILERPLATE.sub(" ", text)


@dataclass(frozen=True)
class Answer:
    """The episode's final answer: the step that gave it and its text (message and submit-call arguments)."""

    step: int
    text: str


@per_episode
def final_answer(episode: Episode) -> Answer | None:
    """The last assistant turn that ends the episode with an answer (plain message or a submit/finish call)."""
    for step in reversed(episode.steps):
        if step.role != "assistant":
            continue
        submits = [c for c in step.tool_calls
                   if "submit" in tool_kinds(c.name) or SUBMIT_TOOL.search(argument_text(c.arguments))]
        if not step.tool_calls and step.content.strip() and step.content.strip() not in END_MARKERS:
            return Answer(step.index, step.content)
        if not step.tool_calls and step.content.strip() in END_MARKERS:
            continue
        if submits:
            return Answer(step.index, "\n".join([step.content, *(c.arguments for c in submits)]))
        return None
    return None


def step_text(step: Step) -> str:
    """What an assistant step says and does: its content and its call arguments."""
    if not step.tool_calls:
        return step.content
    return "\n".join([step.content, *[argument_text(c.arguments) for c in step.tool_calls]])


@per_episode
def assistant_texts(episode: Episode) -> dict[int, str]:
    """`step_text` of every assistant step, by its position in the episode: worked out once per episode, as rules
    compare the texts of many later steps with each observation."""
    return {position: step_text(step) for position, step in enumerate(episode.steps) if step.role == "assistant"}


def texts_after(episode: Episode, index: int) -> list[str]:
    """`step_text` of the assistant steps after a step index (those `assistant_after` gives), in order."""
    return [text for position, text in assistant_texts(episode).items() if position > index]


def has_traceback(text: str) -> bool:
    """Whether a text shows a Python traceback or an `XError: ...` line."""
    return mentions(text, TRACEBACK_HINTS) and bool(TRACEBACK.search(text))


def failed(step: Step) -> bool:
    """Whether a tool step reports an error (flagged by the trace, or a traceback in its output)."""
    return step.is_error or has_traceback(step.content)


def assistant_after(episode: Episode, index: int) -> list[Step]:
    """Assistant steps after a step index."""
    return [s for s in episode.steps[index + 1:] if s.role == "assistant"]


def unreferenced_observations(episode: Episode) -> int:
    """Successful observations none of whose content words any later assistant step uses."""
    later: set[str] = set()
    count = 0
    texts = assistant_texts(episode)
    for position in range(len(episode.steps) - 1, -1, -1):
        step = episode.steps[position]
        if step.role == "assistant":
            later |= words(texts[position])
        elif step.role == "tool" and not failed(step) and words(step.content).isdisjoint(later):
            count += 1
    return count
