#!/usr/bin/env python3
"""Draws every board profile (hardware/profiles/*.json) as SVG, so drawings never drift.

    python hardware/drawings.py            write hardware/drawings/<profile>-wiring.svg and
                                           <profile>-layout.svg for every profile
    python hardware/drawings.py --check    exit 1 (naming them) if a committed SVG is stale
    python hardware/drawings.py --out DIR  write into DIR instead

wiring: each LED chain from its data pin, ring by ring in chain order with the LED range of
every ring; which pad goes to which MPR121 address and electrode; the I2C pins.
layout: the top plate at 1:1 (the SVG's width and height are in mm), with the board outline,
every pit and store (cup, ring footprint, centre cross) and its dimensions, and a 100 mm
scale bar to check the print scale before drilling or cutting.
Standard library only. The profile is checked with the firmware's own code first.
"""
import argparse
import glob
import os
import sys
from xml.sax.saxutils import escape

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CHAIN_COLOURS = ("#d62728", "#2ca02c", "#1f77b4", "#e6a100", "#17becf", "#c43cc4", "#ff7f0e",
                 "#7b3fd1")


def _profile_package():
    lib = os.path.join(ROOT, "firmware", "lib")
    if lib not in sys.path:
        sys.path.insert(0, lib)
    from mancala_fw import profile

    return profile


def _n(v):
    """Numbers as short, stable text: 12, 12.5, 0.25."""
    text = ("%.2f" % v).rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


class Svg:
    def __init__(self):
        self.parts = []

    def add(self, tag, text=None, **attrs):
        items = []
        for key in sorted(attrs):
            v = attrs[key]
            if isinstance(v, (int, float)):
                v = _n(v)
            items.append('%s="%s"' % (key.rstrip("_").replace("_", "-"), escape(str(v))))
        head = "<%s %s" % (tag, " ".join(items))
        if text is None:
            self.parts.append(head + "/>")
        else:
            self.parts.append("%s>%s</%s>" % (head, escape(text), tag))

    def text(self, x, y, s, size=10, anchor="start", weight="normal", fill="#000"):
        self.add("text", s, x=x, y=y, font_size=size, text_anchor=anchor, font_weight=weight,
                 fill=fill, font_family="sans-serif")

    def line(self, x1, y1, x2, y2, stroke="#000", width=1, dash=None):
        extra = {"stroke_dasharray": dash} if dash else {}
        self.add("line", x1=x1, y1=y1, x2=x2, y2=y2, stroke=stroke, stroke_width=width, **extra)

    def render(self, width, height, unit, title):
        head = ('<?xml version="1.0" encoding="UTF-8"?>\n'
                '<svg xmlns="http://www.w3.org/2000/svg" width="%s%s" height="%s%s" '
                'viewBox="0 0 %s %s">\n<title>%s</title>\n' % (
                    _n(width), unit, _n(height), unit, _n(width), _n(height), escape(title)))
        return head + "\n".join(self.parts) + "\n</svg>\n"


def _chain_rings(p, chain):
    rings = [(p.ring[pid][1], p.ring[pid][2], pid) for pid in p.positions if p.ring[pid][0] == chain]
    rings.sort()
    return rings


# --- wiring ------------------------------------------------------------------------------

