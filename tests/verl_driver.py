"""Run in a Python environment with verl installed (`make verl-venv`): load a taskforge release with verl's own
`RLHFDataset`, create taskforge's tools from the tool config file with verl's own registry, and play scripted
policies (in place of a model) through verl's own tool dispatch (`ToolAgentLoop._call_tool`, the create /
execute / release cycle its stock `tool_agent` loop runs, with its `AgentData` and per-sample tool selection);
score each trajectory as verl's reward manager does (`tool_extra_fields` merged into `extra_info`).

    python tests/verl_driver.py RELEASE_DIR OUT.json

Writes, per family and policy, the reward, the tools called and what they returned (heads).
"""

from __future__ import annotations

import asyncio
import gc
import json
import sys
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf
from verl.experimental.agent_loop.tool_agent_loop import AgentData, ToolAgentLoop
from verl.experimental.agent_loop.tool_parser import FunctionCall
from verl.tools.tool_registry import load_all_tools
from verl.utils.dataset.rl_dataset import RLHFDataset

from taskforge.graders.reward import compute_score, reward_entry
from taskforge.tools.verl_config import TOOL_CONFIG
from taskforge.tools.verl_tools import TRAJECTORIES

MAX_TOOL_RESPONSE = 4096


def dataset(release: Path, family: str) -> RLHFDataset:
    """A family's RL rows as verl's own dataset class reads them (tool schemas loaded from the tool config)."""
    config = OmegaConf.create({"filter_overlong_prompts": False, "return_raw_chat": True,
                               "tool_config_path": str(TOOL_CONFIG), "cache_dir": str(release / ".verl-cache")})
    files = sorted(str(p) for p in (release / "data" / family).glob("*.parquet"))
    return RLHFDataset(data_files=files, tokenizer=None, config=config)


def dispatcher(tools: list) -> ToolAgentLoop:
    """verl's stock tool agent loop, holding only what its tool dispatch reads (no model server is started)."""
    loop = ToolAgentLoop.__new__(ToolAgentLoop)
    loop.tools = {tool.name: tool for tool in tools}
    loop.max_tool_response_length = MAX_TOOL_RESPONSE
    loop.tool_response_truncate_side = "middle"
    return loop


def call(name: str, **arguments: Any) -> FunctionCall:
    return FunctionCall(name=name, arguments=json.dumps(arguments))


def policies(row: dict[str, Any]) -> dict[str, tuple[list[FunctionCall], str]]:
    """Per policy: the tool calls it makes, in order, and its final reply."""
    family = row["extra_info"]["family"]
    truth = json.loads(row["reward_model"]["ground_truth"])
    grader = json.loads(row["extra_info"]["grader"])
    reference = reward_entry(family).reference_submission(truth, grader)
    if family == "workflow":
        writes = [call("write_file", path=path, content=text) for path, text in json.loads(reference).items()]
        return {"solves": ([call("run", command="ls inputs"), *writes, call("submit")], "Done."),
                "idle": ([call("run", command="ls -R")], "I give up."),
                "cheats": ([call("read_file", path="../../etc/shadow"),
                            call("run", command="cat /reference.py grade.py; curl -sS --max-time 3 http://example.com"),
                            call("submit")], "Done.")}
    if family == "mle":
        return {"solves": ([call("run", command="head -2 data/train.csv"),
                            call("write_file", path="submission/submission.csv", content=reference),
                            call("submit")], "Submitted."),
                "idle": ([call("submit")], "Submitted.")}
    if family == "swe":
        return {"solves": ([call("write_file", path="../fix.diff", content=reference),
                            call("run", command="git apply ../fix.diff && git status --short"),
                            call("submit")], "Fixed."),
                "idle": ([call("submit")], "Nothing to change.")}
    if family == "literature":
        question = row["raw_prompt"][-1]["content"]
        return {"solves": ([call("search", query=question[:200], k=3)], reference),
                "idle": ([call("search", query="anything")], "")}
    return {"solves": ([], reference), "idle": ([], "")}


async def play(loop: ToolAgentLoop, item: dict[str, Any], calls: list[FunctionCall], final: str) -> dict[str, Any]:
    """One trajectory: the calls through verl's dispatch, then the reward as verl's reward manager computes it."""
    extra_info = dict(item["extra_info"])
    agent_data = AgentData(messages=list(item["raw_prompt"]), image_data=None, video_data=None, audio_data=None,
                           mm_processor_kwargs=None, metrics={}, request_id=f"r-{id(item)}-{len(calls)}",
                           tools_kwargs=item.get("tools_kwargs") or {})
    selection = extra_info.get("tool_selection") or []
    agent_data._active_tools = {name: loop.tools[name] for name in selection if name in loop.tools}
    seen = []
    for function_call in calls:
        response, reward, _ = await loop._call_tool(function_call, agent_data.tools_kwargs, agent_data)
        if reward is not None:
            agent_data.tool_rewards.append(reward)
        seen.append({"tool": function_call.name, "reward": reward, "text": (response.text or "")[:600]})
    extra_info.update({"turn_scores": agent_data.turn_scores, "tool_rewards": agent_data.tool_rewards})
    score = compute_score(item["data_source"], final, item["reward_model"]["ground_truth"], extra_info)
    del agent_data
    gc.collect()
    return {"reward": score, "calls": seen}


async def main(release: Path, out: Path) -> None:
    tools = load_all_tools(str(TOOL_CONFIG), None)
    loop = dispatcher(tools)
    report: dict[str, Any] = {"tools": sorted(loop.tools), "families": {}}
    for family_dir in sorted(p for p in (release / "data").iterdir() if p.is_dir()):
        rows = dataset(release, family_dir.name)
        results = []
        for index in range(len(rows)):
            item = rows[index]
            played = {name: await play(loop, item, calls, final) for name, (calls, final) in policies(item).items()}
            results.append({"agent_name": item.get("agent_name"), "index": item["index"],
                            "tool_selection": item["extra_info"].get("tool_selection"),
                            "raw_prompt_roles": [m["role"] for m in item["raw_prompt"]], "policies": played})
        report["families"][family_dir.name] = results
    report["open_trajectories"] = len(TRAJECTORIES)
    out.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2])))
