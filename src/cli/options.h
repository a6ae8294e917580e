/* options.h - every setting of a run, and the one table that describes them.
 *
 * The table drives the command line (cli.c), the configuration file
 * (conffile.c) and --help, so an option cannot exist in one and not the
 * others.  The libconfig key of an option is its long name with '_' for
 * '-' (--log-every -> log_every).  Command-line values override the file:
 * each option records whether it was set and by whom. */
#ifndef LIFE3D_CLI_OPTIONS_H
#define LIFE3D_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

/* A checkpoint every 15 minutes of wall time unless told otherwise, as
 * GROMACS writes one: a run killed (SIGKILL, a lost node, the OOM killer)
 * loses at most that much. */
#define OPTION_CHECKPOINT_INTERVAL 900.0

typedef enum opt_id {
	OPT_OUTPUT, OPT_FORCE, OPT_STEPS, OPT_UNTIL, OPT_RULE, OPT_CONFIG,
	OPT_ENGINE, OPT_THREADS, OPT_DEVICE, OPT_SIMD, OPT_FORMAT, OPT_BOX, OPT_COARSEN,
	OPT_RANDOM,
	OPT_DENSITY, OPT_RANDOM_SHAPE, OPT_SEED, OPT_RANDOM_RULE, OPT_PLANE, OPT_PLANE_INDEX, OPT_DOUBLE,
	OPT_COMMENT,
	OPT_QUIET, OPT_VERBOSE, OPT_LOG, OPT_LOG_EVERY, OPT_SUMMARY,
	OPT_SNAPSHOT_EVERY, OPT_SNAPSHOT_PREFIX, OPT_SNAPSHOT_KIND,
	OPT_SLICE_AXIS, OPT_SLICE_INDEX, OPT_SNAPSHOT_SCALE, OPT_SNAPSHOT_SIZE,
	OPT_SNAPSHOT_MAX, OPT_SNAPSHOT_SCALING, OPT_SNAPSHOT_VIEW, OPT_CHECKPOINT,
	OPT_CHECKPOINT_EVERY, OPT_CHECKPOINT_INTERVAL, OPT_MAX_TIME, OPT_INPUT,
	OPT_HELP, OPT_VERSION,
	OPT_COUNT
} opt_id;

typedef enum opt_type {
	OT_FLAG,     /* no argument on the command line; bool in the config */
	OT_UINT,     /* unsigned integer in [min, max] */
	OT_INT,      /* signed integer in [min, max] */
	OT_DOUBLE,   /* real in [min, max] */
	OT_STRING,   /* free text (paths, rule, sizes) */
	OT_CHOICE    /* one of the '|'-separated words in `choices` */
} opt_type;

typedef enum opt_origin { ORIGIN_DEFAULT = 0, ORIGIN_CONFIG, ORIGIN_CLI } opt_origin;

/* The longest --comment TEXT, in bytes: a comment line of 4095 with "#C ". */
#define OPTION_COMMENT_MAX 4092

/* -c may be given this many times; the files are read in order. */
#define OPT_MAX_CONFIGS 16

typedef struct options {
	const char *input;            /* NULL or "-": stdin */
	const char *output;           /* NULL or "-": stdout */
	bool force;
	uint64_t steps;
	uint64_t until;
	const char *rule;
	const char *config;           /* the last -c */
	const char *configs[OPT_MAX_CONFIGS];   /* every -c, in order */
	int nconfigs;
	const char *engine;           /* auto | cpu | cuda */
	int64_t threads;              /* 0 = OMP_NUM_THREADS, SLURM_CPUS_PER_TASK or the affinity mask */
	int64_t device;               /* -1 = default */
	const char *simd;             /* auto | avx512 | avx2 | portable */
	const char *format;           /* output format name, NULL = infer */
	const char *box;              /* "X0,Y0,Z0:X1,Y1,Z1": the part of the
	                                 result written; NULL = all */
	uint64_t coarsen;             /* 0 = cells; K: counts per K^3 block */
	const char *random;           /* "N" or "XxYxZ" */
	double density;
	const char *random_shape;     /* fill | box | sphere */
	const char *random_rule;      /* the rule a random universe carries */
	uint64_t seed;
	const char *plane;            /* xy | xz | yz: where a 2D pattern goes */
	int64_t plane_index;          /* -1 = middle */
	bool twice;                   /* --double */
	const char *comment;          /* one more comment line, or NULL */
	bool quiet;
	bool verbose;
	const char *log;              /* NULL = no log; "-" = stdout */
	const char *summary;          /* NULL = none; "-" = stdout */
	uint64_t log_every;
	uint64_t snapshot_every;      /* 0 = no snapshots */
	const char *snapshot_prefix;
	const char *snapshot_kind;    /* projection | slice | render */
	const char *slice_axis;       /* x | y | z */
	int64_t slice_index;          /* -1 = middle */
	uint64_t snapshot_scale;      /* 0: from snapshot_size */
	uint64_t snapshot_size;       /* pixels on the long side, at least */
	uint64_t snapshot_max;        /* 0: auto (the first picture's largest) */
	const char *snapshot_scaling; /* linear | log */
	const char *snapshot_view;    /* "AZ,EL" in degrees */
	const char *checkpoint;       /* NULL = next to the output */
	uint64_t checkpoint_every;    /* steps; 0 = off */
	double checkpoint_interval;   /* seconds; 0 = off; by default
	                                 OPTION_CHECKPOINT_INTERVAL */
	const char *max_time;         /* duration text; NULL = no limit */
	bool help;
	bool version;
	opt_origin origin[OPT_COUNT];
	const char *source[OPT_COUNT];   /* the file of an ORIGIN_CONFIG value */
	int source_line[OPT_COUNT];      /* and its line */
} options;

