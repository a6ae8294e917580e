#!/bin/sh
# VTK XML output (.vti, .vtp), --box and --coarsen: every file decoded here
# by a plain reader of VTK's appended zlib layout (Python's zlib and XML)
# and compared cell for cell with the universe as NumPy-ordered bytes; and
# read with VTK's own readers where Python's vtk is installed
# ($LIFE3D_VTK_PYTHON names a Python that has it; CI installs it from
# PyPI), a known cell probed at its coordinates.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99

py=""
for p in python3 /usr/bin/python3; do
	"$p" -c 'import numpy' 2>/dev/null && py=$p && break
done
[ -n "$py" ] || { echo "cli_vtk: no Python with numpy"; exit 77; }

# vtkxml.read(FILE): a file as life3d writes it: its XML, its appended
# arrays (numpy) by name and its field data.
cat >vtkxml.py <<'PY'
import re, struct, zlib, xml.etree.ElementTree as ET
import numpy as np

TYPES = {"UInt8": np.uint8, "Float32": "<f4", "Int64": "<i8", "UInt64": "<u8"}

def read(path):
    data = open(path, "rb").read()
    cut = data.index(b'<AppendedData encoding="raw">')
    under = data.index(b"_", cut) + 1
    root = ET.fromstring(data[:cut] + b"</VTKFile>")
    assert root.get("compressor") == "vtkZLibDataCompressor"
    assert root.get("header_type") == "UInt64" and root.get("byte_order") == "LittleEndian"
    arrays, fields = {}, {}
    for a in root.iter("DataArray"):
        if a.get("format") == "appended":
            off = under + int(a.get("offset"))
            nb, bs, last = struct.unpack_from("<QQQ", data, off)
            sizes = struct.unpack_from("<%dQ" % nb, data, off + 24)
            p, raw = off + 24 + 8 * nb, b""
            for i, s in enumerate(sizes):
                block = zlib.decompress(data[p:p + s])
                assert len(block) == (last if i == nb - 1 else bs)
                raw += block
                p += s
            arrays[a.get("Name")] = np.frombuffer(raw, TYPES[a.get("type")])
        else:
            fields[a.get("Name")] = int(a.text)
    for a in root.iter("Array"):
        fields[a.get("Name")] = bytes(int(v) for v in a.text.split()[:-1]).decode()
    return root, arrays, fields
PY

run() { "$LIFE3D" -q "$@" && ok || fail "life3d $*"; }

# A soup of odd sides, and Golly's ship (cells x 19..20, y 18..21, z 18..21)
# in its own rule.
run --random 23x19x13 --seed 7 --density 0.3 -n 5 -o soup.l3d
run -n 0 -o soup.npy soup.l3d
run -n 0 -o soup.vti soup.l3d
run -n 0 -o soup.vtp soup.l3d
run -n 0 --box 2,3,4:20,15,11 -o box.vti soup.l3d
run -n 0 --box 2,3,4:20,15,11 -o box.vtp soup.l3d
run -n 0 --box 2,3,4:20,15,11 -o box.npy soup.l3d
run -n 0 --box 2,3,4:20,15,11 -o box.rle3 soup.l3d
run -n 0 -o box.rle3.npy box.rle3
run -n 0 --box 3,3,3:8,8,8 -o box.bin soup.l3d
run -n 0 -o box.bin.npy box.bin
run -n 0 --box 5,0,12:5,18,12 -o line.l3d soup.l3d
run -n 0 -o line.npy line.l3d
run -n 0 --coarsen 4 -o c4.vti soup.l3d
run -n 0 --coarsen 4 -o c4.npy soup.l3d
run -n 0 --coarsen 1 -o c1.npy soup.l3d
run -n 0 --box 1,1,1:21,17,11 --coarsen 5 -o bc5.vti soup.l3d
run -n 0 --coarsen 256 -o c256.npy soup.l3d
run --random 9 --density 0 -o empty.vtp
run --random 9 --density 0 -o empty.vti
cp "$SRCDIR/tests/data/golly-spaceship.rle3" ship.rle3 || fail "fixture"
run -n 0 -o ship.vti ship.rle3
run -n 0 -o ship.vtp ship.rle3
run -n 0 --format vti -o - ship.rle3 >ship.stdout.vti
expect_same ship.vti ship.stdout.vti "a .vti to stdout"
run -r 3D3/3H --random 6 -n 3 -o hex.vti

"$py" - <<'PY' || fail "decoded VTK XML files differ from the universe"
import sys, numpy as np
from vtkxml import read
bad = []
def check(what, good):
    if not good:
        bad.append(what)

