/* l3d_fixture.h - editing native (.l3d) files in unit tests.
 *
 * reseal_l3d(b, len): b holds a whole native file, len bytes (the 64-byte
 * header, then the payload; len >= 64).  Rewrites both CRCs in place to
 * match the bytes as they are now, as life3d-formats(5) defines them:
 * first the payload CRC (CRC-32 of b[64..len), little-endian at offset 56),
 * then the header CRC (CRC-32 of b[0..60), which covers the payload CRC
 * just written, little-endian at offset 60).  Nothing else is changed or
 * checked.  A test edits one field, reseals, and then expects the reader
 * to reject that field rather than a CRC. */
#ifndef LIFE3D_L3D_FIXTURE_H
#define LIFE3D_L3D_FIXTURE_H

#include <stddef.h>

void reseal_l3d(unsigned char *b, size_t len);

#endif
