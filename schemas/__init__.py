"""Pydantic record models and the Arrow schemas derived from them: the contracts between stages."""

from schemas.arrow import arrow_schema, from_row, from_table, to_row, to_table
from schemas.base import JsonDict, Record, canonical_json, content_id
from schemas.diagnosis import CAPABILITIES, TAXONOMY_VERSION, Diagnosis, FailureMode
from schemas.episode import Episode, Outcome, Segment, Step, TokenRecord, ToolCall
from schemas.errors import InfrastructureError, InputError, TaskforgeError, UnknownFormatError
from schemas.gap import BuildPlan, Gap, PlanItem
from schemas.llm import LLMCall
from schemas.quarantine import Quarantined, without_credentials, without_host_paths
from schemas.resource import Resource
from schemas.task import FAMILIES, Lineage, Message, Task, ValidationResult, task_id_for
from schemas.version import SCHEMA_VERSION

__all__ = [
    "CAPABILITIES", "FAMILIES", "SCHEMA_VERSION", "TAXONOMY_VERSION",
    "BuildPlan", "Diagnosis", "Episode", "FailureMode", "Gap", "InfrastructureError", "InputError",
    "JsonDict", "LLMCall", "Lineage", "Message", "Outcome", "PlanItem", "Quarantined", "Record", "Resource",
    "Segment", "Step", "Task", "TaskforgeError", "TokenRecord", "ToolCall", "UnknownFormatError",
    "ValidationResult", "arrow_schema", "canonical_json", "content_id", "from_row", "from_table",
    "task_id_for", "to_row", "to_table", "without_credentials", "without_host_paths",
]
