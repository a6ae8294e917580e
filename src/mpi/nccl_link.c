/* nccl_link.c - see nccl_link.h.
 *
 * The NCCL functions are looked up in the library at run time; nccl.h
 * gives their types only.  Before NCCL is asked for a communicator, the
 * ranks compare their GPUs themselves (node name and PCI bus id): NCCL
 * refuses two ranks on one GPU, and saying which ranks share which GPU is
 * clearer than its "invalid usage". */
#include "nccl_link.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef HAVE_NCCL

int nccl_link_open(nccl_link **out, l3d_err *err)
{
	*out = NULL;
	return l3d_fail(err, L3D_ERR_UNAVAILABLE,
			"NCCL is not built in (configure found no nccl.h)");
}

int nccl_link_exchange(nccl_link *l, const void *lo_out, const void *hi_out,
		       void *lo_in, void *hi_in, size_t words, int left, int right,
		       cudaStream_t stream, l3d_err *err)
{
	(void)l, (void)lo_out, (void)hi_out, (void)lo_in, (void)hi_in, (void)words;
	(void)left, (void)right, (void)stream;
	return l3d_fail(err, L3D_ERR_RUNTIME, "NCCL is not built in");
}

int nccl_link_check(nccl_link *l, l3d_err *err)
{
	(void)l, (void)err;
	return L3D_OK;
}

const char *nccl_link_name(const nccl_link *l)
{
	(void)l;
	return "NCCL";
}

void nccl_link_close(nccl_link *l)
{
	(void)l;
}

#else /* HAVE_NCCL */

#include <dlfcn.h>
#include <unistd.h>

#include <nccl.h>

#include "comm.h"

/* The part of NCCL's API a link uses, from the library. */
typedef struct nccl_api {
	void *lib;
	ncclResult_t (*get_version)(int *);
	ncclResult_t (*get_unique_id)(ncclUniqueId *);
	ncclResult_t (*comm_init_rank)(ncclComm_t *, int, ncclUniqueId, int);
	ncclResult_t (*comm_destroy)(ncclComm_t);
	ncclResult_t (*comm_abort)(ncclComm_t);
	ncclResult_t (*comm_get_async_error)(ncclComm_t, ncclResult_t *);
	const char *(*get_error_string)(ncclResult_t);
	ncclResult_t (*group_start)(void);
	ncclResult_t (*group_end)(void);
	ncclResult_t (*send)(const void *, size_t, ncclDataType_t, int, ncclComm_t,
			     cudaStream_t);
	ncclResult_t (*recv)(void *, size_t, ncclDataType_t, int, ncclComm_t,
			     cudaStream_t);
} nccl_api;

struct nccl_link {
	nccl_api api;
	ncclComm_t comm;
	char name[32];
};

#define NCCL_LIBRARY "libnccl.so.2"

static int load_api(nccl_api *a, l3d_err *err)
{
	static const char *const names[] = {
		"ncclGetVersion", "ncclGetUniqueId", "ncclCommInitRank",
		"ncclCommDestroy", "ncclCommAbort", "ncclCommGetAsyncError",
		"ncclGetErrorString", "ncclGroupStart", "ncclGroupEnd", "ncclSend",
		"ncclRecv"};
	void **slots[] = {
		(void **)&a->get_version, (void **)&a->get_unique_id,
		(void **)&a->comm_init_rank, (void **)&a->comm_destroy,
		(void **)&a->comm_abort, (void **)&a->comm_get_async_error,
		(void **)&a->get_error_string, (void **)&a->group_start,
		(void **)&a->group_end, (void **)&a->send, (void **)&a->recv};
	a->lib = dlopen(NCCL_LIBRARY, RTLD_NOW | RTLD_LOCAL);
	if (!a->lib)
		return l3d_fail(err, L3D_ERR_UNAVAILABLE, "NCCL: %s", dlerror());
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!(*slots[i] = dlsym(a->lib, names[i])))
			return l3d_fail(err, L3D_ERR_UNAVAILABLE,
					"NCCL: %s has no %s", NCCL_LIBRARY, names[i]);
	return L3D_OK;
}

static int nccl_fail(const nccl_link *l, ncclResult_t r, int code,
		     const char *what, l3d_err *err)
{
	return l3d_fail(err, code, "NCCL: %s: %s", what, l->api.get_error_string(r));
}

/* Which GPU this rank drives, as "node/bus id". */
static int gpu_identity(char id[96], l3d_err *err)
{
	char host[48] = "", bus[32] = "";
	int device;
	gethostname(host, sizeof host - 1);
	if (cudaGetDevice(&device) != cudaSuccess ||
	    cudaDeviceGetPCIBusId(bus, sizeof bus, device) != cudaSuccess) {
		cudaGetLastError();
		return l3d_fail(err, L3D_ERR_UNAVAILABLE, "NCCL: this rank's GPU is unknown");
	}
	memset(id, 0, 96);
	snprintf(id, 96, "%s/%s", host, bus);
	return L3D_OK;
}

