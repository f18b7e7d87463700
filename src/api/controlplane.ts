// The ControlPlane API (c5c3.io/v1alpha1): the single source of truth for the CRD in
// manifests/crds/ and for the validation the hooks apply to a parent they receive.
//
// Field names, types, enums and defaults follow the reference CRD. On top of it, the reference's
// admission webhook is expressed in the schema itself, so no webhook is needed:
// - its defaults become schema defaults (a property with a default is not `required`: the API
//   server fills it before validation);
// - its validation rules become CEL `x-kubernetes-validations`, transition rules included.
import { Type, type Static, type TOptional } from '@sinclair/typebox';
import { SERVICES, type Service } from './services/index.js';
import {
  cel,
  Condition,
  Conditions,
  Int32,
  Int64,
  LocalObjectReference,
  CustomResource,
  SecretRef,
  StringEnum,
  type KubeOptions,
} from './kube.js';
import { CONTROLPLANE } from './group.js';
import { Gateway, PolicySpec } from './service-fields.js';
import { ownedNameRule } from './owned-names.js';
import { TRANSPORT_URL_KEY } from './child-names.js';
import { BACKUP_MANAGED_ONLY, DatabaseBackup } from './database-backup.js';
import { VERIFICATION_ROOT_RULES, Verification } from './verification.js';

/** The reference webhook's defaults, named once: the schema, the docs and the tests use them. */
export const DEFAULTS = {
  region: 'RegionOne',
  databaseClusterName: 'openstack-db',
  databaseName: 'keystone',
  databaseSecretName: 'keystone-db',
  cacheClusterName: 'openstack-memcached',
  cacheBackend: 'dogpile.cache.pymemcache',
  cacheReplicas: 3,
  adminPasswordSecretName: 'keystone-admin',
  adminPasswordSecretKey: 'password',
  cloudName: 'admin',
  cloudCredentialsSecretName: 'k-orc-clouds-yaml',
  restricted: true,
  rotationMode: 'PasswordDriven',
  rolloutDeadline: '15m',
} as const;

export const ROTATION_MODES = ['PasswordDriven', 'Scheduled', 'Manual'] as const;
/** How the admin application credential rotates (spec.korc.adminCredential.applicationCredential.rotation.mode). */
export type RotationMode = (typeof ROTATION_MODES)[number];
export const TLS_MODES = ['prefer', 'require', 'verify-ca', 'verify-full'] as const;
/** Seed 002's rollout phases (docs/hooks.md "Release upgrades"); Idle at rest. */
export const UPDATE_PHASES = ['Idle', 'Validating', 'UpdatingInfra', 'UpdatingKeystone', 'UpdatingServices', 'Verifying', 'Complete', 'RollingBack'] as const;
export const UPDATE_RESULTS = ['Complete', 'RolledBack', 'Cancelled'] as const;
/** The Verifying phase's Tempest Job (status.rollout.verification.state): the Job controller's Complete / Failed, else Running. */
export const VERIFICATION_STATES = ['Running', 'Succeeded', 'Failed'] as const;

/** A Go duration of whole h/m/s components between 1m and 24h (the rollout deadline). */
export const ROLLOUT_DEADLINE_RULE =
  `self.matches('^([0-9]+(h|m|s))+$') && duration(self) >= duration('1m') && duration(self) <= duration('24h')`;

/** `^\d{4}\.\d$`: the OpenStack date-based release (2024.1, 2025.2). */
export const OPENSTACK_RELEASE_PATTERN = '^\\d{4}\\.\\d$';

/**
 * A Go duration made of whole h/m/s components that is a positive whole number of days
 * (24h, 48h, 168h, 1440m …). The regex guards `duration()`, which would fail to parse anything
 * else; `&&` short-circuits, so a malformed value gets this message, not a CEL runtime error.
 */
export const ROTATION_INTERVAL_PATTERN = '^([0-9]+(h|m|s))+$';
export const ROTATION_INTERVAL_RULE =
  `self.matches('${ROTATION_INTERVAL_PATTERN}') && duration(self) > duration('0s')` +
  ` && duration(self).getSeconds() % 86400 == 0`;


