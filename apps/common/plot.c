/* plot.c: line plots as PNG files (plot.h).  Everything is drawn here on
 * an RGB buffer: lines by Bresenham's algorithm, text in the classic 5x7
 * LCD font scaled by two, then libpng's simplified API writes it. */
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nbcc.h"
#include "plot.h"

/* ASCII 32..126, five columns a glyph, bit 0 the top row. */
static const unsigned char font[95][5] = {
	{0x00, 0x00, 0x00, 0x00, 0x00}, {0x00, 0x00, 0x5F, 0x00, 0x00},
	{0x00, 0x07, 0x00, 0x07, 0x00}, {0x14, 0x7F, 0x14, 0x7F, 0x14},
	{0x24, 0x2A, 0x7F, 0x2A, 0x12}, {0x23, 0x13, 0x08, 0x64, 0x62},
	{0x36, 0x49, 0x55, 0x22, 0x50}, {0x00, 0x05, 0x03, 0x00, 0x00},
	{0x00, 0x1C, 0x22, 0x41, 0x00}, {0x00, 0x41, 0x22, 0x1C, 0x00},
	{0x08, 0x2A, 0x1C, 0x2A, 0x08}, {0x08, 0x08, 0x3E, 0x08, 0x08},
	{0x00, 0x50, 0x30, 0x00, 0x00}, {0x08, 0x08, 0x08, 0x08, 0x08},
	{0x00, 0x60, 0x60, 0x00, 0x00}, {0x20, 0x10, 0x08, 0x04, 0x02},
	{0x3E, 0x51, 0x49, 0x45, 0x3E}, {0x00, 0x42, 0x7F, 0x40, 0x00},
	{0x42, 0x61, 0x51, 0x49, 0x46}, {0x21, 0x41, 0x45, 0x4B, 0x31},
	{0x18, 0x14, 0x12, 0x7F, 0x10}, {0x27, 0x45, 0x45, 0x45, 0x39},
	{0x3C, 0x4A, 0x49, 0x49, 0x30}, {0x01, 0x71, 0x09, 0x05, 0x03},
	{0x36, 0x49, 0x49, 0x49, 0x36}, {0x06, 0x49, 0x49, 0x29, 0x1E},
	{0x00, 0x36, 0x36, 0x00, 0x00}, {0x00, 0x56, 0x36, 0x00, 0x00},
	{0x00, 0x08, 0x14, 0x22, 0x41}, {0x14, 0x14, 0x14, 0x14, 0x14},
	{0x41, 0x22, 0x14, 0x08, 0x00}, {0x02, 0x01, 0x51, 0x09, 0x06},
	{0x32, 0x49, 0x79, 0x41, 0x3E}, {0x7E, 0x11, 0x11, 0x11, 0x7E},
	{0x7F, 0x49, 0x49, 0x49, 0x36}, {0x3E, 0x41, 0x41, 0x41, 0x22},
	{0x7F, 0x41, 0x41, 0x22, 0x1C}, {0x7F, 0x49, 0x49, 0x49, 0x41},
	{0x7F, 0x09, 0x09, 0x01, 0x01}, {0x3E, 0x41, 0x41, 0x51, 0x32},
	{0x7F, 0x08, 0x08, 0x08, 0x7F}, {0x00, 0x41, 0x7F, 0x41, 0x00},
	{0x20, 0x40, 0x41, 0x3F, 0x01}, {0x7F, 0x08, 0x14, 0x22, 0x41},
	{0x7F, 0x40, 0x40, 0x40, 0x40}, {0x7F, 0x02, 0x04, 0x02, 0x7F},
	{0x7F, 0x04, 0x08, 0x10, 0x7F}, {0x3E, 0x41, 0x41, 0x41, 0x3E},
	{0x7F, 0x09, 0x09, 0x09, 0x06}, {0x3E, 0x41, 0x51, 0x21, 0x5E},
	{0x7F, 0x09, 0x19, 0x29, 0x46}, {0x46, 0x49, 0x49, 0x49, 0x31},
	{0x01, 0x01, 0x7F, 0x01, 0x01}, {0x3F, 0x40, 0x40, 0x40, 0x3F},
	{0x1F, 0x20, 0x40, 0x20, 0x1F}, {0x7F, 0x20, 0x18, 0x20, 0x7F},
	{0x63, 0x14, 0x08, 0x14, 0x63}, {0x03, 0x04, 0x78, 0x04, 0x03},
	{0x61, 0x51, 0x49, 0x45, 0x43}, {0x00, 0x00, 0x7F, 0x41, 0x41},
	{0x02, 0x04, 0x08, 0x10, 0x20}, {0x41, 0x41, 0x7F, 0x00, 0x00},
	{0x04, 0x02, 0x01, 0x02, 0x04}, {0x40, 0x40, 0x40, 0x40, 0x40},
	{0x00, 0x01, 0x02, 0x04, 0x00}, {0x20, 0x54, 0x54, 0x54, 0x78},
	{0x7F, 0x48, 0x44, 0x44, 0x38}, {0x38, 0x44, 0x44, 0x44, 0x20},
	{0x38, 0x44, 0x44, 0x48, 0x7F}, {0x38, 0x54, 0x54, 0x54, 0x18},
	{0x08, 0x7E, 0x09, 0x01, 0x02}, {0x08, 0x14, 0x54, 0x54, 0x3C},
	{0x7F, 0x08, 0x04, 0x04, 0x78}, {0x00, 0x44, 0x7D, 0x40, 0x00},
	{0x20, 0x40, 0x44, 0x3D, 0x00}, {0x00, 0x7F, 0x10, 0x28, 0x44},
	{0x00, 0x41, 0x7F, 0x40, 0x00}, {0x7C, 0x04, 0x18, 0x04, 0x78},
	{0x7C, 0x08, 0x04, 0x04, 0x78}, {0x38, 0x44, 0x44, 0x44, 0x38},
	{0x7C, 0x14, 0x14, 0x14, 0x08}, {0x08, 0x14, 0x14, 0x18, 0x7C},
	{0x7C, 0x08, 0x04, 0x04, 0x08}, {0x48, 0x54, 0x54, 0x54, 0x20},
	{0x04, 0x3F, 0x44, 0x40, 0x20}, {0x3C, 0x40, 0x40, 0x20, 0x7C},
	{0x1C, 0x20, 0x40, 0x20, 0x1C}, {0x3C, 0x40, 0x30, 0x40, 0x3C},
	{0x44, 0x28, 0x10, 0x28, 0x44}, {0x0C, 0x50, 0x50, 0x50, 0x3C},
	{0x44, 0x64, 0x54, 0x4C, 0x44}, {0x00, 0x08, 0x36, 0x41, 0x00},
	{0x00, 0x00, 0x7F, 0x00, 0x00}, {0x00, 0x41, 0x36, 0x08, 0x00},
	{0x08, 0x04, 0x08, 0x10, 0x08},
};

