#ifndef LOCATIOND_CLIBXML2_H
#define LOCATIOND_CLIBXML2_H
/* libxml2's push (SAX2) parser, for reading GPX in chunks of any size.
 *
 * The library is not linked: it (and the ICU it needs, about 0.9 MiB resident) is loaded
 * at run time by `locationd_libxml2_load` when the first GPX file is read, so a daemon
 * that reads none never maps it. The `xml*` functions locationd calls are defined in
 * CLibXML2.c and forward to the loaded library; they must not be called before a load
 * has succeeded (on this thread, or on one that started after it).
 *
 * Self-contained: this header and CLibXML2Definitions.h declare, as libxml2's own headers
 * do, only the types, constants and functions locationd uses, so that building locationd
 * (or a package that depends on it) needs no libxml2-dev and no include path. libxml2
 * keeps its ABI within the soname libxml2.so.2 (a program built against one 2.x runs with
 * any later one), which is what these copies rely on; they were checked against libxml2
 * 2.9.14's headers, and scripts/check-c-declarations (run by CI) compiles them beside the
 * installed headers: a declaration that differs fails it. A structure member or constant
 * added here is added to the list in scripts/check-c-declarations.c too. */
#include <stddef.h>

/* Declared as libxml2's headers declare them, which C accepts twice: the check
 * compiles them beside those headers, where the compiler refuses any that differs. */
typedef unsigned char xmlChar;
typedef struct _xmlDoc xmlDoc;
typedef xmlDoc *xmlDocPtr;
typedef struct _xmlEntity xmlEntity;
typedef xmlEntity *xmlEntityPtr;
typedef struct _xmlEnumeration xmlEnumeration;
typedef xmlEnumeration *xmlEnumerationPtr;
typedef struct _xmlElementContent xmlElementContent;
typedef xmlElementContent *xmlElementContentPtr;
typedef struct _xmlParserInput xmlParserInput;
typedef xmlParserInput *xmlParserInputPtr;
typedef struct _xmlSAXLocator xmlSAXLocator;
typedef xmlSAXLocator *xmlSAXLocatorPtr;
typedef struct _xmlParserCtxt xmlParserCtxt;
typedef xmlParserCtxt *xmlParserCtxtPtr;
typedef struct _xmlSAXHandler xmlSAXHandler;
typedef xmlSAXHandler *xmlSAXHandlerPtr;
typedef struct _xmlError xmlError;
typedef xmlError *xmlErrorPtr;

/* The SAX2 handler's callbacks (the members of xmlSAXHandler). */
typedef void (*internalSubsetSAXFunc)(void *ctx, const xmlChar *name, const xmlChar *ExternalID,
                                      const xmlChar *SystemID);
typedef int (*isStandaloneSAXFunc)(void *ctx);
typedef int (*hasInternalSubsetSAXFunc)(void *ctx);
typedef int (*hasExternalSubsetSAXFunc)(void *ctx);
typedef xmlParserInputPtr (*resolveEntitySAXFunc)(void *ctx, const xmlChar *publicId, const xmlChar *systemId);
typedef xmlEntityPtr (*getEntitySAXFunc)(void *ctx, const xmlChar *name);
typedef void (*entityDeclSAXFunc)(void *ctx, const xmlChar *name, int type, const xmlChar *publicId,
                                  const xmlChar *systemId, xmlChar *content);
typedef void (*notationDeclSAXFunc)(void *ctx, const xmlChar *name, const xmlChar *publicId,
                                    const xmlChar *systemId);
typedef void (*attributeDeclSAXFunc)(void *ctx, const xmlChar *elem, const xmlChar *fullname, int type, int def,
                                     const xmlChar *defaultValue, xmlEnumerationPtr tree);
typedef void (*elementDeclSAXFunc)(void *ctx, const xmlChar *name, int type, xmlElementContentPtr content);
typedef void (*unparsedEntityDeclSAXFunc)(void *ctx, const xmlChar *name, const xmlChar *publicId,
                                          const xmlChar *systemId, const xmlChar *notationName);
