#ifndef LOCATIOND_CMOSQUITTO_SHIM_H
#define LOCATIOND_CMOSQUITTO_SHIM_H
#include <mosquitto.h>

/* libmosquitto's API is used as is: every MQTT packet is made and parsed by the library,
 * none by locationd. */

#endif
