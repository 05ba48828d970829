# nbcc: a compiler for two-nested-loop problems, and its runtime.
#   make          build bin/nbcc, bin/nbrun, bin/nbody
#   make demo     the main job (installs missing packages first)
#   make check    every test, then the sanitizer pass
#   make fuzz     run the parser fuzz target for FUZZ_TIME seconds
#   make bench    benchmarks under bench/
#   make install PREFIX=/usr/local

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
ALLCFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(SANFLAGS) -Icompiler -Iruntime -I$(B) -DROOT=\"$(CURDIR)\"
LDLIBS   := -lm
# QD (C++) is the independent reference of the tests only
TEST_LIBS := -lqd -lstdc++
OCL_LIBS := -lOpenCL -ldl -lpthread -lpng
BIN      := $(if $(filter 1,$(SANITIZE)),$(B)/bin,bin)

# --- the compiler library and nbcc ---------------------------------------
CC_SRC   := $(filter-out compiler/main.c,$(wildcard compiler/*.c))
CC_GEN   := $(B)/parse.c $(B)/lex.c $(B)/ddlib_src.c
CC_OBJ   := $(CC_SRC:compiler/%.c=$(B)/compiler/%.o) $(CC_GEN:.c=.o)
LIBNBCC  := $(B)/libnbcc.a

# --- the runtime library and programs -------------------------------------
PROGS    := nbrun nbody oneloop
RT_PROG_SRC := $(wildcard $(PROGS:%=runtime/%.c))
RT_SRC   := $(filter-out $(RT_PROG_SRC),$(wildcard runtime/*.c))
RT_OBJ   := $(RT_SRC:runtime/%.c=$(B)/runtime/%.o)
LIBNBRT  := $(B)/libnbrt.a
PROG_BIN := $(RT_PROG_SRC:runtime/%.c=$(BIN)/%)

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

$(B)/compiler/%.o: compiler/%.c compiler/*.h $(B)/parse.h
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -c -o $@ $<

$(LIBNBCC): $(CC_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(BIN)/nbcc: $(B)/compiler/main.o $(LIBNBCC)
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -o $@ $^ $(LDLIBS)

$(B)/runtime/%.o: runtime/%.c runtime/*.h compiler/nbcc.h
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -fopenmp -c -o $@ $<

$(LIBNBRT): $(RT_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

# nbody carries dsl-examples/gravity.nbl, embedded like the dd library
$(B)/gravity_nbl.c: dsl-examples/gravity.nbl scripts/embed.sh
	@mkdir -p $(B)
	sh scripts/embed.sh $< nb_gravity_nbl > $@.tmp && mv $@.tmp $@

$(BIN)/nbody: $(B)/runtime/nbody.o $(B)/gravity_nbl.o $(LIBNBRT) $(LIBNBCC)
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -fopenmp -o $@ $^ $(OCL_LIBS) $(LDLIBS)

$(BIN)/%: $(B)/runtime/%.o $(LIBNBRT) $(LIBNBCC)
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -fopenmp -o $@ $^ $(OCL_LIBS) $(LDLIBS)

# --- tests -------------------------------------------------------------
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck)

$(B)/tests/%: tests/unit/%.c $(LIBNBRT) $(LIBNBCC)
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -fopenmp -o $@ $^ $(CHECK_LIBS) $(OCL_LIBS) $(TEST_LIBS) $(LDLIBS)

deps:
	@sh scripts/deps.sh

check: deps
	$(MAKE) all tests
	sh tests/run.sh bin
	$(MAKE) SANITIZE=1 all tests
	NBCC_SANITIZED=1 sh tests/run.sh build-san/bin

tests: $(UNIT_BIN)

demo: deps
	$(MAKE) all
	sh scripts/demo.sh

fuzz: $(B)/fuzz_parse
	@mkdir -p $(B)/fuzz-corpus
	$(B)/fuzz_parse -max_total_time=$${FUZZ_TIME:-60} -max_len=4096 \
		-timeout=10 -dict=tests/fuzz/nbl.dict -artifact_prefix=$(B)/ \
		$(B)/fuzz-corpus tests/fuzz/corpus

$(B)/fuzz_parse: tests/fuzz/fuzz_parse.c $(CC_SRC) $(CC_GEN)
	clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
		-Icompiler -I$(B) -o $@ $^ $(LDLIBS)

generated: $(BIN)/nbcc
	rm -rf generated
	sh scripts/regen-generated.sh $(BIN)/nbcc generated

$(BIN)/nbbench: bench/nbbench.c $(LIBNBRT) $(LIBNBCC)
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -fopenmp -o $@ $^ $(OCL_LIBS) $(LDLIBS)

bench: all $(BIN)/nbbench
	sh bench/run.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include
	install -m 755 $(BIN)/nbcc $(PROG_BIN) $(DESTDIR)$(PREFIX)/bin
	install -m 644 $(LIBNBCC) $(LIBNBRT) $(DESTDIR)$(PREFIX)/lib
	install -m 644 compiler/nbcc.h runtime/nbrt.h $(DESTDIR)$(PREFIX)/include

clean:
	rm -rf build build-san bin

.PHONY: all check tests demo fuzz bench install clean deps generated
.SECONDARY:
