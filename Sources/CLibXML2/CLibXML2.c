#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* The forwarding functions keep the library's names but stay inside the executable
 * (hidden), so that the loaded library's own calls never bind to them. */
#pragma GCC visibility push(hidden)
#include "CLibXML2.h"

/* The functions of LOCATIOND_LIBXML2_FUNCTIONS, as resolved in the loaded library. */
struct library {
#define FIELD(type, name, parameters, arguments, RETURN) type(*name) parameters;
    LOCATIOND_LIBXML2_FUNCTIONS(FIELD)
#undef FIELD
};

/* Written once, under `lock`, before `loaded` is set; never changed after. */
static struct library library;
static bool loaded;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int locationd_libxml2_load(const char *soname, char *error, size_t errorSize)
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
        LOCATIOND_LIBXML2_FUNCTIONS(RESOLVE)
#undef RESOLVE
        if (result == 0) {
            library = resolved;
            library.xmlInitParser();
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
    fprintf(stderr, "locationd: %s called before libxml2 was loaded\n", name);
    abort();
}

#define FORWARD(type, name, parameters, arguments, RETURN)                                          \
    type name parameters                                                                            \
    {                                                                                               \
        if (library.name == NULL) unloaded(#name);                                                  \
        RETURN library.name arguments;                                                              \
    }
LOCATIOND_LIBXML2_FUNCTIONS(FORWARD)
#undef FORWARD

#pragma GCC visibility pop
