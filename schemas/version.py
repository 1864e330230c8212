"""The version of the record contracts; bump it when a stored column changes."""

SCHEMA_VERSION = "1.0.0"
