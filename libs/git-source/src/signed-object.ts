/** SignedPayload is a Git object split as git itself splits it to verify: the bytes signed, and the signature. */
export interface SignedPayload {
  payload: Buffer;
  /** The armored signature, or undefined when the object is not signed. */
  signature?: string;
}

const signatureHeaders = ['gpgsig ', 'gpgsig-sha256 '];
const signatureStarts = ['-----BEGIN PGP SIGNATURE-----', '-----BEGIN PGP MESSAGE-----', '-----BEGIN SIGNED MESSAGE-----', '-----BEGIN SSH SIGNATURE-----'];

/**
 * splitSignedCommit takes a raw commit apart as git's parse_buffer_signed_by_header does: the
 * `gpgsig` header (its continuation lines unindented) is the signature, and the commit without
 * its signature headers is the payload, byte for byte. (isomorphic-git's payload knows only OpenPGP
 * armor and normalises line ends, so it is not used.)
 */
export function splitSignedCommit(commit: Buffer): SignedPayload {
  const payload: Buffer[] = [];
  const signature: Buffer[] = [];
  let inSignature: 'ours' | 'other' | undefined;
  let offset = 0;
  while (offset < commit.length) {
    const newline = commit.indexOf(0x0a, offset);
    const next = newline < 0 ? commit.length : newline + 1;
    const line = commit.subarray(offset, next);
    if (line[0] === 0x0a) {
      // The blank line and the message after it are payload, whatever they hold.
      payload.push(commit.subarray(offset));
      break;
    }
    const header = signatureHeaders.find((name) => line.subarray(0, name.length).toString('latin1') === name);
    if (inSignature && line[0] === 0x20) {
      if (inSignature === 'ours') signature.push(line.subarray(1));
    } else if (header) {
      inSignature = header === 'gpgsig ' ? 'ours' : 'other';
      if (inSignature === 'ours') signature.push(line.subarray(header.length));
    } else {
      inSignature = undefined;
      payload.push(line);
    }
    offset = next;
  }
  return { payload: Buffer.concat(payload), ...(signature.length > 0 ? { signature: Buffer.concat(signature).toString('utf8') } : {}) };
}

/**
 * splitSignedTag takes a raw annotated tag apart as git's parse_signed_buffer does: the signature
 * starts at the last line that opens an armored signature (OpenPGP, X.509 or SSH) and runs to the
 * end; everything before it is the payload.
 */
export function splitSignedTag(tag: Buffer): SignedPayload {
  let match = tag.length;
  let offset = 0;
  while (offset < tag.length) {
    const line = tag.subarray(offset, offset + 64).toString('latin1');
    if (signatureStarts.some((start) => line.startsWith(start))) match = offset;
    const newline = tag.indexOf(0x0a, offset);
    offset = newline < 0 ? tag.length : newline + 1;
  }
  if (match === tag.length) return { payload: tag };
  return { payload: tag.subarray(0, match), signature: tag.subarray(match).toString('utf8') };
}
