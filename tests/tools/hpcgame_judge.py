#!/usr/bin/env python3
"""An independent HPCGame 2024 judge for tests: writes inputs in the
contest's byte layout and steps them with a plain Python B6/S567 stepper.

    hpcgame_judge.py make M SEED DENSITY FILE   -- write a random input
    hpcgame_judge.py step N IN OUT              -- expected output after N steps
"""
import random
import struct
import sys


def read(path):
    data = open(path, "rb").read()
    m, t = struct.unpack_from("<QQ", data)
    return m, t, bytearray(data[16:])


def write(path, m, t, cells):
    with open(path, "wb") as f:
        f.write(struct.pack("<QQ", m, t))
        f.write(bytes(cells))


def step(m, cells):
    nxt = bytearray(m ** 3)
    for x in range(m):
        for y in range(m):
            for z in range(m):
                n = 0
                for dx in (-1, 0, 1):
                    for dy in (-1, 0, 1):
                        for dz in (-1, 0, 1):
                            if dx or dy or dz:
                                n += cells[((x + dx) % m) * m * m
                                           + ((y + dy) % m) * m + (z + dz) % m]
                alive = cells[x * m * m + y * m + z]
                nxt[x * m * m + y * m + z] = 1 if (n == 6 or (alive and n in (5, 6, 7))) else 0
    return nxt


def main():
    if sys.argv[1] == "make":
        m, seed, density, path = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
        rng = random.Random(seed)
        write(path, m, 0, [1 if rng.random() < density else 0 for _ in range(m ** 3)])
    else:
        n, src, dst = int(sys.argv[2]), sys.argv[3], sys.argv[4]
        m, t, cells = read(src)
        for _ in range(n):
            cells = step(m, cells)
        write(dst, m, t + n, cells)


main()