/* Series colours: distinct on white, and for the colour-blind. */
static const unsigned char colours[8][3] = {
	{0, 114, 178}, {213, 94, 0}, {0, 158, 115}, {204, 121, 167},
	{86, 180, 233}, {230, 159, 0}, {0, 0, 0}, {120, 120, 120},
};

enum { SCALE = 2, GW = 6 * SCALE, GH = 8 * SCALE }; /* a glyph's cell */

typedef struct Img {
	unsigned char *px;
	int w, h;
} Img;

static void dot(Img *im, int x, int y, const unsigned char *c)
{
	if (x < 0 || y < 0 || x >= im->w || y >= im->h)
		return;
	memcpy(im->px + 3 * ((size_t)y * (size_t)im->w + (size_t)x), c, 3);
}

static void line(Img *im, int x0, int y0, int x1, int y1,
                 const unsigned char *c, int thick)
{
	int dx = abs(x1 - x0), dy = -abs(y1 - y0);
	int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1, e = dx + dy;
	for (int guard = 0; guard < 100000; guard++) {
		for (int a = 0; a < thick; a++)
			for (int b = 0; b < thick; b++)
				dot(im, x0 + a, y0 + b, c);
		if (x0 == x1 && y0 == y1)
			break;
		int e2 = 2 * e;
		if (e2 >= dy) {
			e += dy;
			x0 += sx;
		}
		if (e2 <= dx) {
			e += dx;
			y0 += sy;
		}
	}
}

