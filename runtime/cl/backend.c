/* backend.c: the OpenCL back end (nbrt_cl_backend), the runtime's way to
 * every OpenCL device, its operations from the files of this folder:
 * device.c, program.c, array.c, predict.c, run.c, sort.c, cells.c and
 * morton.c (cl_impl.h), which alone see OpenCL's headers. */
#include "cl_impl.h"

const struct nbrt_backend nbrt_cl_backend = {
	.target = "opencl",
	.where = "an OpenCL device",
	.host = 0,
	.lang = "OpenCL",
	.ext = ".cl",
	.other = "host",
	.split_target = "opencl",
	.split_class = "gpu",
	.open = nbrt_cl_open,
	.close = nbrt_cl_close,
	.list = nbrt_cl_list,
	.describe = nbrt_cl_describe,
	.load = nbrt_cl_load,
	.run = nbrt_cl_run,
	.run_ranges = nbrt_cl_run_ranges,
	.rentry = 1,
	.hostbuf = nbrt_cl_hostbuf,
	.free = nbrt_cl_free,
	.array_new = nbrt_cl_array_new,
	.array_free = nbrt_cl_array_free,
	.array_write = nbrt_cl_array_write,
	.array_read = nbrt_cl_array_read,
	.array_axpy = nbrt_cl_array_axpy,
	.array_finite = nbrt_cl_array_finite,
	.predict_new = nbrt_cl_predict_new,
	.predict_free = nbrt_cl_predict_free,
	.predict = nbrt_cl_predict,
	.sort = nbrt_cl_sort_kv,
	.run_cells = nbrt_cl_run_cells,
	.tree_sort = nbrt_cl_tree_sort,
	.tree_scatter = nbrt_cl_tree_scatter,
	.tree_results = nbrt_cl_tree_results,
	.settle = nbrt_cl_settle_late,
};
