/* graphs.c - a cache of captured runs of launches (see graphs.h). */
#include "graphs.h"

#include <string.h>

static cudaError_t capture(cudaGraphExec_t *exec, const uint64_t key[GRAPH_KEY],
			   graph_issue_fn issue, void *ctx, cudaStream_t s)
{
	cudaGraph_t graph = NULL;
	cudaError_t e = cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
	if (e != cudaSuccess)
		return e;
	e = issue(ctx, key, s);
	cudaError_t end = cudaStreamEndCapture(s, &graph);
	if (e == cudaSuccess)
		e = end;
	if (e == cudaSuccess)
		e = cudaGraphInstantiate(exec, graph, 0);
	if (graph)
		cudaGraphDestroy(graph);
	if (e != cudaSuccess)
		*exec = NULL;
	return e;
}

cudaError_t graph_cache_launch(graph_cache *g, const uint64_t key[GRAPH_KEY],
			       graph_issue_fn issue, void *ctx, cudaStream_t s)
{
	int hit = -1, victim = 0;
	for (int i = 0; i < GRAPH_SLOTS && hit < 0; i++) {
		if (g->slot[i].exec && !memcmp(g->slot[i].key, key, sizeof g->slot[i].key))
			hit = i;
		else if (!g->slot[i].exec ||
			 (g->slot[victim].exec && g->slot[i].used < g->slot[victim].used))
			victim = i;
	}
	if (hit < 0) {
		hit = victim;
		if (g->slot[hit].exec)
			cudaGraphExecDestroy(g->slot[hit].exec);
		memcpy(g->slot[hit].key, key, sizeof g->slot[hit].key);
		cudaError_t e = capture(&g->slot[hit].exec, key, issue, ctx, s);
		if (e != cudaSuccess)
			return e;
	}
	g->slot[hit].used = ++g->clock;
	return cudaGraphLaunch(g->slot[hit].exec, s);
}

void graph_cache_clear(graph_cache *g)
{
	for (int i = 0; i < GRAPH_SLOTS; i++)
		if (g->slot[i].exec)
			cudaGraphExecDestroy(g->slot[i].exec);
	memset(g, 0, sizeof *g);
}