/* Text from (x, y), its top left; vertical text reads upwards. */
static void text(Img *im, int x, int y, const char *s,
                 const unsigned char *c, int vertical)
{
	for (int k = 0; s[k]; k++) {
		int ch = (unsigned char)s[k];
		if (ch < 32 || ch > 126)
			ch = '?';
		for (int col = 0; col < 5; col++)
			for (int row = 0; row < 7; row++) {
				if (!(font[ch - 32][col] >> row & 1))
					continue;
				for (int a = 0; a < SCALE; a++)
					for (int b = 0; b < SCALE; b++) {
						int u = k * GW + col * SCALE + a, v = row * SCALE + b;
						if (vertical)
							dot(im, x + v, y - u, c);
						else
							dot(im, x + u, y + v, c);
					}
			}
	}
}

static int text_width(const char *s)
{
	return (int)strlen(s) * GW;
}

typedef struct Axis {
	int log;
	double lo, hi; /* in the axis' own scale: log10 for a log axis */
	int p0, p1;    /* pixels of lo and hi */
} Axis;

static int to_px(const Axis *a, double v)
{
	double u = a->log ? log10(v) : v;
	return (int)lround(a->p0 + (u - a->lo) / (a->hi - a->lo) *
	                   (a->p1 - a->p0));
}

static int usable(const Axis *a, double v)
{
	return isfinite(v) && (!a->log || v > 0);
}

/* The range of the data, widened to whole decades (log) or a margin. */
static void range(Axis *a, const plot_series *s, int ns, int xaxis)
{
	double lo = INFINITY, hi = -INFINITY;
	for (int k = 0; k < ns; k++)
		for (size_t i = 0; i < s[k].n; i++) {
			double v = xaxis ? s[k].x[i] : s[k].y[i];
			if (!usable(a, v))
				continue;
			double u = a->log ? log10(v) : v;
			lo = fmin(lo, u);
			hi = fmax(hi, u);
		}
	if (!(lo <= hi)) {
		lo = 0;
		hi = 1;
	}
	if (a->log) {
		lo = floor(lo);
		hi = ceil(hi);
		if (hi <= lo)
			hi = lo + 1;
	} else {
		double span = hi - lo;
		if (span <= 0)
			span = fabs(hi) > 0 ? fabs(hi) : 1;
		if (lo >= 0 && lo < 0.2 * span)
			lo = 0;
		else
			lo -= 0.05 * span;
		hi += 0.05 * span;
	}
	a->lo = lo;
	a->hi = hi;
}

/* Tick positions: decades on a log axis (every k-th when there are many),
 * 1-2-5 steps on a linear one.  Returns how many, at most max. */
static int ticks(const Axis *a, double *t, int max)
{
	int n = 0;
	if (a->log) {
		int step = (int)ceil((a->hi - a->lo) / 8);
		for (double d = a->lo; d <= a->hi + 1e-9 && n < max; d += step)
			t[n++] = d;
		return n;
	}
	double raw = (a->hi - a->lo) / 6, mag = pow(10, floor(log10(raw)));
	double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag
	                                     : raw / mag < 7.5 ? 5 * mag : 10 * mag;
	for (double v = ceil(a->lo / step) * step; v <= a->hi + 1e-9 * step &&
	     n < max; v += step)
		t[n++] = fabs(v) < 1e-9 * step ? 0 : v;
	return n;
}

static void label(char *buf, size_t len, const Axis *a, double t)
{
	if (a->log)
		snprintf(buf, len, "1e%d", (int)lround(t));
	else
		snprintf(buf, len, "%g", t);
}

