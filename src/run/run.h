/* run.h - one whole run: read or make the universe, step it, log, take
 * snapshots, write the result.  Everything a user sees happen between
 * option parsing and exit. */
#ifndef LIFE3D_RUN_H
#define LIFE3D_RUN_H

#include <stdbool.h>

#include "cli/options.h"
#include "engine/knobs.h"

/* The run o asks for, with the environment's knobs (engine_knobs_read;
 * NULL: none).  Returns an l3d_status; err holds the message when it is
 * not L3D_OK. */
int run(const options *o, const engine_knobs *knobs, l3d_err *err);

/* Called from signal handlers.  A stop finishes the steps in flight,
 * writes a checkpoint, flushes the log and ends the run with
 * L3D_ERR_INTERRUPTED; once the last step is done, the result is written
 * and the run ends as it would have.  true: the input is still being read,
 * there is nothing to save, and the caller should end the process at once.
 * A checkpoint request writes one and goes on. */
bool run_request_stop(int signo);
void run_request_checkpoint(void);
/* Whether the result is in place (the run may still be finishing its
 * last picture); safe to call from a signal handler. */
bool run_result_written(void);

#endif
