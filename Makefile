# hetc: the two commands a new user types are `make demo` and `make test`.
# Both install what is missing (Debian 12, root or sudo) and build first.

BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build test demo docs fixtures bench bench-gpu gpu-check-prepare fuzz clean

all: build

deps:
	./scripts/install-deps.sh
	./scripts/setup-python.sh

$(BUILD_DIR)/build.ninja: | deps
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

configure: $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# Unit tests (gtest) and the lit suite, all under ctest.
test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

demo: build
	./scripts/demo.sh $(BUILD_DIR)

# Regenerates docs/dialects/ from the ODS definitions.
docs: build
	cmake --build $(BUILD_DIR) --target hetc-docs

# CPU figures (hetrun vs PyTorch step time, hetc compile of GPT-2 124M); prints them,
# checks nothing; takes a few minutes. See docs/performance.md.
bench: build
	cmake --build $(BUILD_DIR) --target bench

# GPU figures (hetrun vs PyTorch eager and torch.compile on GPT-2 124M/350M, planner
# predictions vs measured): run here when a GPU is present, else prints how to run it
# on a GPU machine (bench/gpu/prepare.sh, bench/gpu/run.sh). See docs/performance.md.
bench-gpu: build
	cmake --build $(BUILD_DIR) --target bench-gpu

gpu-check-prepare: build
	cmake --build $(BUILD_DIR) --target gpu-check-prepare

# Fuzzing (docs/fuzzing.md): the test/fuzz targets under libFuzzer and
# AddressSanitizer, built with clang in $(BUILD_DIR)-fuzz, FUZZ_SECONDS (60)
# each; crashers land in test/fuzz/crashers/, which `make test` replays.
FUZZ_SECONDS ?= 60
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) ./scripts/fuzz.sh $(BUILD_DIR)-fuzz

fixtures:
	$(MAKE) -C models fixtures

clean:
	rm -rf $(BUILD_DIR)
