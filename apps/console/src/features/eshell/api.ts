/** Web shell calls (docs/plan/10.md "Web shell") through the route descriptors (EshellApi). */
import { EshellApi, type AccessSessionQuery } from '@suanli/contracts';
import { call } from '../../app/request';

export function fetchShellCenters() {
  return call(EshellApi.centers);
}

/** The caller's own shell and proxy sessions, newest first. */
export function pageShellSessions(query: AccessSessionQuery) {
  return call(EshellApi.sessions, { body: query });
}

/** Operators: every user's sessions with the user id and address (anyone else gets 1020). */
export function pageAllShellSessions(query: AccessSessionQuery) {
  return call(EshellApi.allSessions, { body: query });
}
