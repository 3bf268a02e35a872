# Convenience entry points; the build itself is CMake (see README.md).
#   make demo    install what is missing, build, run the main job here
#   make test    install what is missing, build, run the whole test suite
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all setup build test demo asan tsan mpich soak fuzz ci clean format format-check

all: build

setup:
	@scripts/setup-deps.sh

$(BUILD)/CMakeCache.txt: | setup
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: setup $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# Two Open MPI settings for the test suites, each overridable from the
# environment. Every test job runs on this host or on the virtual cluster,
# where Open MPI's ob1 layer (shared memory, TCP) carries it: naming ob1
# spares each of a suite's launches (about 1000) Open MPI's probe of the PSM
# and PSM2 transports of its cm layer, 0.2 s a launch on a machine without
# them (set OMPI_MCA_pml to test the library over another layer). And a
# job that fails on purpose (a few hundred tests) ends without mpirun's
# grace of 1 s between its SIGTERM and its SIGKILL to each process, which
# the library's processes do not use (they handle no SIGTERM).
test asan tsan soak: export OMPI_MCA_pml ?= ob1
test asan tsan soak: export OMPI_MCA_odls_base_sigkill_timeout ?= 0

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j 2

# QUICK=1: the short tour (under 2 minutes on 2 cores).
demo: build
	@scripts/demo.sh $(BUILD) $(if $(QUICK),--quick)

# Sanitizer builds, each one command: ASan+UBSan+LeakSanitizer over every
# test program (tests/lsan.supp: only the memory of MPI, its libraries and
# the sanitizer itself),
# TSan over the thread code (the runtime, the node library, the collectives,
# the one-sided layer, the redistributions and the exchange engine under
# them, messages, shared objects, the MPI layer, and the collectives again
# across the virtual cluster, where they meet MPI over TCP from several
# threads; history_size=7 keeps the stacks of races between long
# collective calls). On the virtual
# cluster Open MPI loads UCX for one-sided windows, and with it two hooks
# on munmap/madvise (its memory patcher's and UCX's own): a thread that
# exits returns its stack with madvise, the hooks take a pthread rwlock,
# and TSan's interceptor, on a thread it has already finished, crashes
# (SIGSEGV in __tsan::MutexPreReadLock). The TSan run turns both hooks
# off; they keep UCX's registration cache valid, and UCX's TCP transport
# registers nothing. A sanitized job runs 2-10 times slower, so each SPMD
# program runs under the layouts of ASAN_LAYOUTS / TSAN_LAYOUTS only (one
# thread; nodes of several threads; odd node counts with nodes of different
# sizes); set them empty for every layout.
ASAN_LAYOUTS ?= 1x1;2x2;3x1-2-3
TSAN_LAYOUTS ?= 1x4;2x2;3x1-2-3
asan: setup
	cmake -S . -B build-asan -DSIMPLE_SANITIZE=address,undefined -DCMAKE_BUILD_TYPE=Debug \
	  -DSIMPLE_TEST_LAYOUTS="$(ASAN_LAYOUTS)"
	cmake --build build-asan -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  ctest --test-dir build-asan --output-on-failure -j 2 -LE install

tsan: setup
	cmake -S . -B build-tsan -DSIMPLE_SANITIZE=thread -DCMAKE_BUILD_TYPE=Debug \
	  -DSIMPLE_TEST_LAYOUTS="$(TSAN_LAYOUTS)" -DSIMPLE_BUILD_APPS=OFF
	cmake --build build-tsan -j $(JOBS)
	TSAN_OPTIONS="suppressions=$(CURDIR)/tests/tsan.supp halt_on_error=1 history_size=7" \
	  OMPI_MCA_memory=^patcher UCX_MEM_MMAP_HOOK_MODE=none \
	  ctest --test-dir build-tsan --output-on-failure -j 2 -L '^(node|run|coll|rma|dist|xchg|msg|shobj|net|vcluster)$$'

# The library against MPICH: a smoke subset (node library, runtime, launcher,
# and the redistributions, whose messages go through MPI datatypes).
mpich: setup
	cmake -S . -B build-mpich -DSIMPLE_MPI=mpich
	cmake --build build-mpich -j $(JOBS)
	ctest --test-dir build-mpich --output-on-failure -j 2 -L 'node|run|tools|net|msg|dist'

# The soak test: a million mixed operations on 2x2 and 3 nodes of 1, 2, 3
# threads, every result checked, peak memory reported (minutes).
soak: setup
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS) -DSIMPLE_SOAK=ON
	cmake --build $(BUILD) -j $(JOBS)
	ctest --test-dir $(BUILD) --output-on-failure -V -L soak

# libFuzzer targets (clang): argument validation, message and BSMP unpack;
# each runs FUZZ_RUNS inputs (default 50000, fixed seed) in a one-thread job.
FUZZ_RUNS ?= 50000
fuzz: setup
	CC=clang cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug \
	  -DSIMPLE_SANITIZE=fuzzer-no-link,address,undefined -DSIMPLE_FUZZ=ON \
	  -DSIMPLE_FUZZ_RUNS=$(FUZZ_RUNS) -DSIMPLE_BUILD_APPS=OFF
	cmake --build build-fuzz -j $(JOBS) --target fuzz_args fuzz_unpack
	ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  ctest --test-dir build-fuzz --output-on-failure -L fuzz

# What CI runs (.ci/run).
ci: test asan tsan fuzz mpich

clean:
	rm -rf build build-asan build-tsan build-mpich build-fuzz

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

format-check:
	clang-format --dry-run --Werror $$(git ls-files '*.c' '*.h')