a = np.load("soup.npy")
X, Y, Z = a.shape
root, arr, f = read("soup.vti")
img = root.find("ImageData")
check("extent", img.get("WholeExtent") == "0 %d 0 %d 0 %d" % (X, Y, Z))
check("origin", img.get("Origin") == "-0.5 -0.5 -0.5" and img.get("Spacing") == "1 1 1")
check("cells", (arr["alive"].reshape(Z, Y, X).transpose(2, 1, 0) == a).all() and a.sum() > 100)
check("fields", f == {"rule": "B6/S567", "golly_rule": "3D5..7/6",
                      "neighbourhood": "Moore", "generation": 5})
root, arr, f = read("soup.vtp")
pts = arr["Points"].reshape(-1, 3).astype(int)
check("points", [tuple(p) for p in pts] == list(zip(*np.nonzero(a))))
n = len(pts)
check("verts", (arr["connectivity"] == np.arange(n)).all() and
      (arr["offsets"] == np.arange(1, n + 1)).all())
piece = root.find("PolyData/Piece")
check("counts", piece.get("NumberOfPoints") == str(n) == piece.get("NumberOfVerts"))

b = a[2:21, 3:16, 4:12]
root, arr, f = read("box.vti")
img = root.find("ImageData")
check("box extent", img.get("WholeExtent") == "0 19 0 13 0 8")
check("box origin", img.get("Origin") == "1.5 2.5 3.5")
check("box cells", (arr["alive"].reshape(8, 13, 19).transpose(2, 1, 0) == b).all())
root, arr, f = read("box.vtp")
sub = np.zeros_like(a)
sub[2:21, 3:16, 4:12] = b
check("box points", [tuple(p) for p in arr["Points"].reshape(-1, 3).astype(int)]
      == list(zip(*np.nonzero(sub))))
check("box npy", (np.load("box.npy") == b).all())
check("box rle3", (np.load("box.rle3.npy") == b).all())
check("box bin", (np.load("box.bin.npy") == a[3:9, 3:9, 3:9]).all())
check("line", (np.load("line.npy") == a[5:6, 0:19, 12:13]).all())

def blocks(c, k):
    return np.add.reduceat(np.add.reduceat(np.add.reduceat(
        c.astype(np.int64), range(0, c.shape[0], k), 0),
        range(0, c.shape[1], k), 1), range(0, c.shape[2], k), 2)
c4 = blocks(a, 4)
root, arr, f = read("c4.vti")
img = root.find("ImageData")
check("coarse extent", img.get("WholeExtent") == "0 6 0 5 0 4" and img.get("Spacing") == "4 4 4")
check("coarse cells", (arr["live"].reshape(4, 5, 6).transpose(2, 1, 0) == c4).all())
n4 = np.load("c4.npy")
check("coarse npy", n4.dtype == np.dtype("<f4") and (n4 == c4).all())
check("coarsen 1", (np.load("c1.npy") == a).all())
check("coarsen past the universe", np.load("c256.npy").shape == (1, 1, 1) and
      np.load("c256.npy")[0, 0, 0] == a.sum())
root, arr, f = read("bc5.vti")
img = root.find("ImageData")
c5 = blocks(a[1:22, 1:18, 1:12], 5)
check("box coarse", img.get("Origin") == "0.5 0.5 0.5" and
      (arr["live"].reshape(c5.shape[::-1]).transpose(2, 1, 0) == c5).all())

root, arr, f = read("empty.vtp")
check("empty points", root.find("PolyData/Piece").get("NumberOfPoints") == "0"
      and len(arr["Points"]) == 0)
root, arr, f = read("empty.vti")
check("empty image", not arr["alive"].any() and len(arr["alive"]) == 729)
root, arr, f = read("ship.vti")
on = np.nonzero(arr["alive"].reshape(40, 40, 40).transpose(2, 1, 0))
check("ship cells", min(on[0]) == 19 and max(on[0]) == 20 and min(on[1]) == 18
      and max(on[1]) == 21 and min(on[2]) == 18 and max(on[2]) == 21)
check("ship rule", f["rule"] == "B58/S47" and f["golly_rule"] == "3D4,7/5,8")
root, arr, f = read("hex.vti")
check("hexahedral", f["neighbourhood"] == "hexahedral" and f["generation"] == 3)
if bad:
    print("differ:", ", ".join(bad))
    sys.exit(1)
PY
[ $? -eq 0 ] && ok