typedef void (*setDocumentLocatorSAXFunc)(void *ctx, xmlSAXLocatorPtr loc);
typedef void (*startDocumentSAXFunc)(void *ctx);
typedef void (*endDocumentSAXFunc)(void *ctx);
typedef void (*startElementSAXFunc)(void *ctx, const xmlChar *name, const xmlChar **atts);
typedef void (*endElementSAXFunc)(void *ctx, const xmlChar *name);
typedef void (*referenceSAXFunc)(void *ctx, const xmlChar *name);
typedef void (*charactersSAXFunc)(void *ctx, const xmlChar *ch, int len);
typedef void (*ignorableWhitespaceSAXFunc)(void *ctx, const xmlChar *ch, int len);
typedef void (*processingInstructionSAXFunc)(void *ctx, const xmlChar *target, const xmlChar *data);
typedef void (*commentSAXFunc)(void *ctx, const xmlChar *value);
typedef void (*warningSAXFunc)(void *ctx, const char *msg, ...);
typedef void (*errorSAXFunc)(void *ctx, const char *msg, ...);
typedef void (*fatalErrorSAXFunc)(void *ctx, const char *msg, ...);
typedef xmlEntityPtr (*getParameterEntitySAXFunc)(void *ctx, const xmlChar *name);
typedef void (*cdataBlockSAXFunc)(void *ctx, const xmlChar *value, int len);
typedef void (*externalSubsetSAXFunc)(void *ctx, const xmlChar *name, const xmlChar *ExternalID,
                                      const xmlChar *SystemID);
typedef void (*startElementNsSAX2Func)(void *ctx, const xmlChar *localname, const xmlChar *prefix,
                                       const xmlChar *URI, int nb_namespaces, const xmlChar **namespaces,
                                       int nb_attributes, int nb_defaulted, const xmlChar **attributes);
typedef void (*endElementNsSAX2Func)(void *ctx, const xmlChar *localname, const xmlChar *prefix,
                                     const xmlChar *URI);
typedef void (*xmlStructuredErrorFunc)(void *userData, xmlErrorPtr error);

/* The structures and enumerations, which C does not accept twice. */
#include "CLibXML2Definitions.h"

/* The functions locationd calls, as libxml2's headers declare them: X(return type, name,
 * parameters, arguments, RETURN), RETURN being `return`, or nothing for a void function.
 * Declared here, resolved and forwarded by CLibXML2.c; the check compiles the declarations
 * beside libxml2's (the compiler refuses any that differs) and links a reference to each
 * against the library. */
#define LOCATIOND_LIBXML2_FUNCTIONS(X)                                                              \
    X(void, xmlInitParser, (void), (),)                                                             \
    X(xmlParserCtxtPtr, xmlCreatePushParserCtxt,                                                    \
      (xmlSAXHandlerPtr sax, void *user_data, const char *chunk, int size, const char *filename),   \
      (sax, user_data, chunk, size, filename), return)                                              \
    X(int, xmlCtxtUseOptions, (xmlParserCtxtPtr ctxt, int options), (ctxt, options), return)        \
    X(int, xmlParseChunk, (xmlParserCtxtPtr ctxt, const char *chunk, int size, int terminate),      \
      (ctxt, chunk, size, terminate), return)                                                       \
    X(void, xmlStopParser, (xmlParserCtxtPtr ctxt), (ctxt),)                                        \
    X(void, xmlFreeParserCtxt, (xmlParserCtxtPtr ctxt), (ctxt),)                                    \
    X(void, xmlFreeDoc, (xmlDocPtr cur), (cur),)                                                    \
    X(int, xmlSAXVersion, (xmlSAXHandler * hdlr, int version), (hdlr, version), return)             \
    X(int, xmlSAX2GetLineNumber, (void *ctx), (ctx), return)                                       \
    X(void, xmlSetStructuredErrorFunc, (void *ctx, xmlStructuredErrorFunc handler), (ctx, handler),)
#define LOCATIOND_LIBXML2_DECLARE(type, name, parameters, arguments, RETURN) type name parameters;
LOCATIOND_LIBXML2_FUNCTIONS(LOCATIOND_LIBXML2_DECLARE)
#undef LOCATIOND_LIBXML2_DECLARE

/* Loads `soname` (e.g. "libxml2.so.2"), resolves the functions locationd uses and
 * initializes the parser (`xmlInitParser`), once for the process; later calls only check
 * that `soname` can be opened. Returns 0, or -1 with the reason (dlerror's) in `error`.
 * Thread-safe. */
int locationd_libxml2_load(const char *soname, char *error, size_t errorSize);

#endif
