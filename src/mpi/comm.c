/* comm.c - see comm.h.  The MPI half is compiled only with --with-mpi; the
 * other builds get the one-process half. */
#include "comm.h"

#include <stdlib.h>
#include <string.h>

static int my_rank, n_ranks = 1, my_local_rank, n_local_ranks = 1;
static bool launched;

#ifdef HAVE_MPI
#if defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>       /* Open MPI's MPIX_CUDA_AWARE_SUPPORT */
#endif
#endif

MPI_Comm comm_world = MPI_COMM_NULL;

/* Launchers announce themselves in the environment: Open MPI's mpirun,
 * and PMIx / PMI, which srun and the other launchers speak.  Without
 * one, MPI_Init would make a singleton job for nothing. */
static bool under_launcher(char *(*get)(const char *name))
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK",
					   "PMI_RANK", "PMI_SIZE"};
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
		if (get(vars[i]))
			return true;
	return false;
}

void comm_init(int *argc, char ***argv, char *(*get)(const char *name))
{
	if (!under_launcher(get))
		return;
	int provided;
	/* Engines may run threads, but only the main thread talks MPI. */
	MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
	launched = true;
	MPI_Comm_dup(MPI_COMM_WORLD, &comm_world);
	MPI_Comm_rank(comm_world, &my_rank);
	MPI_Comm_size(comm_world, &n_ranks);
	MPI_Comm node;
	MPI_Comm_split_type(comm_world, MPI_COMM_TYPE_SHARED, my_rank,
			    MPI_INFO_NULL, &node);
	MPI_Comm_rank(node, &my_local_rank);
	MPI_Comm_size(node, &n_local_ranks);
	MPI_Comm_free(&node);
}

void comm_finalize(void)
{
	if (!launched)
		return;
	MPI_Comm_free(&comm_world);
	MPI_Finalize();
	launched = false;
}

/* Asked of the library loaded at run time, not of the headers built
 * against: the same binary may meet an Open MPI built with CUDA. */
bool comm_cuda_aware(void)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT)
	return launched && MPIX_Query_cuda_support() == 1;
#else
	return false;
#endif
}

int comm_agree(int rc, l3d_err *err)
{
	if (n_ranks == 1)
		return rc;
	int mine = rc ? my_rank : n_ranks, first;
	MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm_world);
	if (first == n_ranks)
		return L3D_OK;
	l3d_err e = {rc, ""};
	if (my_rank == first && err) {
		memcpy(e.msg, err->msg, sizeof e.msg);
	} else if (my_rank == first) {
		snprintf(e.msg, sizeof e.msg, "rank %d failed", first);
	}
	MPI_Bcast(&e, (int)sizeof e, MPI_BYTE, first, comm_world);
	if (err)
		*err = e;
	return e.code;
}

bool comm_any(bool v)
{
	int in = v, out = in;
	if (n_ranks > 1)
		MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LOR, comm_world);
	return out != 0;
}

double comm_max(double v)
{
	double out = v;
	if (n_ranks > 1)
		MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, comm_world);
	return out;
}

uint64_t comm_sum(uint64_t v)
{
	uint64_t out = v;
	if (n_ranks > 1)
		MPI_Allreduce(&v, &out, 1, MPI_UINT64_T, MPI_SUM, comm_world);
	return out;
}

uint64_t comm_bcast(uint64_t v)
{
	if (n_ranks > 1)
		MPI_Bcast(&v, 1, MPI_UINT64_T, 0, comm_world);
	return v;
}

int comm_mpi_fail(int mpirc, int code, const char *what, l3d_err *err)
{
	char text[MPI_MAX_ERROR_STRING];
	int len = 0;
	if (MPI_Error_string(mpirc, text, &len) != MPI_SUCCESS)
		snprintf(text, sizeof text, "MPI error %d", mpirc);
	return l3d_fail(err, code, "%s: %s", what, text);
}

/* Pieces of 1 GiB keep every count far below INT_MAX. */
#define PIECE ((size_t)1 << 30)

void comm_send(const void *buf, size_t bytes, int to, int tag)
{
	const char *p = buf;
	do {
		size_t k = bytes < PIECE ? bytes : PIECE;
		MPI_Send(p, (int)k, MPI_BYTE, to, tag, comm_world);
		p += k;
		bytes -= k;
	} while (bytes);
}

void comm_recv(void *buf, size_t bytes, int from, int tag)
{
	char *p = buf;
	do {
		size_t k = bytes < PIECE ? bytes : PIECE;
		MPI_Recv(p, (int)k, MPI_BYTE, from, tag, comm_world, MPI_STATUS_IGNORE);
		p += k;
		bytes -= k;
	} while (bytes);
}

enum { TAG_SLAB = 100 };

