"""Power limiter: keeps every frame under the board's current budget, the way WLED's
automatic brightness limiter and FastLED's power manager do.

Model (the profile's power fields): the board draws a fixed part (base_ma plus
idle_ma_per_led for every LED, lit or not) and each colour channel draws ma_per_channel
at byte 255, proportionally below. So a frame's current is
    fixed_ma + channel_sum * ma_per_channel / 255
and a frame over budget is scaled by s/256 with s = allowed_sum * 256 // channel_sum.
Each byte becomes (b * s) >> 8, which never rounds up, so the scaled frame's estimate
is never above the budget. All integer maths.
"""

try:
    from .native import scale as _scale
except (ImportError, SyntaxError):  # CPython; CircuitPython has no viper
    def _scale(buf, n, s):
        # Returns the channel sum after scaling, so the caller knows what goes on the wire.
        total = 0
        for i in range(n):
            v = (buf[i] * s) >> 8
            buf[i] = v
            total += v
        return total


def scale_bytes(buf, s):
    """Scale every byte of buf by s/256 in place (0 <= s <= 256)."""
    if s < 256:
        _scale(buf, len(buf), s)


class Limiter:
    """Current estimate and scale for one board. budget_ma is what the whole board may draw."""

    def __init__(self, budget_ma, ma_per_channel=20, idle_ma_per_led=1, leds=0, base_ma=0):
        if ma_per_channel <= 0:
            raise ValueError("ma_per_channel must be more than 0, got %r" % (ma_per_channel,))
        self.ma_per_channel = ma_per_channel
        fixed = base_ma + idle_ma_per_led * leds
        self.fixed_ma = int(fixed) if fixed == int(fixed) else int(fixed) + 1  # round up
        self.set_budget(budget_ma)

    def set_budget(self, budget_ma):
        """Change the budget (mA); the channel sum it allows is worked out once here."""
        self.budget_ma = int(budget_ma)
        spare = self.budget_ma - self.fixed_ma
        # The largest channel sum whose estimate stays within the budget.
        self.allowed = spare * 255 // self.ma_per_channel if spare > 0 else 0

    def estimate_ma(self, channel_sum):
        """The board's current (mA, rounded up) for a frame with this channel sum."""
        return self.fixed_ma + (channel_sum * self.ma_per_channel + 254) // 255

    def scale_for(self, channel_sum):
        """256 when the frame fits, else the s (0..255) that brings it under the budget."""
        if channel_sum <= self.allowed:
            return 256
        return self.allowed * 256 // channel_sum


def channel_sum(buffers):
    """Sum of every byte of every buffer: the frame's channel sum."""
    total = 0
    for buf in buffers:
        total += sum(buf)
    return total


def limit(buffers, limiter):
    """Scale a whole frame (all chains) in place so it keeps to the budget; returns the s
    applied (256 = untouched). For frames built elsewhere; Display uses its own ring sums."""
    s = limiter.scale_for(channel_sum(buffers))
    if s < 256:
        for buf in buffers:
            _scale(buf, len(buf), s)
    return s
