/* plot.h: a small line plot written as a PNG, with no plotting library:
 * bin/nbody's energy error against time, and the figures of bench/ that
 * docs/nbody.md shows.  Axes linear or logarithmic, numbered ticks, a
 * legend, text in a 5x7 bitmap font. */
#ifndef PLOT_H
#define PLOT_H

#include <stddef.h>

typedef struct plot_series {
	const char *label;
	const double *x, *y;
	size_t n;
	int marks;  /* 1: a square at each point as well as the line */
} plot_series;

typedef struct plot_spec {
	const char *title, *xlabel, *ylabel;
	int logx, logy;  /* points <= 0 on a log axis are left out */
	int width, height;
} plot_spec;

/* Draws the series (up to 8, each its own colour) into a PNG at path,
 * through nb_write_file.  Returns 0, or -1 with a message in err. */
int plot_png(const plot_spec *p, const plot_series *s, int ns,
             const char *path, char *err, size_t errlen);

#endif
