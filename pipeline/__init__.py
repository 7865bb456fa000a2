"""arpad data plane: schemas, readers, validation, the Parquet store, DuckDB
queries, the rating engine and the CLI."""

__version__ = "0.1.0"
