"""CLI subcommands for whole games: simulate and replay."""


def register(sub) -> None:
    pass
