import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorCode, STORAGE_GRANT_HEADER, StorageAgentApi, StorageAgentApiSchemas, type StorageGrant } from '@suanli/contracts';
import { AppError } from '../errors';
import { ok } from '../lib/reply';
import { secretFile } from '../lib/secret-file';
import { serve } from '../lib/serve';

/** How long a grant is good for; a new one is made once less than half of it is left. */
const GRANT_TTL_MS = 5 * 60_000;

/**
 * The gateway's credential on a center's file service for the calls of `HttpCenterStorage` (ADR 0016): a grant
 * naming the center and an expiry, signed with HMAC-SHA256 under a key kept beside the database
 * (`<dataDir>/keys/storage-grant.secret`, 0600, made on first start; every gateway replica needs the same
 * file — production: a secret mount, like keypair.secret). The file service never holds the key: it resolves
 * a grant by asking the gateway (`GET {FOUNDATION_BASE}/agent/storage-grant`, cached 4 s), as it resolves
 * session tokens and sync grants (ADR 0002, 0010) — no secret is distributed to the centers.
 *
 * A grant lets its holder act on that one center as the platform: in any account's home and in the asset
 * area. That is no more than the gateway can do anyway (it answers who every token is); the grant only proves
 * that a call comes from the gateway. It expires within 5 minutes, and is never written down.
 */
export class StorageGrants {
  private readonly key: Buffer;
  private readonly current = new Map<string, { grant: string; expireTime: number }>();

  constructor(
    dataDir: string,
    private readonly clock: () => number,
  ) {
    this.key = secretFile(dataDir, 'storage-grant.secret');
  }

  /** The grant to send to a center's file service now (the same one for half its lifetime). */
  grantFor(centerId: string): string {
    const now = this.clock();
    const held = this.current.get(centerId);
    if (held && held.expireTime - now > GRANT_TTL_MS / 2) return held.grant;
    const expireTime = now + GRANT_TTL_MS;
    const grant = `${centerId}.${expireTime}.${this.mac(centerId, expireTime)}`;
    this.current.set(centerId, { grant, expireTime });
    return grant;
  }

  /** Whether `raw` is a grant of this gateway for `centerId` that has not expired; 10133 otherwise (like a token). */
  resolve(raw: string | undefined, centerId: string): StorageGrant {
    const refused = () => new AppError(ErrorCode.NOT_LOGGED_IN);
    if (!raw || raw.length > 200) throw refused();
    const [center, exp, mac, ...rest] = raw.split('.');
    const expireTime = Number(exp);
    if (rest.length || center !== centerId || !/^\d{1,16}$/.test(exp ?? '') || !mac) throw refused();
    const want = Buffer.from(this.mac(center, expireTime));
    const got = Buffer.from(mac);
    if (got.length !== want.length || !timingSafeEqual(got, want)) throw refused();
    if (expireTime <= this.clock()) throw refused();
    return { subCenterId: center, expireTime };
  }

  private mac(centerId: string, expireTime: number) {
    return createHmac('sha256', this.key).update(`storage-grant\n${centerId}\n${expireTime}`).digest('base64url');
  }
}

/**
 * `GET /agent/storage-grant?subCenterId=` under FOUNDATION_BASE: called by standalone file services (no
 * session), the grant in the `storage-grant` header.
 */
export function storageGrantRoutes(grants: StorageGrants): FastifyPluginAsyncTypebox {
  return async (app) => {
    serve(
      app,
      StorageAgentApi,
      StorageAgentApiSchemas,
      {
        grant: async (req) => {
          const raw = req.headers[STORAGE_GRANT_HEADER];
          return ok(grants.resolve(typeof raw === 'string' ? raw : undefined, req.query.subCenterId));
        },
      },
      ['foundation'],
    );
  };
}
