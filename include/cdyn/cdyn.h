/* cdyn — umbrella header: time-stepping contact dynamics in C11.
 * Conventions (docs/api.md): every fallible call returns cdyn_status and fills an optional
 * cdyn_report; matrices are column-major; options structs come with *_defaults(). */
#ifndef CDYN_CDYN_H
#define CDYN_CDYN_H

#include "cdyn/alloc.h"
#include "cdyn/boxmerit.h"
#include "cdyn/bvp.h"
#include "cdyn/coneqp.h"
#include "cdyn/deriv.h"
#include "cdyn/design.h"
#include "cdyn/fc3d.h"
#include "cdyn/instant.h"
#include "cdyn/io.h"
#include "cdyn/lcp.h"
#include "cdyn/lp.h"
#include "cdyn/mcp.h"
#include "cdyn/model.h"
#include "cdyn/sparse.h"
#include "cdyn/status.h"
#include "cdyn/step.h"
#include "cdyn/ucp.h"
#include "cdyn/urdf.h"
#include "cdyn/version.h"

#endif
