#ifndef LOCATIOND_CLIBXML2_H
#define LOCATIOND_CLIBXML2_H
/* libxml2's push (SAX2) parser, for reading GPX in chunks of any size.
 *
 * Without ICU's headers: Debian's libxml2 is built with ICU, and its encoding.h would
 * include the system's <unicode/ucnv.h>, whose declarations clash with Foundation's own
 * copy of ICU in the same Swift module graph. Nothing here uses ICU types; the structs
 * Swift reaches (the parser context, errors) hold encoding handlers only by pointer.
 *
 * The library is not linked: it (and the ICU it needs, about 0.9 MiB resident) is loaded
 * at run time by `locationd_libxml2_load` when the first GPX file is read, so a daemon
 * that reads none never maps it. The `xml*` functions locationd calls are defined in
 * CLibXML2.c and forward to the loaded library; they must not be called before a load
 * has succeeded (on this thread, or on one that started after it). */
#include <stddef.h>
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>

/* Loads `soname` (e.g. "libxml2.so.2"), resolves the functions locationd uses and
 * initializes the parser (`xmlInitParser`), once for the process; later calls only check
 * that `soname` can be opened. Returns 0, or -1 with the reason (dlerror's) in `error`.
 * Thread-safe. */
int locationd_libxml2_load(const char *soname, char *error, size_t errorSize);

#endif
