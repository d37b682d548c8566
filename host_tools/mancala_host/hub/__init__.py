"""`mancala-board class`: the classroom hub. One process holds every board in the room.

- finder.py: the boards on USB (by USB ID) and the --port ones, looked for again every second;
- link.py: one follower per board (link/follower.py): its line, its game log, its tile, found
  again after a replug; it reports to a Listener (the room);
- tournament.py: round robin and Swiss pairings, results, standings (pure, no I/O);
- dealing.py: the tournament dealt to the boards, and caught up after a gap or a restart;
- journal.py: the room's durable state in SQLite (hub.sqlite in the class folder);
- room.py: the boards and the tournament together, and the class-wide settings;
- server.py: the web page (aiohttp: HTTP and server-sent events) and its JSON requests;
- schema.py: the requests' declared bodies (pydantic), checked before anything changes;
- guard.py: who may use the page: its own address only, and the token for a change;
- export.py: games, standings and per-board figures as CSV, beside the game logs;
- command.py: the command line.
"""
