// How the server stops without dropping a request. On SIGTERM it first drains: readiness responds
// 503 and every response closes its connection, so that balancers stop sending and proxies stop
// reusing connections, while it keeps serving. Then it closes its listener and waits for every
// connection to end on its own before the app closes.
//
// Why not just app.close(): Node's http.Server#close (from Node 19) destroys every connection
// that is not inside a request at that moment. That includes a connection accepted a moment ago
// whose request is already on its way (a proxy connects, then writes), and an idle keep-alive
// connection a proxy has just picked to send on. Either way the proxy's request meets a reset
// ("Connection reset by peer while reading response header from upstream"), and a POST cannot be
// retried. So the listener is closed the way net.Server closes it, which leaves connections alone,
// and each connection ends after its response (Connection: close) or when its client closes it.
import { Server as NetServer, type Server } from 'node:net';

/** Stops accepting connections, and resolves when every open connection has ended, or after `timeoutMs`. */
export function closeListener(server: Server, timeoutMs: number): Promise<'ended' | 'timeout'> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('timeout'), timeoutMs);
    // net.Server's close, not http.Server's: the callback comes once the last connection has ended.
    NetServer.prototype.close.call(server, () => {
      clearTimeout(timer);
      resolve('ended');
    });
  });
}
