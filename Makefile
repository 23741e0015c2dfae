# SPDX-License-Identifier: GPL-2.0
#
#   make demo      the vpa_dtl demo in QEMU pseries (installs what it needs)
#   make demo-xgene  the X-Gene PMU demo in QEMU virt (arm64), simulated silicon
#                  (XGENE=1|2|3: that version, described by ACPI, booted with UEFI)
#   make check     every test: host, KUnit and end-to-end in QEMU
#   make soak      the fuzzers and soak cases at full size (hours)
#   make mutants   deliberately broken drivers that the detectors and the
#                  fuzzer must catch
#   make modules KDIR=<Rust-enabled 7.x build tree> ARCH=powerpc LLVM=-19
#                  build the modules against your own kernel
#
# Downloads and builds are cached in $(RPMU_CACHE) (default ~/.cache/rust-pmu).

KDIR ?=
ARCH ?= powerpc
LLVM ?= -19

.PHONY: demo demo-xgene check soak mutants modules modules_clean host-test lint clean

demo:
	scripts/demo.sh

demo-xgene:
	XGENE=$(XGENE) scripts/demo-xgene.sh

check:
	scripts/check.sh

soak:
	scripts/soak.sh

mutants:
	scripts/mutants.sh

modules:
	@test -n "$(KDIR)" || { echo "usage: make modules KDIR=<kernel build dir> [ARCH=powerpc] [LLVM=-19]"; exit 2; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) ARCH=$(ARCH) LLVM=$(LLVM) modules

modules_clean:
	@test -n "$(KDIR)" || { echo "usage: make modules_clean KDIR=<kernel build dir>"; exit 2; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) ARCH=$(ARCH) LLVM=$(LLVM) clean

host-test:
	cargo test --workspace

lint:
	scripts/lint.sh

clean:
	rm -rf build target