static size_t slab_bytes(const grid *g, uint64_t planes)
{
	return (size_t)(planes * g->ny * g->words * 8);
}

/* Between rank 0's whole universe and every rank's slab, either way. */
static void move_slabs(grid *whole, grid *slab, bool to_slabs)
{
	if (my_rank != 0) {
		if (to_slabs)
			comm_recv(slab->bits, grid_bytes(slab), 0, TAG_SLAB);
		else
			comm_send(slab->bits, grid_bytes(slab), 0, TAG_SLAB);
		return;
	}
	if (to_slabs)
		memcpy(slab->bits, whole->bits, grid_bytes(slab));
	else
		memcpy(whole->bits, slab->bits, grid_bytes(slab));
	for (int r = 1; r < n_ranks; r++) {
		uint64_t x0, n;
		comm_slab_of(whole->nx, n_ranks, r, &x0, &n);
		uint64_t *planes = grid_row(whole, x0, 0);
		if (to_slabs)
			comm_send(planes, slab_bytes(whole, n), r, TAG_SLAB);
		else
			comm_recv(planes, slab_bytes(whole, n), r, TAG_SLAB);
	}
}

void comm_scatter_slabs(const grid *whole, grid *slab)
{
	move_slabs((grid *)whole, slab, true);
}

void comm_gather_slabs(const grid *slab, grid *whole)
{
	move_slabs(whole, (grid *)slab, false);
}

int comm_gather_bytes(const void *mine, size_t len, void ***out, size_t **lens, l3d_err *err)
{
	enum { TAG = 4242 };
	uint64_t n = len;
	*out = NULL;
	*lens = NULL;
	if (my_rank != 0) {
		comm_send(&n, sizeof n, 0, TAG);
		if (comm_bcast(0))   /* rank 0 has room for everyone's */
			comm_send(mine, len, 0, TAG);
		return L3D_OK;
	}
	void **o = calloc((size_t)n_ranks, sizeof *o);
	size_t *l = calloc((size_t)n_ranks, sizeof *l);
	bool ok = o && l;
	for (int r = 0; r < n_ranks; r++) {
		if (r > 0)
			comm_recv(&n, sizeof n, r, TAG);
		void *b = ok ? malloc(n ? n : 1) : NULL;
		ok = ok && b;
		if (b) {
			o[r] = b;
			l[r] = n;
		}
	}
	comm_bcast(ok);
	for (int r = 1; ok && r < n_ranks; r++)
		comm_recv(o[r], l[r], r, TAG);
	if (ok)
		memcpy(o[0], mine, len);
	*out = o;
	*lens = l;
	return ok ? L3D_OK : l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for the ranks' hauls");
}

#else /* one process */

void comm_init(int *argc, char ***argv, char *(*get)(const char *name))
{
	(void)argc, (void)argv, (void)get;
}
void comm_finalize(void) {}
bool comm_cuda_aware(void) { return false; }
int comm_agree(int rc, l3d_err *err) { (void)err; return rc; }
bool comm_any(bool v) { return v; }
double comm_max(double v) { return v; }
uint64_t comm_sum(uint64_t v) { return v; }
uint64_t comm_bcast(uint64_t v) { return v; }

int comm_gather_bytes(const void *mine, size_t len, void ***out, size_t **lens, l3d_err *err)
{
	void **o = calloc(1, sizeof *o);
	size_t *l = calloc(1, sizeof *l);
	void *b = malloc(len ? len : 1);
	*out = o;
	*lens = l;
	if (!o || !l || !b) {
		free(b);
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory");
	}
	memcpy(b, mine, len);
	o[0] = b;
	l[0] = len;
	return L3D_OK;
}

#endif

int comm_rank(void) { return my_rank; }
int comm_size(void) { return n_ranks; }
int comm_local_rank(void) { return my_local_rank; }
int comm_local_size(void) { return n_local_ranks; }

bool comm_tty_guard(bool binary)
{
	return binary && !launched;
}

void comm_slab_of(uint64_t nx, int size, int rank, uint64_t *x0, uint64_t *n)
{
	uint64_t base = nx / (uint64_t)size, extra = nx % (uint64_t)size;
	uint64_t r = (uint64_t)rank;
	*n = base + (r < extra);
	*x0 = r * base + (r < extra ? r : extra);
}

int comm_split(uint64_t nx, const char *what, uint64_t *x0, uint64_t *n,
	       l3d_err *err)
{
	if ((uint64_t)n_ranks > nx)
		return l3d_fail(err, L3D_ERR_USAGE,
				"%s: %d ranks but only %llu x-planes: more ranks than x-planes (run at most %llu)",
				what, n_ranks, (unsigned long long)nx,
				(unsigned long long)nx);
	comm_slab_of(nx, n_ranks, my_rank, x0, n);
	return L3D_OK;
}
