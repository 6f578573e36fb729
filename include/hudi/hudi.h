/* hudi-c: the whole public API. */
#ifndef HUDI_HUDI_H
#define HUDI_HUDI_H

#include "hudi/common.h"
#include "hudi/error.h"
#include "hudi/alloc.h"
#include "hudi/arrow_abi.h"
#include "hudi/table.h"
#include "hudi/read.h"
#include "hudi/write.h"
#include "hudi/services.h"

#endif
