# SPDX-License-Identifier: GPL-2.0
#
#   make demo      the vpa_dtl demo in QEMU pseries (installs what it needs)
#   make demo-kvm  the vpa_dtl demo in a KVM guest: Linux KVM-HV writes the DTL
#                  (QEMU pseries, nested)
#   make demo-xgene  the X-Gene PMU demo in QEMU virt (arm64), simulated silicon
#                  (XGENE=1|2|3: that version, described by ACPI, booted with UEFI)
#   make check     every test: host, KUnit and end-to-end in QEMU
#   make series    the upstream patch series in build/series/, generated from
#                  this tree against the pinned 7.3.4 (make check applies it,
#                  runs checkpatch and builds it in-tree)
#   make soak      the fuzzers and soak cases at full size (hours)
#   make compat    the modules against another kernel (Debian's newest other
#                  Rust-enabled 7.x linux-source) and its quick guest cases
#   make mutants   deliberately broken drivers that the detectors and the
#                  fuzzer must catch
#   make modules KDIR=<Rust-enabled 7.x build tree> ARCH=powerpc LLVM=-19
#                  build the modules against your own kernel (TESTS=n: the
#                  drivers alone, without the KUnit and simulator modules)
#   make dkms KDIR=... ARCH=... LLVM=...
#                  the build dkms.conf runs: the drivers alone
#   make dkms-check  Debian's dkms builds them against the test kernels
#
# Downloads and builds are cached in $(RPMU_CACHE) (default ~/.cache/rust-pmu).

KDIR ?=
ARCH ?= powerpc
LLVM ?= -19
TESTS ?= y

.PHONY: demo demo-kvm demo-xgene check series soak compat bench mutants modules dkms modules_clean host-test lint dkms-check clean

demo:
	scripts/demo.sh

demo-kvm:
	scripts/demo.sh kvm

demo-xgene:
	XGENE=$(XGENE) scripts/demo-xgene.sh

check:
	scripts/check.sh

series:
	scripts/series.sh

soak:
	scripts/soak.sh

compat:
	scripts/compat.sh

bench:
	scripts/bench.sh

mutants:
	scripts/mutants.sh

modules:
	@test -n "$(KDIR)" || { echo "usage: make modules KDIR=<kernel build dir> [ARCH=powerpc] [LLVM=-19]"; exit 2; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) ARCH=$(ARCH) LLVM=$(LLVM) RPMU_TESTS=$(TESTS) modules

# dkms 3.0 appends CC=clang LD=ld.lld to dkms.conf's MAKE for a clang-built
# kernel. Passed on, they would override the tools LLVM= names (clang-19 for
# LLVM=-19) in the kernel's make, so this target passes on no command-line
# variable but its own: the kernel's make picks CC and LD from LLVM=, as when
# the kernel was built.
dkms: MAKEOVERRIDES :=
dkms:
	@test -n "$(KDIR)" || { echo "usage: make dkms KDIR=<kernel build dir> ARCH=<arch> LLVM=<as the kernel>"; exit 2; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) ARCH=$(ARCH) LLVM=$(LLVM) RPMU_TESTS=n modules

modules_clean:
	@test -n "$(KDIR)" || { echo "usage: make modules_clean KDIR=<kernel build dir>"; exit 2; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) ARCH=$(ARCH) LLVM=$(LLVM) clean

host-test:
	cargo test --workspace

lint:
	scripts/lint.sh

dkms-check:
	scripts/dkms-check.sh

clean:
	rm -rf build target
