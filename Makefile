# nbcc: a compiler for two-nested-loop problems, and its runtime.
#   make          build bin/nbcc, bin/nbrun, bin/nbody, bin/oneloop, bin/ilrun
#   make demo     the main job (installs missing packages first)
#   make check    every test, then the sanitizer pass, then each fuzz
#                 target over its seed corpus once
#   make check-fast  the tests not tagged slow (under two minutes)
#   make fuzz     run each fuzz target (parse, csv, iface, il, ic, hdf5, tune, ranges, jobs, ad) for FUZZ_TIME
#                 seconds (default 60)
#   make fuzz-long  each for FUZZ_LONG s (1800) past crashes, keeping what
#                 fails as regression seeds in tests/fuzz/corpus
#   make bench    benchmarks under bench/
#   make install  PREFIX=/usr/local DESTDIR= (and BINDIR, LIBDIR, ...:
#                 see "install" below); make uninstall removes it again
#   make pycheck  the Python package (python/): pip install into a venv
#                 under $(B), then its pytest suite against it, and mypy
#                 where installed (part of make check)
#   make man      rewrite the generated part of docs/man/*.1 from --help

PREFIX   ?= /usr/local
CC       ?= cc
B        ?= build
OPT      ?= -O2
CFLAGS   ?= $(OPT) -g
WARN     := -Wall -Wextra
ifeq ($(SANITIZE),1)
B        := build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
endif
ALLCFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(SANFLAGS) -Icompiler -Iruntime -Iil -I$(B) -DROOT=\"$(CURDIR)\"
# One set of objects serves the static archives and the shared libraries:
# position-independent, and exporting only what nbcc.h and nbrt.h declare
# (their visibility pragmas); the programs link the archives as before.
ALLCFLAGS += -fPIC -fvisibility=hidden
LDLIBS   := -lm
# QD (C++) is the independent reference of the tests only
TEST_LIBS := -lqd -lstdc++
OCL_LIBS := -lOpenCL -ldl -lpthread -lpng
# HDF5 (libhdf5-dev): bin/nbody's snapshots, apps/nbody/snap_hdf5.c only
HDF5_CFLAGS := $(shell pkg-config --cflags hdf5 2>/dev/null || echo -I/usr/include/hdf5/serial)
HDF5_LIBS   := $(shell pkg-config --libs hdf5 2>/dev/null || echo -lhdf5_serial)
# bin for the plain build; any other build tree keeps its own programs
# (B=build-nompi MPI=0 wrote MPI=0 programs over bin/'s, which a later
# plain make then took as up to date)
BIN      := $(if $(filter build,$(B)),bin,$(B)/bin)

# --- MPI (docs/mpi.md) ---------------------------------------------------
# The programs' MPI layer, apps/common/par.c: with MPI=1 it calls Open MPI
# (Debian's libopenmpi-dev, found through pkg-config's ompi-c), with MPI=0
# it is one rank.  By default MPI is used where it is installed, so that
# make check tests it (tests/sh/mpi.sh); the programs start MPI only when
# mpirun or srun started them, and otherwise run as without it.
MPI ?= $(shell pkg-config --exists ompi-c 2>/dev/null && echo 1 || echo 0)
ifeq ($(MPI),1)
MPI_CFLAGS := $(shell pkg-config --cflags ompi-c 2>/dev/null || echo NONE)
ifeq ($(MPI_CFLAGS),NONE)
$(error MPI=1: pkg-config finds no ompi-c (Debian: libopenmpi-dev))
endif
MPI_LIBS   := $(shell pkg-config --libs ompi-c)
ALLCFLAGS  += -DNB_MPI
OCL_LIBS   += $(MPI_LIBS)
endif

# --- the IL module, the compiler library and nbcc -------------------------
# il/: nbcc's AMD IL read back and interpreted, and the VLIW model
# (docs/amdil.md); the amdil back end (compiler/amdil) and the runtime's
# amdil device both use it, and it uses nothing of theirs.
IL_SRC   := il/ilread.c il/ilexec.c il/ilvliw.c
IL_OBJ   := $(IL_SRC:%.c=$(B)/%.o)
# compiler/amdil/: the AMD IL back end, one file a part (amdil.h)
AMDIL_SRC := compiler/amdil/abi.c compiler/amdil/analyse.c compiler/amdil/dd.c \
             compiler/amdil/fn.c compiler/amdil/insn.c compiler/amdil/kernel.c \
             compiler/amdil/reduce.c compiler/amdil/regs.c \
             compiler/amdil/vliw.c