const DatabaseTLS = Type.Object(
  {
    caBundleSecretRef: SecretRef('Secret holding the CA bundle used to verify the database server.'),
    clientCertSecretRef: SecretRef('Secret holding the client key pair presented to the database (mTLS).'),
    enabled: Type.Boolean({ description: 'Turns TLS on for the database connection.' }),
    mode: Type.Optional(
      StringEnum(TLS_MODES, {
        description: 'Verification strength: prefer/require encrypt only; verify-ca and verify-full also verify.',
      }),
    ),
  },
  { description: 'Optional TLS/mTLS for the database connection; unset means plaintext.' },
);

const Database = Type.Object(
  {
    clusterRef: Type.Optional(
      LocalObjectReference('MariaDB CR of this name in the ControlPlane namespace (managed mode).'),
    ),
    database: Type.Optional(
      Type.String({
        default: DEFAULTS.databaseName,
        description: 'Database name within the cluster. Immutable.',
        ...cel({ rule: 'self == oldSelf', message: 'database name is immutable' }),
      }),
    ),
    host: Type.Optional(Type.String({ description: 'Database hostname (brownfield mode).' })),
    port: Type.Optional(Int32({ description: 'Database port (brownfield mode, default 3306).' })),
    secretRef: Type.Optional(
      SecretRef('Secret with the database credentials. In managed mode the hooks project their own.', {}, {
        default: { name: DEFAULTS.databaseSecretName },
      }),
    ),
    tls: Type.Optional(DatabaseTLS),
    backup: Type.Optional(DatabaseBackup),
  },
  {
    description:
      'MariaDB connection shared by the control plane: exactly one of clusterRef (managed) or host (brownfield).',
    default: {
      clusterRef: { name: DEFAULTS.databaseClusterName },
      database: DEFAULTS.databaseName,
      secretRef: { name: DEFAULTS.databaseSecretName },
    },
    ...cel(
      { rule: 'has(self.clusterRef) != has(self.host)', message: 'exactly one of clusterRef or host must be set' },
      {
        rule: 'has(self.clusterRef) == has(oldSelf.clusterRef)',
        message: 'database mode (clusterRef or host) is immutable',
      },
      {
        rule:
          '!has(self.clusterRef) || !has(oldSelf.clusterRef) || ' +
          "(has(self.clusterRef.name) ? self.clusterRef.name : '') == " +
          "(has(oldSelf.clusterRef.name) ? oldSelf.clusterRef.name : '')",
        message: 'database clusterRef.name is immutable',
      },
      BACKUP_MANAGED_ONLY,
    ),
  } as KubeOptions,
);

const Cache = Type.Object(
  {
    backend: Type.Optional(
      Type.String({ default: DEFAULTS.cacheBackend, description: 'Cache backend (e.g. dogpile.cache.pymemcache).' }),
    ),
    clusterRef: Type.Optional(
      LocalObjectReference('Memcached CR of this name in the ControlPlane namespace (managed mode).'),
    ),
    replicas: Type.Optional(
      Int32({ default: DEFAULTS.cacheReplicas, minimum: 1, description: 'Memcached replicas (managed mode only).' }),
    ),
    servers: Type.Optional(
      Type.Array(Type.String(), { description: 'Cache server endpoints host:port (brownfield mode).' }),
    ),
  },
  {
    description: 'Memcached shared by the control plane: exactly one of clusterRef (managed) or servers (brownfield).',
    default: { backend: DEFAULTS.cacheBackend, clusterRef: { name: DEFAULTS.cacheClusterName } },
    ...cel({
      rule: 'has(self.clusterRef) != (has(self.servers) && size(self.servers) > 0)',
      message: 'exactly one of clusterRef or servers must be set',
    }),
  } as KubeOptions,
);


