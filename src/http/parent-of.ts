// The parent a hook call is for, named on every log line of the call (the request line, the
// events, the errors; issue 56), so one ControlPlane's calls can be found in the log. Only the
// parent's metadata.namespace and metadata.name are read, and only when they are Kubernetes names
// (DNS labels and subdomains): never another field of the body, so never a Secret's value, and a
// hostile text never reaches the log. A call answered from a kept answer (kept-answers.ts) is never
// parsed: the parent is noted with the kept answer and told to the request here.
import type { FastifyRequest } from 'fastify';

/** A namespace (DNS label) or an object name (DNS subdomain), as the API server admits them. */
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

const field = (o: unknown, key: string): unknown => (typeof o === 'object' && o !== null && Object.hasOwn(o, key) ? (o as Record<string, unknown>)[key] : undefined);

/**
 * `namespace/name` of the body's `parent` (`object` for a DecoratorController's call), `name` for a
 * cluster-scoped one; undefined when the body names none or not as Kubernetes would.
 */
export function parentOf(body: unknown): string | undefined {
  const metadata = field(field(body, 'parent') ?? field(body, 'object'), 'metadata');
  const name = field(metadata, 'name');
  const namespace = field(metadata, 'namespace');
  if (typeof name !== 'string' || !NAME.test(name)) return undefined;
  if (namespace === undefined || namespace === '') return name;
  return typeof namespace === 'string' && NAMESPACE.test(namespace) ? `${namespace}/${name}` : undefined;
}

const NOTED = new WeakMap<FastifyRequest, string | undefined>();

/** Told by kept-answers.ts: the parent of the call whose kept answer answers this unparsed request. */
export function noteParent(request: FastifyRequest, parent: string | undefined): void {
  NOTED.set(request, parent);
}

/** The parent of a request: noted with its kept answer, else read from its parsed body. */
export function parentOfRequest(request: FastifyRequest): string | undefined {
  return NOTED.has(request) ? NOTED.get(request) : parentOf(request.body);
}
