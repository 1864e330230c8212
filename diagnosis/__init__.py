"""Trace readers, failure diagnosers, and gap aggregation into training priorities."""
