/* queue.c: queued runs (nbrt_set_queue): the launches of runs that
 * returned without waiting, kept until something waits for them
 * (nbrt_wait, a run that waits, an array read back), which reports the
 * first that failed by its kernel and the device, and times them all by
 * their events: the span from the first one's start to the last one's
 * end, and the time they ran.  Untimed runs (NBRT_QUEUE=2) queue no
 * events: a finish waits for them and reports their failure. */
#include <string.h>
#include "cl_impl.h"

/* Waits for the oldest n of the queued launches, adds their times and
 * releases them; the first failure is reported, after all are released. */
static int wait_first(nbrt *rt, int n)
{
	Cl *c = rt->priv;
	cl_int e = n ? clWaitForEvents((cl_uint)n, c->qev) : CL_SUCCESS;
	int bad = -1;
	if (e != CL_SUCCESS)
		bad = 0;
	for (int i = 0; i < n; i++) {
		cl_int st = CL_COMPLETE;
		cl_ulong a = 0, b = 0;
		cl_int g = clGetEventInfo(c->qev[i], CL_EVENT_COMMAND_EXECUTION_STATUS,
		                          sizeof st, &st, NULL);
		if (g == CL_SUCCESS && st < 0)
			g = st; /* the launch's own error */
		if (g == CL_SUCCESS && nbrt_cl_test_fail(rt, TF_QUEUED_RUN))
			g = CL_OUT_OF_RESOURCES; /* as a faulting kernel reports */
		if (g == CL_SUCCESS &&
		    (g = clGetEventProfilingInfo(c->qev[i], CL_PROFILING_COMMAND_START,
		                                 sizeof a, &a, NULL)) == CL_SUCCESS &&
		    (g = clGetEventProfilingInfo(c->qev[i], CL_PROFILING_COMMAND_END,
		                                 sizeof b, &b, NULL)) == CL_SUCCESS) {
			if (!c->qn || a < c->qstart)
				c->qstart = a;
			if (!c->qn || b > c->qend)
				c->qend = b;
			c->qbusy += 1e-9 * (double)(b - a);
			c->qn++;
		}
		if (g != CL_SUCCESS && bad < 0) {
			bad = i;
			e = g;
		}
		clReleaseEvent(c->qev[i]);
	}
	char who[sizeof c->qwho[0]];
	if (bad >= 0)
		memcpy(who, c->qwho[bad], sizeof who);
	memmove(c->qev, c->qev + n, (size_t)(c->nq - n) * sizeof *c->qev);
	memmove(c->qwho, c->qwho + n, (size_t)(c->nq - n) * sizeof *c->qwho);
	c->nq -= n;
	c->qdone += (unsigned long long)n;
	if (bad < 0)
		return 0;
	char what[sizeof who + 64];
	snprintf(what, sizeof what, "a queued launch of kernel %s", who);
	return nbrt_cl_fail(rt, what, "clWaitForEvents", e);
}

int nbrt_cl_queue_add(nbrt *rt, const char *kernel, cl_event *ev, int n,
                      int untimed)
{
	Cl *c = rt->priv;
	int r = 0;
	if (untimed) { /* their failure is the finish's (settle) */
		c->nplain++;
		snprintf(c->plainwho, sizeof c->plainwho, "%s", kernel);
	}
	for (int i = 0; i < n; i++) {
		/* full: the older half waited for while the newer runs on, so
		 * that a long series of runs does not empty the device */
		if (c->nq == NBRT_CL_QUEUED && wait_first(rt, NBRT_CL_QUEUED / 2))
			r = -1;
		c->qev[c->nq] = ev[i];
		snprintf(c->qwho[c->nq], sizeof c->qwho[0], "%s", kernel);
		c->nq++;
		c->qadded++;
	}
	if (r)
		return -1;
	/* started now, not at the next wait; NVIDIA's OpenCL starts a launch
	 * at its enqueue (bench/flushprobe.c: 18.8 us from enqueue to done
	 * unflushed, 19.2 flushed), where a flush costs 0.6 to 2.5 us of a
	 * run's 12 to 16 at N = 4096, whose queued runs wait for the host */
	cl_int e = c->nvidia ? CL_SUCCESS : clFlush(c->q);
	return e == CL_SUCCESS ? 0 : nbrt_cl_fail(rt, kernel, "clFlush", e);
}

int nbrt_cl_queue_settle(nbrt *rt)
{
	Cl *c = rt->priv;
	if (!c)
		return 0;
	int r = c->nq ? wait_first(rt, c->nq) : 0;
	if (c->nplain) {
		/* untimed runs' launches have no events: the queue's finish
		 * reports a launch that failed (a fault is the context's) */
		cl_int e = clFinish(c->q);
		if (e == CL_SUCCESS && nbrt_cl_test_fail(rt, TF_UNTIMED_RUN))
			e = CL_OUT_OF_RESOURCES;
		char what[sizeof c->plainwho + 96];
		snprintf(what, sizeof what, "%ld untimed queued runs, the last of "
		         "kernel %s", c->nplain, c->plainwho);
		c->nplain = 0;
		if (e != CL_SUCCESS && !r)
			r = nbrt_cl_fail(rt, what, "clFinish", e);
	}
	return r;
}

/* nbrt_wait's times of the launches waited for since the last one */
static void times(Cl *c, double t[2])
{
	if (t) {
		t[0] = c->qn ? 1e-9 * (double)(c->qend - c->qstart) : 0;
		t[1] = c->qbusy;
	}
	c->qn = 0;
	c->qbusy = 0;
}

int nbrt_cl_wait(nbrt *rt, double t[2])
{
	int r = nbrt_cl_queue_settle(rt);
	times(rt->priv, t);
	return r;
}

int nbrt_cl_wait_upto(nbrt *rt, unsigned long long mark, double t[2])
{
	Cl *c = rt->priv;
	int r = mark > c->qdone ? wait_first(rt, (int)(mark - c->qdone)) : 0;
	times(c, t);
	return r;
}
