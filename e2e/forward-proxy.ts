// The in-cluster DNS of the e2e suite: an HTTP forward proxy on 127.0.0.1 that the processes
// calling OpenStack (K-ORC, the real OpenStack APIs, the `openstack` client) name in HTTP_PROXY,
// so the in-cluster URLs the hooks project — `http://{cp}-keystone.{ns}.svc:5000/v3`,
// `http://{cp}-placement.{ns}.svc:8778`, … — reach the local process serving that Service.
// Each component that serves Services registers a route; a host no route serves gets its
// connection closed, as a Service without ready endpoints. Every answer is recorded (method,
// host, path, status), so a scenario can show what a request through a catalog URL got.
import { createServer, request, type Server } from 'node:http';

/** Which local port serves `host:port` (an in-cluster Service address) now, if any. */
export type Route = (host: string, port: string) => number | undefined;

export interface ProxiedAnswer {
  at: number;
  method: string;
  /** `host:port` as the client asked for it. */
  host: string;
  path: string;
  status: number;
}

/** The answers kept: the newest, enough for any scenario's window. */
const KEPT = 5000;
/** A request carrying this header is not recorded (the stand-in operators' own health probes). */
export const UNRECORDED = 'x-c5c3-e2e-unrecorded';

export class ForwardProxy {
  private readonly routes: Route[] = [];
  private readonly answers: ProxiedAnswer[] = [];
  private server: Server | undefined;
  url = '';

  route(r: Route): void {
    this.routes.push(r);
  }

  /** The answers recorded at or after `since` (Date.now() milliseconds) for `host:port`. */
  answered(since: number, host?: string): ProxiedAnswer[] {
    return this.answers.filter((a) => a.at >= since && (host === undefined || a.host === host));
  }

  /** The environment a process gets so that its HTTP clients go through the proxy (127.0.0.1 direct). */
  env(): NodeJS.ProcessEnv {
    return { HTTP_PROXY: this.url, http_proxy: this.url, NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost' };
  }

  /** A GET of an in-cluster URL through the proxy, as a client with HTTP_PROXY would send it. */
  get(url: string, headers: Record<string, string> = {}, timeoutMs = 10_000): Promise<{ status: number; body: string }> {
    const proxy = new URL(this.url);
    return new Promise((resolve, reject) => {
      const req = request({ host: proxy.hostname, port: proxy.port, method: 'GET', path: url, headers: { ...headers, host: new URL(url).host }, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`GET ${url}: no answer within ${timeoutMs / 1000} s`)));
      req.on('error', reject);
      req.end();
    });
  }

  async start(port: number): Promise<string> {
    this.server = createServer((req, res) => {
      let target: URL;
      try {
        // A proxy request names the URL; a request sent to a Service's name that resolved here
        // (e2e/tempest.ts: the Tempest pods' DNS) names its path, and the Service in Host.
        target = req.url?.startsWith('/') ? new URL(req.url, `http://${req.headers.host ?? ''}`) : new URL(req.url ?? '');
      } catch {
        res.writeHead(400).end('absolute URL, or a path with a Host, expected');
        return;
      }
      const port = target.port || '80';
      const local = this.routes.map((r) => r(target.hostname, port)).find((p) => p !== undefined);
      if (local === undefined) {
        // As a Service without ready endpoints: nothing answers.
        req.socket.destroy();
        return;
      }
      const path = `${target.pathname}${target.search}`;
      const up = request({ host: '127.0.0.1', port: local, method: req.method, path, headers: { ...req.headers, host: target.host } }, (r) => {
        if (req.headers[UNRECORDED] === undefined) this.answers.push({ at: Date.now(), method: req.method ?? '', host: `${target.hostname}:${port}`, path: target.pathname, status: r.statusCode ?? 0 });
        if (this.answers.length > KEPT) this.answers.splice(0, this.answers.length - KEPT);
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', () => req.socket.destroy());
      req.pipe(up);
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
