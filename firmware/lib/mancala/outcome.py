"""How a game ended: Game.outcome() builds one. Loaded only when asked for, so the board,
which never asks, does not keep it in its heap."""


class Outcome:
    """places[s] is seat s's place, 1 = best (a Kalah draw is [1, 1]); winners the seats in
    place 1; reason one of:
    - "empty_side": Kalah, a seat's pits ran empty and the stones left went to their stores;
    - "finished": Basic, the winner emptied its pits;
    - "resigned": the winner is the seat left when the others resigned."""

    def __init__(self, reason, places):
        self.reason = reason
        self.places = places
        self.winners = [s for s in range(len(places)) if places[s] == 1]

    def __eq__(self, other):
        return isinstance(other, Outcome) and self.reason == other.reason and \
            self.places == other.places

    def __repr__(self):
        return "Outcome(%r, %r)" % (self.reason, self.places)


def outcome(game):
    """The reason follows from the final position alone, so a game rebuilt from its state
    dict tells the same story: after a Kalah sweep every pit is empty, which no resignation
    leaves; a Basic winner that finished has no stones left, and one that won by the others'
    resignations was still playing, so it has some."""
    if not game.over:
        return None
    if game.kalah:
        played_out = not game.stones(0) and not game.stones(1)
        reason = "empty_side"
    else:
        played_out = not game.stones(game.places.index(1))
        reason = "finished"
    return Outcome(reason if played_out else "resigned", list(game.places))
