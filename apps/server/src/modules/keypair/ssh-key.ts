import { createHash } from 'node:crypto';
// ssh2 is CommonJS: Node's ESM loader sees only some of its names (not `utils`), so take it from the default.
import ssh2 from 'ssh2';
import { ErrorCode, RSA_GEN_BITS, RSA_MIN_BITS, type KeyType } from '@suanli/contracts';
import { AppError } from '../../errors';

const { utils } = ssh2;

/** A public key as the platform keeps it: type, size, fingerprint and the canonical OpenSSH line. */
export interface PublicKeyInfo {
  type: KeyType;
  bits: number;
  /** `SHA256:<base64 without padding>` of the key's wire encoding, as `ssh-keygen -lf` prints it. */
  fingerprint: string;
  /** `<algorithm> <base64>` (no comment). */
  line: string;
}

const ALGORITHMS: Record<string, KeyType> = {
  'ssh-ed25519': 'ed25519',
  'ssh-rsa': 'rsa',
  'ecdsa-sha2-nistp256': 'ecdsa',
  'ecdsa-sha2-nistp384': 'ecdsa',
  'ecdsa-sha2-nistp521': 'ecdsa',
};

/** SSH wire strings: uint32 length + bytes. */
function readStrings(buf: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let off = 0;
  while (off + 4 <= buf.length) {
    const len = buf.readUInt32BE(off);
    off += 4;
    if (off + len > buf.length) throw new Error('truncated');
    out.push(buf.subarray(off, off + len));
    off += len;
  }
  if (off !== buf.length) throw new Error('trailing bytes');
  return out;
}

function bitsOf(type: KeyType, algorithm: string, parts: Buffer[]): number {
  if (type === 'ed25519') return 256;
  if (type === 'ecdsa') return Number(algorithm.slice('ecdsa-sha2-nistp'.length));
  // ssh-rsa: e, n (mpint: a leading zero byte keeps it positive).
  const n = parts[2];
  let i = 0;
  while (i < n.length && n[i] === 0) i++;
  if (i === n.length) return 0;
  return (n.length - i - 1) * 8 + (32 - Math.clz32(n[i]));
}

const invalid = (why: string) => new AppError(ErrorCode.KEY_INVALID, `公钥格式不正确：${why}`);

/**
 * Parses one OpenSSH public key line, refusing anything else (private keys, several lines, options, DSA,
 * short RSA) with a Chinese message: 2201 for the format, 2202 for a weak key.
 */
export function parsePublicKey(raw: string): PublicKeyInfo {
  const text = raw.trim();
  if (/PRIVATE KEY/.test(text)) throw invalid('这是私钥，请粘贴公钥（通常是 .pub 文件的内容）');
  if (/[\r\n]/.test(text)) throw invalid('只能包含一行公钥');
  const [algorithm, b64] = text.split(/\s+/);
  if (algorithm === 'ssh-dss') throw new AppError(ErrorCode.KEY_TOO_WEAK, '密钥强度不足：不支持 DSA 密钥，请使用 ed25519 或 RSA（至少 2048 位）');
  const type = ALGORITHMS[algorithm];
  if (!type) throw invalid('应以 ssh-ed25519、ssh-rsa 或 ecdsa-sha2-nistp256/384/521 开头');
  if (!b64 || !/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) throw invalid('密钥内容不是有效的 Base64');
  const wire = Buffer.from(b64, 'base64');
  let parts: Buffer[];
  try {
    parts = readStrings(wire);
  } catch {
    throw invalid('密钥内容不完整');
  }
  if (parts[0]?.toString('latin1') !== algorithm) throw invalid('密钥类型与内容不一致');
  const parsed = utils.parseKey(text);
  if (parsed instanceof Error) throw invalid('无法解析该公钥');
  const bits = bitsOf(type, algorithm, parts);
  if (type === 'rsa' && bits < RSA_MIN_BITS) throw new AppError(ErrorCode.KEY_TOO_WEAK, `密钥强度不足：RSA 密钥至少 ${RSA_MIN_BITS} 位（当前 ${bits} 位）`);
  const fingerprint = `SHA256:${createHash('sha256').update(wire).digest('base64').replace(/=+$/, '')}`;
  return { type, bits, fingerprint, line: `${algorithm} ${wire.toString('base64')}` };
}

type Generated = { privateKey: string; publicKey: string };
type Generator = (type: 'ed25519' | 'rsa', comment: string) => Promise<Generated>;

/** ssh2's key generation (RSA-4096 takes about a second: off the event loop). */
const ssh2Generate: Generator = (type, comment) =>
  new Promise((resolve, reject) => {
    const done = (err: Error | null, keys: { private: string; public: string }) => (err ? reject(err) : resolve({ privateKey: keys.private, publicKey: keys.public }));
    if (type === 'rsa') utils.generateKeyPair('rsa', { bits: RSA_GEN_BITS, comment }, done);
    else utils.generateKeyPair('ed25519', { comment }, done);
  });

/** Whether both halves parse as what they claim to be (a private key ssh2 can sign with). */
function wellFormed(keys: Generated): boolean {
  try {
    parsePublicKey(keys.publicKey);
  } catch {
    return false;
  }
  const priv = utils.parseKey(keys.privateKey);
  return !(priv instanceof Error) && !Array.isArray(priv) && priv.getPublicSSH().equals(Buffer.from(keys.publicKey.trim().split(/\s+/)[1], 'base64'));
}

/**
 * A new key pair in OpenSSH formats. ssh2 writes the ed25519 public key like an integer: when its first byte
 * is 0 (1 key in 256) it drops it, and the 31-byte key it then prints is refused by every parser (seen as a
 * web shell that failed to connect with 公钥格式不正确). Such a pair is thrown away and made again.
 */
export async function generateKeyPair(type: 'ed25519' | 'rsa', comment: string, generate: Generator = ssh2Generate): Promise<Generated> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const keys = await generate(type, comment);
    if (wellFormed(keys)) return keys;
  }
  throw new AppError(ErrorCode.KEY_INVALID, '密钥生成失败，请重试');
}
