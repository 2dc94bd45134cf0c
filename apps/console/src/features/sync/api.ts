/** 跨中心同步 calls through the route descriptors (SyncApi). */
import { SyncApi, type SyncCreate, type SyncPageQuery } from '@suanli/contracts';
import { call } from '../../app/request';

/** Starts a copy of a file or folder into another center's storage (2350 same center, 2352 too many active). */
export const createSync = (body: SyncCreate) => call(SyncApi.create, { body });

/**
 * The caller's sync jobs, newest first. Silent: the header's task panel reads it in the background on every
 * page, so a failure there shows in the panel, not as a toast on whatever page is open.
 */
export const pageSyncs = (query: SyncPageQuery) => call(SyncApi.page, { body: query }, { silent: true });

export const getSync = (id: string) => call(SyncApi.detail, { params: { id } });

/** Stops a queued or running job (2351 once it has finished); what was staged on the target is discarded. */
export const cancelSync = (id: string) => call(SyncApi.cancel, { params: { id } });
