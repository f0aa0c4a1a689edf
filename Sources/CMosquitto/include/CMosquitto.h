#ifndef LOCATIOND_CMOSQUITTO_H
#define LOCATIOND_CMOSQUITTO_H
#include <stddef.h>
#include <mosquitto.h>

/* libmosquitto's API is used as is: every MQTT packet is made and parsed by the library,
 * none by locationd.
 *
 * The library is not linked: it (and the OpenSSL it needs, about 2 MiB resident) is
 * loaded at run time by `locationd_mosquitto_load`, so a daemon without MQTT never maps
 * it. The `mosquitto_*` functions locationd calls are defined in CMosquitto.c and forward
 * to the loaded library; they must not be called before a load has succeeded (on this
 * thread, or on one that started after it). */

/* Loads `soname` (e.g. "libmosquitto.so.1") and resolves the functions locationd uses,
 * once for the process; later calls only check that `soname` can be opened.
 * Returns 0, or -1 with the reason (dlerror's) in `error`. Thread-safe. */
int locationd_mosquitto_load(const char *soname, char *error, size_t errorSize);

#endif
