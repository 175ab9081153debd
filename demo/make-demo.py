#!/usr/bin/env python3
"""Writes demo.events: a synthetic evemu recording on the ELAN Touchscreen's description
(from whot/evemu-devices, MIT licence: see LICENSE.evemu-devices) showing one of each gesture.
The daemon's demo mode (scripts/run.sh on a machine without a touchscreen) plays it through
`gestured run --replay`. Regenerate with: python3 demo/make-demo.py > demo/demo.events"""

HEADER = """# EVEMU 1.3
# Synthetic demo for gestured: tap, double tap, long press, drag, edge swipe,
# two-finger tap, pinch. Device description: ELAN Touchscreen (whot/evemu-devices, MIT).
N: ELAN Touchscreen
I: 0003 04f3 010c 0110
P: 02 00 00 00 00 00 00 00
B: 00 0b 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 04 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 02 00 00 00 00 00 00 00 00
B: 03 03 00 00 00 00 80 73 32
B: 04 00 00 00 00 00 00 00 00
B: 05 00 00 00 00 00 00 00 00
B: 11 00 00 00 00 00 00 00 00
B: 12 00 00 00 00 00 00 00 00
B: 14 00 00 00 00 00 00 00 00
B: 15 00 00 00 00 00 00 00 00
B: 15 00 00 00 00 00 00 00 00
A: 00 0 3312 0 0 10
A: 01 0 1872 0 0 10
A: 2f 0 9 0 0 0
A: 30 0 255 0 0 1
A: 31 0 255 0 0 1
A: 34 0 1 0 0 0
A: 35 0 3312 0 0 10
A: 36 0 1872 0 0 10
A: 39 0 65535 0 0 0
A: 3c 0 3312 0 0 10
A: 3d 0 1872 0 0 10"""

WIDTH, HEIGHT = 3312, 1872
FRAME = 0.010  # 100 Hz
lines = []
tracking_id = [100]


def event(t, type_, code, value):
    lines.append("E: %.6f %04x %04x %d" % (t, type_, code, value))


def report(t):
    event(t, 0, 0, 0)


def stroke(start, paths, duration, ease_out=False):
    """Fingers (one path each: list of (x, y) normalised points, linearly interpolated)
    down at `start`, moving for `duration` seconds, then lifted. Returns the lift time."""
    ids = []
    steps = max(1, int(round(duration / FRAME)))
    for step in range(steps + 1):
        t = start + step * FRAME
        progress = step / steps
        if ease_out:
            progress = 1 - (1 - progress) ** 2
        for slot, path in enumerate(paths):
            (x0, y0), (x1, y1) = path
            x = round((x0 + (x1 - x0) * progress) * WIDTH)
            y = round((y0 + (y1 - y0) * progress) * HEIGHT)
            event(t, 3, 0x2F, slot)
            if step == 0:
                tracking_id[0] += 1
                ids.append(tracking_id[0])
                event(t, 3, 0x39, tracking_id[0])
            event(t, 3, 0x35, x)
            event(t, 3, 0x36, y)
        if step == 0:
            event(t, 1, 0x14A, 1)
        report(t)
    lift = start + (steps + 1) * FRAME
    for slot in range(len(paths)):
        event(lift, 3, 0x2F, slot)
        event(lift, 3, 0x39, -1)
    event(lift, 1, 0x14A, 0)
    report(lift)
    return lift


def still(x, y):
    return [(x, y), (x, y)]


stroke(0.50, [still(0.30, 0.30)], 0.07)                      # tap
stroke(1.50, [still(0.60, 0.30)], 0.07)                      # double tap
stroke(1.72, [still(0.601, 0.301)], 0.07)
stroke(3.00, [still(0.50, 0.60)], 1.20)                      # long press
stroke(5.00, [[(0.20, 0.70), (0.60, 0.72)]], 0.80, True)     # drag that slows to a stop
stroke(7.00, [[(0.995, 0.50), (0.50, 0.52)]], 0.15)          # swipe left from the right edge
stroke(8.50, [still(0.40, 0.40), still(0.50, 0.40)], 0.08)   # two-finger tap
stroke(10.0, [[(0.45, 0.50), (0.30, 0.50)], [(0.55, 0.50), (0.70, 0.50)]], 0.60)  # pinch out

print(HEADER)
print("\n".join(lines))
