# stapx front door. `make demo` and `make check` do all set-up on a fresh
# Debian 12 machine (run as root, or with sudo available).
BUILD ?= build
JOBS ?= $(shell nproc)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Debian packages stapx needs to build, test and run its guest.
DEB_PACKAGES := build-essential cmake pkg-config libboost-dev libdw-dev libelf-dev \
	libfmt-dev libgtest-dev linux-headers-amd64 qemu-system-x86 busybox-static cpio \
	kmod zstd lz4 python3 openssl libdebuginfod-dev debuginfod curl systemtap systemtap-doc systemtap-sdt-dev libc6-dbg \
	dropbear-bin openssh-client debhelper debootstrap libsqlite3-dev sqlite3

.PHONY: all deps deps-matrix build check check-kernels unit stage corpus harness coherence runtests smoke stress check-network deb check-deb demo install clean bench bench-probes bench-uprobes bench-returns bench-output bench-attach bench-maps bench-memory fuzz fuzz-build fuzz-regress fuzz-elab

# The guest kernel: the default one (linux-headers-amd64's release) unless
# KERNEL=R names another Debian kernel (e.g. 6.12.117+deb12-rt-amd64), for
# runtests and stress; `make check KERNEL=R` runs the full suite there.
KERNEL ?=
RELEASE_OPT := $(if $(KERNEL),--release $(KERNEL))

all: build