const Keystone = Type.Object(
  {
    gateway: Type.Optional(Gateway),
    image: Type.Optional(
      Type.Object(
        { repository: Type.String(), tag: Type.String() },
        { description: 'Overrides the Keystone image; unset means ghcr.io/c5c3/keystone:<openStackRelease>.' },
      ),
    ),
    policyOverrides: Type.Optional(PolicySpec('Keystone oslo.policy overrides; they win over spec.global.')),
    publicEndpoint: Type.Optional(
      Type.String({
        description:
          'Externally routable identity URL (e.g. https://keystone.example.com/v3), used for the Keystone ' +
          'bootstrap and the catalog Endpoint. Unset with a gateway: https://{gateway.hostname}/v3.',
      }),
    ),
    replicas: Type.Optional(
      Int32({ minimum: 1, description: "Keystone API replicas; unset means the Keystone operator's default." }),
    ),
    rotationInterval: Type.Optional(
      Type.String({
        maxLength: 32,
        description:
          'Fernet and credential key rotation interval: a positive whole number of days as a Go duration ' +
          '(24h, 48h, 168h). Unset means the Keystone default schedule.',
        ...cel({ rule: ROTATION_INTERVAL_RULE, message: 'rotationInterval must be a positive whole number of days (24h, 48h, 168h, ...)' }),
      }),
    ),
  },
  { description: 'Keystone, projected into the {name}-keystone Keystone CR.' },
);

/** What each service requires beside it (its descriptor's `requires`), as upstream's webhook refuses it: a rule each. */
const SERVICE_REQUIREMENT_RULES = SERVICES.flatMap((d) => [
  ...d.requires.services.map((r) => ({
    rule: `!has(self.services.${d.name}) || has(self.services.${r.name})`,
    message: `services.${r.name} is required when services.${d.name} is set: ${r.why}`,
  })),
  ...('messaging' in d.requires && d.requires.messaging !== undefined
    ? [{ rule: `!has(self.services.${d.name}) || (has(self.infrastructure) && has(self.infrastructure.messaging))`, message: `infrastructure.messaging is required when services.${d.name} is set: ${d.requires.messaging}` }]
    : []),
]);

/** spec.services.<svc> of every service beside Keystone (src/controlplane/services/), in name order. */
const SERVICE_SCHEMAS = Object.fromEntries(
  [...SERVICES].sort((a, b) => (a.name < b.name ? -1 : 1)).map((d) => [d.name, Type.Optional(d.schema)]),
) as { [D in Service as D['name']]: TOptional<D['schema']> };



/** The shared message bus: a managed RabbitmqCluster, or a user's Secret with `transport_url`. */
const Messaging = Type.Object(
  {
    replicas: Type.Optional(
      Int32({ minimum: 1, description: 'Managed mode: the RabbitmqCluster {name}-rabbitmq with this many nodes (odd numbers keep a quorum).' }),
    ),
    secretRef: Type.Optional(
      SecretRef(`Brownfield mode: the Secret holding the bus URL (key default "${TRANSPORT_URL_KEY}").`, {
        default: TRANSPORT_URL_KEY,
      }),
    ),
  },
  {
    description: 'Shared message bus (RabbitMQ): exactly one of replicas (managed) or secretRef (brownfield).',
    ...cel(
      { rule: 'has(self.replicas) != has(self.secretRef)', message: 'exactly one of replicas (managed) or secretRef (brownfield) must be set' },
      { rule: 'has(self.secretRef) == has(oldSelf.secretRef)', message: 'messaging mode (replicas or secretRef) is immutable' },
    ),
  } as KubeOptions,
);

const AccessRule = Type.Object(
  {
    method: Type.String({ description: 'HTTP method the rule allows (e.g. GET).' }),
    path: Type.String({ description: 'Request path the rule allows (e.g. /v2.1/servers).' }),
    service: Type.String({ description: 'The name of a K-ORC Service object in this namespace (K-ORC sends its service type to Keystone), e.g. an import of the identity service named identity.' }),
  },
  { description: 'One application-credential access rule (service / method / path).' },
);

