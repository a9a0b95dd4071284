/** A Go struct or map printed with %v: `&value.valueUnstructured{Value:...}`, `&{eighty}`, `map[string]interface {}{...}`. */
const goValue = String.raw`(?:&?[\w]+(?:\.[\w]+)*|&|map\[[^\]]*\][\w ]*(?:\{\})?)\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}`;
const goPointer = /\(\*?[\w.[\]{} ]+\)\(0x[0-9a-f]+\)|0xc[0-9a-f]{6,}/g;

/**
 * cleanApiMessage keeps what a person can act on from an API server message: the field path
 * and the sentence, without Go struct dumps (which may also quote the value itself) or the
 * server's typed-object preamble.
 */
export function cleanApiMessage(message: string): string {
  let cleaned = message.replace(/failed to create typed (patch|live) object \([^)]*\):\s*/gi, '');
  cleaned = cleaned.replace(new RegExp(goValue, 'g'), (dump) => describeGoValue(dump));
  cleaned = cleaned.replace(goPointer, 'a value');
  // Several field errors come one a line after "errors:"; a sentence lists them with semicolons.
  const lines = cleaned.replace(/^errors:\s*/i, '').split(/\n\s*/).map((line) => line.trim()).filter(Boolean);
  return lines.join('; ').replace(/\s+/g, ' ').trim();
}

/** describeGoValue names the type of a dumped value, never the value. */
function describeGoValue(dump: string): string {
  const inner = dump.replace(/^[^{]*\{(Value:)?/, '');
  if (inner.startsWith('map[') || /^&?value\.valueUnstructured\{Value:map\[/.test(dump)) return 'an object';
  if (inner.startsWith('[]')) return 'a list';
  if (/^(true|false)\}$/.test(inner)) return 'a boolean';
  if (/^-?\d+(\.\d+)?\}$/.test(inner)) return 'a number';
  return 'a value of another type';
}

/**
 * isSchemaConversionError tells a 500 that is really the object's fault: the server could not
 * convert the object to its schema (a string where an integer belongs), which no retry fixes.
 */
export function isSchemaConversionError(message: string): boolean {
  return /failed to create typed (patch|live) object|expected (numeric|string|map|list|bool)[^,]*, got|cannot convert|unable to convert|json: cannot unmarshal/i.test(message);
}
