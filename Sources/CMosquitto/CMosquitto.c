#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* The forwarding functions keep the library's names but stay inside the executable
 * (hidden), so that the loaded library's own calls never bind to them. */
#pragma GCC visibility push(hidden)
#include "CMosquitto.h"

/* The functions locationd calls: X(return type, name, parameters, arguments, RETURN), RETURN
 * being `return`, or nothing for a void function. */
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
    X(int, mosquitto_reinitialise, (struct mosquitto * mosq, const char *id, bool clean_session, void *obj), \
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

struct library {
#define FIELD(type, name, parameters, arguments, RETURN) type(*name) parameters;
    LOCATIOND_MOSQUITTO_FUNCTIONS(FIELD)
#undef FIELD
};

/* Written once, under `lock`, before `loaded` is set; never changed after. */
static struct library library;
static bool loaded;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int locationd_mosquitto_load(const char *soname, char *error, size_t errorSize)
{
    void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        snprintf(error, errorSize, "%s", dlerror());
        return -1;
    }
    int result = 0;
    bool keep = false;
    pthread_mutex_lock(&lock);
    if (!loaded) {
        struct library resolved;
#define RESOLVE(type, name, parameters, arguments, RETURN)                                          \
    if (result == 0) {                                                                              \
        *(void **)&resolved.name = dlsym(handle, #name);                                            \
        if (resolved.name == NULL) {                                                                \
            snprintf(error, errorSize, "%s has no %s (too old?)", soname, #name);                   \
            result = -1;                                                                            \
        }                                                                                           \
    }
        LOCATIOND_MOSQUITTO_FUNCTIONS(RESOLVE)
#undef RESOLVE
        if (result == 0) {
            library = resolved;
            loaded = true;
            keep = true;
        }
    }
    pthread_mutex_unlock(&lock);
    if (!keep) dlclose(handle);
    return result;
}

/* Called before a successful load: a programming error, reported before the crash. */
static void unloaded(const char *name)
{
    fprintf(stderr, "locationd: %s called before libmosquitto was loaded\n", name);
    abort();
}

#define FORWARD(type, name, parameters, arguments, RETURN)                                          \
    type name parameters                                                                            \
    {                                                                                               \
        if (library.name == NULL) unloaded(#name);                                                  \
        RETURN library.name arguments;                                                              \
    }
LOCATIOND_MOSQUITTO_FUNCTIONS(FORWARD)
#undef FORWARD

#pragma GCC visibility pop
