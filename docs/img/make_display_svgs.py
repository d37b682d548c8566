"""Draws the pictures in docs/display.md: rings showing example counts, the highlights, the
move timer's countdown and the hint, and the seat palette as people with each kind of
colour vision see it. Run from anywhere:

    .venv/bin/python docs/img/make_display_svgs.py

It uses the firmware's own encoder and palette, so the pictures are what the board shows.
"""
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "firmware", "lib"))

from mancala_fw.display import counts, palette  # noqa: E402

EXAMPLES = {
    12: (0, 3, 9, 10, 23, 37, 49, 58, 96),
    16: (0, 4, 15, 40, 68, 89, 96),
    24: (0, 7, 19, 36, 60, 96),
}
CELL = 130


def _hex(rgb):
    return "#%02x%02x%02x" % rgb


def ring_svg(cx, cy, leds, count, seat, marks=0, label=None, level=255, warn=0):
    """SVG elements of one ring: LED 0 at the top, clockwise, as seen from above."""
    pattern = counts.encode(count, leds)
    for _ in range(marks):
        counts.add_mark(pattern, leds)
    counts.add_warn(pattern, leds, warn)
    radius = 44 if leds > 16 else 36 if leds > 12 else 30
    dot = 2 * math.pi * radius / leds * 0.36
    out = ['<circle cx="%d" cy="%d" r="%d" fill="#1d1d1d"/>' % (cx, cy, radius + dot + 4)]
    for i in range(leds):
        a = 2 * math.pi * i / leds - math.pi / 2
        x = cx + radius * math.cos(a)
        y = cy + radius * math.sin(a)
        kind = pattern[i]
        if kind == counts.OFF:
            out.append('<circle cx="%.1f" cy="%.1f" r="%.1f" fill="#333" stroke="#555"/>'
                       % (x, y, dot))
            continue
        rgb = palette.kind_srgb(kind, seat)
        if kind == counts.MARK:
            rgb = (90, 90, 90)
        elif level < 255 and kind != counts.WARN:   # the countdown stays at full
            rgb = tuple(c * level // 255 for c in rgb)
        out.append('<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s"/>' % (x, y, dot, _hex(rgb)))
    if label is not None:
        out.append('<text x="%d" y="%d" font-family="sans-serif" font-size="16" '
                   'text-anchor="middle" fill="#222">%s</text>' % (cx, cy + radius + dot + 24,
                                                                 label))
    return out


def _svg(width, height, body):
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
            'viewBox="0 0 %d %d">\n<rect width="100%%" height="100%%" fill="#fafafa"/>\n%s\n'
            '</svg>\n' % (width, height, width, height, "\n".join(body)))


def counts_picture(leds, seat=0):
    body = []
    for k, n in enumerate(EXAMPLES[leds]):
        body += ring_svg(CELL // 2 + k * CELL, 70, leds, n, seat, label=str(n))
    return _svg(CELL * len(EXAMPLES[leds]), 160, body)


def seats_picture():
    # 23 stones in each seat's colour, and a store at rest next to a legal pit at full level.
    body = []
    for s in range(4):
        body += ring_svg(CELL // 2 + s * CELL, 70, 16, 23, s, label=palette.SEAT_NAMES[s])
    return _svg(CELL * 4, 160, body)


def highlights_picture():
    body = []
    body += ring_svg(65, 70, 16, 5, 0, label="legal pit (full)")
    body += ring_svg(195, 70, 16, 5, 0, label="other pit (rest)", level=palette.REST)
    body += ring_svg(325, 70, 12, 0, 0, marks=1, label="last move's pit")
    body += ring_svg(455, 70, 24, 27, 1, marks=2, label="store, 2nd place")
    return _svg(4 * CELL, 160, body)


def timer_picture():
    # The move timer's countdown on a store (10, 6 and 2 seconds left, and beside 72 stones)
    # and a hinted pit at three points of its pulse.
    body = []
    for k, left in enumerate((10, 6, 2)):
        body += ring_svg(65 + k * CELL, 70, 24, 7, 0, label="%d s left" % left, warn=left)
    body += ring_svg(65 + 3 * CELL, 70, 24, 72, 0, label="10 s, 72 stones", warn=10)
    for k, step in enumerate((0, 4, 8)):
        body += ring_svg(65 + (4 + k) * CELL, 70, 16, 5, 0, level=palette.HINT[step],
                         label="hint %d ms" % (step * palette.HINT_STEP_MS))
    return _svg(7 * CELL, 160, body)


# Machado et al. (2009), severity 1.0: what the palette looks like with each deficiency.
CVD = (("normal vision", ((1, 0, 0), (0, 1, 0), (0, 0, 1))),
       ("protanopia", ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
                       (-0.003882, -0.048116, 1.051998))),
       ("deuteranopia", ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                         (-0.011820, 0.042940, 0.968881))),
       ("tritanopia", ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602),
                       (0.004733, 0.691367, 0.303900))))


def _simulate(rgb, m):
    def lin(c):
        c = c / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    def enc(v):
        v = min(1.0, max(0.0, v))
        return round(255 * (12.92 * v if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055))
    li = [lin(c) for c in rgb]
    return tuple(enc(sum(m[i][j] * li[j] for j in range(3))) for i in range(3))


def palette_picture():
    swatches = list(zip(palette.SEAT_NAMES, palette.SEAT_SRGB)) + [
        ("ten (white)", palette.WHITE_SRGB), ("fifty (violet)", palette.VIOLET_SRGB),
        ("five (pink)", palette.PINK_SRGB), ("countdown", palette.WARN_SRGB)]
    body = []
    for k, (name, _) in enumerate(swatches):
        body.append('<text x="%d" y="22" font-family="sans-serif" font-size="13" '
                    'text-anchor="middle">%s</text>' % (170 + k * 90 + 40, name))
    for row, (vision, m) in enumerate(CVD):
        y = 36 + row * 50
        body.append('<text x="10" y="%d" font-family="sans-serif" font-size="14">%s</text>'
                    % (y + 25, vision))
        for k, (_, rgb) in enumerate(swatches):
            body.append('<rect x="%d" y="%d" width="80" height="40" rx="6" fill="%s" '
                        'stroke="#888"/>' % (170 + k * 90, y, _hex(_simulate(rgb, m))))
    return _svg(170 + 90 * len(swatches), 40 + 50 * len(CVD), body)


def main():
    files = {"display-counts-12.svg": counts_picture(12, 0),
             "display-counts-16.svg": counts_picture(16, 1),
             "display-counts-24.svg": counts_picture(24, 2),
             "display-seats.svg": seats_picture(),
             "display-highlights.svg": highlights_picture(),
             "display-timer.svg": timer_picture(),
             "display-palette.svg": palette_picture()}
    for name, text in files.items():
        with open(os.path.join(HERE, name), "w") as f:
            f.write(text)
    return sorted(files)


if __name__ == "__main__":
    for name in main():
        print("wrote docs/img/" + name)
