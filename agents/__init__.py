"""LLM roles (builder, reviewer, judge, diagnoser) on any OpenAI-compatible endpoint: structured, cached, accounted."""
