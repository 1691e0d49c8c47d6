"""CLI subcommands: one module each, found by :mod:`rogerwilco.front.cli`.

A module here defines ``register(subparsers)``, which adds its parser and
sets ``func`` to a function taking the parsed arguments and returning the
exit code. Shared argument helpers live in :mod:`rogerwilco.front.commands._common`.
"""
