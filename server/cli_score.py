"""CLI subcommands for the fan engine: score and waits."""


def register(sub) -> None:
    pass
