// SPDX-License-Identifier: GPL-2.0
#include "../../../rust/helpers/rpmu_helpers.c"
