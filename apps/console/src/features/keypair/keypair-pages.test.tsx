import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { KeyPair } from '@suanli/contracts';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { renderRoutes } from '../../test/render-routes';
import { setupPageTests } from '../../test/page-test';
import { confirmPop } from '../../test/ui';
import { KeypairCreatePage, KeypairListPage } from './routes';

/** An in-memory key pair service behind a stubbed fetch (the server's own rules are in keypair.api.test.ts). */
function fakeBackend() {
  const keys: KeyPair[] = [];
  const calls: { method: string; path: string; body: unknown }[] = [];
  const centers = [
    { id: 'sz-a100', name: '深圳算力分中心', region: '广东·深圳', description: '', status: 'online', fileServiceUrl: '', cardTypes: [] },
    { id: 'gz-ascend', name: '广州算力分中心', region: '广东·广州', description: '', status: 'online', fileServiceUrl: '', cardTypes: [] },
  ];
  const ok = (data: unknown, code = 0, message = '操作成功') =>
    new Response(JSON.stringify({ message: { code, message }, data }), { status: 200, headers: { 'content-type': 'application/json' } });
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://localhost');
    const method = (init.method ?? 'GET').toUpperCase();
    const body = init.body ? JSON.parse(String(init.body)) : undefined;
    calls.push({ method, path: url.pathname, body });
    const p = url.pathname;
    if (p.endsWith('/sub-centers/action/list')) return ok(centers);
    if (p.endsWith('/keypairs') && method === 'GET') return ok(keys);
    if (p.endsWith('/keypairs/generate')) {
      const k = key(`k${keys.length + 1}`, body.name, 'generated');
      keys.unshift(k);
      return ok({ keyPair: k, privateKey: '-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----\n' });
    }
    if (p.endsWith('/keypairs/import')) {
      if (!String(body.publicKey).startsWith('ssh-')) return ok(null, 2201, '公钥格式不正确：应以 ssh-ed25519、ssh-rsa 或 ecdsa-sha2-nistp256/384/521 开头');
      const k = key(`k${keys.length + 1}`, body.name, 'imported');
      keys.unshift(k);
      return ok(k);
    }
    const m = /\/keypairs\/([^/]+)(?:\/(install|uninstall))?$/.exec(p);
    const k = m && keys.find((x) => x.id === m[1]);
    if (!k) return ok(null, 1205, '密钥对不存在');
    if (m[2] === 'install') for (const id of body.subCenterIds) k.installs.push({ subCenterId: id, subCenterName: centers.find((c) => c.id === id)!.name, account: 'szu0001', installTime: 2, sshCommand: 'ssh -p 2222 szu0001@login.sz.example' });
    if (m[2] === 'uninstall') k.installs = k.installs.filter((i) => !body.subCenterIds.includes(i.subCenterId));
    if (method === 'DELETE') keys.splice(keys.indexOf(k), 1);
    return ok(method === 'DELETE' ? null : k);
  };
  return { keys, calls, fetch };
}

function key(id: string, name: string, source: KeyPair['source']): KeyPair {
  return { id, name, type: 'ed25519', bits: 256, fingerprint: `SHA256:fp-${id}`, publicKey: `ssh-ed25519 AAAA${id} ${name}`, source, createTime: 1, installs: [] };
}

let backend: ReturnType<typeof fakeBackend>;
setupPageTests(() => (backend = fakeBackend()));
beforeEach(() => {
  // Spies, not an Object.assign on the shared URL class: that replaced its statics for every later file.
  vi.spyOn(URL, 'createObjectURL').mockReturnValue('blob:x');
  vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {});
});

const renderAt = (url: string) => renderRoutes({ '/keypair': <KeypairListPage />, '/keypair/create': <KeypairCreatePage /> }, url);

describe('key pair pages', () => {
  it('generates a key, offers the private key once and returns to the list only after the download', async () => {
    const router = renderAt('/keypair/create');
    fireEvent.change(screen.getByTestId('kp-gen-name'), { target: { value: '实验室工作站' } });
    fireEvent.click(screen.getByTestId('kp-gen-submit'));
    await screen.findByTestId('kp-generated');
    expect(backend.calls.find((c) => c.path.endsWith('/generate'))?.body).toEqual({ name: '实验室工作站', type: 'ed25519' });
    expect(screen.getByText(/私钥只在此显示这一次，平台不保存/)).toBeTruthy();
    expect((screen.getByTestId('kp-done') as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByTestId('kp-download'));
    expect(URL.createObjectURL).toHaveBeenCalled();
    fireEvent.click(screen.getByTestId('kp-done'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/keypair'));
    expect((await screen.findAllByTestId('kp-name')).map((n) => n.textContent)).toEqual(['实验室工作站']);
  });

  it('shows the server\'s Chinese refusal of a bad public key and stays on the form', async () => {
    const router = renderAt('/keypair/create');
    fireEvent.click(screen.getByTestId('kp-tab-import'));
    fireEvent.change(await screen.findByTestId('kp-imp-name'), { target: { value: '笔记本' } });
    fireEvent.change(screen.getByTestId('kp-imp-key'), { target: { value: 'not a key' } });
    fireEvent.click(screen.getByTestId('kp-imp-submit'));
    await screen.findByText(/公钥格式不正确/);
    expect(router.state.location.pathname).toBe('/keypair/create');
    expect(backend.keys).toHaveLength(0);
  });

  it('installs on chosen centers, uninstalls from one, and deletes', async () => {
    backend.keys.push(key('k9', '我的钥匙', 'imported'));
    renderAt('/keypair');
    const item = await screen.findByTestId('kp-item');
    expect(within(item).getByTestId('kp-fingerprint').textContent).toContain('SHA256:fp-k9');
    expect(within(item).getByText('尚未安装到任何分中心')).toBeTruthy();

    fireEvent.click(within(item).getByTestId('kp-install-open'));
    fireEvent.click(await screen.findByLabelText('深圳算力分中心（广东·深圳）'));
    fireEvent.click(screen.getByTestId('kp-install-ok'));
    await waitFor(() => expect(screen.getAllByTestId('kp-install').map((t) => t.getAttribute('data-center'))).toEqual(['sz-a100']));
    expect(backend.calls.find((c) => c.path.endsWith('/install'))?.body).toEqual({ subCenterIds: ['sz-a100'] });
    // The command to log in with it from one's own terminal.
    expect(screen.getByTestId('kp-ssh-command').textContent).toBe('ssh -p 2222 szu0001@login.sz.example');

    fireEvent.click(screen.getByTestId('kp-install'));
    await confirmPop();
    await waitFor(() => expect(screen.queryAllByTestId('kp-install')).toHaveLength(0));

    fireEvent.click(screen.getByTestId('kp-delete'));
    await confirmPop();
    await screen.findByTestId('kp-empty');
  });
});
