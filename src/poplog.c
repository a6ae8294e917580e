/* poplog.c - see poplog.h. */
#include "poplog.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

#include "outfile.h"

static int write_error(poplog *p, l3d_err *err)
{
	return l3d_fail(err, L3D_ERR_IO, "%s: write error: %s", p->name,
			strerror(errno ? errno : EIO));
}

int poplog_open(poplog *p, const char *path, bool force, bool append,
		l3d_err *err)
{
	memset(p, 0, sizeof *p);
	bool header = true;
	if (outfile_is_stdout(path)) {
		p->f = stdout;
		p->name = "(stdout)";
	} else {
		struct stat st;
		bool exists = stat(path, &st) == 0;
		if (append && exists && S_ISREG(st.st_mode) && st.st_size > 0)
			header = false;
		else if (exists && S_ISREG(st.st_mode) && !force && !append)
			return l3d_fail(err, L3D_ERR_CANTCREAT,
					"%s: already exists; not overwritten (use -f to overwrite)",
					path);
		p->f = fopen(path, append ? "a" : "w");
		p->name = path;
		if (!p->f)
			return l3d_fail(err, L3D_ERR_CANTCREAT, "%s: cannot open: %s",
					path, strerror(errno));
	}
	if (header && (fputs("step\tpopulation\tbirths\tdeaths\n", p->f) < 0 ||
		       fflush(p->f) != 0))
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
