/* csv.h: the CSV files of nbrun.  A header row names the columns, then one
 * row of numbers per element; values are read and written at the full
 * precision of the kernel's types (dd exactly: the nearest double-double to
 * the decimal text, and enough digits out to read back to the same one). */
#ifndef CSV_H
#define CSV_H

#include <stddef.h>
#include <stdio.h>
#include "nbcc.h"

/* A column wanted from a file, or written to one.  data holds nrow values:
 * float, double, or for dd (hi, lo) pairs of doubles. */
typedef struct csv_col {
	const char *name;
	nb_prec type;
	void *data; /* csv_read: malloc'd by it; csv_write: the caller's */
	const char *src; /* csv_read: the header's name for it when that is
	                  * not name (nbrun --map); several may share one */
	int integer;     /* csv_write: an integer (a count, an index): its
	                  * integral values are written without exponent */
} csv_col;

/* flags of csv_parse and csv_read */
enum {
	CSV_OTHER_COLUMNS = 1 /* columns that no col reads are skipped, not
	                         refused as unknown */
};

/* Reads `text` (named `path` in messages), whose header must name exactly
 * the columns of cols (their src, else their name), in any order; with
 * CSV_OTHER_COLUMNS it may name others too, which are skipped.  Accepted
 * besides: a UTF-8 byte order mark, CRLF line ends, blank lines, lines
 * whose first non-blank character is '#', blanks around values, values in
 * double quotes.
 * `what` names the columns' role in messages ("LMEM").  On success sets
 * *nrow and each cols[k].data (malloc'd) and returns 0; on failure returns
 * -1, frees what it allocated and sets *err to a malloc'd message,
 * "FILE:LINE:COL: error: MSG" and the line with a caret, newline-ended. */
int csv_parse(const char *path, const char *text, size_t len, csv_col *cols,
              int ncol, const char *what, int flags, size_t *nrow,
              char **err);
/* The same on a file ("-": standard input, named <stdin>). */
int csv_read(const char *path, csv_col *cols, int ncol, const char *what,
             int flags, size_t *nrow, char **err);
/* The text of a file for a reader of nbrun's inputs ("-": standard
 * input, named <stdin>), no larger than half the memory there is (the
 * rest is for what is read from it); malloc'd, its length in *len.  NULL
 * on failure, with *err a malloc'd "FILE: error: MSG", newline-ended. */
char *csv_read_text(const char *path, size_t *len, char **err);
/* The form of every error in nbrun's input files (CSV, --ranges), as a
 * malloc'd text: "FILE:LINE:COL: error: MSG", then the line s[0..n) (a
 * window of it where long; unprintables as '?') and a caret under its
 * byte `at` (COL is at + 1), newline-ended. */
char *csv_error_at(const char *path, int line, const char *s, size_t n,
                   size_t at, const char *msg);

/* Why a value was refused. */
typedef enum {
	CSV_OK,
	CSV_EMPTY,     /* nothing there */
	CSV_SYNTAX,    /* not a decimal number: "1.5x", "0x10", "1,5" */
	CSV_NONFINITE, /* "nan", "inf", "infinity": refused in inputs */
	CSV_RANGE      /* finite text beyond the type's range: "1e999" */
} csv_status;

/* Reads the decimal number s[0..n) (no blanks) as type t into v: v[0] the
 * value (a float widened to double), v[1] the low part of a dd, else 0.
 * nb_num_read (nbcc.h) does it: float and double correctly rounded, dd as
 * hi = RN(x), lo = RN(x - hi), computed exactly.  Values that underflow
 * become the nearest subnormal or zero. */
csv_status csv_number(const char *s, size_t n, nb_prec t, double v[2]);
/* Writes why s[0..n) was refused as a type t: "'1.5x' is not a number",
 * "'1e999' is out of range for float", ... (st is not CSV_OK). */
void csv_value_msg(char *buf, size_t len, csv_status st, const char *s,
                   size_t n, nb_prec t);

/* Why a header's name s[0..n) is likely one field of a file separated by
 * another character (';' or a tab, as spreadsheets in some locales write
 * them): a sentence for a message, or "" where it holds neither. */
const char *csv_sep_hint(const char *s, size_t n);

/* A growable text buffer; out of memory exits with a message. */
typedef struct csv_buf {
	char *s;
	size_t len, cap;
} csv_buf;
void csv_buf_put(csv_buf *b, const char *s, size_t n);
void csv_buf_free(csv_buf *b);

/* Appends one value, with digits enough to read back to the same value:
 * %.9g for float, %.17g for double, for dd 32 significant digits or, where
 * 32 do not identify the dd, the fewest more that do (nb_dd_write). */
void csv_put_value(csv_buf *b, nb_prec t, double hi, double lo);
/* Appends a header row of the columns' names and nrow rows of values. */
void csv_write(csv_buf *b, const csv_col *cols, int ncol, size_t nrow);

/* Writes a text field (a device's name, flags) of a program's or a bench
 * driver's CSV row to out: quoted, inner quotes doubled (RFC 4180), and
 * commas written as ';', since the bench suites and awk split rows on
 * every comma and read columns by position. */
void csv_print_text(FILE *out, const char *s);

#endif
