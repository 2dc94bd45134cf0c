/** 跨中心同步 calls (SYNC_BASE), through the one request pipeline. */
import { SYNC_BASE, type Page, type SyncCreate, type SyncJob, type SyncPageQuery } from '@suanli/contracts';
import { request } from '../../app/request';

const job = (id: string) => `${SYNC_BASE}/syncs/${encodeURIComponent(id)}`;

/** Starts a copy of a file or folder into another center's storage (2350 same center, 2352 too many active). */
export const createSync = (body: SyncCreate) => request.post<SyncJob>(`${SYNC_BASE}/syncs`, { data: body });

/**
 * The caller's sync jobs, newest first. Silent: the header's task panel reads it in the background on every
 * page, so a failure there shows in the panel, not as a toast on whatever page is open.
 */
export const pageSyncs = (query: SyncPageQuery) => request.post<Page<SyncJob>>(`${SYNC_BASE}/syncs/action/page`, { data: query, silent: true });

export const getSync = (id: string) => request.get<SyncJob>(job(id));

/** Stops a queued or running job (2351 once it has finished); what was staged on the target is discarded. */
export const cancelSync = (id: string) => request.post<SyncJob>(`${job(id)}/cancel`);
