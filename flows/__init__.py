"""Prefect flows: thin wrappers that call pipeline/ functions as tasks. Nothing computes here."""
