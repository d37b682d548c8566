"""Boots the board: the app's main loop runs until power-off (or Ctrl-C from mpremote)."""
import app

app.main()