typedef struct opt_desc {
	opt_id id;
	const char *name;        /* long option name */
	int short_name;          /* 0 if none */
	opt_type type;
	size_t offset;           /* of the field in struct options */
	const char *arg;         /* argument name for --help, NULL for flags */
	const char *choices;     /* for OT_CHOICE: "auto|cpu|cuda"; NULL for
				  * --format, whose words are the formats'
				  * (option_choices); for OT_UINT, a word
				  * that stands for 0 (--snapshot-max auto),
				  * or NULL */
	double min, max;         /* for numeric types */
	bool config_key;         /* may appear in a configuration file */
	const char *help;
} opt_desc;

extern const opt_desc option_table[OPT_COUNT];

/* Defaults for every field, all marked ORIGIN_DEFAULT. */
void options_init(options *o);

const opt_desc *option_by_name(const char *name);      /* long name */
const opt_desc *option_by_key(const char *key);         /* config key */
/* Config key of an option into buf (name with '_' for '-'). */
const char *option_key(const opt_desc *d, char *buf, size_t size);
/* The '|'-separated words an OT_CHOICE option takes: its `choices`, or
 * for --format the format table's (format.h: format_choices, into buf). */
const char *option_choices(const opt_desc *d, char *buf, size_t size);

/* Parse `text` for option d and store it, with the given origin.  `where`
 * prefixes the message ("--steps", "conf/x.conf:12: steps").  Strings are
 * stored as given: the caller keeps them alive.  The values of random
 * (option_size), snapshot_view (option_view) and max_time
 * (option_duration) are checked here, so a bad
 * one is reported before any input is read.  --config adds to configs[].
 * Errors: L3D_ERR_USAGE. */
int option_set_text(options *o, const opt_desc *d, const char *text,
		    opt_origin origin, const char *where, l3d_err *err);
/* The message for `text`, a whole number past 64 bits as written (a
 * configuration file's hex too), with the most option d takes. */
int option_too_large(const opt_desc *d, const char *where, const char *text,
		     l3d_err *err);
/* Typed setters for config values; same validation. */
int option_set_uint(options *o, const opt_desc *d, long long v,
		    opt_origin origin, const char *where, l3d_err *err);
int option_set_double(options *o, const opt_desc *d, double v,
		      opt_origin origin, const char *where, l3d_err *err);
int option_set_flag(options *o, const opt_desc *d, bool v, opt_origin origin);

/* The size of --random: "N" (a cube) or "XxYxZ", within the grid's
 * limits.  `where` prefixes the message.  Errors: L3D_ERR_USAGE. */
int option_size(const char *text, uint64_t n[3], const char *where, l3d_err *err);

/* The view of --snapshot-view: "AZ,EL", two plain numbers (a '-' allowed
 * in front) in degrees, |AZ| <= 360 and |EL| <= 90.  `where` prefixes the
 * message.  Errors: L3D_ERR_USAGE. */
int option_view(const char *text, double *azimuth, double *elevation,
		const char *where, l3d_err *err);

/* The corners of --box: "X0,Y0,Z0:X1,Y1,Z1", whole numbers, each corner's
 * coordinate at most the other's.  Errors: L3D_ERR_USAGE. */
int option_box(const char *text, uint64_t lo[3], uint64_t hi[3], const char *where,
	       l3d_err *err);

/* A --max-time duration in seconds: "90", "90s", "15m", "2h", "1d", "M:SS"
 * or "H:MM:SS"; -1 when the text is none of these. */
double option_duration(const char *text);
/* The forms option_duration takes, for messages and --help. */
#define OPTION_DURATIONS "90, 90s, 15m, 2h, 1d, 90:00, 1:30:00"

#endif