CC_SRC   := compiler/ad.c compiler/ast.c compiler/base.c compiler/cse.c compiler/dce.c \
            compiler/ddtext.c compiler/defaults.c compiler/driver.c \
            compiler/emit.c compiler/emit_c.c \
            compiler/emit_opencl.c compiler/esc.c compiler/eval.c \
            compiler/explain.c compiler/fma.c compiler/fold.c compiler/hoist.c \
            compiler/iface.c compiler/ir.c compiler/lower.c compiler/nblprint.c compiler/options.c \
            compiler/outfile.c compiler/powred.c compiler/prec.c compiler/query.c \
            compiler/reassoc.c compiler/sched.c compiler/sema.c compiler/stats.c \
            compiler/target.c compiler/tmpfiles.c compiler/unroll.c $(AMDIL_SRC)
CC_GEN   := $(B)/parse.c $(B)/lex.c $(B)/ddlib_src.c
CC_OBJ   := $(CC_SRC:%.c=$(B)/%.o) $(CC_GEN:.c=.o) $(IL_OBJ)
LIBNBCC  := $(B)/libnbcc.a

# --- the runtime library ----------------------------------------------------
RT_SRC   := runtime/api.c runtime/buildopts.c runtime/cache.c runtime/cells.c runtime/cutoff.c \
            runtime/convert.c runtime/core.c runtime/devclass.c \
            runtime/launch.c runtime/machine.c runtime/msg.c \
            runtime/nbrt_array.c runtime/nbrt_host.c runtime/nbrt_il.c \
            runtime/nbrt_mem.c runtime/newton.c runtime/order.c runtime/predict.c runtime/query.c \
            runtime/ranges.c runtime/sortkv.c runtime/sum.c runtime/tree.c \
            runtime/tune.c runtime/tunefile.c runtime/work.c \
            runtime/cl/array.c runtime/cl/backend.c runtime/cl/device.c \
            runtime/cl/error.c runtime/cl/predict.c runtime/cl/program.c runtime/cl/queue.c runtime/cl/run.c \
            runtime/cl/sort.c runtime/cl/cells.c \
            runtime/cl/morton.c runtime/cl/newton.c
# the OpenCL back end's own kernels, embedded with the dd library
RT_GEN   := $(B)/cl_kernels_src.c
RT_OBJ   := $(RT_SRC:%.c=$(B)/%.o) $(RT_GEN:.c=.o)
LIBNBRT  := $(B)/libnbrt.a

# --- the programs (apps/) ---------------------------------------------------
# apps/common: what several programs share; one folder a program.  The
# objects that are not a program's main go into $(B)/libapps.a, which the
# programs and the unit tests link (an archive: each takes what it uses).
PROGS    := nbrun nbody oneloop ilrun
APP_COMMON_SRC := apps/common/cli.c apps/common/csv.c apps/common/opt.c \
                  apps/common/par.c apps/common/plot.c apps/common/prog.c
NBODY_SRC   := apps/nbody/sim.c apps/nbody/hermite.c apps/nbody/snap.c \
               apps/nbody/snap_hdf5.c apps/nbody/snap_hdf5_read.c \
               apps/nbody/snap_fork.c
# nbody's own files besides its main, nbody.c (nbody.h): they need the
# embedded kernels, so they are linked into bin/nbody alone
NBODY_PROG_SRC := apps/nbody/args.c apps/nbody/force.c apps/nbody/output.c \
                  apps/nbody/restart.c apps/nbody/run.c
# oneloop's own files: quad.c calls QD, which nothing else needs
ONELOOP_SRC := apps/oneloop/quad.c apps/oneloop/wynn.c apps/oneloop/digits.c \
               apps/oneloop/fit.c
# nbrun's own files: the readers of --ranges and --jobs files
NBRUN_SRC   := apps/nbrun/ranges.c apps/nbrun/tree.c apps/nbrun/jobs.c
APPS_SRC    := $(APP_COMMON_SRC) $(NBODY_SRC)
APPS_OBJ    := $(APPS_SRC:%.c=$(B)/%.o)
LIBAPPS     := $(B)/libapps.a
APPS_INC    := -Iapps/common -Iapps/nbody -Iapps/nbrun
MAIN_SRC    := apps/nbcc/main.c apps/nbrun/nbrun.c apps/nbody/nbody.c \
               apps/oneloop/oneloop.c apps/ilrun/ilrun.c apps/nbbench/nbbench.c
PROG_BIN := $(PROGS:%=$(BIN)/%)

all: $(BIN)/nbcc $(PROG_BIN)

$(B)/parse.c $(B)/parse.h &: compiler/parse.y
	@mkdir -p $(B)
	bison -Wall -Werror --defines=$(B)/parse.h -o $(B)/parse.c $<

$(B)/lex.c: compiler/lex.l $(B)/parse.h
	@mkdir -p $(B)
	flex -o $@ $<

