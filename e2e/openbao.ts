// The suite's side of the real OpenBao (`bao server -dev` on 127.0.0.1, KV v2 mounted at `secret/`):
// what an operator seeds there (the per-ControlPlane database and admin-password entries) and what
// the suite reads back (what ESO pushed). The hooks never talk to OpenBao; ESO does.
export class OpenBao {
  constructor(
    readonly address: string,
    /** The root token of this run (for the ClusterSecretStore's token Secret; never logged). */
    readonly token: string,
    private readonly mount = 'secret',
  ) {}

  private async request(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    const res = await fetch(`${this.address}/v1/${path}`, {
      method,
      headers: { 'X-Vault-Token': this.token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, json };
  }

  /** Writes a KV v2 entry (a new version). */
  async put(key: string, data: Record<string, string>): Promise<void> {
    const res = await this.request('POST', `${this.mount}/data/${key}`, { data });
    if (res.status !== 200 && res.status !== 204) throw new Error(`OpenBao: writing ${key} answered ${res.status}`);
  }

  /** The current version of a KV v2 entry, or undefined when there is none. */
  async get(key: string): Promise<Record<string, string> | undefined> {
    const res = await this.request('GET', `${this.mount}/data/${key}`);
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw new Error(`OpenBao: reading ${key} answered ${res.status}`);
    return (res.json as { data?: { data?: Record<string, string> } })?.data?.data ?? undefined;
  }

  /** Unsealed and serving. */
  async healthy(): Promise<boolean> {
    const res = await fetch(`${this.address}/v1/sys/health`);
    return res.status === 200;
  }
}