const ApplicationCredential = Type.Object(
  {
    accessRules: Type.Optional(
      Type.Array(AccessRule, { description: 'Narrows the credential to these rules; empty means unconstrained.' }),
    ),
    restricted: Type.Optional(
      Type.Boolean({
        default: DEFAULTS.restricted,
        description: 'A restricted credential cannot create further application credentials or trusts.',
      }),
    ),
    rotation: Type.Optional(
      Type.Object(
        {
          mode: Type.Optional(
            StringEnum(ROTATION_MODES, {
              default: DEFAULTS.rotationMode,
              description:
                'PasswordDriven re-mints when the admin password changes; Manual only on a CredentialRotation ' +
                'request; Scheduled also rotates make-before-break on the schedule of the CredentialRotation of the ' +
                'namespace that declares intervalDays (without one it behaves as PasswordDriven).',
            }),
          ),
        },
        { description: 'How the application credential is rotated.', default: {} },
      ),
    ),
  },
  { description: 'Policy of the K-ORC admin application credential.', default: {} },
);

const AdminCredential = Type.Object(
  {
    applicationCredential: Type.Optional(ApplicationCredential),
    bootstrapResources: Type.Optional(
      Type.Array(
        Type.Object(
          {
            kind: Type.String({ description: 'K-ORC kind to bootstrap (e.g. Project, Role).' }),
            name: Type.String({ description: 'Name of the bootstrapped resource.' }),
          },
          { description: 'An OpenStack resource bootstrapped with the control plane.' },
        ),
        { description: 'OpenStack resources bootstrapped alongside the admin credential.' },
      ),
    ),
    cloudCredentialsRef: Type.Optional(
      Type.Object(
        {
          cloudName: Type.Optional(
            Type.String({ default: DEFAULTS.cloudName, description: 'Cloud entry of clouds.yaml K-ORC uses.' }),
          ),
          secretName: Type.Optional(
            Type.String({
              default: DEFAULTS.cloudCredentialsSecretName,
              maxLength: 253,
              description: 'Secret holding the clouds.yaml document. Immutable.',
              ...cel({ rule: 'self == oldSelf', message: 'cloudCredentialsRef.secretName is immutable' }),
            }),
          ),
        },
        { description: 'The clouds.yaml Secret K-ORC reads the admin cloud from.', default: {} },
      ),
    ),
    passwordSecretRef: Type.Optional(
      SecretRef(
        'Secret holding the admin password (brownfield; in managed mode the hooks project their own).',
        { default: DEFAULTS.adminPasswordSecretKey },
        { default: { name: DEFAULTS.adminPasswordSecretName, key: DEFAULTS.adminPasswordSecretKey } },
      ),
    ),
  },
  { description: 'The admin OpenStack credential K-ORC uses, and its application-credential policy.', default: {} },
);

export const ControlPlaneSpec = Type.Object(
  {
    global: Type.Optional(PolicySpec('oslo.policy rules applied to every service; per-service overrides win.')),
    infrastructure: Type.Optional(
      Type.Object(
        { cache: Type.Optional(Cache), database: Type.Optional(Database), messaging: Type.Optional(Messaging) },
        {
          description: 'Shared backing services (database, cache, and optionally the message bus).',
          default: {},
          ...cel({ rule: '!has(oldSelf.messaging) || has(self.messaging)', message: 'messaging cannot be removed once set' }),
        } as KubeOptions,
      ),
    ),
    korc: Type.Optional(
      Type.Object(
        { adminCredential: Type.Optional(AdminCredential) },
        { description: 'K-ORC integration: the admin application credential and its rotation.', default: {} },
      ),
    ),
    openStackRelease: Type.String({
      pattern: OPENSTACK_RELEASE_PATTERN,
      description: 'OpenStack release (YYYY.N, e.g. 2025.2); it tags the service images. Cannot be downgraded.',
      ...cel({ rule: 'self >= oldSelf', message: 'openStackRelease cannot be downgraded' }),
    }),
    rolloutDeadline: Type.Optional(
      Type.String({
        default: DEFAULTS.rolloutDeadline,
        maxLength: 32,
        description:
          'How long each waiting phase of a release rollout (UpdatingInfra, UpdatingKeystone, Verifying) may take ' +
          'before the rollout fails and is rolled back: a Go duration between 1m and 24h.',
        ...cel({ rule: ROLLOUT_DEADLINE_RULE, message: 'rolloutDeadline must be a duration between 1m and 24h (e.g. 15m)' }),
      }),
    ),
    region: Type.Optional(
      Type.String({
        default: DEFAULTS.region,
        minLength: 1,
        maxLength: 255,
        // A Keystone region id as K-ORC's Region takes it (OpenStackName: no comma, at most 255).
        pattern: '^[^,]+$',
        description: 'OpenStack region name: the region Keystone is bootstrapped in and every catalog row is registered in. Immutable.',
        ...cel({ rule: 'self == oldSelf', message: 'region is immutable' }),
      }),
    ),
    regionDescription: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description:
          "Description of the region, set on Keystone's region by the managed Region {name}-region once it has adopted it " +
          '(K-ORC asserts it on every resync: unset, the region is described by nothing, which clears a description set by hand).',
      }),
    ),
    services: Type.Object(
      { keystone: Keystone, ...SERVICE_SCHEMAS },
      { description: 'Per-service configuration projected into the service CRs.' },
    ),
    verification: Type.Optional(Verification),
  },
  { description: 'Desired state of a ControlPlane.', ...cel(...SERVICE_REQUIREMENT_RULES) } as KubeOptions,
);

export const ServiceStatus = Type.Object(
  {
    name: Type.String({ description: 'Service name (e.g. keystone).' }),
    ready: Type.Boolean({ description: 'Whether the projected service CR is Ready.' }),
    release: Type.Optional(Type.String({ description: 'OpenStack release of the service.' })),
  },
  { description: 'Readiness of one projected service CR.' },
);

export const AdminApplicationCredentialStatus = Type.Object(
  {
    id: Type.Optional(Type.String({ description: 'OpenStack application-credential ID in use.' })),
    lastRotation: Type.Optional(
      Type.String({ format: 'date-time', description: 'When the credential ID last changed.' }),
    ),
    restricted: Type.Optional(Type.Boolean({ description: 'Whether the credential in use is restricted.' })),
    expiresAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'When Keystone expires the credential in use (set under scheduled rotation).' }),
    ),
    rotationEligibleAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'When its replacement is minted (expiresAt minus preRotationDays; scheduled rotation).' }),
    ),
    superseded: Type.Optional(
      Type.Object(
        {
          id: Type.String({ description: 'OpenStack application-credential ID of the superseded credential.' }),
          revokeAt: Type.Optional(
            Type.String({ format: 'date-time', description: 'When it is revoked (gracePeriodDays after the switch, or its expiry), once the materialised clouds.yaml carries its successor.' }),
          ),
        },
        { description: 'The credential the one in use replaced, while it still exists (scheduled rotation).' },
      ),
    ),
  },
  { description: 'Observed state of the K-ORC admin application credential.' },
);

export const UnappliedChild = Type.Object(
  {
    apiVersion: Type.String({ description: 'apiVersion of the child.' }),
    generation: Int64({ description: 'The ControlPlane generation it was asked for (a spec change restarts the clock).' }),
    kind: Type.String({ description: 'Kind of the child.' }),
    name: Type.String({ description: 'Name of the child.' }),
    since: Type.String({ format: 'date-time', description: 'When it was first asked for.' }),
  },
  { description: 'A child that does not yet carry what this ControlPlane asked of it.' },
);

const RunningTarget = (description: string) =>
  Type.Object(
    {
      release: Type.String({ description: 'OpenStack release.' }),
      image: Type.Object(
        { repository: Type.String(), tag: Type.String() },
        { description: 'The Keystone image.' },
      ),
    },
    { description },
  );

export const RolloutStatus = Type.Object(
  {
    failure: Type.Optional(
      Type.Object(
        // As metav1.Condition bounds them (the messages come from conditions): the hooks cut to these (status-limits.ts).
        { message: Type.String({ maxLength: 32768 }), reason: Type.String({ maxLength: 1024 }) },
        { description: 'Why the rollout is being rolled back (RollingBack only).' },
      ),
    ),
    from: RunningTarget('The last known-good release and image, restored on rollback.'),
    generation: Int64({ description: 'The ControlPlane generation the rollout (or its failure) was decided at.' }),
    verification: Type.Optional(
      Type.Object(
        {
          job: Type.String({ maxLength: 63, description: 'The Tempest Job ({name}-verify-<release>-<hash>).' }),
          message: Type.Optional(Type.String({ maxLength: 32768, description: 'What the Job status says (its Failed condition).' })),
          state: StringEnum(VERIFICATION_STATES, { description: 'Running, Succeeded (the Job is Complete) or Failed.' }),
        },
        { description: 'The Tempest run of the Verifying phase (spec.verification.tempest).' },
      ),
    ),
    phaseStartedAt: Type.String({ format: 'date-time', description: 'When the current phase began (its deadline counts from here).' }),
    startedAt: Type.String({ format: 'date-time', description: 'When the rollout began.' }),
    to: RunningTarget('The release and image being rolled out.'),
  },
  { description: 'The release rollout in progress (only while updatePhase is not Idle).' },
);