$(B)/ddlib_src.c: compiler/ddlib.h scripts/embed.sh
	@mkdir -p $(B)
	sh scripts/embed.sh $< nb_ddlib_src > $@.tmp && mv $@.tmp $@

# generated scanner code is not ours to keep warning-free
$(B)/lex.o: $(B)/lex.c
	$(CC) $(ALLCFLAGS) -Wno-sign-compare -Wno-unused-function -c -o $@ $<

$(B)/%.o: $(B)/%.c
	$(CC) $(ALLCFLAGS) -c -o $@ $<

$(B)/compiler/%.o: compiler/%.c compiler/*.h compiler/amdil/*.h il/*.h \
		$(B)/parse.h
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -c -o $@ $<

$(B)/il/%.o: il/%.c il/*.h compiler/nbcc.h
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -c -o $@ $<

$(LIBNBCC): $(CC_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(B)/runtime/%.o: runtime/%.c runtime/*.h runtime/cl/*.h compiler/nbcc.h il/*.h
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -fopenmp -c -o $@ $<

# runtime/cl/kernels.cl, with compiler/ddlib.h in place of the line that
# includes it: the kernels' own dd arithmetic, in libnbrt's own text
$(B)/cl_kernels_src.c: runtime/cl/kernels.cl compiler/ddlib.h scripts/embed.sh
	@mkdir -p $(B)
	sed -e '/^#include "ddlib.h"$$/{r compiler/ddlib.h' -e 'd;}' $< > $(B)/cl_kernels.cl
	sh scripts/embed.sh $(B)/cl_kernels.cl nbrt_cl_kernels_src > $@.tmp && mv $@.tmp $@

$(LIBNBRT): $(RT_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(B)/apps/%.o: apps/%.c apps/*/*.h runtime/nbrt.h compiler/nbcc.h il/*.h
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) $(APPS_INC) -fopenmp -c -o $@ $<

$(LIBAPPS): $(APPS_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

# --- the shared libraries ---------------------------------------------------
# libnbcc.so.VERSION (soname libnbcc.so.SOVERSION, and the links a linker
# and a loader look for) from the compiler's objects; libnbrt.so.VERSION
# from the runtime's, needing libnbcc.so.  The version is NBCC_VERSION;
# SOVERSION changes when the API of nbcc.h or nbrt.h breaks.
VERSION   := $(shell sed -n 's/^\#define NBCC_VERSION "\(.*\)"/\1/p' compiler/nbcc.h)
SOVERSION := 0
# il/ is linked once, into libnbcc.so: the amdil device of libnbrt.so
# calls il/il.h's functions, which libnbcc.so exports beside nbcc.h's
# (il.h's visibility pragma; tests/sh/install.sh checks both lists).
SO_RT_OBJ := $(RT_OBJ)
SO_NBCC   := $(B)/libnbcc.so.$(VERSION)
SO_NBRT   := $(B)/libnbrt.so.$(VERSION)
# every symbol resolved at link time, so a missing library shows here and
# not in a user's program (the sanitizers' runtime is resolved at load)
SO_LDFLAGS = -shared $(if $(SANFLAGS),,-Wl,-z,defs)

$(SO_NBCC): $(CC_OBJ)
	$(CC) $(ALLCFLAGS) $(SO_LDFLAGS) -Wl,-soname,libnbcc.so.$(SOVERSION) -o $@ $^ $(LDLIBS)
	ln -sf $(@F) $(B)/libnbcc.so.$(SOVERSION)
	ln -sf libnbcc.so.$(SOVERSION) $(B)/libnbcc.so

$(SO_NBRT): $(SO_RT_OBJ) $(SO_NBCC)
	$(CC) $(ALLCFLAGS) $(SO_LDFLAGS) -Wl,-soname,libnbrt.so.$(SOVERSION) -fopenmp -o $@ $^ -lOpenCL -ldl -lpthread $(LDLIBS)
	ln -sf $(@F) $(B)/libnbrt.so.$(SOVERSION)
	ln -sf libnbrt.so.$(SOVERSION) $(B)/libnbrt.so

shared: $(SO_NBCC) $(SO_NBRT)
all: shared

# Objects depend on the flags they were built with (so a build tree from
# before -fPIC is rebuilt, not linked into a shared library and refused).
# (Written as make reads this file: .SECONDARY below would let a rule's
# missing output pass as up to date.)
FLAGS_STAMP := $(B)/cflags.stamp
_ := $(shell mkdir -p $(B) && echo '$(ALLCFLAGS)' | cmp -s - $(FLAGS_STAMP) || \
	echo '$(ALLCFLAGS)' > $(FLAGS_STAMP))
$(CC_OBJ) $(RT_OBJ) $(APPS_OBJ) $(MAIN_SRC:%.c=$(B)/%.o) \
	$(NBODY_PROG_SRC:%.c=$(B)/%.o) $(ONELOOP_SRC:%.c=$(B)/%.o) \
	$(NBRUN_SRC:%.c=$(B)/%.o) $(B)/gravity_nbl.o $(B)/hermite_nbl.o $(B)/gravity_quad_nbl.o \
	$(B)/oneloop_nbl.o $(B)/oneloop_ieps_nbl.o $(B)/oneloop_deform_nbl.o: $(FLAGS_STAMP)

# nbody carries dsl-examples/gravity.nbl, embedded like the dd library
$(B)/gravity_nbl.c: dsl-examples/gravity.nbl scripts/embed.sh
	@mkdir -p $(B)
	sh scripts/embed.sh $< nb_gravity_nbl > $@.tmp && mv $@.tmp $@

$(BIN)/nbody: $(B)/apps/nbody/nbody.o $(NBODY_PROG_SRC:%.c=$(B)/%.o) \
		$(B)/gravity_nbl.o $(B)/hermite_nbl.o $(B)/gravity_quad_nbl.o \
		$(LIBAPPS) $(LIBNBRT) $(LIBNBCC)
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -fopenmp -o $@ $^ $(OCL_LIBS) $(HDF5_LIBS) $(LDLIBS)

# and dsl-examples/hermite.nbl, the force and jerk of --integrator hermite;
# its HDF5 snapshots (snap_hdf5.o, in libapps.a, pulled in by nbody alone)
$(B)/hermite_nbl.c: dsl-examples/hermite.nbl scripts/embed.sh
	@mkdir -p $(B)
	sh scripts/embed.sh $< nb_hermite_nbl > $@.tmp && mv $@.tmp $@
# and far/gravity_quad.nbl, gravity's far field for --tree
$(B)/gravity_quad_nbl.c: far/gravity_quad.nbl scripts/embed.sh
	@mkdir -p $(B)
	sh scripts/embed.sh $< nb_gravity_quad_nbl > $@.tmp && mv $@.tmp $@
$(B)/apps/nbody/snap_hdf5.o $(B)/apps/nbody/snap_hdf5_read.o: ALLCFLAGS += $(HDF5_CFLAGS)
$(B)/apps/common/par.o: ALLCFLAGS += $(MPI_CFLAGS)
$(B)/tests/test_snap: TEST_LIBS += $(HDF5_LIBS)
$(B)/tests/test_snap: ALLCFLAGS += $(HDF5_CFLAGS)
$(B)/tests/test_quad: $(B)/apps/oneloop/quad.o

# nbcc, the compiler's own command line: the compiler's inner header
# (the targets in words) and opt.c's table of flags, no runtime
$(B)/apps/nbcc/main.o: compiler/*.h
$(BIN)/nbcc: $(B)/apps/nbcc/main.o $(LIBAPPS) $(LIBNBCC)
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -o $@ $^ $(LDLIBS)

# oneloop carries dsl-examples/oneloop.nbl the same way, and computes its
# rule with QD's quad-double (libqd-dev, in scripts/deps.sh)
$(B)/oneloop_nbl.c: dsl-examples/oneloop.nbl scripts/embed.sh
	@mkdir -p $(B)
	sh scripts/embed.sh $< nb_oneloop_nbl > $@.tmp && mv $@.tmp $@
$(B)/oneloop_ieps_nbl.c: dsl-examples/oneloop_ieps.nbl scripts/embed.sh
	@mkdir -p $(B)
	sh scripts/embed.sh $< nb_oneloop_ieps_nbl > $@.tmp && mv $@.tmp $@
$(B)/oneloop_deform_nbl.c: dsl-examples/oneloop_deform.nbl scripts/embed.sh
	@mkdir -p $(B)
	sh scripts/embed.sh $< nb_oneloop_deform_nbl > $@.tmp && mv $@.tmp $@

$(BIN)/oneloop: $(B)/apps/oneloop/oneloop.o $(ONELOOP_SRC:%.c=$(B)/%.o) \
		$(B)/oneloop_nbl.o $(B)/oneloop_ieps_nbl.o $(B)/oneloop_deform_nbl.o \
		$(LIBAPPS) $(LIBNBRT) \
		$(LIBNBCC)
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -fopenmp -o $@ $^ $(OCL_LIBS) -lqd -lstdc++ $(LDLIBS)

$(BIN)/nbrun: $(B)/apps/nbrun/nbrun.o $(NBRUN_SRC:%.c=$(B)/%.o) $(LIBAPPS) \
		$(LIBNBRT) $(LIBNBCC)
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -fopenmp -o $@ $^ $(OCL_LIBS) $(LDLIBS)

$(BIN)/ilrun: $(B)/apps/ilrun/ilrun.o $(LIBAPPS) $(LIBNBRT) $(LIBNBCC)
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -fopenmp -o $@ $^ $(OCL_LIBS) $(LDLIBS)

# --- tests -------------------------------------------------------------
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck)

$(B)/tests/%: tests/unit/%.c $(LIBAPPS) $(LIBNBRT) $(LIBNBCC) tests/unit/seed.h tests/unit/cpudev.h \
		tests/unit/unit.h tests/unit/kv.h tests/unit/capture.h
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) $(APPS_INC) -fopenmp -o $@ $(filter-out %.h,$^) $(CHECK_LIBS) $(OCL_LIBS) $(TEST_LIBS) $(LDLIBS)

# test_par again over par.c's one-rank half (make MPI=0), in every build:
# an MPI build compiles that half nowhere else.  par.c's object comes
# before libapps.a, so the archive's par.o is never linked.
$(B)/tests/test_par_nompi: tests/unit/test_par.c apps/common/par.c $(LIBAPPS) \
		$(LIBNBRT) $(LIBNBCC) tests/unit/unit.h tests/unit/capture.h
	@mkdir -p $(@D)
	$(CC) $(filter-out -DNB_MPI,$(ALLCFLAGS)) $(APPS_INC) -fopenmp -o $@ \
		tests/unit/test_par.c apps/common/par.c $(LIBAPPS) $(LIBNBRT) \
		$(LIBNBCC) $(CHECK_LIBS) $(filter-out $(MPI_LIBS),$(OCL_LIBS)) $(LDLIBS)

deps:
	@sh scripts/deps.sh

# The builds of demo and check use every core unless make was given -j
# (the README's two commands have none; three builds, serial, were a
# fifth of make check on a 2-core machine).
JOBS := $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 2))

check: deps
	$(MAKE) $(JOBS) all tests
	sh tests/run.sh bin
	$(MAKE) $(JOBS) --no-print-directory --output-sync=recurse pycheck san-check fuzz-check

# After the plain pass, three parts side by side, each one's output kept
# whole: pytest holds one core for two minutes, and the sanitized build
# and tests and the fuzz targets' build take what it leaves (one after
# another they left a core idle for those minutes in a built tree)
san-check: san-build
	NBCC_SANITIZED=1 sh tests/run.sh build-san/bin

san-build:
	$(MAKE) SANITIZE=1 all tests

check-fast:
	$(MAKE) $(JOBS) all tests
	sh tests/run.sh --fast bin

tests: $(UNIT_BIN) $(B)/tests/test_par_nompi $(BIN)/nbbench \
	$(BIN)/treebench $(BIN)/nbneighbours $(BIN)/sortbench

# The Python package as a user gets it: pip builds it into a fresh venv
# (linking the two libraries from this build's objects, where a user's
# pip compiles them) that sees the
# system's pip, numpy, setuptools, wheel and pytest, with no network;
# then its tests, run from the venv's directory against the installed
# package (their data from NBCC_SOURCE_DIR), sharing the kernel cache of
# the tests above (and their PoCL setting, tests/run.sh, so that PoCL's
# own cache serves too, and their OpenMP wait policy).  Debian's python3:
# it is the one scripts/deps.sh gives those packages.
PYTHON ?= $(firstword $(wildcard /usr/bin/python3) python3)
PYVENV := $(abspath $(B))/pyvenv
pycheck: all
	rm -rf $(PYVENV) python/build
	$(PYTHON) -m venv --without-pip --system-site-packages $(PYVENV)
	NBCC_BUILD_DIR=$(abspath $(B)) \
		$(PYVENV)/bin/python -m pip install -q --no-build-isolation --no-index ./python
	cd $(PYVENV) && NBCC_SOURCE_DIR=$(CURDIR) \
		NBRT_CACHE_DIR=$(abspath $(B))/nbrun-cache \
		POCL_WORK_GROUP_SPECIALIZATION=$${POCL_WORK_GROUP_SPECIALIZATION:-0} \
		OMP_WAIT_POLICY=$${OMP_WAIT_POLICY:-passive} \
		$(PYVENV)/bin/python -m pytest -q -p no:cacheprovider $(CURDIR)/python/tests
	@if $(PYVENV)/bin/python -c 'import mypy' 2>/dev/null; then \
		echo "mypy --strict python/nbcc"; \
		$(PYVENV)/bin/python -m mypy --strict --cache-dir=$(PYVENV)/mypy-cache python/nbcc; \
	else echo "pycheck: no mypy (Debian: python3-mypy), the type hints unchecked"; fi

demo: deps
	$(MAKE) $(JOBS) all
	sh scripts/demo.sh

# --- fuzzing (clang's libFuzzer) ----------------------------------------
# The compiler's sources are built once with the sanitizers and libFuzzer's
# coverage; each target in tests/fuzz links them, with its seeds in
# tests/fuzz/corpus/NAME and the tests' own data (tests/fuzz/seeds.sh puts
# them together in $(B)/fuzz/seeds-NAME).  New inputs found go to
# $(B)/fuzz/corpus-NAME, crashes to $(B)/fuzz/.
FUZZ      := parse csv iface il
FUZZ_BIN  := $(FUZZ:%=$(B)/fuzz/fuzz_%)
FUZZ_CC   ?= clang
FUZZ_SAN  := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_FLAGS = -std=c11 -D_GNU_SOURCE -g -O1 -Icompiler -Iruntime -Iil \
             $(APPS_INC) -I$(B)
# each object under $(B)/fuzz/obj at its source's path
FUZZ_OBJ  := $(CC_SRC:%.c=$(B)/fuzz/obj/%.o) $(IL_SRC:%.c=$(B)/fuzz/obj/%.o) \
             $(CC_GEN:$(B)/%.c=$(B)/fuzz/obj/gen/%.o)
# the CSV reader and the memory query it sizes its reads by (machine.c)
FUZZ_OBJ  += $(B)/fuzz/obj/apps/common/csv.o $(B)/fuzz/obj/runtime/machine.o
# bin/nbody's reader of initial conditions and snapshots (apps/nbody/snap.c)
FUZZ      += ic
FUZZ_BIN  += $(B)/fuzz/fuzz_ic
FUZZ_OBJ  += $(B)/fuzz/obj/apps/nbody/snap.o
# and the reader of its IDs, steps and seeds (opt_u64) with what opt.c uses
FUZZ_OBJ  += $(B)/fuzz/obj/apps/common/opt.o $(B)/fuzz/obj/apps/common/prog.o
# nbrun's reader of --ranges files (apps/nbrun/ranges.c)
FUZZ      += ranges
FUZZ_BIN  += $(B)/fuzz/fuzz_ranges
FUZZ_OBJ  += $(B)/fuzz/obj/apps/nbrun/ranges.o
# and of --jobs files (apps/nbrun/jobs.c)
FUZZ      += jobs
FUZZ_BIN  += $(B)/fuzz/fuzz_jobs
FUZZ_OBJ  += $(B)/fuzz/obj/apps/nbrun/jobs.o
# bin/nbody's HDF5 reader (apps/nbody/snap_hdf5_read.c) with libhdf5, in
# the child process it reads in (snap_fork.c); its files need a longer
# -max_len than the others' 4096 bytes
FUZZ      += hdf5
FUZZ_BIN  += $(B)/fuzz/fuzz_hdf5
FUZZ_H5   := $(B)/fuzz/obj/apps/nbody/snap_hdf5_read.o \
             $(B)/fuzz/obj/apps/nbody/snap_fork.o
$(B)/fuzz/fuzz_hdf5: $(FUZZ_H5)
$(B)/fuzz/fuzz_hdf5: LDLIBS += $(HDF5_LIBS)
$(FUZZ_H5): FUZZ_FLAGS += $(HDF5_CFLAGS)
# the tuner's cache entries (runtime/tunefile.c), whose digest is cache.c's:
# the target reaches the fields' parser straight
FUZZ      += tune
FUZZ_BIN  += $(B)/fuzz/fuzz_tune
FUZZ_OBJ  += $(B)/fuzz/obj/runtime/tunefile.o $(B)/fuzz/obj/runtime/cache.o \
             $(B)/fuzz/obj/runtime/msg.o
# derived kernels (compiler/ad.c): round trip and central differences
FUZZ      += ad
FUZZ_BIN  += $(B)/fuzz/fuzz_ad

$(B)/fuzz/obj/gen/%.o: $(B)/%.c $(B)/parse.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link $(FUZZ_SAN) -c -o $@ $<

$(B)/fuzz/obj/%.o: %.c compiler/*.h compiler/amdil/*.h runtime/*.h il/*.h \
		apps/*/*.h $(B)/parse.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link $(FUZZ_SAN) -c -o $@ $<

