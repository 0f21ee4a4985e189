"""The states of a tournament, a session and a table (docs/tournaments.md "The model")."""

REGISTERING, RUNNING, FINISHED, CANCELLED = "registering", "running", "finished", "cancelled"
PENDING, DONE = "pending", "finished"  # a session: pending, running, finished
WAITING, PLAYING = "waiting", "playing"  # a table: waiting, playing, finished
