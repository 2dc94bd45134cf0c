import { generateKeyPairSync } from 'node:crypto';
import { RSA_KEY_BITS } from '@suanli/contracts';
import { decryptChunked, parsePrivateKey, type RsaPrivateKey } from './rsa-cipher';
import type { RsaKeyRepository } from './rsa-key.repository';

/** How long a process trusts its cached key list; a rotation reaches every gateway process within this. */
const CACHE_MS = 60_000;

/** 1024-bit, e = 65537 (the spec's "010001"); public key as PEM SPKI, the form every client library reads. */
function generatePair(): { publicPem: string; privatePem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: RSA_KEY_BITS,
    publicExponent: 0x10001,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicPem: publicKey, privatePem: privateKey };
}

interface LoadedKey {
  id: string;
  publicPem: string;
  privateKey: RsaPrivateKey;
}

/**
 * The RSA key pair clients encrypt passwords with. Generated on first start and kept in `rsa_keys` so all
 * gateway processes share it. Rotate by inserting a new active row: it is served from then on, while older
 * active rows still decrypt until they are set inactive (clients that fetched the old key keep working).
 */
export class RsaKeyService {
  private cache: { keys: LoadedKey[]; loadedAt: number } | null = null;

  constructor(
    private readonly repo: RsaKeyRepository,
    private readonly clock: () => number,
  ) {}

  /** Creates the first key pair if there is none. The fixed id makes concurrent first starts converge. */
  async init(): Promise<void> {
    if ((await this.repo.listActive()).length === 0) {
      await this.repo.insertIfAbsent({ id: 'initial', ...generatePair(), now: this.clock() });
    }
    this.cache = null;
  }

  async publicKey(): Promise<{ publicKey: string; keySize: number }> {
    const [current] = await this.keys();
    return { publicKey: current.publicPem, keySize: RSA_KEY_BITS };
  }

  /** The UTF-8 value of an encrypted field, or null when it does not decrypt (never says why). */
  async decrypt(ciphertext: string): Promise<string | null> {
    const keys = await this.keys();
    return decryptChunked(
      keys.map((k) => k.privateKey),
      ciphertext,
    );
  }

  private async keys(): Promise<LoadedKey[]> {
    const now = this.clock();
    if (this.cache && Math.abs(now - this.cache.loadedAt) < CACHE_MS) return this.cache.keys;
    const rows = await this.repo.listActive();
    if (rows.length === 0) throw new Error('no active RSA key: RsaKeyService.init() was not run');
    const previous = new Map(this.cache?.keys.map((k) => [k.id, k]));
    const keys = rows.map((r) => previous.get(r.id) ?? { id: r.id, publicPem: r.public_pem, privateKey: parsePrivateKey(r.private_pem) });
    this.cache = { keys, loadedAt: now };
    return keys;
  }
}
