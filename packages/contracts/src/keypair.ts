import { Type, type Static } from '@sinclair/typebox';
import { Id, IdParams, Millis, Null } from './common';
import { FILE_API_PREFIX } from './file';
import { route, type SchemasOf } from './route';

/** 密钥对 (issue 10 item 1): SSH keys a user logs in to cluster accounts and develop tasks with. */
export const KEYPAIR_BASE = '/gateway/keypair/api/v1';

/** Key types the platform generates (ecdsa keys can be imported too). */
export const KEY_GEN_TYPES = ['ed25519', 'rsa'] as const;
export const KEY_TYPES = ['ed25519', 'rsa', 'ecdsa'] as const;
export type KeyType = (typeof KEY_TYPES)[number];
/** RSA keys shorter than this are refused on import; generated RSA keys have RSA_GEN_BITS. */
export const RSA_MIN_BITS = 2048;
export const RSA_GEN_BITS = 4096;
export const KEYPAIRS_PER_USER = 50;

const KeyName = Type.String({ minLength: 1, maxLength: 64 });

export const KeyInstall = Type.Object({
  subCenterId: Type.String(),
  subCenterName: Type.String(),
  /** The cluster account whose `~/.ssh/authorized_keys` holds the key. */
  account: Type.String(),
  installTime: Millis,
  /**
   * How to log in with the key from one's own terminal: `ssh [-p PORT] <account>@<login node>` (empty when the
   * center is no longer configured).
   */
  sshCommand: Type.String(),
});
export type KeyInstall = Static<typeof KeyInstall>;

export const KeyPair = Type.Object({
  id: Id,
  name: Type.String(),
  type: Type.Union(KEY_TYPES.map((t) => Type.Literal(t))),
  bits: Type.Integer(),
  /** `SHA256:…`, as `ssh-keygen -lf` prints it. */
  fingerprint: Type.String(),
  /** One OpenSSH line: `<type> <base64> <name>`. */
  publicKey: Type.String(),
  /** generated: made by the platform (its private key was handed out once); imported: the user's own. */
  source: Type.Union([Type.Literal('generated'), Type.Literal('imported')]),
  createTime: Millis,
  installs: Type.Array(KeyInstall),
});
export type KeyPair = Static<typeof KeyPair>;
export const KeyPairList = Type.Array(KeyPair);
export type KeyPairList = Static<typeof KeyPairList>;

export const KeyPairGenerate = Type.Object({
  name: KeyName,
  type: Type.Union(KEY_GEN_TYPES.map((t) => Type.Literal(t))),
});
export type KeyPairGenerate = Static<typeof KeyPairGenerate>;

/** The only time the private key leaves the server; it is not kept. */
export const KeyPairGenerated = Type.Object({
  keyPair: KeyPair,
  /** OpenSSH format (`-----BEGIN OPENSSH PRIVATE KEY-----`), unencrypted. */
  privateKey: Type.String(),
});
export type KeyPairGenerated = Static<typeof KeyPairGenerated>;

export const KeyPairImport = Type.Object({
  name: KeyName,
  /** One OpenSSH public key line (`ssh-ed25519 AAAA… comment`). */
  publicKey: Type.String({ minLength: 1, maxLength: 16384 }),
});
export type KeyPairImport = Static<typeof KeyPairImport>;

export const KeyPairTargets = Type.Object({
  subCenterIds: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 32 }),
});
export type KeyPairTargets = Static<typeof KeyPairTargets>;

/**
 * The file service's edit of the caller's `~/.ssh/authorized_keys` on its center (`POST FILE_API_PREFIX +
 * AUTHORIZED_KEYS_PATH`, session token as every file-service call): the gateway's key-pair module installs
 * and removes its lines through it, so the file is written where the storage is, as the account. Only lines
 * tagged `suanli:<tag>` are touched; the account's own lines stay.
 */
export const AUTHORIZED_KEYS_PATH = '/ssh/authorized-keys';
export const AuthorizedKeysEdit = Type.Object({
  action: Type.Union([Type.Literal('add'), Type.Literal('remove')]),
  /** A key's id, or `platform` for the web shell's per-user key. */
  tag: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
  /** `add`: one OpenSSH public key without comment (`ssh-ed25519 AAAA…`). */
  line: Type.Optional(Type.String({ maxLength: 16384, pattern: '^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(256|384|521)) [A-Za-z0-9+/]+={0,3}$' })),
});
export type AuthorizedKeysEdit = Static<typeof AuthorizedKeysEdit>;
/** The file's lines after the edit. */
export const AuthorizedKeysLines = Type.Array(Type.String());
export type AuthorizedKeysLines = Static<typeof AuthorizedKeysLines>;

/** A center's file service (relative to its `fileServiceUrl`), called by the gateway's key-pair module. */
export const AuthorizedKeysApi = {
  edit: route<{ body: typeof AuthorizedKeysEdit; response: typeof AuthorizedKeysLines }>('POST', FILE_API_PREFIX, AUTHORIZED_KEYS_PATH),
};
export const AuthorizedKeysApiSchemas: SchemasOf<typeof AuthorizedKeysApi> = {
  edit: { summary: '添加或移除 ~/.ssh/authorized_keys 中平台管理的公钥（网关的密钥对调用）', body: AuthorizedKeysEdit, response: AuthorizedKeysLines },
};

export const KeyPairApi = {
  list: route<{ response: typeof KeyPairList }>('GET', KEYPAIR_BASE, '/keypairs'),
  generate: route<{ body: typeof KeyPairGenerate; response: typeof KeyPairGenerated }>('POST', KEYPAIR_BASE, '/keypairs/generate'),
  import: route<{ body: typeof KeyPairImport; response: typeof KeyPair }>('POST', KEYPAIR_BASE, '/keypairs/import'),
  install: route<{ params: typeof IdParams; body: typeof KeyPairTargets; response: typeof KeyPair }>('POST', KEYPAIR_BASE, '/keypairs/:id/install'),
  uninstall: route<{ params: typeof IdParams; body: typeof KeyPairTargets; response: typeof KeyPair }>('POST', KEYPAIR_BASE, '/keypairs/:id/uninstall'),
  remove: route<{ params: typeof IdParams; response: typeof Null }>('DELETE', KEYPAIR_BASE, '/keypairs/:id'),
};

export const KeyPairApiSchemas: SchemasOf<typeof KeyPairApi> = {
  list: { summary: '我的密钥对（指纹与安装位置）', response: KeyPairList },
  generate: { summary: '生成密钥对（私钥仅在此返回一次，平台不保存）', body: KeyPairGenerate, response: KeyPairGenerated },
  import: { summary: '导入公钥', body: KeyPairImport, response: KeyPair },
  install: { summary: '安装到所选分中心的集群账号', params: IdParams, body: KeyPairTargets, response: KeyPair },
  uninstall: { summary: '从所选分中心卸载', params: IdParams, body: KeyPairTargets, response: KeyPair },
  remove: { summary: '删除密钥对（先从所有分中心卸载）', params: IdParams, response: Null },
};
