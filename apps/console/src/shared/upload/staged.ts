/**
 * The file-service calls behind the list of interrupted uploads (issue 22 item 3), through the route
 * descriptors of `StagedUploadApi` on a client bound to the center's file service.
 */
import { StagedUploadApi, type StagedUpload } from '@suanli/contracts';
import { callWith } from '../http/call';
import { createClient, type RequestClient } from '../http/client';

const clients = new Map<string, RequestClient>();
/** One client per file service (its `fileServiceUrl`; the descriptors carry the `/api/v1` base). */
function clientOf(fileServiceUrl: string): RequestClient {
  const base = fileServiceUrl.replace(/\/+$/, '');
  let c = clients.get(base);
  if (!c) clients.set(base, (c = createClient({ baseURL: base })));
  return c;
}

/** Silent: a center that cannot be reached must not toast on every page load; the panel says so itself. */
export const listStaged = (fileServiceUrl: string): Promise<StagedUpload[]> => callWith(clientOf(fileServiceUrl), StagedUploadApi.list, undefined, { silent: true });

export const discardStaged = (fileServiceUrl: string, identifier: string): Promise<null> =>
  callWith(clientOf(fileServiceUrl), StagedUploadApi.discard, { body: { identifier } });
