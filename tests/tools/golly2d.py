#!/usr/bin/env python3
"""golly2d.py - a slow reference for 2D patterns in 3D, for cli_golly2d.sh.

  golly2d.py cells FILE.npy
      the live cells of a life3d .npy universe, one "x y z" a line
  golly2d.py place FILE.rle PLANE INDEX TWICE GENS
      where Golly's 3D.lua pastes the 2D pattern of FILE.rle (after GENS
      generations of Conway's Life, B3/S23, on an unbounded plane) in its
      100^3 grid: PLANE xy, xz or yz, INDEX the plane (-1: the middle),
      TWICE 1 to put it on the next plane too; one "x y z" a line, sorted

Written from what Golly's sources say (readpattern.cpp's readrle, 3D.lua's
Read2DPattern and Paste), not from life3d's code: 'b' and '.' dead, 'o'
and 'A' alive, '$' a row, '!' the end, '#' lines skipped, counts that
carry across lines, any other character dropped with its count; the y
of a 2D cell inverted (Golly's 3D y points up); the live cells' box moved
to offset (N - size + 1) // 2 in the plane, the plane at N // 2; the YZ
plane turned about y (columns along z, backwards), the XZ plane about x
(rows along z).  The pattern's box is that of generation 0, so that a
later generation lies where the 3D universe carries it.
"""
import ast
import sys

N = 100


def read_rle(path):
    cells, x, y, n, header = set(), 0, 0, 0, False
    with open(path) as f:
        for line in f:
            line = line.rstrip("\r\n")
            if line.startswith("#"):
                continue
            if not header and line.startswith("x") and (len(line) < 2 or line[1] <= " " or line[1] == "="):
                header = True
                continue
            for c in line:
                if c.isdigit():
                    n = n * 10 + int(c)
                    continue
                k, n = n or 1, 0
                if c in "b.":
                    x += k
                elif c in "oA":
                    cells.update((x + i, y) for i in range(k))
                    x += k
                elif c == "$":
                    x, y = 0, y + k
                elif c == "!":
                    return cells
    return cells


def life(cells, gens):
    for _ in range(gens):
        counts = {}
        for (x, y) in cells:
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    if dx or dy:
                        counts[(x + dx, y + dy)] = counts.get((x + dx, y + dy), 0) + 1
        cells = {c for c, k in counts.items() if k == 3 or (k == 2 and c in cells)}
    return cells


def place(cells0, cells, plane, index, twice):
    # Read2DPattern: y inverted; Paste: moved to the box's corner.
    minx = min(x for x, _ in cells0)
    maxx = max(x for x, _ in cells0)
    miny = min(-y for _, y in cells0)
    maxy = max(-y for _, y in cells0)
    pwd, pht = maxx - minx + 1, maxy - miny + 1
    at = N // 2 if index < 0 else index
    out = set()
    for (cx, cy) in cells:
        x, y = cx - minx, -cy - miny
        for k in range(2 if twice else 1):
            p = (at + k) % N
            if plane == "xy":
                c = (x + (N - pwd + 1) // 2, y + (N - pht + 1) // 2, p)
            elif plane == "yz":
                c = (p, y + (N - pht + 1) // 2, -x + (N - pwd + 1) // 2 + pwd - 1)
            else:
                c = (x + (N - pwd + 1) // 2, p, y + (N - pht + 1) // 2)
            out.add(tuple(v % N for v in c))
    return out


def npy_cells(path):
    data = open(path, "rb").read()
    hlen = int.from_bytes(data[8:10], "little")
    shape = ast.literal_eval(data[10:10 + hlen].decode())["shape"]
    body = data[10 + hlen:]
    ny, nz = shape[1], shape[2]
    return {(i // (ny * nz), i // nz % ny, i % nz) for i, b in enumerate(body) if b}


def main():
    if sys.argv[1] == "cells":
        cells = npy_cells(sys.argv[2])
    else:
        path, plane, index, twice, gens = sys.argv[2:7]
        cells0 = read_rle(path)
        cells = place(cells0, life(cells0, int(gens)), plane, int(index), twice == "1")
    for c in sorted(cells):
        print("%d %d %d" % c)


main()