$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJ)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(LDLIBS)

fuzz: $(FUZZ_BIN)
	@for t in $(FUZZ); do \
		mkdir -p $(B)/fuzz/corpus-$$t; \
		sh tests/fuzz/seeds.sh $$t $(B)/fuzz/seeds-$$t || exit 1; \
		dict=; [ -f tests/fuzz/$$t.dict ] && dict=-dict=tests/fuzz/$$t.dict; \
		ml=4096 to=10; [ $$t != hdf5 ] || { ml=16384; to=45; }; \
		echo "fuzz: $$t for $${FUZZ_TIME:-60} s"; \
		$(B)/fuzz/fuzz_$$t -max_total_time=$${FUZZ_TIME:-60} -max_len=$$ml \
			-timeout=$$to -rss_limit_mb=2048 $$dict \
			-artifact_prefix=$(B)/fuzz/$$t- -print_final_stats=1 \
			$(B)/fuzz/corpus-$$t $(B)/fuzz/seeds-$$t || exit 1; \
	done

# make check: each target over its seeds once, so the targets cannot rot
# (tests/fuzz/check.sh, the targets side by side)
fuzz-check:
	@if sh tests/fuzz/have-libfuzzer.sh $(FUZZ_CC); then \
		$(MAKE) --no-print-directory $(JOBS) $(FUZZ_BIN) >/dev/null && \
		sh tests/fuzz/check.sh $(B) $(FUZZ); \
	else \
		echo "fuzz: skipped: $(FUZZ_CC) cannot build libFuzzer targets" \
		     "(Debian: clang and libclang-rt-14-dev)"; \
	fi

