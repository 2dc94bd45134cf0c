/**
 * An account worker (started by launcher.ts with the account's uid/gid): receives the file service's
 * connection from the launcher, answers "ready", then serves the account's space on it until it closes.
 */
import net from 'node:net';
import { LocalAccountFs } from '../storage/account-fs';
import { Kind, writeJson } from './frames';
import { serveAccount } from './worker';

process.once('message', (msg: { home: string; staging: string; shared?: boolean }, handle: unknown) => {
  if (!(handle instanceof net.Socket)) process.exit(1);
  // The launcher's channel is not needed any more (disconnecting inside this handler crashes node's IPC
  // code, hence the next tick); the worker lives exactly as long as its connection.
  setImmediate(() => process.disconnect?.());
  const fs = new LocalAccountFs(msg.home, msg.staging, { shared: msg.shared === true });
  void writeJson(handle, Kind.RES, { result: { ready: true, uid: process.getuid?.() } })
    .then(() => serveAccount(handle, fs))
    .finally(() => process.exit(0));
});
