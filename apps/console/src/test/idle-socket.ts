/** A WebSocket that never connects: for page tests that render the app shell (the live-updates client starts). */
export class IdleSocket {
  readyState = 0;
  onopen = null;
  onmessage = null;
  onclose = null;
  onerror = null;
  send() {}
  close() {}
}
