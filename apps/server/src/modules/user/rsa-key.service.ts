import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { RSA_KEY_BITS } from '@suanli/contracts';
import type { Tx } from '../../db/db';
import { newId } from '../../lib/id';
import { decryptChunked, parsePrivateKey, type RsaPrivateKey } from './rsa-cipher';
import type { RsaKeyRepository, RsaKeyRow } from './rsa-key.repository';

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

/** A key as the server command lists it: no private material. */
export interface RsaKeyInfo {
  id: string;
  /** `SHA256:` + unpadded base64 of the SPKI DER, as `ssh-keygen -l` prints key fingerprints. */
  fingerprint: string;
  publicPem: string;
  createTime: number;
  /** The key GET /user/rsa-key hands out (the newest active one). */
  served: boolean;
  /** Set inactive: passwords encrypted with it no longer decrypt. */
  retired: boolean;
}

export function rsaFingerprint(publicPem: string): string {
  const der = createPublicKey(publicPem).export({ type: 'spki', format: 'der' });
  return `SHA256:${createHash('sha256').update(der).digest('base64').replace(/=+$/, '')}`;
}

function info(r: RsaKeyRow, servedId: string | null): RsaKeyInfo {
  return { id: r.id, fingerprint: rsaFingerprint(r.public_pem), publicPem: r.public_pem, createTime: r.create_time, served: r.id === servedId, retired: !r.active };
}

/** What `retire` did: retired, or refused because the key is served, unknown or already retired. */
export type RsaRetireOutcome = { outcome: 'retired' | 'already' | 'served'; key: RsaKeyInfo } | { outcome: 'missing' };

/**
 * The RSA key pair clients encrypt passwords with. Generated on first start and kept in `rsa_keys` so all
 * gateway processes share it. `npm run admin -- rsa rotate` adds a new active row: it is served from then
 * on, while older active rows still decrypt until `rsa retire` sets them inactive (clients that fetched the
 * old key keep working).
 *
 * How every gateway process learns of a rotation or retirement: each use (serving the key, decrypting)
 * first reads the active key ids — one query on a table of a few rows — and parses only pairs it has not seen. So a
 * key rotated by the command (or another replica) is served and decrypts at once everywhere, and a retired
 * key stops decrypting at once. Not "re-read on a failed decrypt": the extra read would make an
 * undecryptable ciphertext answer measurably slower than a decryptable one, a padding oracle
 * (Bleichenbacher) — the read happens whatever the ciphertext.
 */
export class RsaKeyService {
  /** Parsed pairs by id (parsing a PEM costs milliseconds); only active ids are kept. */
  private readonly parsed = new Map<string, LoadedKey>();

  constructor(
    private readonly repo: RsaKeyRepository,
    private readonly clock: () => number,
  ) {}

  /** Creates the first key pair if there is none. The fixed id makes concurrent first starts converge. */
  async init(): Promise<void> {
    if ((await this.repo.activeIds()).length === 0) {
      await this.repo.insertIfAbsent({ id: 'initial', ...generatePair(), now: this.clock() });
    }
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

  /** Every key, retired ones too, newest first (`npm run admin -- rsa list`). */
  async list(): Promise<RsaKeyInfo[]> {
    const rows = await this.repo.listAll();
    const servedId = rows.find((r) => r.active)?.id ?? null;
    return rows.map((r) => info(r, servedId));
  }

  /**
   * Makes a new pair the served one; older keys keep decrypting until retired. `audit` runs in the
   * transaction of the insert with the previously served key and the new one.
   */
  async rotate(audit?: (tx: Tx, change: { previous: RsaKeyInfo | null; created: RsaKeyInfo }) => Promise<void>): Promise<RsaKeyInfo> {
    const now = this.clock();
    const created = await this.repo.insertServed(
      { id: newId(now), ...generatePair(), now },
      audit && ((tx, previous, row) => audit(tx, { previous: previous && info(previous, null), created: info(row, row.id) })),
    );
    return info(created, created.id);
  }

  /**
   * Sets a key inactive: passwords encrypted with it stop decrypting on every gateway process at once.
   * Refused for the served key (clients would be handed a key nothing decrypts). `audit` runs in the
   * transaction of the update.
   */
  async retire(id: string, audit?: (tx: Tx, key: RsaKeyInfo) => Promise<void>): Promise<RsaRetireOutcome> {
    const r = await this.repo.retire(id, audit && ((tx, row) => audit(tx, info(row, null))));
    if (r.outcome === 'missing' || !r.key) return { outcome: 'missing' };
    return { outcome: r.outcome, key: info(r.key, r.outcome === 'served' ? r.key.id : null) };
  }

  private async keys(): Promise<LoadedKey[]> {
    const ids = await this.repo.activeIds();
    if (ids.length === 0) throw new Error('no active RSA key: RsaKeyService.init() was not run');
    const unseen = ids.filter((id) => !this.parsed.has(id));
    if (unseen.length) {
      for (const r of await this.repo.byIds(unseen)) this.parsed.set(r.id, { id: r.id, publicPem: r.public_pem, privateKey: parsePrivateKey(r.private_pem) });
    }
    const active = new Set(ids);
    for (const id of this.parsed.keys()) if (!active.has(id)) this.parsed.delete(id);
    // A key retired between the two reads is used this once (its row is still there); the next use drops it.
    return ids.flatMap((id) => this.parsed.get(id) ?? []);
  }
}
