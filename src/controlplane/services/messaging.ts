// The bus URL of a service that reads the shared bus (docs/architecture.md §2.13): the Secret
// `{cp}-<svc>-messaging` with key `transport_url`, written by the hooks, so every service CR names
// a Secret of its own whatever the bus mode (upstream's ControlPlane does the same:
// C5C3/cobaltcore operators/c5c3/internal/controller/reconcile_service_messaging.go, the child
// always sees `messaging.secretRef`).
// - managed bus: built from the RabbitMQ cluster operator's default-user Secret of the
//   RabbitmqCluster `{cp}-rabbitmq` (keys username, password, host, port; related by customize):
//   `rabbit://<user>:<password>@<host>:<port>/`, credentials percent-encoded, the root vhost
//   (C5C3/cobaltcore internal/common/messaging/messaging.go BuildTransportURL);
// - brownfield bus: the user's Secret's value, copied as it is; only its scheme is checked.
// The value is a secret: it is never put into a message (messages name the Secret and the key).
import { GVK } from '../../k8s/kinds.js';
import type { KubeObject } from '../../k8s/observed.js';
import { secretString } from '../../k8s/secret.js';
import { ownedSecret } from '../credential/round-trip.js';
import { TRANSPORT_URL_KEY, rabbitmqDefaultUserSecret } from '../names.js';
import type { StageInput } from '../stage.js';

export type Transport =
  /** The URL the service reads. */
  | { ok: true; url: string }
  /** Not yet: the Secret it comes from is missing or incomplete. */
  | { ok: false; invalid: false; message: string }
  /** The Secret holds something that is not a bus URL. */
  | { ok: false; invalid: true; message: string };

const DEFAULT_USER_KEYS = ['username', 'password', 'host', 'port'] as const;

/** The bus URL every service of this ControlPlane reads, or why there is none (yet). */
export function transportUrl(input: Pick<StageInput, 'cp' | 'spec' | 'related'>): Transport {
  const m = input.spec.infrastructure?.messaging;
  const ns = input.cp.namespace;
  if (!m) return { ok: false, invalid: true, message: 'spec.infrastructure.messaging is not declared' };
  if (m.secretRef) {
    const key = m.secretRef.key ?? TRANSPORT_URL_KEY;
    const url = secretString(input.related.get(GVK.Secret, ns, m.secretRef.name), key);
    if (url === undefined) return { ok: false, invalid: false, message: `Secret ${m.secretRef.name} has no key ${key}` };
    if (!/^rabbit:\/\/[^/]/.test(url)) return { ok: false, invalid: true, message: `Secret ${m.secretRef.name} key ${key} does not hold a rabbit:// URL` };
    return { ok: true, url };
  }
  const name = rabbitmqDefaultUserSecret(input.cp.name);
  const secret = input.related.get(GVK.Secret, ns, name);
  if (!secret) return { ok: false, invalid: false, message: `Secret ${name} (the default user of RabbitmqCluster ${input.cp.name}-rabbitmq) does not exist yet` };
  const [user, password, host, port] = DEFAULT_USER_KEYS.map((k) => secretString(secret, k));
  if (user === undefined || password === undefined || host === undefined || port === undefined) {
    const missing = DEFAULT_USER_KEYS.filter((k) => secretString(secret, k) === undefined);
    return { ok: false, invalid: false, message: `Secret ${name} has no ${missing.join(', ')}` };
  }
  if (!/^[0-9]{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) return { ok: false, invalid: true, message: `Secret ${name} key port is not a port number` };
  if (!/^[A-Za-z0-9.:-]+$/.test(host)) return { ok: false, invalid: true, message: `Secret ${name} key host is not a host name or address` };
  const at = host.includes(':') ? `[${host}]` : host;
  return { ok: true, url: `rabbit://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${at}:${port}/` };
}

/** The service's messaging Secret holding `url`. */
export function messagingSecret(input: Pick<StageInput, 'cp'>, name: string, url: string): KubeObject {
  return ownedSecret(input.cp, name, { [TRANSPORT_URL_KEY]: url });
}
