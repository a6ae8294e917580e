#!/usr/bin/env python3
"""orient.py - a pattern in every orientation its neighbourhood allows, as
RLE3 files, for the census's tests.

    orient.py RULE HOOD OUT-PREFIX X,Y,Z ...

HOOD is M (Moore, also F, C and E: the cube's 48 rotations and mirrors)
or H (Golly's hexahedral offsets).  The group is found here on its own:
every 3x3 matrix of -1, 0 and 1 that maps the neighbourhood's offsets onto
themselves.  Each image of the cells is written, moved to the corner of a
40^3 box at pos=12,12,12, as OUT-PREFIX-K.rle3; the count is printed."""
import itertools
import sys

FACES = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]
HOODS = {
    "M": [d for d in itertools.product((-1, 0, 1), repeat=3) if d != (0, 0, 0)],
    "H": FACES + [(0, 1, -1), (0, -1, 1), (1, 0, -1), (-1, 0, 1), (1, -1, 0), (-1, 1, 0)],
}


def apply(m, v):
    return tuple(sum(m[r][c] * v[c] for c in range(3)) for r in range(3))


def group(offsets):
    s = set(offsets)
    found = []
    for e in itertools.product((-1, 0, 1), repeat=9):
        m = (e[0:3], e[3:6], e[6:9])
        if {apply(m, v) for v in s} == s:
            found.append(m)
    return found


def rle3(cells, rule):
    lo = [min(c[a] for c in cells) for a in range(3)]
    cells = {tuple(c[a] - lo[a] for a in range(3)) for c in cells}
    size = [max(c[a] for c in cells) + 1 for a in range(3)]
    planes = []
    for z in range(size[2]):
        rows = []
        for y in range(size[1]):
            rows.append("".join("o" if (x, y, z) in cells else "b"
                                for x in range(size[0])).rstrip("b"))
        planes.append("$".join(rows))
    return ("3D version=1 size=40 pos=12,12,12\n"
            "x=%d y=%d z=%d rule=%s\n%s!\n" % (size[0], size[1], size[2], rule,
                                                "/".join(planes)))


def main():
    rule, hood, prefix = sys.argv[1:4]
    cells = [tuple(int(v) for v in a.split(",")) for a in sys.argv[4:]]
    g = group(HOODS[hood])
    for k, m in enumerate(g):
        with open("%s-%d.rle3" % (prefix, k), "w") as f:
            f.write(rle3([apply(m, c) for c in cells], rule))
    print(len(g))


main()
