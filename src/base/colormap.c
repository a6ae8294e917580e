/* colormap.c - see colormap.h. */
#include "colormap.h"

static const uint8_t points[10][3] = {
	{0x44, 0x01, 0x54}, {0x48, 0x28, 0x78}, {0x3E, 0x4A, 0x89},
	{0x31, 0x68, 0x8E}, {0x26, 0x82, 0x8E}, {0x1F, 0x9E, 0x89},
	{0x35, 0xB7, 0x79}, {0x6D, 0xCD, 0x59}, {0xB4, 0xDE, 0x2C},
	{0xFD, 0xE7, 0x25},
};

void colormap_rgb(unsigned i, uint8_t rgb[3])
{
	i = i > 255 ? 255 : i;
	unsigned pos = i * 9, k = pos / 255, f = pos % 255;
	if (k == 9) {
		k = 8;
		f = 255;
	}
	for (int c = 0; c < 3; c++)
		rgb[c] = (uint8_t)((points[k][c] * (255 - f) + points[k + 1][c] * f + 127) / 255);
}

unsigned colormap_index(uint64_t count, uint64_t max)
{
	if (count >= max || max <= 1)
		return 255;
	if (count == 0)
		return 0;
	return (unsigned)(((count - 1) * 255 + (max - 1) / 2) / (max - 1));
}
