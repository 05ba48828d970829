#!/usr/bin/env python3
# dd_variants.py: variants of ddlib.h's core operations pasted into a
# generated dd kernel (.cl or .c), to time what each change buys on a
# device with bin/nbbench (docs/oneloop.md, "QD's arithmetic on the GPU").
# Timing only: the variants are not checked here (test_ddqd.c and
# tests/sh/oneloop_ref.sh check what became --dd=qd).
#   bin/nbcc dsl-examples/oneloop.nbl -o ol.cl
#   python3 bench/dd_variants.py ol.cl OUTDIR    # writes OUTDIR/ol_NAME.cl
# The dd-variants suite (sh bench/run.sh dd-variants) does this and times
# each.
import os
import re
import sys

FIN_INT = 'static inline int nb__finite(double x) { return (as_int2(x).y & 0x7ff00000) != 0x7ff00000; }'
FIN_NONE = 'static inline int nb__finite(double x) { return 1; }'
ADD_SLOPPY = '''static inline nb_dd nb_dd_add(nb_dd a, nb_dd b)
{
	nb_dd s = nb__two_sum(a.hi, b.hi);
	nb_dd z = nb__fast_sum(s.hi, s.lo + (a.lo + b.lo));
	return nb__finite(s.hi) ? z : nb_dd_make(s.hi, 0.0);
}'''
MUL_FOLD = '''static inline nb_dd nb_dd_mul(nb_dd a, nb_dd b)
{
	double p = NB__MUL_RN(a.hi, b.hi);
	double e = fma(a.hi, b.hi, -p);
	double t = fma(a.lo, b.hi, fma(a.hi, b.lo, fma(a.lo, b.lo, e)));
	nb_dd z = nb__fast_sum(p, t);
	return nb__finite(p) ? z : nb_dd_make(p, 0.0);
}'''
MUL_QD = '''static inline nb_dd nb_dd_mul(nb_dd a, nb_dd b)
{
	double p = NB__MUL_RN(a.hi, b.hi);
	double e = fma(a.hi, b.hi, -p);
	double t = fma(a.lo, b.hi, a.hi * b.lo);
	nb_dd z = nb__fast_sum(p, e + t);
	return nb__finite(p) ? z : nb_dd_make(p, 0.0);
}'''
DIV_RCP = '''static inline nb_dd nb_dd_div(nb_dd a, nb_dd b)
{
	double r = 1.0 / b.hi;
	double q = a.hi * r;
	nb_dd p = nb__mul_d(b, q);
	double d = (a.hi - p.hi) + (a.lo - p.lo);
	nb_dd z = nb__fast_sum(q, d * r);
	return nb__finite(q) && nb__finite(b.hi) ? z : nb_dd_make(q, 0.0);
}'''
SQR = '''static inline nb_dd nb_dd_sqr(nb_dd a)
{
	double p = NB__MUL_RN(a.hi, a.hi);
	double e = fma(a.hi, a.hi, -p);
	double t = fma(a.hi + a.hi, a.lo, fma(a.lo, a.lo, e));
	nb_dd z = nb__fast_sum(p, t);
	return nb__finite(p) ? z : nb_dd_make(p, 0.0);
}
'''


def replace(s, name, new):
    """the first definition of function `name` (one line, or up to a '}'
    in column 0) replaced by `new`"""
    m = re.search(r'static inline [a-z_ ]+ ' + re.escape(name) + r'\(', s)
    if not m:
        sys.exit('dd_variants: no %s in the kernel' % name)
    eol = s.index('\n', m.start())
    end = eol + 1 if s[eol - 1] == '}' else s.index('\n}\n', m.start()) + 3
    return s[:m.start()] + new.strip() + '\n' + s[end:]


def variant(src, fin=None, add=None, mul=None, div=None, sqr=False):
    s = src
    for name, new in (('nb__finite', fin), ('nb_dd_add', add),
                      ('nb_dd_mul', mul), ('nb_dd_div', div)):
        if new:
            s = replace(s, name, new)
    if sqr:  # d**2 of the one-loop kernel, whatever its value number
        i = s.index('static inline nb_dd nb_dd_div')
        s = s[:i] + SQR + s[i:]
        s = re.sub(r'nb_dd_mul\((v\d+), \1\)', r'nb_dd_sqr(\1)', s)
    return s


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: dd_variants.py KERNEL.cl OUTDIR')
    src = open(sys.argv[1]).read()
    if '#define NB_DD_QD 1' in src:
        sys.exit('dd_variants: give a kernel built without --dd=qd')
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    vs = {
        'base': {}, 'finint': {'fin': FIN_INT}, 'finnone': {'fin': FIN_NONE},
        'sqr': {'sqr': True}, 'rdiv': {'div': DIV_RCP},
        'mulfold': {'mul': MUL_FOLD}, 'mulqd': {'mul': MUL_QD},
        'sloppy': {'add': ADD_SLOPPY},
        'accall': {'fin': FIN_INT, 'mul': MUL_FOLD, 'div': DIV_RCP,
                   'sqr': True},
    }
    ext = os.path.splitext(sys.argv[1])[1]
    for k, v in vs.items():
        with open(os.path.join(out, 'ol_%s%s' % (k, ext)), 'w') as f:
            f.write(variant(src, **v))


main()
