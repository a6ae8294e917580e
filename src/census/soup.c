/* soup.c - the census's soups from SHA-256 (soup.h). */
#include "soup.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <nettle/sha2.h>

int soup_root_check(const char *root, l3d_err *err)
{
	size_t n = strlen(root);
	if (n == 0 || n > SOUP_ROOT_MAX)
		return l3d_fail(err, L3D_ERR_USAGE,
				"census root '%s': expected 1 to %d characters", root,
				SOUP_ROOT_MAX);
	for (size_t i = 0; i < n; i++)
		if (root[i] <= ' ' || root[i] > '~')
			return l3d_fail(err, L3D_ERR_USAGE,
					"census root '%s': only printable characters without spaces",
					root);
	return L3D_OK;
}

uint64_t soup_seed(const char *root, uint64_t index)
{
	char text[SOUP_ROOT_MAX + 32];
	int n = snprintf(text, sizeof text, "%s/%" PRIu64, root, index);
	struct sha256_ctx ctx;
	uint8_t digest[SHA256_DIGEST_SIZE];
	sha256_init(&ctx);
	sha256_update(&ctx, (size_t)n, (const uint8_t *)text);
	sha256_digest(&ctx, sizeof digest, digest);
	uint64_t seed = 0;
	for (int i = 0; i < 8; i++)
		seed = seed << 8 | digest[i];
	return seed;
}

int soup_parse_name(const char *name, char *root, uint64_t *index, l3d_err *err)
{
	const char *slash = strrchr(name, '/');
	size_t n = slash ? (size_t)(slash - name) : 0;
	const char *digits = slash ? slash + 1 : "";
	bool ok = slash && n <= SOUP_ROOT_MAX && digits[0] >= '0' && digits[0] <= '9' &&
		  (digits[0] != '0' || digits[1] == '\0');
	uint64_t v = 0;
	for (const char *d = digits; ok && *d; d++) {
		unsigned k = (unsigned)(*d - '0');
		ok = *d >= '0' && *d <= '9' && v <= (UINT64_MAX - k) / 10;
		v = v * 10 + k;
	}
	if (!ok)
		return l3d_fail(err, L3D_ERR_USAGE,
				"soup '%s': expected ROOT/INDEX (a root, '/', a whole number)",
				name);
	memcpy(root, name, n);
	root[n] = '\0';
	*index = v;
	return soup_root_check(root, err);
}

int soup_make(const char *root, uint64_t index, uint32_t side, double density,
	      grid *out, l3d_err *err)
{
	int rc = grid_alloc(out, side, side, side, err);
	if (rc)
		return rc;
	grid_random(out, density, soup_seed(root, index));
	return L3D_OK;
}
