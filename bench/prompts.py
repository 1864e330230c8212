"""Every LLM step's prompt, rendered for sample tasks into files, so anyone can read what each role is sent.

    .venv/bin/python bench/prompts.py [--out DIR (data/out/prompts)] [--mode json_schema|json_object|none]
    .venv/bin/python bench/prompts.py --golden            # rewrite tests/golden/prompts (then read the diff)
    .venv/bin/python bench/prompts.py --refresh-samples   # rebuild the samples from data/samples (minutes)

Each step is called through its real hook (the code the builders and checks
call) against the local Chat Completions server, which answers as a careful
model does (`tests/model_answers.py`); every request the step sends is
written to `DIR/<step>.md`: the system message (with the schema it states),
the user message, and the `response_format` sent, fields in the order they
are sent. Two steps are rendered again with a small context window, to show
the views an over-long input is cut to (`<step>-view.md`). Prints one line per step: the file,
the reply's status, the view sent.

The sample inputs are kept in `tests/fixtures/prompt_samples.json` (built
from `data/samples` by the real builders with `--refresh-samples`), so the
rendered prompts change only when a prompt does; `tests/test_prompts.py`
compares them with the golden files in `tests/golden/prompts/`
(`--out tests/golden/prompts` rewrites those).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from taskforge.agents.client import Agents, Reply  # noqa: E402
from taskforge.agents.config import AgentsConfig  # noqa: E402
from taskforge.agents.judge import judge_evolution  # noqa: E402
from taskforge.agents.literature import Paper, QuestionBrief, review_question_rewrite, rewrite_literature_question  # noqa: E402
from taskforge.agents.mle import review_mle_description, write_mle_description  # noqa: E402
from taskforge.agents.review import review_task  # noqa: E402
from taskforge.agents.session import using  # noqa: E402
from taskforge.agents.solve import answer_task  # noqa: E402
from taskforge.agents.swe import rewrite_problem_statement  # noqa: E402
from taskforge.builders.long_context.judging import SOLVER_VIEW, fact_windows  # noqa: E402
from taskforge.builders.workflow.authoring import RecordAuthor  # noqa: E402
from taskforge.schemas import Episode, Task  # noqa: E402
from taskforge.schemas.workflow import WorkflowPackage  # noqa: E402
from llm_server import ChatServer, RealModel  # noqa: E402
from model_answers import ANSWERS  # noqa: E402

SAMPLES_FILE = REPO / "tests" / "fixtures" / "prompt_samples.json"
VIEW_WINDOWS = {"review-long_context": 3072, "easiness_estimate": 2048, "review-workflow": 3072}
"""The steps rendered again with a small context window (tokens), to show the views their inputs are cut to."""
Step = Callable[[Agents, dict[str, Any]], Reply]


def _tasks(samples: dict[str, Any], *names: str) -> list[Task]:
    return [Task.model_validate(samples[name]) for name in names]


def _swe(agents: Agents, samples: dict[str, Any]) -> Reply:
    swe = samples["swe"]
    return rewrite_problem_statement(agents, repo=swe["repo"], diff=swe["diff"], commit_message=swe["message"],
                                     subject=swe["subject"], issue_text=swe.get("issue_text"))


def _literature(agents: Agents, samples: dict[str, Any]) -> Reply:
    papers = [Paper.model_validate(p) for p in samples["literature"]["papers"]]
    brief = QuestionBrief.model_validate(samples["literature"]["brief"])
    written = rewrite_literature_question(agents, papers, brief, subject=samples["literature"]["subject"])
    if not written.ok:
        return written
    return review_question_rewrite(agents, written.value.question, papers, brief,
                                   subject=samples["literature"]["subject"], built_by=[written.call.call_id])


def _mle(agents: Agents, samples: dict[str, Any]) -> Reply:
    facts, phrases = samples["mle"]["facts"], samples["mle"]["must_state"]
    written = write_mle_description(agents, facts, must_state=phrases, subject=facts["competition_id"])
    if not written.ok:
        return written
    return review_mle_description(agents, written.value.markdown, facts, subject=facts["competition_id"],
                                  built_by=[written.call.call_id])


def _workflow_rows(agents: Agents, samples: dict[str, Any]) -> Reply:
    author = RecordAuthor(agents)
    author.apply(WorkflowPackage.model_validate(samples["workflow_seed"]), random.Random(0))
    calls = agents.take_calls()
    return Reply(status="ok" if author.calls else "failed", call=calls[-1] if calls else None)


def _diagnosis(agents: Agents, samples: dict[str, Any]) -> Reply:
    """The diagnoser's step (imported here: `diagnosis/` owns it and may change it apart from the others)."""
    from taskforge.diagnosis.llm import diagnose_with_llm

    return diagnose_with_llm(agents, Episode.model_validate(samples["episode"]))