# make fuzz-long [FUZZ_LONG=S]: every target for S seconds (default 1800),
# going on past a crash (libFuzzer's fork mode); each crash, leak, timeout
# or out-of-memory input is copied to tests/fuzz/corpus/NAME/ (named by
# its hash), a regression seed that fuzz-check runs from then on: commit it
# with the fix.  Fails when any target found one.
FUZZ_LONG ?= 1800
fuzz-long: $(FUZZ_BIN)
	@found=0; for t in $(FUZZ); do \
		mkdir -p $(B)/fuzz/corpus-$$t $(B)/fuzz/long-$$t; \
		rm -f $(B)/fuzz/long-$$t/*; \
		sh tests/fuzz/seeds.sh $$t $(B)/fuzz/seeds-$$t || exit 1; \
		dict=; [ -f tests/fuzz/$$t.dict ] && dict=-dict=tests/fuzz/$$t.dict; \
		ml=4096 to=10; [ $$t != hdf5 ] || { ml=16384; to=45; }; \
		echo "fuzz-long: $$t for $(FUZZ_LONG) s"; \
		$(B)/fuzz/fuzz_$$t -fork=1 -ignore_crashes=1 -ignore_timeouts=1 \
			-ignore_ooms=1 -max_total_time=$(FUZZ_LONG) -max_len=$$ml \
			-timeout=$$to -rss_limit_mb=2048 $$dict \
			-artifact_prefix=$(B)/fuzz/long-$$t/ -print_final_stats=1 \
			$(B)/fuzz/corpus-$$t $(B)/fuzz/seeds-$$t \
			>$(B)/fuzz/long-$$t.log 2>&1; \
		tail -3 $(B)/fuzz/long-$$t.log; \
		for a in $(B)/fuzz/long-$$t/*; do \
			[ -f "$$a" ] || continue; \
			mkdir -p tests/fuzz/corpus/$$t; \
			s=tests/fuzz/corpus/$$t/$${a##*/}; cp "$$a" "$$s"; \
			echo "fuzz-long: $$t: $$s (a regression seed now)"; found=1; \
		done; \
	done; \
	[ $$found = 0 ] || { echo "fuzz-long: inputs found that fail"; exit 1; }