int plot_png(const plot_spec *p, const plot_series *s, int ns,
             const char *path, char *err, size_t errlen)
{
	static const unsigned char ink[3] = {0, 0, 0}, grid[3] = {225, 225, 225};
	Img im = {NULL, p->width > 0 ? p->width : 800,
	          p->height > 0 ? p->height : 520};
	im.px = malloc((size_t)im.w * (size_t)im.h * 3);
	if (!im.px) {
		snprintf(err, errlen, "out of memory for the plot '%s'", nb_esc(path));
		return -1;
	}
	memset(im.px, 255, (size_t)im.w * (size_t)im.h * 3);
	Axis ax = {p->logx, 0, 0, 11 * GW, im.w - 2 * GW};
	Axis ay = {p->logy, 0, 0, im.h - 4 * GH, 3 * GH};
	range(&ax, s, ns, 1);
	range(&ay, s, ns, 0);
	double t[64];
	char buf[64];
	int nt = ticks(&ax, t, 64);
	for (int k = 0; k < nt; k++) {
		int x = (int)lround(ax.p0 + (t[k] - ax.lo) / (ax.hi - ax.lo) *
		                    (ax.p1 - ax.p0));
		line(&im, x, ay.p1, x, ay.p0, grid, 1);
		line(&im, x, ay.p0, x, ay.p0 + 5, ink, 1);
		label(buf, sizeof buf, &ax, t[k]);
		text(&im, x - text_width(buf) / 2, ay.p0 + 8, buf, ink, 0);
	}
	nt = ticks(&ay, t, 64);
	for (int k = 0; k < nt; k++) {
		int y = (int)lround(ay.p0 + (t[k] - ay.lo) / (ay.hi - ay.lo) *
		                    (ay.p1 - ay.p0));
		line(&im, ax.p0, y, ax.p1, y, grid, 1);
		line(&im, ax.p0 - 5, y, ax.p0, y, ink, 1);
		label(buf, sizeof buf, &ay, t[k]);
		text(&im, ax.p0 - 8 - text_width(buf), y - GH / 2, buf, ink, 0);
	}
	line(&im, ax.p0, ay.p0, ax.p1, ay.p0, ink, 1);
	line(&im, ax.p0, ay.p1, ax.p1, ay.p1, ink, 1);
	line(&im, ax.p0, ay.p0, ax.p0, ay.p1, ink, 1);
	line(&im, ax.p1, ay.p0, ax.p1, ay.p1, ink, 1);
	if (p->title)
		text(&im, (im.w - text_width(p->title)) / 2, GH / 2, p->title, ink, 0);
	if (p->xlabel)
		text(&im, (ax.p0 + ax.p1 - text_width(p->xlabel)) / 2,
		     ay.p0 + 8 + 3 * GH / 2, p->xlabel, ink, 0);
	if (p->ylabel)
		text(&im, GH / 2, (ay.p0 + ay.p1 + text_width(p->ylabel)) / 2,
		     p->ylabel, ink, 1);
	for (int k = 0; k < ns && k < 8; k++) {
		const unsigned char *c = colours[k];
		int have = 0, px = 0, py = 0;
		for (size_t i = 0; i < s[k].n; i++) {
			if (!usable(&ax, s[k].x[i]) || !usable(&ay, s[k].y[i])) {
				have = 0; /* a gap, not a line across it */
				continue;
			}
			int x = to_px(&ax, s[k].x[i]), y = to_px(&ay, s[k].y[i]);
			if (have)
				line(&im, px, py, x, y, c, 2);
			if (s[k].marks)
				for (int a = -3; a <= 3; a++)
					line(&im, x - 3, y + a, x + 3, y + a, c, 1);
			have = 1;
			px = x;
			py = y;
		}
		if (s[k].label) {
			int lx = ax.p1 - text_width(s[k].label) - 5 * GW;
			int ly = ay.p1 + GH / 2 + k * (GH + 4);
			line(&im, lx - 4 * GW, ly + GH / 2, lx - GW, ly + GH / 2, c, 3);
			text(&im, lx, ly, s[k].label, c, 0);
		}
	}
	png_image pi;
	memset(&pi, 0, sizeof pi);
	pi.version = PNG_IMAGE_VERSION;
	pi.width = (png_uint_32)im.w;
	pi.height = (png_uint_32)im.h;
	pi.format = PNG_FORMAT_RGB;
	png_alloc_size_t len = 0;
	void *out = NULL;
	int ok = png_image_write_to_memory(&pi, NULL, &len, 0, im.px, 0, NULL);
	if (ok && !(out = malloc(len)))
		ok = 0;
	if (ok)
		ok = png_image_write_to_memory(&pi, out, &len, 0, im.px, 0, NULL);
	free(im.px);
	if (!ok) {
		snprintf(err, errlen, "cannot make the plot '%s'", nb_esc(path));
		png_image_free(&pi);
		free(out);
		return -1;
	}
	int rc = nb_write_file(path, out, len, err, errlen);
	free(out);
	return rc;
}
