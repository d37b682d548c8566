"""The board in words and colours, shared by the views, the log's tables and plots, the
hub and the virtual board: the board as text lines, the commentary and the rules' label
(view.py), and the seat colours and names from the firmware's own palette (colours.py)."""
