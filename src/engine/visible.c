/* visible.c - see visible.h. */
#include "visible.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether name is "nvidia" and a device number, as the driver's nodes
 * for each GPU are (not nvidiactl, nvidia-uvm, ...). */
static bool gpu_node(const char *name)
{
	if (strncmp(name, "nvidia", 6) != 0 || !name[6])
		return false;
	for (const char *c = name + 6; *c; c++)
		if (*c < '0' || *c > '9')
			return false;
	return true;
}

int engine_gpus_to_set_up(const char *dev_dir, const char *visible)
{
	int nodes = 0;
	DIR *dev = opendir(dev_dir);
	if (dev) {
		for (struct dirent *d; (d = readdir(dev));)
			nodes += gpu_node(d->d_name);
		closedir(dev);
	}
	if (visible) {
		int listed = *visible != '\0';
		for (const char *c = visible; *c; c++)
			listed += *c == ',';
		nodes = listed < nodes ? listed : nodes;
	}
	return nodes;
}

/* ---- the driver's list of GPUs ---- */

/* More GPUs than one node has; a driver listing more is not narrowed. */
#define MOST_GPUS 64

typedef struct gpu_info {
	char bus[32];      /* its directory, the PCI address: the driver's order */
	char model[96];
	char uuid[64];
	bool excluded;
} gpu_info;

/* The value of "key:" on a line of an information file, trimmed. */
static bool field(const char *line, const char *key, char *out, size_t size)
{
	size_t n = strlen(key);
	if (strncmp(line, key, n) != 0 || line[n] != ':')
		return false;
	const char *v = line + n + 1;
	v += strspn(v, " \t");
	size_t len = strcspn(v, "\r\n");
	while (len && (v[len - 1] == ' ' || v[len - 1] == '\t'))
		len--;
	snprintf(out, size, "%.*s", (int)len, v);
	return true;
}

static bool read_info(const char *dir, const char *bus, gpu_info *g)
{
	char path[512], line[256], excluded[16] = "";
	snprintf(path, sizeof path, "%s/%s/information", dir, bus);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	memset(g, 0, sizeof *g);
	snprintf(g->bus, sizeof g->bus, "%s", bus);
	while (fgets(line, sizeof line, f)) {
		field(line, "Model", g->model, sizeof g->model);
		field(line, "GPU UUID", g->uuid, sizeof g->uuid);
		field(line, "GPU Excluded", excluded, sizeof excluded);
	}
	fclose(f);
	g->excluded = strcmp(excluded, "No") != 0 && excluded[0] != '\0';
	return g->model[0] && g->uuid[0];
}

static int by_bus(const void *a, const void *b)
{
	return strcmp(((const gpu_info *)a)->bus, ((const gpu_info *)b)->bus);
}

/* The driver's GPUs in its order (nvidia-smi's: by PCI address), or -1
 * when that is not certain: unreadable, too many, or any excluded (CUDA
 * leaves those out, and the indices would shift). */
static int read_gpus(const char *dir, gpu_info *gpus)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	bool sure = true;
	for (struct dirent *e; sure && (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		sure = n < MOST_GPUS && strlen(e->d_name) < sizeof gpus[n].bus &&
		       read_info(dir, e->d_name, &gpus[n]) && !gpus[n].excluded;
		n++;
	}
	closedir(d);
	if (!sure)
		return -1;
	qsort(gpus, (size_t)n, sizeof *gpus, by_bus);
	return n;
}

/* ---- the entries of CUDA_VISIBLE_DEVICES ---- */

/* The driver's index of the GPU an entry names, or -1 unless certain: a
 * whole number below the count, or a GPU- UUID (whole or a prefix, as
 * CUDA takes it) that begins exactly one GPU's. */
static int entry_index(const char *entry, size_t len, const gpu_info *gpus, int n)
{
	if (len && strspn(entry, "0123456789") >= len) {
		if (len > 4)
			return -1;
		int i = (int)strtol(entry, NULL, 10);
		return i < n ? i : -1;
	}
	if (len <= 4 || strncmp(entry, "GPU-", 4) != 0)
		return -1;    /* MIG- entries and anything else: not sure */
	int found = -1;
	for (int i = 0; i < n; i++)
		if (strlen(gpus[i].uuid) >= len && strncmp(gpus[i].uuid, entry, len) == 0) {
			if (found >= 0)
				return -1;
			found = i;
		}
	return found;
}

/* Entry `device` of the list, when it and all before it name distinct
 * GPUs for certain and the list names more than that one.  An index and
 * a UUID are only compared where CUDA's order is the driver's
 * (order_known): else the index may mean another GPU than the driver's. */
static bool list_entry(const char *visible, const gpu_info *gpus, int n, int device,
		       bool order_known, char *entry, size_t size)
{
	bool seen[MOST_GPUS] = {false}, by_index = false, by_uuid = false;
	const char *at = visible;
	for (int k = 0; k <= device; k++) {
		size_t len = strcspn(at, ",");
		int i = entry_index(at, len, gpus, n);
		if (i < 0 || seen[i])
			return false;
		seen[i] = true;
		*(at[0] == 'G' ? &by_uuid : &by_index) = true;
		if (by_uuid && by_index && !order_known)
			return false;
		if (k == device) {
			if (len >= size || (k == 0 && !at[len]))
				return false;    /* too long, or the list's only entry */
			snprintf(entry, size, "%.*s", (int)len, at);
			return true;
		}
		if (!at[len])
			return false;    /* the list ends before `device` */
		at += len + 1;
	}
	return false;
}

static bool one_model(const gpu_info *gpus, int n)
{
	for (int i = 1; i < n; i++)
		if (strcmp(gpus[i].model, gpus[0].model) != 0)
			return false;
	return true;
}

bool engine_one_gpu(const char *visible, const char *order, const char *gpus_dir,
		    int device, char *entry, size_t size)
{
	gpu_info gpus[MOST_GPUS];
	int n = read_gpus(gpus_dir, gpus);
	if (n < 2 || device < 0 || device >= n)
		return false;
	bool order_known = (order && strcmp(order, "PCI_BUS_ID") == 0) || one_model(gpus, n);
	if (visible)
		return list_entry(visible, gpus, n, device, order_known, entry, size);
	if (!order_known)
		return false;
	return snprintf(entry, size, "%d", device) < (int)size;
}
