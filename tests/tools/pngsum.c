/* pngsum - decode a PNG so shell tests can check snapshots without
 * trusting the writer.
 *
 *   pngsum FILE          "WIDTH HEIGHT TYPE SUM": TYPE is rgb8 or gray8
 *                        (anything else is refused), SUM the sum of all
 *                        samples
 *   pngsum -t FILE       the text chunks, one "KEY=VALUE" line each
 *   pngsum -p X,Y FILE   the samples of pixel (X, Y), e.g. "68 1 84"
 *   pngsum -r FILE       every pixel, one line each (as -p)
 *
 * Exit 1 on anything that is not a valid 8-bit grey or RGB PNG. */
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct image {
	png_uint_32 w, h;
	int channels;
	unsigned char *px;
	png_textp text;
	int n_text;
} image;

static void on_warning(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg;
}

static int decode(FILE *f, png_structp png, png_infop info, image *im)
{
	if (setjmp(png_jmpbuf(png)))
		return 1;
	png_init_io(png, f);
	png_read_info(png, info);
	int depth, type;
	png_get_IHDR(png, info, &im->w, &im->h, &depth, &type, NULL, NULL, NULL);
	if (depth != 8 || (type != PNG_COLOR_TYPE_RGB && type != PNG_COLOR_TYPE_GRAY)) {
		fprintf(stderr, "pngsum: not 8-bit grey or RGB (depth %d, type %d)\n",
			depth, type);
		return 1;
	}
	im->channels = type == PNG_COLOR_TYPE_RGB ? 3 : 1;
	size_t row = (size_t)im->w * (size_t)im->channels;
	im->px = malloc(row * im->h);
	if (!im->px)
		return 1;
	for (png_uint_32 y = 0; y < im->h; y++)
		png_read_row(png, im->px + y * row, NULL);
	png_read_end(png, info);
	png_get_text(png, info, &im->text, &im->n_text);
	return 0;
}

static void pixel(const image *im, unsigned long x, unsigned long y)
{
	const unsigned char *p = im->px + ((size_t)y * im->w + x) * (size_t)im->channels;
	for (int c = 0; c < im->channels; c++)
		printf(c ? " %u" : "%u", p[c]);
	printf("\n");
}

static int report(const image *im, char mode, const char *arg)
{
	if (mode == 't') {
		for (int i = 0; i < im->n_text; i++)
			printf("%s=%s\n", im->text[i].key, im->text[i].text);
		return 0;
	}
	if (mode == 'r') {
		for (png_uint_32 y = 0; y < im->h; y++)
			for (png_uint_32 x = 0; x < im->w; x++)
				pixel(im, x, y);
		return 0;
	}
	if (mode == 'p') {
		unsigned long x, y;
		if (sscanf(arg, "%lu,%lu", &x, &y) != 2 || x >= im->w || y >= im->h) {
			fprintf(stderr, "pngsum: no pixel '%s' in a %ux%u picture\n", arg,
				im->w, im->h);
			return 1;
		}
		pixel(im, x, y);
		return 0;
	}
	unsigned long long sum = 0;
	size_t n = (size_t)im->w * im->h * (size_t)im->channels;
	for (size_t i = 0; i < n; i++)
		sum += im->px[i];
	printf("%u %u %s %llu\n", im->w, im->h, im->channels == 3 ? "rgb8" : "gray8", sum);
	return 0;
}

int main(int argc, char **argv)
{
	char mode = 's';
	const char *arg = NULL;
	int i = 1;
	if (argc > 2 && argv[1][0] == '-') {
		mode = argv[1][1];
		if (mode == 'p' && argc > 3)
			arg = argv[++i];
		i++;
	}
	if (i != argc - 1 || !strchr("strp", mode) || (mode == 'p' && !arg)) {
		fprintf(stderr, "usage: pngsum [-t | -r | -p X,Y] FILE.png\n");
		return 2;
	}
	FILE *f = fopen(argv[i], "rb");
	if (!f) {
		perror(argv[i]);
		return 1;
	}
	image im = {0};
	png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, on_warning);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	int rc = !info || decode(f, png, info, &im);
	if (rc)
		fprintf(stderr, "pngsum: %s: cannot decode\n", argv[i]);
	else
		rc = report(&im, mode, arg);
	png_destroy_read_struct(&png, &info, NULL);
	free(im.px);
	fclose(f);
	return rc;
}
