/* clock.h - the one clock life3d measures with: monotonic seconds, as a
 * double, from an arbitrary start.  Durations are differences of two
 * readings; nothing compares a reading with wall-clock time. */
#ifndef LIFE3D_BASE_CLOCK_H
#define LIFE3D_BASE_CLOCK_H

double l3d_seconds(void);

#endif