def wiring(p):
    s = Svg()
    width = 1100
    s.text(20, 30, "%s: wiring (generated from hardware/profiles/%s.json)" % (p.title, p.name),
           16, weight="bold")
    s.text(20, 50, "Every LED chain starts at its data pin (through the 74AHCT125 level shifter "
           "and a 330-470 ohm resistor) and runs DIN -> DOUT ring by ring in the order shown.", 11)
    # A small plan of the board with each chain's path through its rings.
    bw, bh = p.geometry["board_mm"]
    scale = min(760.0 / bw, 560.0 / bh)
    ox, oy = 30, 80
    s.add("rect", x=ox, y=oy, width=bw * scale, height=bh * scale, fill="none", stroke="#888")
    for chain in range(len(p.chains)):
        colour = CHAIN_COLOURS[chain % len(CHAIN_COLOURS)]
        pts = []
        for start, leds, pid in _chain_rings(p, chain):
            x, y = p.xy_mm[pid]
            pts.append("%s,%s" % (_n(ox + x * scale), _n(oy + y * scale)))
        s.add("polyline", points=" ".join(pts), fill="none", stroke=colour, stroke_width=2,
              stroke_dasharray="6 3")
        first = _chain_rings(p, chain)[0][2]
        x, y = p.xy_mm[first]
        r = (p.geometry["store_mm"] if first.endswith("S") else p.geometry["pit_mm"]) * scale / 2
        s.text(ox + x * scale, oy + y * scale - r - 3, "GP%d in" % p.chains[chain][0], 10,
               "middle", "bold", colour)
    for pid in p.positions:
        chain, start, leds = p.ring[pid]
        x, y = p.xy_mm[pid]
        cx, cy = ox + x * scale, oy + y * scale
        r = (p.geometry["store_mm"] if pid.endswith("S") else p.geometry["pit_mm"]) * scale / 2
        colour = CHAIN_COLOURS[chain % len(CHAIN_COLOURS)]
        s.add("circle", cx=cx, cy=cy, r=r, fill="#fff", stroke=colour, stroke_width=1.5)
        addr, e = p.pad[pid]
        s.text(cx, cy - 2, pid, 10, "middle", "bold")
        s.text(cx, cy + 8, "%d-%d" % (start, start + leds - 1), 7, "middle")
        s.text(cx, cy + 16, "%02X:E%d" % (addr, e), 7, "middle", fill="#555")
    y = oy + bh * scale + 30
    s.text(30, y, "In each circle: position id, LED indices in its chain, pad chip:electrode.", 10)
    # The LED chains as lists.
    y += 30
    s.text(20, y, "LED chains", 14, weight="bold")
    for chain in range(len(p.chains)):
        pin, leds = p.chains[chain]
        colour = CHAIN_COLOURS[chain % len(CHAIN_COLOURS)]
        y += 22
        s.text(30, y, "chain %d: GP%d, %d LEDs, feed %s mA" % (
            chain, pin, leds, _n(p.chain_feed_ma[chain])), 11, weight="bold", fill=colour)
        x = 250
        k = 0
        rings = _chain_rings(p, chain)
        for start, n, pid in rings:
            k += 1
            s.add("rect", x=x, y=y - 12, width=92, height=16, fill="none", stroke=colour)
            s.text(x + 46, y, "%d. %s  %d-%d" % (k, pid, start, start + n - 1), 9, "middle")
            if k < len(rings) and x + 192 <= width - 10:
                s.line(x + 92, y - 4, x + 100, y - 4, colour)
            x += 100
            if x + 92 > width - 10:
                x = 250
                y += 20
    # The pad controllers.
    y += 40
    irq = "" if p.irq is None else ", IRQ GP%d" % p.irq
    s.text(20, y, "Pad controllers (MPR121) on I2C%d: SDA GP%d, SCL GP%d%s, %d kHz, 3.3 V" % (
        p.i2c_id, p.sda, p.scl, irq, p.i2c_freq // 1000), 14, weight="bold")
    addr_pin = {0x5A: "GND", 0x5B: "3.3V", 0x5C: "SDA", 0x5D: "SCL"}
    for addr in p.pad_chips:
        y += 22
        s.text(30, y, "0x%02X (ADDR to %s)" % (addr, addr_pin[addr]), 11, weight="bold")
        x = 250
        for e in range(12):
            pid = p.pad_position[addr][e]
            s.add("rect", x=x, y=y - 12, width=66, height=16, fill="none",
                  stroke="#333" if pid else "#ccc")
            s.text(x + 33, y, "E%d %s" % (e, pid or "-"), 9, "middle",
                   fill="#000" if pid else "#aaa")
            x += 70
            if e == 5:
                x = 250
                y += 20
    y += 40
    s.text(20, y, "Power: 5 V supply of at least %s mA to the LED chains (inject at every "
           "chain's start), the Pico's VSYS through a Schottky diode, one common ground. "
           "Budget %s mA." % (_n(p.supply_ma), _n(p.budget_ma)), 11)
    return s.render(width, y + 30, "", "%s wiring" % p.name)


# --- layout ------------------------------------------------------------------------------

def _dimension(s, x1, y1, x2, y2, label, offset):
    """A dimension line parallel to (x1,y1)-(x2,y2), offset sideways, with its length."""
    horizontal = y1 == y2
    if horizontal:
        yy = y1 + offset
        s.line(x1, y1, x1, yy, "#06c", 0.2)
        s.line(x2, y2, x2, yy, "#06c", 0.2)
        s.line(x1, yy, x2, yy, "#06c", 0.3)
        s.text((x1 + x2) / 2, yy - 1, label, 3.5, "middle", fill="#06c")
    else:
        xx = x1 + offset
        s.line(x1, y1, xx, y1, "#06c", 0.2)
        s.line(x2, y2, xx, y2, "#06c", 0.2)
        s.line(xx, y1, xx, y2, "#06c", 0.3)
        s.add("text", label, x=xx - 1, y=(y1 + y2) / 2, font_size=3.5, text_anchor="middle",
              fill="#06c", font_family="sans-serif",
              transform="rotate(-90 %s %s)" % (_n(xx - 1), _n((y1 + y2) / 2)))


def layout(p):
    s = Svg()
    g = p.geometry
    bw, bh = g["board_mm"]
    margin = 25
    w, h = bw + 2 * margin, bh + 2 * margin + 30
    s.add("rect", x=margin, y=margin, width=bw, height=bh, fill="none", stroke="#000",
          stroke_width=0.3)
    _dimension(s, margin, margin + bh, margin + bw, margin + bh, "%s mm" % _n(bw), 12)
    _dimension(s, margin + bw, margin, margin + bw, margin + bh, "%s mm" % _n(bh), 12)
    for pid in p.positions:
        x, y = p.xy_mm[pid]
        cx, cy = margin + x, margin + y
        store = pid.endswith("S")
        cup = g["store_mm"] if store else g["pit_mm"]
        outer, inner = g["store_ring_mm"] if store else g["pit_ring_mm"]
        s.add("circle", cx=cx, cy=cy, r=cup / 2, fill="none", stroke="#d00", stroke_width=0.3)
        s.add("circle", cx=cx, cy=cy, r=outer / 2, fill="none", stroke="#888", stroke_width=0.2,
              stroke_dasharray="1.5 1")
        s.add("circle", cx=cx, cy=cy, r=inner / 2, fill="none", stroke="#888", stroke_width=0.2,
              stroke_dasharray="1.5 1")
        s.line(cx - 2, cy, cx + 2, cy, "#000", 0.2)
        s.line(cx, cy - 2, cx, cy + 2, "#000", 0.2)
        s.text(cx, cy - 3, pid, 4, "middle", "bold")
        s.text(cx, cy + 6, "(%s, %s)" % (_n(x), _n(y)), 2.8, "middle", fill="#444")
    # Pitch of the first two pits of side 0, measured centre to centre.
    a, b = p.positions[0], p.positions[1]
    (xa, ya), (xb, yb) = p.xy_mm[a], p.xy_mm[b]
    if ya == yb:
        _dimension(s, margin + xa, margin + ya, margin + xb, margin + yb,
                   "%s mm" % _n(abs(xb - xa)), -g["pit_mm"] / 2 - 6)
    elif xa == xb:
        _dimension(s, margin + xa, margin + ya, margin + xb, margin + yb,
                   "%s mm" % _n(abs(yb - ya)), -g["pit_mm"] / 2 - 6)
    y = margin + bh + 22
    s.text(margin, y, "%s, top view, 1:1. Red: cups, pits %s mm, stores %s mm. Grey dashed: "
           "LED rings, pits %s/%s mm, stores %s/%s mm. (x, y) centres in mm from the top "
           "left corner." % (p.title, _n(g["pit_mm"]), _n(g["store_mm"]),
                              _n(g["pit_ring_mm"][0]), _n(g["pit_ring_mm"][1]),
                              _n(g["store_ring_mm"][0]), _n(g["store_ring_mm"][1])), 3.5)
    y += 8
    s.line(margin, y, margin + 100, y, "#000", 0.5)
    for i in range(0, 101, 10):
        s.line(margin + i, y - 1.5, margin + i, y + 1.5, "#000", 0.3)
    s.text(margin + 104, y + 1.2, "100 mm: measure this before cutting (print at 100 %, no "
           "fit-to-page)", 3.5)
    return s.render(w, h, "mm", "%s layout 1:1" % p.name)


def render_all(profiles_dir=None):
    """{file name: SVG text} for every profile."""
    pkg = _profile_package()
    out = {}
    for path in sorted(glob.glob(os.path.join(profiles_dir or os.path.join(HERE, "profiles"),
                                              "*.json"))):
        p = pkg.load(path)
        out["%s-wiring.svg" % p.name] = wiring(p)
        out["%s-layout.svg" % p.name] = layout(p)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a drawing is stale")
    parser.add_argument("--out", default=os.path.join(HERE, "drawings"), help="output folder")
    args = parser.parse_args(argv)
    try:
        drawings = render_all()
    except ValueError as e:
        print("%s; fix the profile, then draw again." % e, file=sys.stderr)
        return 1
    stale = []
    for name in sorted(drawings):
        path = os.path.join(args.out, name)
        try:
            with open(path, encoding="utf-8") as f:
                same = f.read() == drawings[name]
        except OSError:
            same = False
        if same:
            continue
        stale.append(name)
        if not args.check:
            os.makedirs(args.out, exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(drawings[name])
    if args.check and stale:
        print("Stale drawings in %s: %s; run python hardware/drawings.py." % (
            args.out, ", ".join(stale)), file=sys.stderr)
        return 1
    if not args.check:
        print("%d drawings, %d written to %s." % (len(drawings), len(stale), args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
