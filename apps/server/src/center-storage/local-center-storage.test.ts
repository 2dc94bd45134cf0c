import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CenterConfig } from '../centers/centers';
import { AccessError, LocalCenterStorage } from './local-center-storage';

/**
 * `applyAccess` on a host without Debian's `acl` (ADR 0013 §3): the two ACLs that are plain modes are set by
 * chmod, a private one with readers fails and closes the folder. (With setfacl: asset.api.test.ts and the
 * CenterStorage contract, center-storage.contract.ts.)
 */
describe('asset area access without setfacl', () => {
  let root: string;
  let center: CenterConfig;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-asset-store-'));
    center = { id: 'c1', storageRoot: root, accounts: { prefix: 'u', uidStart: 20001, size: 10 } } as CenterConfig;
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const store = () => new LocalCenterStorage(center, { setfacl: path.join(root, 'no-such-setfacl') });
  const modeOf = (p: string) => fs.statSync(p).mode & 0o777;

  it('public and reader-less folders still get their modes; the area is 0711 and a new folder 0700', async () => {
    const s = store();
    expect(await s.applyAccess('gone', { public: true, uids: [] })).toBe(false);
    expect(await s.applyAccess('a1', { public: false, uids: [] }, { create: true })).toBe(true);
    expect(modeOf(path.join(root, '.assets'))).toBe(0o711);
    expect(modeOf(path.join(root, '.assets/a1'))).toBe(0o750);
    expect(await s.applyAccess('a1', { public: true, uids: [] })).toBe(true);
    expect(modeOf(path.join(root, '.assets/a1'))).toBe(0o755);
    await s.applyAccess('a1', { public: false, uids: [] });
    expect(modeOf(path.join(root, '.assets/a1'))).toBe(0o750);
  });

  it('a private folder with readers cannot be set: it is closed (0700) and the call throws', async () => {
    const s = store();
    await s.applyAccess('a2', { public: true, uids: [] }, { create: true });
    expect(modeOf(path.join(root, '.assets/a2'))).toBe(0o755);
    await expect(s.applyAccess('a2', { public: false, uids: [20001] })).rejects.toThrow(AccessError);
    await expect(s.applyAccess('a2', { public: false, uids: [20001] })).rejects.toThrow(/not found \(install Debian's acl package\)/);
    expect(modeOf(path.join(root, '.assets/a2'))).toBe(0o700);
  });

  it('never takes a name of the area that could walk out of it', async () => {
    const s = store();
    for (const bad of ['..', '../x', 'a/b', '.tmp-x', '']) await expect(s.applyAccess(bad, { public: true, uids: [] }), bad).rejects.toMatchObject({ code: 1005 });
    await expect(s.removeVersion('a1', '../../home')).rejects.toMatchObject({ code: 1005 });
  });
});
