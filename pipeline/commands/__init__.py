"""Subcommands of ``arpad``; each module defines ``register(subparsers)``."""
