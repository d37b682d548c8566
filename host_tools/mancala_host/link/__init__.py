"""The link to a board: the line (transport.py: the line interface, its pyserial
implementation, finding the board's port), the requests and events on it (client.py), and a
client opened from the command line's options (session.py).  Imports nothing else of the
package but errors.py."""
