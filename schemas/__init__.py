"""Pydantic record models and the Arrow schemas derived from them: the contracts between stages."""

from taskforge.schemas.arrow import arrow_schema, from_row, from_table, to_row, to_table
from taskforge.schemas.base import JsonDict, Record, canonical_json, content_id
from taskforge.schemas.diagnosis import CAPABILITIES, TAXONOMY_VERSION, Diagnosis, FailureMode
from taskforge.schemas.episode import Episode, HarnessTests, Outcome, Segment, Step, TokenRecord, ToolCall
from taskforge.schemas.errors import InfrastructureError, InputError, TaskforgeError, UnknownFormatError
from taskforge.schemas.gap import BuildPlan, Gap, PlanItem
from taskforge.schemas.llm import LLMCall
from taskforge.schemas.quarantine import Quarantined, without_credentials, without_host_paths
from taskforge.schemas.resource import Resource
from taskforge.schemas.task import (FAMILIES, NOT_APPLICABLE, SKIPPED, Lineage, Message, Task, ValidationResult,
                                    rejection_reasons, task_id_for)
from taskforge.schemas.version import SCHEMA_VERSION

__all__ = [
    "CAPABILITIES", "FAMILIES", "NOT_APPLICABLE", "SCHEMA_VERSION", "SKIPPED", "TAXONOMY_VERSION",
    "BuildPlan", "Diagnosis", "Episode", "FailureMode", "Gap", "InfrastructureError", "InputError",
    "HarnessTests", "JsonDict", "LLMCall", "Lineage", "Message", "Outcome", "PlanItem", "Quarantined", "Record", "Resource",
    "Segment", "Step", "Task", "TaskforgeError", "TokenRecord", "ToolCall", "UnknownFormatError",
    "ValidationResult", "arrow_schema", "canonical_json", "content_id", "from_row", "from_table",
    "rejection_reasons", "task_id_for", "to_row", "to_table", "without_credentials", "without_host_paths",
]
