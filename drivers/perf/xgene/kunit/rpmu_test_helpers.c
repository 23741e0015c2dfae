// SPDX-License-Identifier: GPL-2.0
/* The project's test-only C helpers, compiled into this test module. */
#include "../../../../rust/helpers/rpmu_test_helpers.c"