man: $(BIN)/nbcc $(PROG_BIN)
	BIN=$(BIN) sh scripts/man.sh

# the suite tests/cases/generated, its expectations rewritten
generated: $(BIN)/nbcc
	NBCC_UPDATE=1 sh tests/run.sh $(BIN) generated

$(BIN)/nbbench: $(B)/apps/nbbench/nbbench.o $(LIBAPPS) $(LIBNBRT) $(LIBNBCC)
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -fopenmp -o $@ $^ $(OCL_LIBS) $(LDLIBS)

# the figures of docs/nbody.md (sh bench/run.sh hermite-vs-leapfrog)
$(BIN)/nbplot: bench/nbplot.c $(LIBAPPS) $(LIBNBRT) $(LIBNBCC)
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -Iapps/common -o $@ $^ $(OCL_LIBS) $(LDLIBS)

# the neighbours suite's driver (sh bench/run.sh neighbours)
$(BIN)/nbneighbours: bench/neighbours.c $(LIBAPPS) $(LIBNBRT) $(LIBNBCC)
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -Iapps/common -fopenmp -o $@ $^ $(OCL_LIBS) $(LDLIBS)

# the timer of Newton's third law (sh bench/run.sh newton)
$(BIN)/selfrun: bench/selfrun.c $(LIBNBRT) $(LIBNBCC)
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -fopenmp -o $@ $^ $(OCL_LIBS) $(LDLIBS)

