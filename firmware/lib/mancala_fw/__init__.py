"""The board's own firmware, under one name that clashes with nothing on PyPI or in the
standard library: app (game flow and main loop), display, touch, protocol, storage, profile
(board profiles and seating) and selftest (bring-up). The rules engine `mancala` and the
device drivers `drivers` stay top-level packages of their own, as others may reuse them."""