/* Collective: L3D_ERR_UNAVAILABLE when two ranks drive one GPU. */
static int distinct_gpus(l3d_err *err)
{
	char mine[96];
	int rc = comm_agree(gpu_identity(mine, err), err);
	if (rc)
		return rc;
	int size = comm_size();
	char *all = malloc((size_t)size * sizeof mine);
	if (!all)   /* every rank allocates the same: all fail alike */
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory");
	MPI_Allgather(mine, sizeof mine, MPI_CHAR, all, sizeof mine, MPI_CHAR, comm_world);
	for (int i = 0; i < size && !rc; i++)
		for (int j = i + 1; j < size && !rc; j++)
			if (strcmp(all + i * sizeof mine, all + j * sizeof mine) == 0)
				rc = l3d_fail(err, L3D_ERR_UNAVAILABLE,
					      "NCCL: ranks %d and %d share the GPU %s",
					      i, j, all + i * sizeof mine);
	free(all);
	return rc;
}

/* Collective: the communicator, from an id rank 0 makes. */
static int make_comm(nccl_link *l, l3d_err *err)
{
	ncclUniqueId id;
	memset(&id, 0, sizeof id);
	int rc = L3D_OK;
	if (comm_rank() == 0) {
		ncclResult_t r = l->api.get_unique_id(&id);
		if (r != ncclSuccess)
			rc = nccl_fail(l, r, L3D_ERR_UNAVAILABLE, "making an id", err);
	}
	rc = comm_agree(rc, err);
	if (rc)
		return rc;
	MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, comm_world);
	ncclResult_t r = l->api.comm_init_rank(&l->comm, comm_size(), id, comm_rank());
	if (r != ncclSuccess) {
		l->comm = NULL;
		rc = nccl_fail(l, r, L3D_ERR_UNAVAILABLE, "setting up the ranks", err);
	}
	return comm_agree(rc, err);
}

int nccl_link_open(nccl_link **out, l3d_err *err)
{
	*out = NULL;
	nccl_link *l = calloc(1, sizeof *l);
	int rc = l ? load_api(&l->api, err) : l3d_fail(err, L3D_ERR_RUNTIME, "out of memory");
	rc = comm_agree(rc, err);
	if (!rc)
		rc = distinct_gpus(err);
	if (!rc)
		rc = make_comm(l, err);
	if (rc) {
		if (l && l->comm)      /* some ranks got one: no collective end */
			l->api.comm_abort(l->comm);
		free(l);
		return rc;
	}
	int v = 0;
	l->api.get_version(&v);
	snprintf(l->name, sizeof l->name, "NCCL %d.%d.%d", v / 10000, v / 100 % 100, v % 100);
	*out = l;
	return L3D_OK;
}

/* The order makes two ranks work, where each is both neighbours of the
 * other: NCCL pairs the k-th send to a rank with that rank's k-th receive
 * from the sender, so the first send (to the right) must meet the first
 * receive (from the left). */
int nccl_link_exchange(nccl_link *l, const void *lo_out, const void *hi_out,
		       void *lo_in, void *hi_in, size_t words, int left, int right,
		       cudaStream_t stream, l3d_err *err)
{
	const nccl_api *a = &l->api;
	ncclResult_t r = a->group_start();
	if (r == ncclSuccess) {
		ncclResult_t q[4] = {
			a->recv(lo_in, words, ncclUint64, left, l->comm, stream),
			a->send(hi_out, words, ncclUint64, right, l->comm, stream),
			a->recv(hi_in, words, ncclUint64, right, l->comm, stream),
			a->send(lo_out, words, ncclUint64, left, l->comm, stream)};
		ncclResult_t end = a->group_end();
		for (int i = 0; i < 4 && r == ncclSuccess; i++)
			r = q[i];
		r = r == ncclSuccess ? end : r;
	}
	return r == ncclSuccess ? L3D_OK
				: nccl_fail(l, r, L3D_ERR_RUNTIME, "exchanging halos", err);
}

int nccl_link_check(nccl_link *l, l3d_err *err)
{
	ncclResult_t async = ncclSuccess;
	ncclResult_t r = l->api.comm_get_async_error(l->comm, &async);
	r = r == ncclSuccess ? async : r;
	return r == ncclSuccess ? L3D_OK
				: nccl_fail(l, r, L3D_ERR_RUNTIME, "exchanging halos", err);
}

const char *nccl_link_name(const nccl_link *l)
{
	return l->name;
}

/* The library stays loaded: NCCL's threads may outlive the communicator
 * by a little. */
void nccl_link_close(nccl_link *l)
{
	if (!l)
		return;
	if (l->comm)
		l->api.comm_destroy(l->comm);
	free(l);
}

#endif /* HAVE_NCCL */