# the treecode against direct summation (sh bench/run.sh tree)
$(BIN)/treebench: bench/treebench.c $(LIBAPPS) $(LIBNBRT) $(LIBNBCC)
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -Iapps/common -fopenmp -o $@ $^ $(OCL_LIBS) $(LDLIBS)

# the device's radix sort against the host's (sh bench/run.sh sort)
$(BIN)/sortbench: bench/sortbench.c $(LIBNBRT) $(LIBNBCC)
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -fopenmp -o $@ $^ $(OCL_LIBS) $(LDLIBS)

# the treecode's accuracy against double direct (sh bench/run.sh treeacc)
$(BIN)/treeacc: bench/treeacc.c $(LIBNBRT) $(LIBNBCC)
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -fopenmp -o $@ $^ $(OCL_LIBS) $(LDLIBS)

# the CPU suite, and the GPU transforms where a GPU answers, each into a
# dated file of bench/results/ (bench/run.sh; one suite: sh bench/run.sh
# SUITE, sh bench/run.sh list)
bench: all $(BIN)/nbbench $(BIN)/nbneighbours $(BIN)/selfrun $(BIN)/treebench \
	$(BIN)/treeacc $(BIN)/sortbench
	BIN=$(BIN) sh bench/run.sh

# --- install ----------------------------------------------------------------
# The GNU directory names, each overridable (a distribution sets PREFIX=/usr,
# LIBDIR=/usr/lib/x86_64-linux-gnu, DESTDIR=its staging root).  uninstall
# removes the same lists, and the two directories of nbcc's own.
BINDIR       ?= $(PREFIX)/bin
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
DATADIR      ?= $(PREFIX)/share
MANDIR       ?= $(DATADIR)/man
DOCDIR       ?= $(DATADIR)/doc/nbcc
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
INST_BIN  := nbcc $(PROGS)
INST_SO   := libnbcc.so.$(VERSION) libnbrt.so.$(VERSION)
INST_LINK := libnbcc.so.$(SOVERSION) libnbcc.so libnbrt.so.$(SOVERSION) libnbrt.so
INST_LIB  := libnbcc.a libnbrt.a $(INST_SO) $(INST_LINK)
INST_HDR  := nbcc.h nbrt.h
INST_PC   := nbcc.pc nbrt.pc
INST_MAN  := $(notdir $(wildcard docs/man/*.1))
INST_DOC  := README.md $(notdir $(wildcard docs/*.md))
INST_EX   := $(notdir $(wildcard dsl-examples/*.nbl))
D := $(DESTDIR)

install: all
	install -d $(D)$(BINDIR) $(D)$(LIBDIR) $(D)$(INCLUDEDIR) $(D)$(PKGCONFIGDIR) \
		$(D)$(MANDIR)/man1 $(D)$(DOCDIR)/examples
	install -m 755 $(INST_BIN:%=$(BIN)/%) $(D)$(BINDIR)
	install -m 644 $(LIBNBCC) $(LIBNBRT) $(D)$(LIBDIR)
	install -m 755 $(INST_SO:%=$(B)/%) $(D)$(LIBDIR)
	cp -P $(INST_LINK:%=$(B)/%) $(D)$(LIBDIR)
	install -m 644 compiler/nbcc.h runtime/nbrt.h $(D)$(INCLUDEDIR)
	for p in compiler/nbcc runtime/nbrt; do \
		sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
		    $$p.pc.in > $(D)$(PKGCONFIGDIR)/$${p#*/}.pc || exit 1; \
		chmod 644 $(D)$(PKGCONFIGDIR)/$${p#*/}.pc; \
	done
	for m in $(INST_MAN); do \
		sed 's|PREFIX/share/doc/nbcc|$(DOCDIR)|g' docs/man/$$m > $(D)$(MANDIR)/man1/$$m || exit 1; \
		chmod 644 $(D)$(MANDIR)/man1/$$m; \
	done
	install -m 644 README.md $(wildcard docs/*.md) $(D)$(DOCDIR)
	install -m 644 $(INST_EX:%=dsl-examples/%) $(D)$(DOCDIR)/examples
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then \
		echo ldconfig; ldconfig; fi

uninstall:
	rm -f $(INST_BIN:%=$(D)$(BINDIR)/%) $(INST_LIB:%=$(D)$(LIBDIR)/%) \
		$(INST_HDR:%=$(D)$(INCLUDEDIR)/%) $(INST_PC:%=$(D)$(PKGCONFIGDIR)/%) \
		$(INST_MAN:%=$(D)$(MANDIR)/man1/%) $(INST_DOC:%=$(D)$(DOCDIR)/%) \
		$(INST_EX:%=$(D)$(DOCDIR)/examples/%)
	rmdir $(D)$(DOCDIR)/examples $(D)$(DOCDIR) 2>/dev/null || true

clean:
	rm -rf build build-san bin

.PHONY: all check check-fast tests demo fuzz fuzz-check fuzz-long bench install clean deps generated
.PHONY: shared uninstall pycheck man san-build san-check
.SECONDARY:
