import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { fingerprintOf } from './known-hosts';

/** SshSignatureCheck is the outcome of checking one SSHSIG: the key that made it, or why it is refused. */
export type SshSignatureCheck = { verified: true; fingerprint: string } | { verified: false; reason: string };

const armorBegin = '-----BEGIN SSH SIGNATURE-----';
const armorEnd = '-----END SSH SIGNATURE-----';
const magic = Buffer.from('SSHSIG');
// An SSHSIG of the largest key we accept (RSA 16384) is under 5 KiB armored.
const maxArmoredBytes = 16 * 1024;
const hashes = new Set(['sha256', 'sha512']);

interface KeyShape {
  /** The hash the signature algorithm uses over the signed data (undefined for Ed25519, which hashes itself). */
  digest(signatureType: string): string | undefined;
  /** The signature algorithms allowed for this key type. */
  signatureTypes: readonly string[];
}

const keyShapes: Record<string, KeyShape> = {
  'ssh-ed25519': { signatureTypes: ['ssh-ed25519'], digest: () => undefined },
  // SSHSIG forbids ssh-rsa (SHA-1) signatures: only the SHA-2 ones are read.
  'ssh-rsa': { signatureTypes: ['rsa-sha2-512', 'rsa-sha2-256'], digest: (type) => (type === 'rsa-sha2-256' ? 'sha256' : 'sha512') },
  'ecdsa-sha2-nistp256': { signatureTypes: ['ecdsa-sha2-nistp256'], digest: () => 'sha256' },
  'ecdsa-sha2-nistp384': { signatureTypes: ['ecdsa-sha2-nistp384'], digest: () => 'sha384' },
  'ecdsa-sha2-nistp521': { signatureTypes: ['ecdsa-sha2-nistp521'], digest: () => 'sha512' },
};

/**
 * verifySshSignature checks an armored SSH signature (`ssh-keygen -Y sign`, git's gpg.format=ssh)
 * over `message`, as PROTOCOL.sshsig defines it: the signature's namespace must be `namespace`,
 * its key one of `allowedKeys` (authorized_keys lines), and the signature must verify with that key.
 * Security-key (sk-…) signatures and certificates are refused: their extra fields are not checked.
 */
export function verifySshSignature(armored: string, message: Uint8Array, allowedKeys: readonly string[], namespace = 'git'): SshSignatureCheck {
  const refused = (reason: string): SshSignatureCheck => ({ verified: false, reason });
  let parsed: ParsedSignature;
  try {
    parsed = parseSignature(armored);
  } catch (error) {
    return refused(`carries an SSH signature that cannot be read (${error instanceof Error ? error.message : String(error)})`);
  }
  if (parsed.namespace !== namespace) return refused(`carries an SSH signature for namespace "${parsed.namespace.slice(0, 40)}", not "${namespace}"`);
  const fingerprint = fingerprintOf(parsed.publicKey);
  const shape = keyShapes[parsed.keyType];
  if (!shape) return refused(`is signed with an SSH key of type ${parsed.keyType.slice(0, 40)}, which is not verified (ed25519, RSA and ECDSA are)`);
  if (!allowedKeys.some((line) => keyBlobOf(line)?.equals(parsed.publicKey))) return refused(`is signed, but by SSH key ${fingerprint}, which is not one of the expected keys`);
  if (!shape.signatureTypes.includes(parsed.signatureType)) return refused(`carries a ${parsed.signatureType.slice(0, 40)} signature, which a ${parsed.keyType} key may not make here`);
  if (!hashes.has(parsed.hashAlgorithm)) return refused(`carries an SSH signature over a ${parsed.hashAlgorithm.slice(0, 40)} hash (sha256 and sha512 are read)`);
  const signedData = Buffer.concat([
    magic, sshString(Buffer.from(parsed.namespace)), sshString(parsed.reserved), sshString(Buffer.from(parsed.hashAlgorithm)),
    sshString(createHash(parsed.hashAlgorithm).update(message).digest()),
  ]);
  let valid: boolean;
  try {
    const key = publicKeyOf(parsed.keyType, parsed.publicKey);
    const digest = shape.digest(parsed.signatureType);
    valid = parsed.keyType.startsWith('ecdsa-')
      ? verify(digest, signedData, { key, dsaEncoding: 'ieee-p1363' }, ecdsaSignature(parsed.signature, parsed.keyType))
      : verify(digest ?? null, signedData, key, parsed.signature);
  } catch {
    valid = false;
  }
  return valid ? { verified: true, fingerprint } : refused(`carries an SSH signature by ${fingerprint} that does not match its content`);
}

/** sshKeyFingerprint is the fingerprint of an authorized_keys line, as `ssh-keygen -l` prints it, or the line's start when it is unreadable. */
export function sshKeyFingerprint(line: string): string {
  const blob = keyBlobOf(line);
  return blob ? fingerprintOf(blob) : line.trim().slice(0, 24);
}

/** sshKeyProblem says why an authorized_keys line is not a key signatures can be checked with, or undefined when it is one. */
export function sshKeyProblem(line: string): string | undefined {
  const blob = keyBlobOf(line);
  if (!blob) return 'its key is not base64 of a key of the named type';
  const type = line.trim().split(/\s+/)[0] ?? '';
  if (!keyShapes[type]) return `keys of type ${type.slice(0, 40)} are not verified (ed25519, RSA and ECDSA are)`;
  try {
    publicKeyOf(type, blob);
    return undefined;
  } catch {
    return 'its key cannot be read (truncated or not on its curve)';
  }
}

