/* l3d_fixture.c - see l3d_fixture.h. */
#include "l3d_fixture.h"

#include <stdint.h>
#include <zlib.h>

static void put_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++, v >>= 8)
		p[i] = (unsigned char)v;
}

/* CRC-32 of any length (zlib's crc32 takes a uInt). */
static uint32_t crc_of(const unsigned char *p, size_t n)
{
	uLong crc = crc32(0, Z_NULL, 0);
	while (n > 0) {
		uInt piece = n > (1u << 30) ? (1u << 30) : (uInt)n;
		crc = crc32(crc, p, piece);
		p += piece;
		n -= piece;
	}
	return (uint32_t)crc;
}

void reseal_l3d(unsigned char *b, size_t len)
{
	put_le32(b + 56, crc_of(b + 64, len - 64));
	put_le32(b + 60, crc_of(b, 60));
}