# Two slabs of z planes (an image's cells are made 64 MiB at a time) and
# more than one compressed block.  Not under valgrind: too slow there.
if [ -z "${LIFE3D_VALGRIND:-}" ]; then
	run --random 512x512x257 --seed 2 --density 0.01 -o big.l3d
	run -n 0 -o big.vti big.l3d
	run -n 0 -o big.npy big.l3d
	"$py" -c '
import sys, numpy as np
from vtkxml import read
a = np.load("big.npy")
root, arr, f = read("big.vti")
sys.exit(0 if (arr["alive"].reshape(257, 512, 512).transpose(2, 1, 0) == a).all() else 1)' &&
		ok || fail "a .vti of two slabs differs"
fi

# What a writer holds is counted before the first step: --coarsen 1 of
# 512^3 (512 MiB of counts) under a limit of 900 MB is refused at once
# (status 1, out of memory), not after the run.  Not under valgrind or the
# sanitizers, whose own reservations a ulimit -v would refuse.
if [ -z "${LIFE3D_VALGRIND:-}" ] && [ -z "${LIFE3D_SANITIZERS:-}" ]; then
	expect_exit 1 "--coarsen 1 of 512^3 under ulimit -v" -- \
		sh -c 'ulimit -v 900000; exec "$@"' sh "$LIFE3D" -q --random 512 -n 5 --coarsen 1 -o big1.vti
	grep -q "writing [0-9.]* MiB.* needs [0-9.]* MiB of memory" "$T/err" && ok ||
		fail "--coarsen 1 under ulimit -v: $(cat "$T/err")"
	expect_absent big1.vti "--coarsen 1 under ulimit -v"
fi

# Refused before the first step, nothing written.
refused() {   # WHAT MESSAGE OUTPUT ARGS...
	what=$1 msg=$2 out=$3
	shift 3
	expect_exit 64 "$what" -- "$LIFE3D" -q -n 1 -o "$out" "$@" soup.l3d
	expect_err_line "^life3d: $msg\$" "$what"
	expect_absent "$out" "$what"
}
refused "box past the universe" "--box: x 0..23 is not inside the 23x19x13 universe (x 0..22)" \
	x.vti --box 0,0,0:23,1,1
refused "box past z" "--box: z 5..13 is not inside the 23x19x13 universe (z 0..12)" \
	x.l3d --box 0,0,5:1,1,13
refused "box of one corner" "--box: '1,2,3' is not X0,Y0,Z0:X1,Y1,Z1 (two corners, e.g. 0,0,0:63,63,63)" \
	x.vti --box 1,2,3
refused "box of signs" "--box: '-1,0,0:2,2,2' is not X0,Y0,Z0:X1,Y1,Z1 (two corners, e.g. 0,0,0:63,63,63)" \
	x.vti --box -1,0,0:2,2,2
refused "box reversed" "--box: '4,0,0:2,2,2': the first corner's x is past the second's" \
	x.vti --box 4,0,0:2,2,2
refused "box not a cube to HPCGame" "the HPCGame format holds only cubes; this box is 2x3x3 (choose another --format)" \
	x.bin --box 0,0,0:1,2,2
refused "coarsen to legacy VTK" "--coarsen: the vtk format holds cells, not counts of them (write .npy or .vti)" \
	x.vtk --coarsen 2
refused "coarsen to points" "--coarsen: the vtp format holds cells, not counts of them (write .npy or .vti)" \
	x.vtp --coarsen 2
refused "coarsen to l3d" "--coarsen: the l3d format holds cells, not counts of them (write .npy or .vti)" \
	x.l3d --coarsen 2
refused "coarsen 0" "--coarsen: '0' is not a whole number from 1 to 256" x.vti --coarsen 0
refused "coarsen 257" "--coarsen: '257' is not a whole number from 1 to 256" x.vti --coarsen 257
printf 'box = "0,0,0:99,0,0";\n' >box.conf
expect_exit 64 "box past the universe, from a file" -- "$LIFE3D" -q -c box.conf -o x.vti soup.l3d
expect_err_line "^life3d: --box: x 0..99 is not inside the 23x19x13 universe (x 0..22)$" "box from a file"
# Checkpoints, the log and the summary line's population are the whole
# universe's.
"$LIFE3D" -n 4 --box 0,0,0:1,1,1 -o p.l3d soup.l3d 2>p.err || fail "--box population"
"$LIFE3D" -n 4 -o all.l3d soup.l3d 2>all.err || fail "population"
[ "$(grep -o 'population [0-9]*' p.err)" = "$(grep -o 'population [0-9]*' all.err)" ] && ok ||
	fail "the population of a run with --box: $(cat p.err all.err)"