export const LastUpdateStatus = Type.Object(
  {
    finishedAt: Type.String({ format: 'date-time', description: 'When the rollout ended.' }),
    from: RunningTarget('The release and image before the rollout.'),
    generation: Int64({ description: 'The ControlPlane generation it ended at; a rolled-back target is held until the spec changes.' }),
    message: Type.Optional(Type.String({ maxLength: 32768, description: 'Why it was rolled back.' })),
    reason: Type.Optional(Type.String({ maxLength: 1024, description: 'Why it was rolled back (UpdateDeadlineExceeded, KeystoneUpdateFailed, VerificationFailed).' })),
    result: StringEnum(UPDATE_RESULTS, { description: 'Complete, RolledBack, or Cancelled (the spec went back to the running release).' }),
    startedAt: Type.String({ format: 'date-time', description: 'When the rollout began.' }),
    to: RunningTarget('The release and image the rollout aimed at.'),
  },
  { description: 'The record of the last release rollout.' },
);

export const ControlPlaneStatus = Type.Object(
  {
    adminApplicationCredential: Type.Optional(AdminApplicationCredentialStatus),
    lastUpdate: Type.Optional(LastUpdateStatus),
    rollout: Type.Optional(RolloutStatus),
    conditions: Type.Optional(Conditions('The stage conditions (the Keystone chain, then each service beside it), ServicesReady and the Ready aggregate.')),
    observedGeneration: Type.Optional(Int64({ description: 'The .metadata.generation last reconciled.' })),
    services: Type.Optional(
      Type.Array(ServiceStatus, {
        description: 'Per-service readiness, keyed by name.',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
      } as KubeOptions),
    ),
    unappliedChildren: Type.Optional(
      Type.Array(UnappliedChild, {
        description:
          'Children asked for that do not yet carry what was asked, and since when; past 5 minutes the owning stage reports its seed error reason.',
        maxItems: 64,
      }),
    ),
    updatePhase: Type.Optional(
      StringEnum(UPDATE_PHASES, { description: 'Release-rollout phase (docs/hooks.md "Release upgrades"); Idle at rest.' }),
    ),
  },
  { description: 'Observed state of a ControlPlane.' },
);

export const ControlPlane = CustomResource(
  ControlPlaneSpec,
  ControlPlaneStatus,
  'A whole Keystone control plane: MariaDB and Memcached, OpenBao-backed credentials, the Keystone CR, ' +
    'the K-ORC admin application credential and the identity catalog.',
  // At the root, where metadata.name is visible: the clouds.yaml Secret is not a child's name.
  cel(
    {
      rule: ownedNameRule('spec.korc.adminCredential.cloudCredentialsRef.secretName'),
      message: 'cloudCredentialsRef.secretName must not be the name of a child of this ControlPlane (e.g. {name}-keystone-db-credentials)',
      optionalOldSelf: true,
    },
    // The services' own rules that need the ControlPlane's name (a Cinder backend's name budget).
    ...SERVICES.flatMap((d) => ('rootRules' in d && d.rootRules ? d.rootRules : [])),
    ...VERIFICATION_ROOT_RULES,
  ),
);

export { CONTROLPLANE };

export type ControlPlaneSpec = Static<typeof ControlPlaneSpec>;
export type ControlPlaneStatus = Static<typeof ControlPlaneStatus>;
export type AdminApplicationCredentialStatus = Static<typeof AdminApplicationCredentialStatus>;
export type Condition = Static<typeof Condition>;
