/*******************************************************************
 * Copyright (C) 2022 Intel Corporation
 * SPDX-License-Identifier: BSD-3-Clause
 * Authors: Raghuveer Devulapalli <raghuveer.devulapalli@intel.com>
 * ****************************************************************/

#ifndef AVX512_ARGSORT_64BIT
#define AVX512_ARGSORT_64BIT

#include "avx512-64bit-common.h"
#include "xss-common-argsort.h"

#endif // AVX512_ARGSORT_64BIT