interface ParsedSignature {
  publicKey: Buffer;
  keyType: string;
  namespace: string;
  reserved: Buffer;
  hashAlgorithm: string;
  signatureType: string;
  signature: Buffer;
}

function parseSignature(armored: string): ParsedSignature {
  if (armored.length > maxArmoredBytes) throw new Error(`longer than ${maxArmoredBytes} bytes`);
  const begin = armored.indexOf(armorBegin);
  const end = armored.indexOf(armorEnd);
  if (begin < 0 || end < begin) throw new Error('no armored SSH signature');
  const body = armored.slice(begin + armorBegin.length, end).replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) throw new Error('the armor is not base64');
  const reader = new WireReader(Buffer.from(body, 'base64'));
  if (!reader.bytes(magic.length).equals(magic)) throw new Error('no SSHSIG preamble');
  const version = reader.uint32();
  if (version !== 1) throw new Error(`version ${version}, not 1`);
  const publicKey = reader.string();
  const namespace = reader.string().toString('utf8');
  const reserved = reader.string();
  const hashAlgorithm = reader.string().toString('utf8');
  const signatureBlob = new WireReader(reader.string());
  reader.end();
  const signatureType = signatureBlob.string().toString('utf8');
  const signature = signatureBlob.string();
  // A security key's signature carries flags and a counter after the signature itself.
  if (!signatureType.startsWith('sk-')) signatureBlob.end();
  const keyType = new WireReader(publicKey).string().toString('utf8');
  return { publicKey, keyType, namespace, reserved, hashAlgorithm, signatureType, signature };
}

/** keyBlobOf reads the wire-format key of an authorized_keys line ("ssh-ed25519 AAAA… comment"); undefined when it is not one. */
function keyBlobOf(line: string): Buffer | undefined {
  const [type, base64] = line.trim().split(/\s+/);
  if (!type || !base64 || !/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) return undefined;
  const blob = Buffer.from(base64, 'base64');
  try {
    return new WireReader(blob).string().toString('utf8') === type ? blob : undefined;
  } catch {
    return undefined;
  }
}

const curves: Record<string, { crv: string; size: number }> = {
  'ecdsa-sha2-nistp256': { crv: 'P-256', size: 32 },
  'ecdsa-sha2-nistp384': { crv: 'P-384', size: 48 },
  'ecdsa-sha2-nistp521': { crv: 'P-521', size: 66 },
};

/** publicKeyOf turns an SSH wire-format public key into a node:crypto key, through its JWK. */
function publicKeyOf(type: string, blob: Buffer): KeyObject {
  const reader = new WireReader(blob);
  reader.string();
  if (type === 'ssh-ed25519') {
    const x = reader.string();
    reader.end();
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: x.toString('base64url') }, format: 'jwk' });
  }
  if (type === 'ssh-rsa') {
    const e = unsigned(reader.string());
    const n = unsigned(reader.string());
    reader.end();
    return createPublicKey({ key: { kty: 'RSA', e: e.toString('base64url'), n: n.toString('base64url') }, format: 'jwk' });
  }
  const curve = curves[type];
  if (!curve) throw new Error(`unknown key type ${type}`);
  reader.string();
  const point = reader.string();
  reader.end();
  if (point.length !== 1 + 2 * curve.size || point[0] !== 4) throw new Error('not an uncompressed curve point');
  const x = point.subarray(1, 1 + curve.size).toString('base64url');
  const y = point.subarray(1 + curve.size).toString('base64url');
  return createPublicKey({ key: { kty: 'EC', crv: curve.crv, x, y }, format: 'jwk' });
}

/** ecdsaSignature turns SSH's (mpint r, mpint s) into the fixed-width r‖s node:crypto reads. */
function ecdsaSignature(blob: Buffer, type: string): Buffer {
  const size = curves[type]?.size ?? 0;
  const reader = new WireReader(blob);
  const [r, s] = [unsigned(reader.string()), unsigned(reader.string())];
  reader.end();
  if (r.length > size || s.length > size) throw new Error('signature integers too long');
  return Buffer.concat([Buffer.alloc(size - r.length), r, Buffer.alloc(size - s.length), s]);
}

/** unsigned drops an mpint's sign byte. */
function unsigned(mpint: Buffer): Buffer {
  let start = 0;
  while (start < mpint.length - 1 && mpint[start] === 0) start += 1;
  return mpint.subarray(start);
}

function sshString(bytes: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/** WireReader reads SSH wire-format fields, refusing any length past the end. */
class WireReader {
  private offset = 0;

  constructor(private readonly buffer: Buffer) {}

  bytes(length: number): Buffer {
    if (length > this.buffer.length - this.offset) throw new Error('truncated');
    const bytes = this.buffer.subarray(this.offset, this.offset + length);
    this.offset += length;
    return bytes;
  }

  uint32(): number {
    return this.bytes(4).readUInt32BE(0);
  }

  string(): Buffer {
    return this.bytes(this.uint32());
  }

  end(): void {
    if (this.offset !== this.buffer.length) throw new Error('trailing bytes');
  }
}
