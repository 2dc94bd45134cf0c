import { TrainingTaskApi, UserApi } from '@suanli/contracts';
import { describe, expect, it, vi } from 'vitest';
import { callWith } from './call';
import { createClient } from './client';

/** `fetch` is the browser boundary: it is the one thing faked here. */
function setup(response: () => Response) {
  const fetchMock = vi.fn<typeof fetch>(async () => response());
  const client = createClient({ fetch: fetchMock, notify: { error: vi.fn(), warning: vi.fn() }, getToken: () => 'tok-1' });
  return { client, fetchMock };
}
const envelope = (data: unknown) => new Response(JSON.stringify({ message: { code: 0, message: '操作成功' }, data }), { headers: { 'content-type': 'application/json' } });

describe('callWith (route descriptors on the console)', () => {
  it('fills the path from the descriptor, sends the query and unwraps data', async () => {
    const { client, fetchMock } = setup(() => envelope({ content: 'a', offset: 0, nextOffset: 1, size: 1, eof: false }));
    const log = await callWith(client, TrainingTaskApi.log, { params: { id: 't/1' }, query: { offset: 0, limit: 10 } });
    expect(log.content).toBe('a');
    expect(fetchMock.mock.calls[0][0]).toBe('/gateway/training/api/v1/tasks/t%2F1/log?offset=0&limit=10');
  });

  it('resolves a file route (bytes) with the Blob, not an envelope', async () => {
    const { client, fetchMock } = setup(() => new Response('line 1\n', { headers: { 'content-type': 'text/plain; charset=utf-8' } }));
    const blob = await callWith(client, TrainingTaskApi.downloadLog, { params: { id: '7' } });
    expect(blob).toBeInstanceOf(Blob);
    expect(await blob.text()).toBe('line 1\n');
    expect(fetchMock.mock.calls[0][0]).toBe('/gateway/training/api/v1/tasks/7/log/download');
  });

  it('passes a multipart upload (no body schema) as the FormData given in the options', async () => {
    const { client, fetchMock } = setup(() => envelope({ headImage: '/a.png' }));
    const form = new FormData();
    form.append('file', new Blob(['x']), 'a.png');
    await expect(callWith(client, UserApi.uploadAvatar, {}, { data: form })).resolves.toEqual({ headImage: '/a.png' });
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe('/gateway/user/api/v1/user/action/upload-avatar');
    expect(init!.method).toBe('POST');
    expect(init!.body).toBe(form);
  });
});
