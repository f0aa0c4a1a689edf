#ifndef LOCATIOND_CMOSQUITTO_H
#define LOCATIOND_CMOSQUITTO_H
/* libmosquitto's API is used as is: every MQTT packet is made and parsed by the library,
 * none by locationd.
 *
 * The library is not linked: it (and the OpenSSL it needs, about 2 MiB resident) is
 * loaded at run time by `locationd_mosquitto_load`, so a daemon without MQTT never maps
 * it. The `mosquitto_*` functions locationd calls are defined in CMosquitto.c and forward
 * to the loaded library; they must not be called before a load has succeeded (on this
 * thread, or on one that started after it).
 *
 * Self-contained: this header and CMosquittoDefinitions.h declare, as <mosquitto.h> does,
 * only the functions and constants locationd uses, so that building locationd (or a
 * package that depends on it) needs no libmosquitto-dev and no include path. libmosquitto
 * keeps its ABI within the soname libmosquitto.so.1 (1.6 and every 2.x), which is what
 * these copies rely on; they were checked against libmosquitto 2.0.11's header, and
 * scripts/check-c-declarations (run by CI) compiles them beside the installed header: a
 * declaration that differs fails it. A structure member or constant added here is added
 * to the list in scripts/check-c-declarations.c too. */
#include <stdbool.h>
#include <stddef.h>

/* libmosquitto's client, only ever reached through the pointer `mosquitto_new` returns. */
struct mosquitto;

/* The enumerations, which C does not accept twice. */
#include "CMosquittoDefinitions.h"

/* The functions locationd calls, as <mosquitto.h> declares them: X(return type, name,
 * parameters, arguments, RETURN), RETURN being `return`, or nothing for a void function.
 * Declared here, resolved and forwarded by CMosquitto.c; the check compiles the
 * declarations beside <mosquitto.h> (the compiler refuses any that differs) and links a
 * reference to each against the library. */
#define LOCATIOND_MOSQUITTO_FUNCTIONS(X)                                                            \
    X(int, mosquitto_lib_init, (void), (), return)                                                  \
    X(struct mosquitto *, mosquitto_new, (const char *id, bool clean_session, void *obj),           \
      (id, clean_session, obj), return)                                                             \
    X(void, mosquitto_destroy, (struct mosquitto * mosq), (mosq),)                                  \
    X(int, mosquitto_will_set,                                                                      \
      (struct mosquitto * mosq, const char *topic, int payloadlen, const void *payload, int qos,    \
       bool retain),                                                                                \
      (mosq, topic, payloadlen, payload, qos, retain), return)                                      \
    X(int, mosquitto_username_pw_set,                                                               \
      (struct mosquitto * mosq, const char *username, const char *password),                        \
      (mosq, username, password), return)                                                           \
    X(int, mosquitto_tls_set,                                                                       \
      (struct mosquitto * mosq, const char *cafile, const char *capath, const char *certfile,       \
       const char *keyfile, int (*pw_callback)(char *buf, int size, int rwflag, void *userdata)),   \
      (mosq, cafile, capath, certfile, keyfile, pw_callback), return)                               \
    X(int, mosquitto_int_option, (struct mosquitto * mosq, enum mosq_opt_t option, int value),      \
      (mosq, option, value), return)                                                                \
    X(void, mosquitto_connect_callback_set,                                                         \
      (struct mosquitto * mosq, void (*callback)(struct mosquitto *, void *, int)),                 \
      (mosq, callback),)                                                                            \
    X(void, mosquitto_disconnect_callback_set,                                                      \
      (struct mosquitto * mosq, void (*callback)(struct mosquitto *, void *, int)),                 \
      (mosq, callback),)                                                                            \
    X(void, mosquitto_publish_callback_set,                                                         \
      (struct mosquitto * mosq, void (*callback)(struct mosquitto *, void *, int)),                 \
      (mosq, callback),)                                                                            \
    X(int, mosquitto_connect_async,                                                                 \
      (struct mosquitto * mosq, const char *host, int port, int keepalive),                         \
      (mosq, host, port, keepalive), return)                                                        \
    X(int, mosquitto_reinitialise,                                                                  \
      (struct mosquitto * mosq, const char *id, bool clean_session, void *obj),                     \
      (mosq, id, clean_session, obj), return)                                                       \
    X(int, mosquitto_socket, (struct mosquitto * mosq), (mosq), return)                             \
    X(bool, mosquitto_want_write, (struct mosquitto * mosq), (mosq), return)                        \
    X(int, mosquitto_loop_read, (struct mosquitto * mosq, int max_packets), (mosq, max_packets),    \
      return)                                                                                       \
    X(int, mosquitto_loop_write, (struct mosquitto * mosq, int max_packets), (mosq, max_packets),   \
      return)                                                                                       \
    X(int, mosquitto_loop_misc, (struct mosquitto * mosq), (mosq), return)                          \
    X(int, mosquitto_disconnect, (struct mosquitto * mosq), (mosq), return)                         \
    X(int, mosquitto_publish,                                                                       \
      (struct mosquitto * mosq, int *mid, const char *topic, int payloadlen, const void *payload,   \
       int qos, bool retain),                                                                       \
      (mosq, mid, topic, payloadlen, payload, qos, retain), return)                                 \
    X(const char *, mosquitto_strerror, (int mosq_errno), (mosq_errno), return)                     \
    X(const char *, mosquitto_connack_string, (int connack_code), (connack_code), return)
#define LOCATIOND_MOSQUITTO_DECLARE(type, name, parameters, arguments, RETURN) type name parameters;
LOCATIOND_MOSQUITTO_FUNCTIONS(LOCATIOND_MOSQUITTO_DECLARE)
#undef LOCATIOND_MOSQUITTO_DECLARE

/* Loads `soname` (e.g. "libmosquitto.so.1") and resolves the functions locationd uses,
 * once for the process; later calls only check that `soname` can be opened.
 * Returns 0, or -1 with the reason (dlerror's) in `error`. Thread-safe. */
int locationd_mosquitto_load(const char *soname, char *error, size_t errorSize);

#endif
