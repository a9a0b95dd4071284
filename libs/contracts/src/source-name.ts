import { Type } from '@sinclair/typebox';

const dnsLabel = '[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?';

/**
 * sourceNamePattern matches every source name: a config-file source's DNS label, or a Source
 * object's `<namespace>.<name>`, whose name is a DNS subdomain and so may hold dots itself. A
 * namespace has no dot, so the first dot splits the two; an id made of a source name and other
 * parts must therefore join them with a character no name holds (`/`), never a dot.
 */
export const sourceNamePattern = `^${dnsLabel}(\\.${dnsLabel})*$`;

/** The longest source name: a namespace (63), a dot, a Source object's name (253). */
export const maxSourceNameLength = 63 + 1 + 253;

/** SourceName is the one schema of a source name, for job payloads and the dashboard's routes. */
export const SourceName = Type.String({ pattern: sourceNamePattern, maxLength: maxSourceNameLength });
