// A small Kubernetes API client over node:https: bearer token, the suite's CA, JSON in and out,
// resource paths from a kind table filled from the CRDs the suite installs.
import https from 'node:https';
import type { Obj } from '../src/sim/cluster.js';

export interface KindInfo {
  apiVersion: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  /** The kind has a /status subresource (status writes go there). */
  status: boolean;
}

export interface Ref {
  apiVersion: string;
  kind: string;
  namespace?: string | undefined;
  name: string;
}

export class KubeError extends Error {
  override name = 'KubeError';
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: Obj;
}

export class Kube {
  private readonly agent: https.Agent;
  private readonly url: URL;
  readonly kinds = new Map<string, KindInfo>();

  constructor(
    server: string,
    ca: Buffer,
    private readonly token: string,
  ) {
    this.url = new URL(server);
    this.agent = new https.Agent({ ca, keepAlive: true, maxSockets: 16 });
    this.register({ apiVersion: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true, status: false });
    // The Tempest verification's children (issue 59): built-in kinds, like Secret.
    this.register({ apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true, status: false });
    this.register({ apiVersion: 'batch/v1', kind: 'Job', plural: 'jobs', namespaced: true, status: true });
    this.register({ apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false, status: true });
    this.register({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', plural: 'customresourcedefinitions', namespaced: false, status: true });
  }

  register(k: KindInfo): void {
    this.kinds.set(`${k.apiVersion}|${k.kind}`, k);
  }

  kind(apiVersion: string, kind: string): KindInfo {
    const k = this.kinds.get(`${apiVersion}|${kind}`);
    if (!k) throw new Error(`e2e: kind ${kind} (${apiVersion}) is not registered`);
    return k;
  }

  path(ref: { apiVersion: string; kind: string; namespace?: string | undefined; name?: string | undefined }, sub?: string): string {
    const k = this.kind(ref.apiVersion, ref.kind);
    const base = k.apiVersion.includes('/') ? `/apis/${k.apiVersion}` : `/api/${k.apiVersion}`;
    const ns = k.namespaced && ref.namespace ? `/namespaces/${encodeURIComponent(ref.namespace)}` : '';
    const name = ref.name ? `/${encodeURIComponent(ref.name)}` : '';
    return `${base}${ns}/${k.plural}${name}${sub && ref.name ? `/${sub}` : ''}`;
  }

  /** One request; the parsed body, or a KubeError for any status >= 400. */
  request(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Obj> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const req = https.request(
        {
          host: this.url.hostname,
          port: this.url.port,
          method,
          path,
          agent: this.agent,
          headers: {
            authorization: `Bearer ${this.token}`,
            accept: 'application/json',
            ...(payload ? { 'content-type': contentType, 'content-length': payload.length } : {}),
          },
          timeout: 30_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let json: Obj = {};
            try {
              json = text ? JSON.parse(text) : {};
            } catch {
              json = { message: text };
            }
            const status = res.statusCode ?? 0;
            if (status >= 400) reject(new KubeError(status, String(json.reason ?? ''), `${method} ${path}: ${status} ${json.message ?? text}`));
            else resolve(json);
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out`)));
      req.on('error', reject);
      if (payload) req.write(payload);
      req.end();
    });
  }

  async get(ref: Ref): Promise<Obj | undefined> {
    try {
      return await this.request('GET', this.path(ref));
    } catch (err) {
      if (err instanceof KubeError && err.status === 404) return undefined;
      throw err;
    }
  }

  /** Every object of a kind (in one namespace, or all), apiVersion and kind filled in. */
  async list(apiVersion: string, kind: string, namespace?: string): Promise<Obj[]> {
    const body = await this.request('GET', this.path({ apiVersion, kind, namespace }));
    return ((body.items ?? []) as Obj[]).map((o) => ({ apiVersion, kind, ...o }));
  }

  async listWithVersion(apiVersion: string, kind: string): Promise<{ items: Obj[]; resourceVersion: string }> {
    const body = await this.request('GET', this.path({ apiVersion, kind }));
    return { items: ((body.items ?? []) as Obj[]).map((o) => ({ apiVersion, kind, ...o })), resourceVersion: String(body.metadata?.resourceVersion ?? '0') };
  }

  create(obj: Obj): Promise<Obj> {
    return this.request('POST', this.path({ apiVersion: obj.apiVersion, kind: obj.kind, namespace: obj.metadata.namespace }), obj);
  }

  replace(obj: Obj): Promise<Obj> {
    return this.request('PUT', this.path(refOfObj(obj)), obj);
  }

  mergePatch(ref: Ref, patch: unknown, sub?: string): Promise<Obj> {
    return this.request('PATCH', this.path(ref, sub), patch, 'application/merge-patch+json');
  }

  /** Write the status: through /status when the kind has it, else on the object. */
  patchStatus(ref: Ref, status: unknown): Promise<Obj> {
    const k = this.kind(ref.apiVersion, ref.kind);
    return this.mergePatch(ref, { status }, k.status ? 'status' : undefined);
  }

  async delete(ref: Ref, propagationPolicy: 'Background' | 'Foreground' | 'Orphan' = 'Background'): Promise<void> {
    try {
      await this.request('DELETE', this.path(ref), { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy });
    } catch (err) {
      if (!(err instanceof KubeError && err.status === 404)) throw err;
    }
  }

  /**
   * Watch a kind from a resourceVersion; `onEvent` for each event until `stop()`. The stream is
   * re-opened from the last seen resourceVersion when the server closes it, and also after the
   * connection fails or the server answers 5xx/429 (a kube-apiserver restarting, fault scenarios):
   * etcd keeps the history, so no event is lost across the restart.
   */
  watch(apiVersion: string, kind: string, resourceVersion: string, onEvent: (e: WatchEvent) => void, onError: (err: Error) => void, onRelist?: (items: Obj[]) => void): () => void {
    let stopped = false;
    let rv = resourceVersion;
    let current: ReturnType<typeof https.request> | undefined;
    // A restarted API server serves watches from a fresh watch cache: an older resourceVersion is
    // "too old" (410 Gone). Then the kind is listed again (`onRelist`: what changed meanwhile) and
    // watched from the list's resourceVersion, as an informer does.
    let expired = false;
    const relist = async () => {
      try {
        const list = await this.listWithVersion(apiVersion, kind);
        rv = list.resourceVersion;
        expired = false;
        onRelist?.(list.items);
      } catch (err) {
        onError(err as Error);
        setTimeout(() => void relist(), 1000);
        return;
      }
      open();
    };
    const open = () => {
      if (stopped) return;
      if (expired) {
        void relist();
        return;
      }
      const path = `${this.path({ apiVersion, kind })}?watch=1&allowWatchBookmarks=true&resourceVersion=${encodeURIComponent(rv)}`;
      // Opened again once, whichever way this stream ends: closed by the server, cut (the response's
      // 'close' without 'end' when the API server dies mid-stream), refused.
      let reopened = false;
      const reopen = (ms: number) => {
        if (stopped || reopened) return;
        reopened = true;
        setTimeout(open, ms);
      };
      const req = https.request({ host: this.url.hostname, port: this.url.port, method: 'GET', path, agent: false, ca: this.agent.options.ca, headers: { authorization: `Bearer ${this.token}`, accept: 'application/json' } }, (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 400) {
          onError(new Error(`watch ${kind}: HTTP ${status}`));
          res.resume();
          if (status === 410) expired = true;
          if (status >= 500 || status === 429 || status === 410) reopen(1000);
          else reopened = true;
          return;
        }
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let nl: number;
          while ((nl = buffer.indexOf('\n')) >= 0) {
            const line = buffer.slice(0, nl).trim();
            buffer = buffer.slice(nl + 1);
            if (!line) continue;
            const event = JSON.parse(line) as WatchEvent;
            if (event.type === 'ERROR') {
              if (event.object?.code === 410) expired = true;
              onError(new Error(`watch ${kind}: ${JSON.stringify(event.object)}`));
              continue;
            }
            rv = String(event.object.metadata?.resourceVersion ?? rv);
            if (event.type !== 'BOOKMARK') onEvent({ type: event.type, object: { apiVersion, kind, ...event.object } });
          }
        });
        res.on('error', () => reopen(1000));
        res.on('close', () => reopen(100));
      });
      req.on('error', (err) => {
        if (stopped) return;
        onError(err);
        reopen(1000);
      });
      req.end();
      current = req;
    };
    open();
    return () => {
      stopped = true;
      current?.destroy();
    };
  }

  close(): void {
    this.agent.destroy();
  }
}

export const refOfObj = (o: Obj): Ref => ({ apiVersion: o.apiVersion, kind: o.kind, namespace: o.metadata?.namespace, name: o.metadata.name });
