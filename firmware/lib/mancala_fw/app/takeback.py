"""What a take-back takes back (docs/user-guide.md section 3): the double tap on a store, or
the serial `undo` (app.flow's Flow.undo, which loads this module for each take-back and then
forgets it: a take-back is rare, and on CircuitPython a loaded module's code stays on the
heap).

In a game a person plays, the last move a person made (a play by a seat of kind "human", the
move timer's included, or any resignation) and every move after it, the CPU's replies, so
the CPU does not play its reply again: the person is to move. In a game no person plays
(every seat the CPU's, or demo mode), the last move; the CPU then waits (app.autoplay's
held) until something else changes.
"""


def persons(seats, players, demo):
    """Whether a person plays one of the first players seats (never in demo mode)."""
    if demo:
        return False
    for i in range(players):
        if seats[i]["kind"] == "human":
            return True
    return False


def take_back(session, seats, demo, states):
    """Takes back what a take-back takes back in session (seats: the config's; demo: demo
    mode plays). Appends the state after each move taken back to states (an empty list; the
    board sends one `undo` event for each) and returns how many; 0, with the game as it was,
    when there is nothing to take back or no person has moved yet."""
    if not len(session.moves):
        return 0
    if not persons(seats, session.game.players, demo):
        session.undo()
        states.append(session.game.to_dict())
        return 1
    moves = bytes(session.moves)  # kept, to put the game back if no person has moved
    n = 0
    while len(session.moves):
        last = session.moves[-1]
        session.undo()
        n += 1
        states.append(session.game.to_dict())
        # "A".."D": a resignation, a person's decision; else the seat now to move played
        if last >= 65 or seats[session.game.turn]["kind"] == "human":
            return n
    # Only the CPU has moved: the game goes back as it was (a replay from the start).
    session.replay(moves[len(moves) - n:])
    states.clear()
    return 0
