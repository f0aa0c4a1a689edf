#ifndef LOCATIOND_CLIBXML2_SHIM_H
#define LOCATIOND_CLIBXML2_SHIM_H
/* libxml2's push (SAX2) parser, for reading GPX in chunks of any size.
 *
 * Without ICU's headers: Debian's libxml2 is built with ICU, and its encoding.h would
 * include the system's <unicode/ucnv.h>, whose declarations clash with Foundation's own
 * copy of ICU in the same Swift module graph. Nothing here uses ICU types; the structs
 * Swift reaches (the parser context, errors) hold encoding handlers only by pointer. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>
#endif
