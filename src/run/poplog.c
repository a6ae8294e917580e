/* poplog.c - see poplog.h. */
#include "poplog.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/outfile.h"

static int write_error(poplog *p, l3d_err *err)
{
	return l3d_fail(err, L3D_ERR_IO, "%s: write error: %s", p->name,
			strerror(errno ? errno : EIO));
}

static const char header[] = "step\tpopulation\tbirths\tdeaths\n";

/* Byte length of the part of an existing log to keep when resuming at
 * generation g, or -1 if the file is not a life3d log. */
static long kept_length(FILE *f, uint64_t g, uint64_t *last)
{
	char line[256];
	if (!fgets(line, sizeof line, f) || strcmp(line, header) != 0)
		return -1;
	long keep = ftell(f);
	*last = 0;
	while (fgets(line, sizeof line, f)) {
		char *end;
		uint64_t step = strtoull(line, &end, 10);
		if (end == line || *end != '\t' || step > g || !strchr(line, '\n'))
			break;
		*last = step;
		keep = ftell(f);
	}
	return keep;
}

static bool is_log(const char *path)
{
	char line[64] = "";
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	bool yes = fgets(line, sizeof line, f) && strcmp(line, header) == 0;
	fclose(f);
	return yes;
}

static int continue_log(poplog *p, const char *path, uint64_t g,
			uint64_t *last, l3d_err *err)
{
	p->f = fopen(path, "r+");
	if (!p->f)
		return l3d_fail(err, L3D_ERR_CANTCREAT, "%s: cannot open: %s",
				path, strerror(errno));
	long keep = kept_length(p->f, g, last);
	if (keep < 0)
		return l3d_fail(err, L3D_ERR_IO, "%s: cannot read the log: %s",
				path, strerror(errno));
	if (fflush(p->f) != 0 || ftruncate(fileno(p->f), keep) != 0 ||
	    fseek(p->f, 0, SEEK_END) != 0)
		return write_error(p, err);
	return L3D_OK;
}

int poplog_open(poplog *p, const char *path, bool force, uint64_t resume_gen,
		bool *resumed, uint64_t *last_logged, l3d_err *err)
{
	memset(p, 0, sizeof *p);
	*resumed = false;
	if (outfile_is_stdout(path)) {
		p->f = stdout;
		p->name = "(stdout)";
	} else {
		struct stat st;
		bool exists = stat(path, &st) == 0;
		bool regular = exists && S_ISREG(st.st_mode);
		p->name = path;
		if (regular && st.st_size > 0 && resume_gen > 0 && is_log(path)) {
			*resumed = true;
			return continue_log(p, path, resume_gen, last_logged, err);
		}
		if (regular && !force)
			return l3d_fail(err, L3D_ERR_CANTCREAT,
					"%s: already exists; not overwritten (use -f to overwrite)",
					path);
		p->f = fopen(path, "w");
		if (!p->f)
			return l3d_fail(err, L3D_ERR_CANTCREAT, "%s: cannot open: %s",
					path, strerror(errno));
	}
	if (fputs(header, p->f) < 0 || fflush(p->f) != 0)
		return write_error(p, err);
	return L3D_OK;
}

int poplog_write(poplog *p, uint64_t generation, const engine_stats *s,
		 l3d_err *err)
{
	errno = 0;
	if (fprintf(p->f, "%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
		    generation, s->population, s->births, s->deaths) < 0 ||
	    fflush(p->f) != 0)
		return write_error(p, err);
	return L3D_OK;
}

int poplog_close(poplog *p, l3d_err *err)
{
	int rc = L3D_OK;
	if (!p->f)
		return rc;
	errno = 0;
	if (fflush(p->f) != 0 || ferror(p->f))
		rc = write_error(p, err);
	if (p->f != stdout && fclose(p->f) != 0 && !rc)
		rc = write_error(p, err);
	p->f = NULL;
	return rc;
}