def _easiness(agents: Agents, samples: dict[str, Any]) -> Reply:
    (task,) = _tasks(samples, "long_context_child")
    return answer_task(agents, task, view=SOLVER_VIEW, cut=fact_windows(task))


STEPS: dict[str, Step] = {
    "swe_problem_statement": _swe,
    "literature_questions": _literature,
    "mle_description": _mle,
    "workflow_evolution": _workflow_rows,
    "review-workflow": lambda a, s: review_task(a, *_tasks(s, "workflow_child")),
    "evolution_judge-workflow": lambda a, s: judge_evolution(a, *_tasks(s, "workflow_parent", "workflow_child")),
    "review-long_context": lambda a, s: review_task(a, *_tasks(s, "long_context_child")),
    "easiness_estimate": _easiness,
    "evolution_judge-long_context": lambda a, s: judge_evolution(a, *_tasks(s, "long_context_parent",
                                                                             "long_context_child")),
    "diagnosis": _diagnosis,
}
"""Every step with the call its hook makes for the samples (a writer's step also runs its reviewer)."""


GOLDEN = REPO / "tests" / "golden" / "prompts"
"""Every step's rendered prompts, compared by tests/test_prompts.py."""


def agents_for(server: ChatServer, folder: Path, mode: str, window: int | None = None) -> Agents:
    """Roles pointed at the local server: one model builds, others review and judge."""
    env = {"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "prompts", "TASKFORGE_LLM_MODEL": "builder-model",
           "TASKFORGE_REVIEWER_MODEL": "reviewer-model", "TASKFORGE_JUDGE_MODEL": "judge-model",
           "TASKFORGE_DIAGNOSER_MODEL": "diagnoser-model", "TASKFORGE_LLM_RESPONSE_FORMAT": mode,
           "TASKFORGE_LLM_REPAIRS": "2"}
    if window is not None:
        env |= {"TASKFORGE_LLM_MAX_CONTEXT_TOKENS": str(window), "TASKFORGE_LLM_MAX_TOKENS": "512"}
    return Agents(AgentsConfig.load(env), folder, "prompts", "prompts")


def render_request(step: str, index: int, body: dict[str, Any]) -> str:
    """One request as Markdown: its role's model, each message, and the `response_format` sent."""
    parts = [f"# {step}: request {index} (model `{body['model']}`)"]
    for message in body["messages"]:
        parts.append(f"## {message['role']}\n\n{message['content']}")
    sent = body.get("response_format")
    parts.append("## response_format\n\n" + (f"```json\n{json.dumps(sent, indent=2, ensure_ascii=False)}\n```"
                                             if sent else "(none)"))
    return "\n\n".join(parts) + "\n"


def run_steps(server: ChatServer, agents: Agents, samples: dict[str, Any], steps: dict[str, Step],
              suffix: str = "") -> dict[str, tuple[Reply, list[dict[str, Any]]]]:
    """Each step's reply and the requests it sent, called in turn."""
    done = {}
    for name, step in steps.items():
        before = len(server.requests)
        with using(agents):
            reply = step(agents, samples)
        done[name + suffix] = (reply, list(server.requests[before:]))
    return done


def load_samples() -> dict[str, Any]:
    """The stored sample inputs of every step."""
    return json.loads(SAMPLES_FILE.read_text(encoding="utf-8"))


def render_all(out: Path, mode: str = "json_schema", steps: dict[str, Step] | None = None
               ) -> dict[str, tuple[Reply, list[dict[str, Any]]]]:
    """Render `steps` (every step by default) and the views into `out`, replacing what was there; returns
    each step's outcome."""
    samples, steps = load_samples(), STEPS if steps is None else steps
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    with ChatServer(RealModel(ANSWERS, styles=("plain",))) as server, tempfile.TemporaryDirectory() as folder:
        with agents_for(server, Path(folder) / "full", mode) as agents:
            done = run_steps(server, agents, samples, steps)
        for name, window in VIEW_WINDOWS.items():
            with agents_for(server, Path(folder) / f"view-{name}", mode, window) as agents:
                done |= run_steps(server, agents, samples, {name: STEPS[name]}, suffix="-view")
    for name, (_, requests) in done.items():
        text = "\n".join(render_request(name, i, body) for i, body in enumerate(requests, start=1))
        (out / f"{name}.md").write_text(text or f"# {name}: no request was sent\n", encoding="utf-8")
    return done


