/* pngsum - decode a PNG and print "WIDTH HEIGHT SUM" (sum of all samples),
 * so shell tests can check snapshots without trusting the writer.
 * Exit 1 on anything that is not a valid 8-bit grey PNG. */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: pngsum FILE.png\n");
		return 2;
	}
	png_image img = {.version = PNG_IMAGE_VERSION};
	if (!png_image_begin_read_from_file(&img, argv[1])) {
		fprintf(stderr, "pngsum: %s: %s\n", argv[1], img.message);
		return 1;
	}
	if (img.format != PNG_FORMAT_GRAY) {
		fprintf(stderr, "pngsum: %s: not 8-bit grey\n", argv[1]);
		return 1;
	}
	size_t n = PNG_IMAGE_SIZE(img);
	unsigned char *buf = malloc(n);
	if (!buf || !png_image_finish_read(&img, NULL, buf, 0, NULL)) {
		fprintf(stderr, "pngsum: %s: %s\n", argv[1], img.message);
		return 1;
	}
	unsigned long long sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += buf[i];
	printf("%u %u %llu\n", img.width, img.height, sum);
	free(buf);
	return 0;
}
