# hetc: the two commands a new user types are `make demo` and `make test`.
# Both install what is missing (Debian 12, root or sudo) and build first.

BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build test demo docs fixtures bench clean

all: build

deps:
	./scripts/install-deps.sh

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

fixtures:
	$(MAKE) -C models fixtures

clean:
	rm -rf $(BUILD_DIR)
