import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CenterConfig } from '../../centers/centers';
import { AccessError, AssetStore } from './asset-store';

/**
 * `AssetStore.applyAccess` on a host without Debian's `acl` (ADR 0013 §3): the two ACLs that are plain modes
 * are set by chmod, a private one with readers fails and closes the folder. (With setfacl: asset.api.test.ts.)
 */
describe('asset area access without setfacl', () => {
  let root: string;
  let center: CenterConfig;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-asset-store-'));
    center = { id: 'c1', storageRoot: root, accounts: { prefix: 'u', uidStart: 20001, size: 10 } } as CenterConfig;
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const store = () => new AssetStore([center], undefined, path.join(root, 'no-such-setfacl'));
  const modeOf = (p: string) => fs.statSync(p).mode & 0o777;

  it('public and reader-less folders still get their modes; the area is 0711 and a new folder 0700', async () => {
    const s = store();
    expect(await s.applyAccess(center, 'gone', { public: true, uids: [] })).toBe(false);
    await s.ensureAssetDir(center, 'a1');
    expect(modeOf(path.join(root, '.assets'))).toBe(0o711);
    expect(modeOf(path.join(root, '.assets/a1'))).toBe(0o700);
    expect(await s.applyAccess(center, 'a1', { public: true, uids: [] })).toBe(true);
    expect(modeOf(path.join(root, '.assets/a1'))).toBe(0o755);
    await s.applyAccess(center, 'a1', { public: false, uids: [] });
    expect(modeOf(path.join(root, '.assets/a1'))).toBe(0o750);
  });

  it('a private folder with readers cannot be set: it is closed (0700) and the call throws', async () => {
    const s = store();
    await s.applyAccess(center, 'a2', { public: true, uids: [] }, { create: true });
    expect(modeOf(path.join(root, '.assets/a2'))).toBe(0o755);
    await expect(s.applyAccess(center, 'a2', { public: false, uids: [20001] })).rejects.toThrow(AccessError);
    await expect(s.applyAccess(center, 'a2', { public: false, uids: [20001] })).rejects.toThrow(/not found \(install Debian's acl package\)/);
    expect(modeOf(path.join(root, '.assets/a2'))).toBe(0o700);
  });
});
