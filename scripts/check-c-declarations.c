/* Holds the C loaders' own declarations (Sources/CLibXML2/include,
 * Sources/CMosquitto/include) to libxml2's and libmosquitto's headers. Compiled three
 * ways by scripts/check-c-declarations:
 * - CHECK_PROTOTYPES: the libraries' headers, then the loaders' typedefs and function
 *   prototypes beside them, which the compiler refuses where they differ, in a program
 *   linked against the libraries, which refers to every function;
 * - CHECK_OURS and CHECK_THEIRS: a program over the loaders' headers alone, and the same
 *   program over the libraries' alone (C refuses a second definition of a structure or an
 *   enumeration, even the same); each asserts every member's type and prints every
 *   member's offset, every size and signedness, and every constant, and the script
 *   compares the two outputs.
 * Every structure member and constant the loaders declare is listed below (the functions
 * come from the loaders' own lists). */
#include <stddef.h>
#include <stdio.h>

#ifdef CHECK_OURS
#include "CLibXML2.h"
#include "CMosquitto.h"
#else
#include <libxml/SAX2.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <mosquitto.h>
#endif

#ifdef CHECK_PROTOTYPES
/* The definitions are the libraries' here; the other two programs compare them. */
#define LOCATIOND_CLIBXML2_DEFINITIONS_H
#define LOCATIOND_CMOSQUITTO_DEFINITIONS_H
#include "CLibXML2.h"
#include "CMosquitto.h"

#define REFERENCE(type, name, parameters, arguments, RETURN) (void *)&name,

/* Linked against the libraries: every function the loaders resolve is one they export. */
int main(void)
{
    void *const functions[] = {LOCATIOND_LIBXML2_FUNCTIONS(REFERENCE) LOCATIOND_MOSQUITTO_FUNCTIONS(REFERENCE)};
    printf("%zu functions\n", sizeof functions / sizeof functions[0]);
    return 0;
}
#else

#define MEMBER(type, member, memberType)                                                            \
    _Static_assert(__builtin_types_compatible_p(__typeof__(((type *)0)->member), memberType),        \
                   #type "." #member " is not a " #memberType);                                      \
    printf("offsetof(%s, %s) = %zu\n", #type, #member, offsetof(type, member));
#define SIZE(type) printf("sizeof(%s) = %zu\n", #type, sizeof(type));
#define SIGNEDNESS(type) printf("%s is %s\n", #type, (type)-1 < 0 ? "signed" : "unsigned");
#define VALUE(constant) printf("%s = %lld\n", #constant, (long long)(constant));

int main(void)
{
    VALUE(XML_PARSE_NONET)

    SIZE(xmlErrorLevel)
    SIGNEDNESS(xmlErrorLevel)
    VALUE(XML_ERR_NONE)
    VALUE(XML_ERR_WARNING)
    VALUE(XML_ERR_ERROR)
    VALUE(XML_ERR_FATAL)

    SIZE(xmlError)
    MEMBER(xmlError, domain, int)
    MEMBER(xmlError, code, int)
    MEMBER(xmlError, message, char *)
    MEMBER(xmlError, level, xmlErrorLevel)
    MEMBER(xmlError, file, char *)
    MEMBER(xmlError, line, int)
    MEMBER(xmlError, str1, char *)
    MEMBER(xmlError, str2, char *)
    MEMBER(xmlError, str3, char *)
    MEMBER(xmlError, int1, int)
    MEMBER(xmlError, int2, int)
    MEMBER(xmlError, ctxt, void *)
    MEMBER(xmlError, node, void *)

    SIZE(xmlSAXHandler)
    MEMBER(xmlSAXHandler, internalSubset, internalSubsetSAXFunc)
    MEMBER(xmlSAXHandler, isStandalone, isStandaloneSAXFunc)
    MEMBER(xmlSAXHandler, hasInternalSubset, hasInternalSubsetSAXFunc)
    MEMBER(xmlSAXHandler, hasExternalSubset, hasExternalSubsetSAXFunc)
    MEMBER(xmlSAXHandler, resolveEntity, resolveEntitySAXFunc)
    MEMBER(xmlSAXHandler, getEntity, getEntitySAXFunc)
    MEMBER(xmlSAXHandler, entityDecl, entityDeclSAXFunc)
    MEMBER(xmlSAXHandler, notationDecl, notationDeclSAXFunc)
    MEMBER(xmlSAXHandler, attributeDecl, attributeDeclSAXFunc)
    MEMBER(xmlSAXHandler, elementDecl, elementDeclSAXFunc)
    MEMBER(xmlSAXHandler, unparsedEntityDecl, unparsedEntityDeclSAXFunc)
    MEMBER(xmlSAXHandler, setDocumentLocator, setDocumentLocatorSAXFunc)
    MEMBER(xmlSAXHandler, startDocument, startDocumentSAXFunc)
    MEMBER(xmlSAXHandler, endDocument, endDocumentSAXFunc)
    MEMBER(xmlSAXHandler, startElement, startElementSAXFunc)
    MEMBER(xmlSAXHandler, endElement, endElementSAXFunc)
    MEMBER(xmlSAXHandler, reference, referenceSAXFunc)
    MEMBER(xmlSAXHandler, characters, charactersSAXFunc)
    MEMBER(xmlSAXHandler, ignorableWhitespace, ignorableWhitespaceSAXFunc)
    MEMBER(xmlSAXHandler, processingInstruction, processingInstructionSAXFunc)
    MEMBER(xmlSAXHandler, comment, commentSAXFunc)
    MEMBER(xmlSAXHandler, warning, warningSAXFunc)
    MEMBER(xmlSAXHandler, error, errorSAXFunc)
    MEMBER(xmlSAXHandler, fatalError, fatalErrorSAXFunc)
    MEMBER(xmlSAXHandler, getParameterEntity, getParameterEntitySAXFunc)
    MEMBER(xmlSAXHandler, cdataBlock, cdataBlockSAXFunc)
    MEMBER(xmlSAXHandler, externalSubset, externalSubsetSAXFunc)
    MEMBER(xmlSAXHandler, initialized, unsigned int)
    MEMBER(xmlSAXHandler, _private, void *)
    MEMBER(xmlSAXHandler, startElementNs, startElementNsSAX2Func)
    MEMBER(xmlSAXHandler, endElementNs, endElementNsSAX2Func)
    MEMBER(xmlSAXHandler, serror, xmlStructuredErrorFunc)

    /* Only the first members: the loader's structure is that much of libxml2's. */
    MEMBER(xmlParserCtxt, sax, struct _xmlSAXHandler *)
    MEMBER(xmlParserCtxt, userData, void *)
    MEMBER(xmlParserCtxt, myDoc, xmlDocPtr)

    SIZE(enum mosq_err_t)
    SIGNEDNESS(enum mosq_err_t)
    VALUE(MOSQ_ERR_SUCCESS)
    VALUE(MOSQ_ERR_INVAL)
    VALUE(MOSQ_ERR_NO_CONN)
    VALUE(MOSQ_ERR_PAYLOAD_SIZE)
    VALUE(MOSQ_ERR_ERRNO)
    VALUE(MOSQ_ERR_MALFORMED_UTF8)
    VALUE(MOSQ_ERR_OVERSIZE_PACKET)

    SIZE(enum mosq_opt_t)
    SIGNEDNESS(enum mosq_opt_t)
    VALUE(MOSQ_OPT_TLS_USE_OS_CERTS)
    return 0;
}
#endif
