/**
 * Connects the framework-free upload runner to the console: the signed-in user's token, the client
 * identification header every call carries, and the one session-expiry path of the request pipeline.
 */
import { AGENT_TOKEN } from '../../app/config';
import { expireSession } from '../../app/session';
import { getToken } from '../../app/stores/user-store';
import { configureUploads } from './store';

configureUploads({
  getToken,
  headers: () => ({ 'Agent-Token': `Bearer ${AGENT_TOKEN}` }),
  onSessionInvalid: (message) => expireSession(message),
});
