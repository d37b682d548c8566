"""The views of a live game: the terminal view (watch.py) and the projector page (web.py
serves it, webplan.py places the pits from the profile, webpage.py puts static/ together)."""
