// SPDX-License-Identifier: GPL-2.0
/* The project's C helpers, compiled into this test module. */
#include "../../../../rust/helpers/rpmu_helpers.c"
