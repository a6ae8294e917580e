/* fuzz.h - what the fuzz targets share.
 *
 * Each fuzz_<name>.c defines LLVMFuzzerTestOneInput for one input parser
 * and names itself in fuzz_target.  The same file links either with
 * libFuzzer (scripts/fuzz, clang -fsanitize=fuzzer) or with replay.c, whose
 * main() feeds it every saved input under tests/fuzz/{corpus,regress}/NAME
 * during make check.  A target reports a broken promise of the code under
 * test with fuzz_require, which aborts, so both drivers see it as a crash. */
#ifndef LIFE3D_FUZZ_H
#define LIFE3D_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "format/export.h"
#include "format/format.h"
#include "format/hpcgame.h"
#include "format/native.h"
#include "format/npy.h"
#include "format/rle2.h"
#include "format/rle3.h"

/* The target's name: the directory of its saved inputs. */
extern const char fuzz_target[];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort with "fuzz_<target>: <what>" when `ok` is false. */
#define fuzz_require(ok, what) fuzz_require_at((ok), (what), __FILE__, __LINE__)
void fuzz_require_at(int ok, const char *what, const char *file, int line);

/* The input as a NUL-terminated string (text parsers stop at the first
 * NUL, as they would on a C string).  Free it with free(). */
char *fuzz_text(const uint8_t *data, size_t size);

/* Universes above this size skip the write-and-read-back checks, which
 * would otherwise dominate the time of every run that reads one. */
#define FUZZ_ROUNDTRIP_BYTES ((size_t)1 << 20)

typedef int (*fuzz_reader_fn)(reader *r, grid *g, universe_meta *meta,
			      l3d_err *err);

/* Run `read` on the bytes through a memory FILE and check the contract
 * every reader shares: a known error code and a message on failure, an
 * empty grid on failure, the padding invariant on success. */
int fuzz_read(fuzz_reader_fn read, const uint8_t *data, size_t size, grid *g,
	      universe_meta *meta, l3d_err *err);

/* fuzz_read on a stream that fails with EIO once fail_at bytes are read;
 * L3D_ERR_IO ("...: read error: ...") is then one more right answer. */
int fuzz_read_failing(fuzz_reader_fn read, const uint8_t *data, size_t size,
		      size_t fail_at, grid *g, universe_meta *meta, l3d_err *err);

/* Write g in format f to memory, with what meta says besides the cells
 * (its rule when it has one, comments, a checkpoint's stamp; meta NULL:
 * none): *out is malloc'ed, the caller frees it. */
void fuzz_write(fmt_id f, const grid *g, const universe_meta *meta,
		unsigned char **out, size_t *len);

/* Require that writing g (and meta) in format f gives back exactly the
 * bytes read: for formats with one spelling of each universe. */
void fuzz_rewrites_exactly(fmt_id f, const grid *g, const universe_meta *meta,
			   const uint8_t *data, size_t size);

/* Write g in format f, read it back with `read`, and require the same
 * universe, generation and (when the format has them) rule and
 * comments. */
void fuzz_roundtrip(fmt_id f, fuzz_reader_fn read, const grid *g,
		    const universe_meta *meta);

#endif
