#ifndef LOCATIOND_CMOSQUITTO_DEFINITIONS_H
#define LOCATIOND_CMOSQUITTO_DEFINITIONS_H
/* The constants of libmosquitto (2.0.11's <mosquitto.h>) that locationd uses; included
 * by CMosquitto.h. C refuses a second definition of an enumeration even when it is the
 * same, so scripts/check-c-declarations compiles this file on its own and compares each
 * value, size and signedness with <mosquitto.h>. */

/* The codes locationd tells apart. `int`, as libmosquitto's (whose negative codes make it
 * signed), so that Swift reads them as `Int32` like the functions' results. */
enum mosq_err_t : int {
    MOSQ_ERR_SUCCESS = 0,
    MOSQ_ERR_INVAL = 3,
    MOSQ_ERR_NO_CONN = 4,
    MOSQ_ERR_PAYLOAD_SIZE = 9,
    MOSQ_ERR_ERRNO = 14,
    MOSQ_ERR_MALFORMED_UTF8 = 18,
    MOSQ_ERR_OVERSIZE_PACKET = 25,
};

/* The one option locationd sets (`mosquitto_int_option`). */
enum mosq_opt_t {
    MOSQ_OPT_TLS_USE_OS_CERTS = 13,
};

#endif
