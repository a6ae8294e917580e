/* run.h - one whole run: read or make the universe, step it, log, take
 * snapshots, write the result.  Everything a user sees happen between
 * option parsing and exit. */
#ifndef LIFE3D_RUN_H
#define LIFE3D_RUN_H

#include "options.h"

/* Returns an l3d_status; err holds the message when it is not L3D_OK. */
int run(const options *o, l3d_err *err);

/* Set by the signal handler; the run stops between chunks of steps. */
void run_request_stop(int signo);

#endif