# Installs only what is missing, so a second run needs no network.
deps:
	@missing=$$(for p in $(DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "Installing:" $$missing; \
		$(SUDO) apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q $$missing; \
	fi
	testsuite/vm/fetch-kernel $(BUILD)/kernel
	testsuite/vm/fetch-kernel-dbg $(BUILD)/kernel
ifneq ($(KERNEL),)
	testsuite/vm/fetch-kernel $(BUILD)/kernel $(KERNEL)
	testsuite/vm/fetch-kernel-dbg $(BUILD)/kernel $(KERNEL)
endif

# The other kernels of the matrix (testsuite/vm/matrix-kernels: the default
# release's -rt and -cloud flavours, the newest 6.12 generic and -rt), each
# into $(BUILD)/kernel/R: image, BTF, DWARF vmlinux, headers unpacked (not
# installed). Cached in ~/.cache/stapx like the default kernel's.
deps-matrix: deps
	@for r in $$(testsuite/vm/matrix-kernels $(BUILD)/kernel); do \
		testsuite/vm/fetch-kernel $(BUILD)/kernel $$r >/dev/null && \
		testsuite/vm/fetch-kernel-dbg $(BUILD)/kernel $$r >/dev/null || exit 1; done

# Pass 1 (frontend/) is built with profile-guided optimization: a build that
# counts what runs (in $(BUILD)/pgo-train) parses stapx's own tapsets and
# test scripts, and the real build compiles frontend/ with those counts
# (bench/README.md, "Profile-guided build"). PGO=0 builds without.
PGO ?= 1
PGO_PROFILE := $(abspath $(BUILD))/pgo-profile
PGO_TRAIN := $(BUILD)/pgo-train
PGO_CORPUS := tapsets testsuite/parseok testsuite/semok testsuite/run testsuite/fuzz/corpus

build:
	@mkdir -p $(BUILD)
ifeq ($(PGO),1)
	@[ -f $(PGO_TRAIN)/CMakeCache.txt ] || cmake -S . -B $(PGO_TRAIN) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DSTAPX_PGO=generate -DSTAPX_PGO_PROFILE=$(PGO_PROFILE) >/dev/null
	cmake --build $(PGO_TRAIN) -j $(JOBS) --target parse_tapsets
	@# New counts only when the counting build changed (make check builds
	@# four times). Exit status 1: some test scripts are parse errors on purpose.
	@if [ ! $(PGO_PROFILE)/done -nt $(PGO_TRAIN)/bench/parse_tapsets ]; then \
		rm -rf $(PGO_PROFILE) && echo "PGO: counting pass 1 over $(PGO_CORPUS)" && \
		{ $(PGO_TRAIN)/bench/parse_tapsets -n 1 -q $(PGO_CORPUS) >/dev/null || [ $$? -eq 1 ]; } && \
		touch $(PGO_PROFILE)/done; fi
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTAPX_PGO=use -DSTAPX_PGO_PROFILE=$(PGO_PROFILE) >/dev/null
else
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTAPX_PGO= >/dev/null
endif
	cmake --build $(BUILD) -j $(JOBS)

unit: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Stage tests: every parseok case parses, every parseko case fails where it
# says; likewise semok/semko at pass 2 (cases listed in xfail-*.txt are not
# done yet).
stage: build
	testsuite/stage/run-stage --stapx $(BUILD)/stapx --xfail testsuite/stage/xfail-parse.txt \
		testsuite/parseok testsuite/parseko
	testsuite/stage/run-stage --stapx $(BUILD)/stapx --xfail testsuite/stage/xfail-sem.txt \
		testsuite/semok testsuite/semko
	@# Cases that need DWARF: against the guest kernel's vmlinux (make deps).
	@R=$$(cat $(BUILD)/kernel/release 2>/dev/null); \
	if [ -n "$$R" ] && [ -f $(BUILD)/kernel/$$R/debug/vmlinux-$$R ]; then \
		testsuite/stage/run-stage --stapx $(BUILD)/stapx --opt=-r$$R testsuite/dwarf/semok testsuite/dwarf/semko; \
	else echo "testsuite/dwarf: skipped (no DWARF vmlinux in $(BUILD)/kernel; make deps)"; fi

# Debian's systemtap tapset tree and examples (systemtap, systemtap-doc) must
# parse and print back to a script that parses to the same text.
STAP_SHARE := /usr/share/systemtap
corpus: build
	testsuite/corpus/parse-corpus --stapx $(BUILD)/stapx --roundtrip \
		--xfail testsuite/corpus/xfail.txt --invocations testsuite/corpus/invocations.txt \
		--stapx-arg=-I$(STAP_SHARE)/tapset \
		--privileged $(STAP_SHARE)/tapset --privileged $(STAP_SHARE)/examples/stapgames/tapset \
		$(STAP_SHARE)/tapset $(STAP_SHARE)/examples

# The harness judges right: fake tests that must pass and fail as expected
# (testsuite/vm/README.md, selftest/run; about a minute).
harness: build
	testsuite/vm/selftest/run --kernel-dir $(BUILD)/kernel

# The guest's own health first: a hand-written kprobe module loaded and
# unloaded under load must not oops it (testsuite/vm/README.md, "Coherence").
COHERENCE_CYCLES ?= 20
coherence: build
	testsuite/vm/coherence --stapx-run $(BUILD)/stapx-run --kernel-dir $(BUILD)/kernel \
		--cycles $(COHERENCE_CYCLES)

runtests: build
	testsuite/vm/run-tests --stapx $(BUILD)/stapx --stapx-run $(BUILD)/stapx-run \
		--kernel-dir $(BUILD)/kernel $(RELEASE_OPT) testsuite/run

# testsuite/run/smoke.txt's tests on each other kernel of the matrix; every
# kernel runs even when one fails. check-kernels: every run test on each.
SMOKE := $(shell sed -n 's|^\([a-z0-9_]*\)$$|testsuite/run/\1.stp|p' testsuite/run/smoke.txt)
smoke: build deps-matrix
	@fail=0; for r in $$(testsuite/vm/matrix-kernels $(BUILD)/kernel); do \
		echo "== smoke tests on $$r"; \
		testsuite/vm/run-tests --stapx $(BUILD)/stapx --stapx-run $(BUILD)/stapx-run \
			--kernel-dir $(BUILD)/kernel --release $$r $(SMOKE) || fail=1; done; exit $$fail
check-kernels: build deps-matrix
	@fail=0; for r in $$(cat $(BUILD)/kernel/release) $$(testsuite/vm/matrix-kernels $(BUILD)/kernel); do \
		echo "== run tests on $$r"; \
		testsuite/vm/run-tests --stapx $(BUILD)/stapx --stapx-run $(BUILD)/stapx-run \
			--kernel-dir $(BUILD)/kernel --release $$r testsuite/run || fail=1; done; exit $$fail

# Every guest CPU busy from before each case's module loads until it is
# gone; each case run STRESS_REPEAT times, or fewer where NAME.repeat says
# (testsuite/vm/README.md, "Stress").
STRESS_REPEAT ?= 20
stress: build
	testsuite/vm/run-tests --busy --repeat $(STRESS_REPEAT) --timeout 300 \
		--stapx $(BUILD)/stapx --stapx-run $(BUILD)/stapx-run \
		--kernel-dir $(BUILD)/kernel $(RELEASE_OPT) testsuite/stress

check: deps deps-matrix
	$(MAKE) unit
	$(MAKE) stage
	$(MAKE) corpus
	$(MAKE) harness
	$(MAKE) coherence
	$(MAKE) runtests
	$(MAKE) stress
	$(MAKE) smoke
	$(MAKE) check-network
	$(MAKE) check-deb

# stapx --remote against two ssh guests (the default kernel and 6.12),
# reachable only on 127.0.0.1 (testsuite/vm/README.md, "Remote hosts").
check-network: build deps-matrix
	testsuite/vm/remote-test --stapx $(BUILD)/stapx --stapx-run $(BUILD)/stapx-run \
		--kernel-dir $(BUILD)/kernel

# The Debian package (debian/, dpkg-buildpackage, debhelper) of what
# `make build` built, into $(BUILD)/deb; check-deb installs it on a clean
# Debian 12 (a debootstrap chroot) and runs stapx --vm there.
DEB_VERSION = $(shell dpkg-parsechangelog -S Version)
DEB_OUT = $(abspath $(BUILD))/deb
deb: build
	@mkdir -p $(DEB_OUT)
	@# (-nc: no pre-clean, whose dh_clean would sweep *.orig, *~ ... from
	@# the whole checkout, build tree included.)
	BUILD=$(BUILD) DEB_DIR=$(DEB_OUT) dpkg-buildpackage -b -nc -us -uc \
		--changes-file=$(DEB_OUT)/stapx_$(DEB_VERSION)_amd64.changes \
		--buildinfo-file=$(DEB_OUT)/stapx_$(DEB_VERSION)_amd64.buildinfo \
		--changes-option=-u$(DEB_OUT) --buildinfo-option=-u$(DEB_OUT)
	@echo "Package: $(DEB_OUT)/stapx_$(DEB_VERSION)_amd64.deb"
check-deb: deb
	$(SUDO) testsuite/deb/install-test $(DEB_OUT)/stapx_$(DEB_VERSION)_amd64.deb

# Passes 1 and 2 against stap's (ratios; never gates CI).
bench: build
	bench/parse-vs-stap --parse-tapsets $(BUILD)/bench/parse_tapsets
	bench/elaborate-vs-stap --stapx $(BUILD)/stapx

# Instructions a kprobe hit adds under stapx, a hand-written module and
# bpftrace, in one QEMU -icount guest (never gates CI). The first run makes
# a Debian root with bpftrace in ~/.cache/stapx (debootstrap).
bench-probes: build
	@command -v debootstrap >/dev/null || { $(SUDO) apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q debootstrap; }
	bench/probe-cost/run --stapx $(BUILD)/stapx --stapx-run $(BUILD)/stapx-run \
		--kernel-dir $(BUILD)/kernel

# The same for a uprobe hit (process("PATH").function(...)).
bench-uprobes: build
	@command -v debootstrap >/dev/null || { $(SUDO) apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q debootstrap; }
	bench/probe-cost/run --uprobe --stapx $(BUILD)/stapx --stapx-run $(BUILD)/stapx-run \
		--kernel-dir $(BUILD)/kernel

# The same for a kretprobe hit (kprobe.function(...).return).
bench-returns: build
	@command -v debootstrap >/dev/null || { $(SUDO) apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q debootstrap; }
	bench/probe-cost/run --return --stapx $(BUILD)/stapx --stapx-run $(BUILD)/stapx-run \
		--kernel-dir $(BUILD)/kernel

# Lines per second of printf output to a file and to a pipe, stapx against
# bpftrace, in one QEMU guest.
bench-output: build
	@command -v debootstrap >/dev/null || { $(SUDO) apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q debootstrap; }
	bench/output-rate/run --stapx $(BUILD)/stapx --stapx-run $(BUILD)/stapx-run \
		--kernel-dir $(BUILD)/kernel

# Time to attach and detach probes on 10 to 10,000 kernel functions,
# stapx against bpftrace, in one QEMU guest (never gates CI; shares
# bench-probes' bpftrace root in ~/.cache/stapx).
bench-attach: build
	@command -v debootstrap >/dev/null || { $(SUDO) apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q debootstrap; }
	bench/attach-cost/run --stapx $(BUILD)/stapx --stapx-run $(BUILD)/stapx-run \
		--kernel-dir $(BUILD)/kernel

# Associative arrays at a million entries (insert, lookup, update, sorted
# foreach) against a hand-written hash table, in one QEMU guest.
bench-maps: build
	bench/map-ops/run --stapx $(BUILD)/stapx --stapx-run $(BUILD)/stapx-run \
		--kernel-dir $(BUILD)/kernel

# What a module takes from the kernel's memory at 1, 2 and 4 guest CPUs,
# beside its own count at load.
bench-memory: build
	bench/load-memory/run --stapx $(BUILD)/stapx --stapx-run $(BUILD)/stapx-run \
		--kernel-dir $(BUILD)/kernel

# libFuzzer on pass 1 (clang, ASan+UBSan); FUZZ_SECONDS=1800 by default.
FUZZ_SECONDS ?= 1800
fuzz:
	testsuite/fuzz/run.sh $(FUZZ_SECONDS)
fuzz-build:
	testsuite/fuzz/build.sh
fuzz-regress:
	testsuite/fuzz/regress.sh
fuzz-elab:
	testsuite/fuzz/run-elab.sh $(FUZZ_SECONDS)

demo: deps build
	$(BUILD)/stapx --vm examples/hello.stp

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD)
