#ifndef LOCATIOND_CLIBXML2_DEFINITIONS_H
#define LOCATIOND_CLIBXML2_DEFINITIONS_H
/* The structures and constants of libxml2 (2.9.14's headers) that locationd reads or
 * sets; included by CLibXML2.h. C refuses a second definition of a structure even when it
 * is the same, so scripts/check-c-declarations compiles this file on its own and compares
 * each member's offset and type, each size and each constant with libxml2's headers. */

/* The one option locationd sets (`xmlCtxtUseOptions`): no network access. */
typedef enum {
    XML_PARSE_NONET = 1 << 11,
} xmlParserOption;

typedef enum {
    XML_ERR_NONE = 0,
    XML_ERR_WARNING = 1,
    XML_ERR_ERROR = 2,
    XML_ERR_FATAL = 3,
} xmlErrorLevel;

struct _xmlError {
    int domain;
    int code;
    char *message;
    xmlErrorLevel level;
    char *file;
    int line;
    char *str1;
    char *str2;
    char *str3;
    int int1;
    int int2;
    void *ctxt;
    void *node;
};

/* As `xmlSAXVersion(handler, 2)` fills it; libxml2 copies the whole handler, `_private`
 * included, into the parser context it creates. */
struct _xmlSAXHandler {
    internalSubsetSAXFunc internalSubset;
    isStandaloneSAXFunc isStandalone;
    hasInternalSubsetSAXFunc hasInternalSubset;
    hasExternalSubsetSAXFunc hasExternalSubset;
    resolveEntitySAXFunc resolveEntity;
    getEntitySAXFunc getEntity;
    entityDeclSAXFunc entityDecl;
    notationDeclSAXFunc notationDecl;
    attributeDeclSAXFunc attributeDecl;
    elementDeclSAXFunc elementDecl;
    unparsedEntityDeclSAXFunc unparsedEntityDecl;
    setDocumentLocatorSAXFunc setDocumentLocator;
    startDocumentSAXFunc startDocument;
    endDocumentSAXFunc endDocument;
    startElementSAXFunc startElement;
    endElementSAXFunc endElement;
    referenceSAXFunc reference;
    charactersSAXFunc characters;
    ignorableWhitespaceSAXFunc ignorableWhitespace;
    processingInstructionSAXFunc processingInstruction;
    commentSAXFunc comment;
    warningSAXFunc warning;
    errorSAXFunc error;
    fatalErrorSAXFunc fatalError;
    getParameterEntitySAXFunc getParameterEntity;
    cdataBlockSAXFunc cdataBlock;
    externalSubsetSAXFunc externalSubset;
    unsigned int initialized;
    void *_private;
    startElementNsSAX2Func startElementNs;
    endElementNsSAX2Func endElementNs;
    xmlStructuredErrorFunc serror;
};

/* The first members of libxml2's parser context, the only ones locationd reads: the
 * rest of it (about 700 bytes) is left out, so a context is only ever reached through the
 * pointer libxml2 returns, never made or copied here. */
struct _xmlParserCtxt {
    struct _xmlSAXHandler *sax;
    void *userData;
    xmlDocPtr myDoc;
};

#endif
