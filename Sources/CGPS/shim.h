#ifndef LOCATIOND_CGPS_SHIM_H
#define LOCATIOND_CGPS_SHIM_H
#include <gps.h>
#endif
