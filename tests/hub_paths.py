"""The hub's board keys as the tests compute them (the hub's own finder.slug)."""
from mancala_host.hub.finder import slug  # noqa: F401