def collect_samples(work: Path) -> dict[str, Any]:
    """The sample inputs of every step, built from `data/samples` by the real builders (no endpoint)."""
    from taskforge import sandbox
    from taskforge.builders.base import BuildContext, derive_seed
    from taskforge.builders.literature import LiteratureBuilder
    from taskforge.builders.literature.collection import load_collection
    from taskforge.builders.literature.natural import brief_for, source_papers
    from taskforge.builders.long_context import LongContextBuilder
    from taskforge.builders.mle.description import description_facts, required_phrases
    from taskforge.builders.mle.inference import define_problem
    from taskforge.builders.mle.prepare import prepare
    from taskforge.builders.mle.source import dataset_spec, load_table
    from taskforge.builders.swe.mining import mine
    from taskforge.builders.swe.source import materialize_sample, open_source
    from taskforge.builders.workflow import WorkflowBuilder
    from taskforge.builders.workflow.seeds import load_seed
    from taskforge.diagnosis.readers import discover, read_traces
    from taskforge.graders.literature.environment import open_environment
    from taskforge.graders.literature.papers import save_snapshot
    from taskforge.schemas import PlanItem

    data = REPO / "data" / "samples"
    item = PlanItem(family="long_context", capability="history_tracking", quota=1, gap_ids=[], priority=1.0)
    built = list(LongContextBuilder().build(item, BuildContext(cycle_id="prompts", options={
        "target_tokens": 2048, "categories": "timeline"})))
    child = next(t for t in built if t.lineage.parent_task_id)
    parent = next(t for t in built if t.task_id == child.lineage.parent_task_id)

    seeds = work / "seeds"
    shutil.copytree(REPO / "tests" / "fixtures" / "workflow_seeds" / "temperature-anomaly", seeds / "temperature-anomaly")
    item = PlanItem(family="workflow", capability="verification", quota=2, gap_ids=[], priority=1.0)
    process = sandbox.get_sandbox("process")
    original, sandbox.default_sandbox = sandbox.default_sandbox, lambda: process
    try:
        wf_parent, wf_child = WorkflowBuilder().build(item, BuildContext(cycle_id="prompts",
                                                                         options={"source": str(seeds)}))
    finally:
        sandbox.default_sandbox = original

    collection = load_collection(data / "papers_synthetic" / "synthetic_papers.jsonl", None).collection
    snapshot_dir = work / "literature"
    save_snapshot(collection, str(snapshot_dir))
    env = open_environment(str(snapshot_dir), collection.collection_id, collection.version)
    case = LiteratureBuilder()._case("find_papers", env, derive_seed("prompts", 0))

    spec = dataset_spec(REPO / "tests" / "fixtures" / "mle" / "orchard_yield.csv", REPO / "tests" / "fixtures" / "mle")
    frame, problem = define_problem(load_table(spec), spec)
    facts = description_facts(prepare(frame, problem, 3, spec.title), spec.title, spec.description)

    commits = materialize_sample(data / "swe" / "calc_history.py", work / "swe")
    source = open_source(commits["path"], work / "swe")
    fix = next(c for c in mine(source.repo, source.head).candidates if c.fix_commit == commits["power_merge"])

    episodes = [e for e in read_traces(discover([data / "traces" / "ledger_agent.native.jsonl"]))
                if isinstance(e, Episode)]
    return {
        "long_context_parent": parent.model_dump(mode="json"), "long_context_child": child.model_dump(mode="json"),
        "workflow_seed": load_seed(REPO / "tests" / "fixtures" / "workflow_seeds" / "temperature-anomaly").package.model_dump(mode="json"),
        "workflow_parent": wf_parent.model_dump(mode="json"), "workflow_child": wf_child.model_dump(mode="json"),
        "literature": {"papers": [p.model_dump() for p in source_papers(case, env)],
                       "brief": brief_for(case).model_dump(), "subject": "literature-sample"},
        "mle": {"facts": json.loads(json.dumps(facts, default=str)), "must_state": required_phrases(facts)},
        "swe": {"repo": "calc", "diff": fix.diff.patch + fix.diff.test_patch, "message": fix.message,
                "subject": "calc-power"},
        "episode": next(e for e in episodes if e.outcome.failure_origin == "model").model_dump(mode="json"),
    }


def main() -> None:
    """Render the prompts (or rebuild the samples first) and print one line per step."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=REPO / "data" / "out" / "prompts")
    parser.add_argument("--mode", choices=("json_schema", "json_object", "none"), default="json_schema")
    parser.add_argument("--golden", action="store_true", help=f"render every step into {GOLDEN}")
    parser.add_argument("--refresh-samples", action="store_true")
    args = parser.parse_args()
    if args.golden:
        args.out = GOLDEN
    if args.refresh_samples:
        with tempfile.TemporaryDirectory() as work:
            samples = collect_samples(Path(work))
        SAMPLES_FILE.write_text(json.dumps(samples, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                                encoding="utf-8")
        print(f"samples written to {SAMPLES_FILE.relative_to(REPO)}")
    done = render_all(args.out, args.mode)
    for name, (reply, requests) in done.items():
        print(f"{args.out / (name + '.md')}: {reply.status}, {len(requests)} request(s)"
              f"{', view: ' + reply.view if reply.view else ''}{', ' + reply.reason if reply.reason else ''}")


if __name__ == "__main__":
    main()
