import { execFileSync } from 'node:child_process';
import { createHash, createPrivateKey, createPublicKey, randomBytes, sign, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PUBLIC_IMAGE_NAMESPACE } from '@suanli/contracts';

/** One grant of the Docker registry token protocol (`access` claim). */
export interface Access {
  type: string;
  name: string;
  actions: string[];
}

/**
 * The gateway's signing key for registry tokens (RS256) and the certificate the registry trusts
 * (`auth.token.rootcertbundle`), made once under `<dataDir>/registry/` with openssl.
 */
export class RegistryKey {
  readonly privateKey: KeyObject;
  /** libtrust key id of the public key: the `kid` the registry looks the key up by. */
  readonly kid: string;

  constructor(readonly dir: string) {
    const keyFile = path.join(dir, 'token-key.pem');
    const certFile = this.certFile;
    if (!fs.existsSync(keyFile) || !fs.existsSync(certFile)) {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '3650', '-subj', '/CN=suanli registry token issuer'], { stdio: 'ignore' });
      fs.chmodSync(keyFile, 0o600);
    }
    this.privateKey = createPrivateKey(fs.readFileSync(keyFile));
    this.kid = libtrustKeyId(createPublicKey(this.privateKey));
  }

  get certFile() {
    return path.join(this.dir, 'token-cert.pem');
  }
}

/**
 * libtrust's key id (what distribution's token verifier indexes trusted keys by): the first 240 bits of the
 * SHA-256 of the DER SubjectPublicKeyInfo, base32, in 12 groups of 4 joined by ':'.
 */
export function libtrustKeyId(publicKey: KeyObject): string {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  const b32 = base32(createHash('sha256').update(der).digest().subarray(0, 30));
  return b32.match(/.{4}/g)!.join(':');
}

function base32(buf: Buffer): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of buf) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/** A signed registry token for `subject` with exactly these grants. */
export function signToken(key: RegistryKey, o: { issuer: string; service: string; subject: string; access: Access[]; now: number; ttlSeconds: number }): string {
  const header = { typ: 'JWT', alg: 'RS256', kid: key.kid };
  const iat = Math.floor(o.now / 1000);
  const claims = { iss: o.issuer, sub: o.subject, aud: o.service, exp: iat + o.ttlSeconds, nbf: iat - 10, iat, jti: randomBytes(12).toString('hex'), access: o.access };
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  return `${input}.${b64url(sign('RSA-SHA256', Buffer.from(input), key.privateKey))}`;
}

/** `repository:<name>:<actions>` scopes as the registry asks for them (several may be given). */
export function parseScopes(scopes: string[]): Access[] {
  const out: Access[] = [];
  for (const s of scopes) {
    const parts = s.split(':');
    if (parts.length < 3) continue;
    const type = parts[0];
    const actions = parts[parts.length - 1].split(',').filter(Boolean);
    const name = parts.slice(1, -1).join(':');
    out.push({ type, name, actions });
  }
  return out;
}

/**
 * What a user may do: anything (pull, push, delete) in their own namespace `<namespace>/…`, pull in the
 * public namespace (and push there when `mayPublish`: the access module's `image.publish`, the operators who
 * publish the public images), nothing else. The grant is the intersection with what was asked.
 */
export function grant(namespace: string, asked: Access[], mayPublish = false): Access[] {
  return asked
    .filter((a) => a.type === 'repository')
    .map((a) => {
      const ns = a.name.split('/')[0];
      const allowed =
        ns === namespace && a.name.includes('/') ? ['pull', 'push', 'delete', '*'] : ns === PUBLIC_IMAGE_NAMESPACE ? (mayPublish ? ['pull', 'push'] : ['pull']) : [];
      return { ...a, actions: a.actions.filter((x) => allowed.includes(x)) };
    })
    .filter((a) => a.actions.length > 0);
}