rm -f all.l3d
run -n 4 --box 0,0,0:3,3,3 --checkpoint-every 2 --log whole.tsv -o part.l3d soup.l3d
run -n 4 --log all.tsv -o all.l3d soup.l3d
expect_same whole.tsv all.tsv "the log of a run with --box"
run -n 0 -o ckpt.npy part.l3d.ckpt.l3d
"$py" -c '
import sys, numpy as np
sys.exit(0 if np.load("ckpt.npy").shape == (23, 19, 13) else 1)' && ok ||
	fail "a checkpoint of a run with --box is not the whole universe"
# Read back: refused by name.
for f in soup.vti soup.vtp; do
	expect_exit 65 "reading $f" -- "$LIFE3D" -q -n 0 -o x.l3d "$f"
	grep -q "files can be written but not read" "$T/err" && ok || fail "$f read: $(cat "$T/err")"
done

# VTK's own readers, where Python's vtk is installed.
vpy=""
for p in ${LIFE3D_VTK_PYTHON:-} python3 /usr/bin/python3; do
	"$p" -c 'import vtk' 2>/dev/null && vpy=$p && break
done
if [ -n "$vpy" ]; then
	"$vpy" - <<'PY' && ok || fail "VTK's readers"
import sys, vtk
bad = []
def image(path):
    r = vtk.vtkXMLImageDataReader()
    r.SetFileName(path)
    r.Update()
    return r.GetOutput()
def poly(path):
    r = vtk.vtkXMLPolyDataReader()
    r.SetFileName(path)
    r.Update()
    return r.GetOutput()
img = image("ship.vti")
alive = img.GetCellData().GetArray("alive")
# Golly's ship: cell (20, 19, 18) is alive, (19, 18, 18) is not; a cell's
# bounds are its coordinates +- 0.5.
for cell, want in (((20, 19, 18), 1), ((19, 18, 18), 0), ((20, 21, 21), None)):
    cid = img.ComputeCellId(list(cell))
    b = img.GetCell(cid).GetBounds()
    if [round((b[2 * i] + b[2 * i + 1]) / 2) for i in range(3)] != list(cell):
        bad.append("cell %s at %s" % (cell, b))
    if want is not None and alive.GetValue(cid) != want:
        bad.append("cell %s is %d" % (cell, alive.GetValue(cid)))
if img.GetDimensions() != (41, 41, 41):
    bad.append("dimensions %s" % (img.GetDimensions(),))
fd = img.GetFieldData()
if fd.GetAbstractArray("rule").GetValue(0) != "B58/S47" or \
   fd.GetArray("generation").GetTuple1(0) != 0:
    bad.append("field data")
live = sum(alive.GetValue(i) for i in range(alive.GetNumberOfTuples()))
t = vtk.vtkThreshold()
t.SetInputData(img)
t.SetInputArrayToProcess(0, 0, 0, vtk.vtkDataObject.FIELD_ASSOCIATION_CELLS, "alive")
t.SetLowerThreshold(1)
t.SetUpperThreshold(1)
t.Update()
if t.GetOutput().GetNumberOfCells() != live or live == 0:
    bad.append("Threshold from 1 keeps %d cells of %d" % (t.GetOutput().GetNumberOfCells(), live))
p = poly("ship.vtp")
if p.GetNumberOfPoints() != live or p.GetNumberOfVerts() != live:
    bad.append("points %d verts %d" % (p.GetNumberOfPoints(), p.GetNumberOfVerts()))
pts = {tuple(int(v) for v in p.GetPoint(i)) for i in range(p.GetNumberOfPoints())}
if (20, 19, 18) not in pts or (19, 18, 18) in pts:
    bad.append("points of the ship")
if poly("empty.vtp").GetNumberOfPoints() != 0:
    bad.append("empty points")
box = image("box.vti")
if box.GetBounds() != (1.5, 20.5, 2.5, 15.5, 3.5, 11.5):
    bad.append("box bounds %s" % (box.GetBounds(),))
c = image("c4.vti")
if c.GetSpacing() != (4, 4, 4) or c.GetCellData().GetArray("live") is None:
    bad.append("coarse image")
if bad:
    print("; ".join(bad))
    sys.exit(1)
PY
else
	echo "cli_vtk: Python's vtk not found (LIFE3D_VTK_PYTHON): VTK's own readers not run"
fi

finish
