import { APP_CLIENT_ID, CLIENT_FAILURE_MESSAGE, CLIENT_TIMEOUT_MESSAGE, HTTP_TIMEOUT_MS, USER_STORAGE_KEY } from '@suanli/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AGENT_TOKEN } from './config';
import { setNavigate } from './navigation';
import { createClient, request, RequestError } from './request';
import { useUserStore } from './stores/user-store';

/** `fetch` is the browser boundary: it is the one thing faked here. */
function envelope(code: number, data: unknown = null, message = code === 0 ? '操作成功' : '失败', status = 200) {
  return new Response(JSON.stringify({ message: { code, message }, data }), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
}

function setup(response: Response | (() => Promise<Response>)) {
  const fetchMock = vi.fn<typeof fetch>(typeof response === 'function' ? response : async () => response);
  const notify = { error: vi.fn(), warning: vi.fn() };
  const onSessionInvalid = vi.fn();
  const client = createClient({ fetch: fetchMock, notify, onSessionInvalid, getToken: () => 'tok-1' });
  return { client, fetchMock, notify, onSessionInvalid };
}

describe('request pipeline', () => {
  it('resolves code 0 with data, or with the whole envelope on request', async () => {
    const { client } = setup(envelope(0, { id: 'u1' }));
    await expect(client.get('/gateway/user/api/v1/user')).resolves.toEqual({ id: 'u1' });

    const full = setup(envelope(0, { id: 'u1' }));
    await expect(full.client.get('/x', { full: true })).resolves.toEqual({ message: { code: 0, message: '操作成功' }, data: { id: 'u1' } });
  });

  it('sends the token, the agent token, JSON bodies and query parameters', async () => {
    const { client, fetchMock } = setup(envelope(0));
    await client.post('/gateway/foundation/api/v1/message/query', { data: { pageNum: 1 }, params: { a: 1, skip: undefined } });
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe('/gateway/foundation/api/v1/message/query?a=1');
    const headers = init!.headers as Record<string, string>;
    expect(headers.token).toBe('tok-1');
    expect(headers['Agent-Token']).toBe(`Bearer ${AGENT_TOKEN}`);
    expect(headers['Content-Type']).toBe('application/json');
    expect(init!.body).toBe('{"pageNum":1}');
    expect(init!.method).toBe('POST');
  });

  it('leaves the token out of anonymous calls and sends FormData untouched', async () => {
    const { client, fetchMock } = setup(envelope(0));
    const form = new FormData();
    form.append('file', new Blob(['x']), 'a.png');
    await client.post('/upload', { data: form, anonymous: true });
    const init = fetchMock.mock.calls[0][1]!;
    const headers = init.headers as Record<string, string>;
    expect(headers.token).toBeUndefined();
    expect(headers['Content-Type']).toBeUndefined();
    expect(init.body).toBe(form);
  });

  it('works against another base URL (a sub-center file service)', async () => {
    const fetchMock = vi.fn<typeof fetch>(async () => envelope(0, []));
    const files = createClient({ baseURL: 'http://center-a:9000/file-service/a/', fetch: fetchMock, getToken: () => 't' });
    await files.post('/api/v1/directory', { params: { path: '/' } });
    expect(fetchMock.mock.calls[0][0]).toBe('http://center-a:9000/file-service/a/api/v1/directory?path=%2F');
    expect(files.url('/api/v1/file', { p: 'x' })).toBe('http://center-a:9000/file-service/a/api/v1/file?p=x');
  });

  it('toasts the server message of a business error and rejects', async () => {
    const { client, notify, onSessionInvalid } = setup(envelope(1024, null, '用户名或密码错误'));
    const error = await client.post('/login', { data: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestError);
    expect(error).toMatchObject({ kind: 'business', code: 1024, message: '用户名或密码错误' });
    expect(notify.error).toHaveBeenCalledWith('用户名或密码错误');
    expect(onSessionInvalid).not.toHaveBeenCalled();
  });

  it('does not toast a silent call but still rejects', async () => {
    const { client, notify } = setup(envelope(1005, null, '参数校验失败：value'));
    await expect(client.put('/check', { silent: true })).rejects.toMatchObject({ code: 1005 });
    expect(notify.error).not.toHaveBeenCalled();
  });

  it.each([10133, 10157, 10307])('hands session-invalid code %i to the session handler without a toast', async (code) => {
    const { client, notify, onSessionInvalid } = setup(envelope(code, null, '会话失效'));
    await expect(client.get('/x')).rejects.toMatchObject({ kind: 'session', code });
    expect(onSessionInvalid).toHaveBeenCalledWith('会话失效', code);
    expect(notify.error).not.toHaveBeenCalled();
  });

  it.each([
    [400, '请求失败'],
    [401, '未授权，请重新登录'],
    [403, '拒绝访问'],
    [404, '请求的资源不存在'],
    [405, '请求方法不允许'],
    [500, '服务器内部错误'],
    [502, '网关错误'],
    [503, '服务不可用'],
    [504, '网关超时'],
  ])('maps HTTP %i without an envelope to %s', async (status, text) => {
    const { client, notify } = setup(new Response('<html>oops</html>', { status, headers: { 'content-type': 'text/html' } }));
    await expect(client.get('/x')).rejects.toMatchObject({ kind: 'http', status, message: text });
    expect(notify.error).toHaveBeenCalledWith(text);
  });

  it('prefers the code map over the HTTP status map for a transport error with an envelope', async () => {
    const { client, notify } = setup(envelope(1310, null, 'too large', 413));
    await expect(client.post('/x')).rejects.toMatchObject({ status: 413, code: 1310, message: '文件过大' });
    expect(notify.error).toHaveBeenCalledWith('文件过大');
  });

  it('falls back to the generic failure text for an unknown status and on network errors', async () => {
    const unknown = setup(new Response('', { status: 418 }));
    await expect(unknown.client.get('/x')).rejects.toMatchObject({ message: CLIENT_FAILURE_MESSAGE });

    const offline = setup(() => Promise.reject(new TypeError('Failed to fetch')));
    await expect(offline.client.get('/x')).rejects.toMatchObject({ kind: 'network', message: CLIENT_FAILURE_MESSAGE });
    expect(offline.notify.error).toHaveBeenCalledWith(CLIENT_FAILURE_MESSAGE);
  });

  describe('timeout', () => {
    beforeEach(() => vi.useFakeTimers());
    afterEach(() => vi.useRealTimers());

    it(`aborts after ${HTTP_TIMEOUT_MS} ms and shows the timeout warning`, async () => {
      const fetchMock = vi.fn<typeof fetch>(
        (_url, init) =>
          new Promise((_resolve, reject) => {
            // Like fetch: reject with an AbortError once the signal fires.
            init!.signal!.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
          }),
      );
      const notify = { error: vi.fn(), warning: vi.fn() };
      const client = createClient({ fetch: fetchMock, notify, getToken: () => undefined });
      const pending = client.get('/slow').catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(HTTP_TIMEOUT_MS - 1);
      expect(notify.warning).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(1);
      expect(await pending).toMatchObject({ kind: 'timeout', message: CLIENT_TIMEOUT_MESSAGE });
      expect(notify.warning).toHaveBeenCalledWith(CLIENT_TIMEOUT_MESSAGE);
      expect(notify.error).not.toHaveBeenCalled();
    });
  });

  it('rejects quietly when the caller cancels', async () => {
    const controller = new AbortController();
    const fetchMock = vi.fn<typeof fetch>(
      (_url, init) =>
        new Promise((_resolve, reject) => {
          init!.signal!.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
        }),
    );
    const notify = { error: vi.fn(), warning: vi.fn() };
    const client = createClient({ fetch: fetchMock, notify, getToken: () => undefined });
    const pending = client.get('/x', { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ kind: 'aborted' });
    expect(notify.error).not.toHaveBeenCalled();
    expect(notify.warning).not.toHaveBeenCalled();
  });
});

describe('the default client and the session-invalid redirect', () => {
  const navigate = vi.fn();
  let restoreNavigate: () => void;

  beforeEach(() => {
    navigate.mockReset();
    restoreNavigate = setNavigate(navigate);
    useUserStore.getState().clearUser();
    useUserStore.getState().setUserInfo({ id: 'u1', username: 'alice', token: 'tok-1', createTime: 1 });
  });
  afterEach(() => {
    restoreNavigate();
    vi.unstubAllGlobals();
    window.history.replaceState(null, '', '/');
  });

  it.each([10133, 10157, 10307])('code %i clears the user and goes to login with the return URL', async (code) => {
    window.history.replaceState(null, '', '/console/message?page=2');
    vi.stubGlobal('fetch', vi.fn(async () => envelope(code, null, '登录已过期，请重新登录')));
    await expect(request.post('/gateway/foundation/api/v1/message/query', { data: {} })).rejects.toMatchObject({ code });
    expect(useUserStore.getState().userInfo).toEqual({});
    expect(window.localStorage.getItem(USER_STORAGE_KEY)).toBeNull();
    expect(navigate).toHaveBeenCalledWith(`/login?redirect=${encodeURIComponent('/message?page=2')}&reason=${code}`, { replace: true });
  });

  it('stays put when the session ends on a sign-in page', async () => {
    window.history.replaceState(null, '', '/console/login');
    vi.stubGlobal('fetch', vi.fn(async () => envelope(10133, null, '未登录或登录已失效')));
    await expect(request.get('/gateway/user/api/v1/user')).rejects.toMatchObject({ code: 10133 });
    expect(navigate).not.toHaveBeenCalled();
  });

  it('sends the stored token and the logout client id', async () => {
    const fetchMock = vi.fn<typeof fetch>(async () => envelope(0));
    vi.stubGlobal('fetch', fetchMock);
    await request.get('/gateway/user/api/v1/user/logout', { params: { appClientId: APP_CLIENT_ID } });
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe(`/gateway/user/api/v1/user/logout?appClientId=${APP_CLIENT_ID}`);
    expect((init!.headers as Record<string, string>).token).toBe('tok-1');
  });
});
