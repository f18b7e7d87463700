// The real OpenStack APIs the e2e suite runs behind the catalog (openstack-apis.ts), one entry per
// service CR kind: the PyPI package and its venv, the WSGI application gunicorn serves, the config
// files written from the CR alone, the database sync, the health probe. Adding a service is one
// more entry here.
//
// What each config holds follows the upstream operators' reconcilers (C5C3/cobaltcore @ da0515f0):
// - operators/placement/internal/controller/reconcile_config.go operatorDefaults: [DEFAULT]
//   use_stderr/debug, [api] auth_strategy = keystone, [placement_database] with a placeholder
//   connection (the real URL comes from OS_PLACEMENT_DATABASE__CONNECTION), [keystone_authtoken];
//   the WSGI entry reads exactly $OS_PLACEMENT_CONFIG_DIR/placement.conf; the probe is GET /
//   (reconcile_healthcheck.go); the db-sync Job runs `placement-manage --config-file … db sync`
//   (reconcile_database.go).
// - operators/glance/internal/controller/reconcile_config.go operatorDefaults and
//   glanceStaticPasteSections: [DEFAULT] enabled_backends/enabled_import_methods, [database] with a
//   placeholder (OS_DATABASE__CONNECTION), [keystone_authtoken], [glance_store] default_backend,
//   the reserved staging and tasks stores, [paste_deploy] flavor = keystone with the rendered
//   glance-api-paste.ini (healthcheck app at /healthcheck above the authtoken pipeline);
//   reconcile_backends.go: enabled_backends `<GlanceBackend name>:<store>` in name order, exactly
//   one credential-ready default; the probe is GET /healthcheck; the sync `glance-manage db sync`.
// - internal/common/keystoneauth/keystoneauth.go Section: auth_type = password, auth_url =
//   spec.keystoneEndpoint, www_authenticate_uri = spec.keystonePublicEndpoint or else
//   keystoneEndpoint, the service user's name, project and domains, region_name = spec.region;
//   the password only through OS_KEYSTONE_AUTHTOKEN__PASSWORD, never in a file.
// - operators/cinder/internal/controller (the files' newest stored commits): reconcile_config.go
//   operatorDefaults @ 19c9630c: [DEFAULT] auth_strategy = keystone (a keystoneEndpoint is set),
//   api_paste_config and resource_query_filters_file of the installed package (etc/cinder, as the
//   image's --prefix), state_path/image_conversion_dir, host = the CR's name, use_stderr/debug;
//   [database] with the placeholder (OS_DATABASE__CONNECTION); [oslo_messaging_rabbit] (the quorum
//   options of internal/common/messaging RabbitSection @ 3a9f1685), [oslo_messaging_notifications]
//   driver = noop, [oslo_concurrency] lock_path, [coordination] backend_url = file://…, the two
//   privsep helper sections, glance_api_servers = spec.glanceEndpoint, [keystone_authtoken] and
//   [service_user] (keystoneauth ServiceUserSection: the same account, send_service_user_token;
//   its password through OS_SERVICE_USER__PASSWORD); no enabled_backends (each cinder-volume gets
//   its own overlay, and the API reads none). reconcile_database.go @ 19c9630c: `cinder-manage
//   --config-dir … db sync`; the bus URL reaches every process as OS_DEFAULT__TRANSPORT_URL
//   (cinderWorkloadEnv). reconcile_deployment.go @ 10fd815b: the WSGI module
//   cinder.wsgi.api:application under uWSGI with `--pyargv "--config-dir …"` (the entry parses
//   sys.argv: cinder/wsgi/wsgi.py initialize_application), the probe GET /healthcheck
//   (reconcile_healthcheck.go @ 16702690). reconcile_secrets.go @ 25389902: SecretsReady waits for
//   the DB credential (`username`, `password`) and the service-user password;
//   reconcile_messaging.go @ b1fec406 with messaging.go resolveBrownfield: the transport URL from
//   spec.messaging.secretRef (key transport_url), scheme rabbit, else WaitingForMessagingCredentials.
// Where the suite differs, on purpose: a brownfield database host runs nothing here, so that
// database is SQLite in the instance's directory (managed mode: the real MariaDB account); Glance's
// store is a file store per GlanceBackend (no S3 here), its sections in glance-api.conf (the stock
// WSGI entry reads that one file; upstream mounts a second --config-dir); no memcached_servers (the
// suite's Memcached is a stand-in nothing listens for); no [import_filtering_opts]/[image_import_opts]
// (they concern web-download imports only) and no metadefs load; gunicorn serves the WSGI
// application for every release (upstream: uWSGI, and the eventlet glance-api server below 2026.1).
// Cinder's processes take the bus URL from the messaging Secret (its digest rolls them as
// upstream's transport-url-hash does), its `{name}.{ns}.svc:5672` host the suite's RabbitMQ node
// for that RabbitmqCluster (openstack-apis.ts realTransport); a bus the suite runs nothing for
// leaves them on oslo.messaging's `fake://` driver. Its argv (uWSGI's --pyargv) is set by a
// two-line module in the instance's directory that gunicorn loads. Each CinderBackend gets a
// cinder-volume (workers below) whose backend section is the suite's (an NFS export cannot be
// mounted here); the API's config does not name the backends, as upstream's does not.
import { stringify } from 'yaml';
import { join } from 'node:path';
import type { Obj } from '../src/sim/cluster.js';
import { placement, glance, cinder, nova, neutron } from '../src/api/services/index.js';
import type { VenvName } from './venvs.js';

type Ini = Record<string, Record<string, string>>;

/** What a config is written from: the CR, the instance's directory, (Glance) the projected parts. */
export interface ApiConfigInput {
  cr: Obj;
  dir: string;
  /** The venv the program runs from (for the data files its package installs). */
  venv: string;
  /** The attached parts projected into the config (names, in order) and the default one. */
  parts?: { names: string[]; defaultName: string };
  /** (Neutron) the OVN northbound and southbound connections of the OVNCentral the CR names, as the programs reach them. */
  ovn?: { nb: string; sb: string };
}

/** A database block of the CR: its field, the config section of its URL, and its managed account. */
export interface DatabaseUse {
  /** The CR's field (`database`; Nova's `apiDatabase`). */
  field: string;
  /** The config section of the connection: OS_<SECTION>__CONNECTION carries the URL. */
  section: string;
  /** The instance name in managed mode, which is the MariaDB user (database.ReconcileConnectionSecret InstanceName). */
  instance: (cr: string) => string;
  /** Further schemas on the same account (Nova's cell0, `{database}_cell0`). */
  alsoSchemas?: (database: string) => string[];
}

/** The one database most services have: `spec.database`, the instance named after the CR. */
const mainDatabase = (section: string): DatabaseUse[] => [{ field: 'database', section, instance: (cr) => cr }];

/** Children of a service's own, attached to its CR (Glance's and Cinder's backends). */
export interface PartsDescriptor {
  kind: string;
  /** The name of the CR a part attaches to. */
  parentOf(part: Obj): string | undefined;
  /** The Secret whose keys must all be present before the part is projected (upstream's credential gate); no keys, none needed. */
  credentials(part: Obj): { secret: string | undefined; keys: string[] };
  /**
   * Whether the API's own config projects the parts (Glance's stores: exactly one the default);
   * otherwise they configure processes the suite does not run (Cinder's volume services), and a
   * part is Ready once its CR exists.
   */
  projectedIntoApi: boolean;
  isDefault(part: Obj): boolean;
}

export interface ApiDescriptor {
  /** The service CR's kind. */
  kind: string;
  /** The program's name in logs and messages. */
  program: string;
  /** The PyPI distribution and the version its venv holds. */
  package: string;
  venv: VenvName;
  /** The in-cluster Service `{cr}.{ns}.svc` listens on this port (the catalog URL's). */
  servicePort: number;
  /** What gunicorn serves. */
  wsgiApp: string;
  /** The variable naming the directory the WSGI entry reads its config from, if it reads one. */
  configDirEnv?: string;
  /** The arguments the WSGI entry parses from sys.argv (uWSGI's --pyargv), if it does. */
  wsgiArgv?: (dir: string) => string[];
  /** Besides [keystone_authtoken], the config sections whose password is the service user's (OS_<SECTION>__PASSWORD). */
  passwordSections?: string[];
  /** Config sections of another account the CR names (Neutron's [nova] notifier): its password as OS_<SECTION>__PASSWORD. */
  otherAccounts?: { section: string; secretRef: (cr: Obj) => { name?: string; key?: string } | undefined }[];
  /** The API reads the OVNCentral its CR names (spec.ovn.centralRef) for the OVN connections. */
  ovn?: boolean;
  /** Environment every process of the service gets besides the config (the files its WSGI entry reads). */
  env?: (input: { dir: string; venv: string }) => Record<string, string>;
  /** gunicorn's threads per worker, when not the suite's default (Nova's eventlet-patched API needs one). */
  apiThreads?: number;
  /** The compute hosts the suite runs for the CR (Nova's fake-driver compute), each given an OVN chassis. */
  computeHosts?: (cr: Obj) => string[];
  /** The API reads spec.messaging.secretRef's transport URL (and runs on oslo.messaging's fake:// driver here). */
  messaging?: boolean;
  /** The CR's database blocks, each a URL by OS_<SECTION>__CONNECTION (the first is the one a brownfield SQLite file stands for, `{program}.db`). */
  databases: DatabaseUse[];
  /** The CR's condition for the API's health probe (upstream's <Kind>APIReady). */
  apiCondition: string;
  probePath: string;
  /** The files of the instance's config directory, from the CR alone: never a password. */
  configFiles(input: ApiConfigInput): Record<string, string>;
  /** The database sync, each command a program of the venv (or an absolute path) and its arguments, run with the processes' environment. */
  dbSync(dir: string): string[][];
  parts?: PartsDescriptor;
  /**
   * The service's processes beside the API (Cinder: the scheduler and a volume service per
   * attached part), each a program of the venv with its arguments and any file of its own
   * (written beside the config, never named `*.conf`: the API's --config-dir reads those). They
   * run from the same config and environment, start once the API serves and roll with it.
   */
  workers?: (input: ApiConfigInput & { partNames: string[] }) => Worker[];
}

export interface Worker {
  /** Its name in logs and messages (upstream's Deployment component). */
  name: string;
  program: string;
  args: string[];
  files?: Record<string, string>;
  /** It gets no database URL (Nova's compute: "No DB access allowed in nova-compute"; upstream's compute pods have none). */
  noDatabase?: boolean;
}

export const KEYSTONE_PASSWORD_ENV = 'OS_KEYSTONE_AUTHTOKEN__PASSWORD';
/** Where upstream's connection URL placeholder stands (the env override wins). */
const DB_PLACEHOLDER = 'mysql+pymysql://placeholder';

/** [keystone_authtoken] from the CR (keystoneauth.Section). */
function keystoneAuthtoken(cr: Obj): Record<string, string> {
  const spec = cr.spec ?? {};
  const user = spec.serviceUser ?? {};
  const section: Record<string, string> = {
    auth_type: 'password',
    auth_url: spec.keystoneEndpoint ?? '',
    www_authenticate_uri: spec.keystonePublicEndpoint || spec.keystoneEndpoint || '',
    username: user.username ?? '',
    project_name: user.projectName ?? '',
    user_domain_name: user.userDomainName ?? '',
    project_domain_name: user.projectDomainName ?? '',
  };
  if (spec.region) section.region_name = spec.region;
  return section;
}

/** [service_user]: the [keystone_authtoken] account sending its own token too (keystoneauth.ServiceUserSection). */
function serviceUserSection(cr: Obj): Record<string, string> {
  const { www_authenticate_uri: _, ...client } = keystoneAuthtoken(cr);
  return { ...client, send_service_user_token: 'true' };
}

/** spec.extraConfig over the operator's sections, and inline policy rules as policy.yaml in `files` (as upstream). */
function overridden(cr: Obj, dir: string, sections: Ini, files: Record<string, string>): Ini {
  const merged: Ini = structuredClone(sections);
  const rules = cr.spec?.policyOverrides?.rules as Record<string, string> | undefined;
  if (rules && Object.keys(rules).length > 0) {
    files['policy.yaml'] = stringify(rules);
    merged.oslo_policy = { ...(merged.oslo_policy ?? {}), policy_file: join(dir, 'policy.yaml') };
  }
  for (const [section, options] of Object.entries((cr.spec?.extraConfig ?? {}) as Record<string, Record<string, unknown>>)) {
    merged[section] = { ...(merged[section] ?? {}), ...Object.fromEntries(Object.entries(options ?? {}).map(([k, v]) => [k, String(v)])) };
  }
  return merged;
}

/** The config file `confName` of the overridden sections, beside `files`. */
function withOverrides(cr: Obj, dir: string, sections: Ini, files: Record<string, string>, confName: string): Record<string, string> {
  files[confName] = renderIni(overridden(cr, dir, sections, files));
  return files;
}

export function renderIni(sections: Ini): string {
  return Object.entries(sections)
    .map(([name, options]) => [`[${name}]`, ...Object.entries(options).map(([k, v]) => `${k} = ${v}`)].join('\n'))
    .join('\n\n')
    .concat('\n');
}

const debugOff = { use_stderr: 'true', debug: 'false' };

export const PLACEMENT_API: ApiDescriptor = {
  kind: placement.kind.kind,
  program: 'placement',
  package: 'openstack-placement',
  venv: 'placement',
  servicePort: placement.port,
  wsgiApp: 'placement.wsgi.api:application',
  configDirEnv: 'OS_PLACEMENT_CONFIG_DIR',
  databases: mainDatabase('placement_database'),
  apiCondition: 'PlacementAPIReady',
  probePath: '/',
  configFiles: ({ cr, dir }) =>
    withOverrides(cr, dir, {
      DEFAULT: debugOff,
      api: { auth_strategy: 'keystone' },
      placement_database: { max_retries: '-1', connection_recycle_time: '600', connection: DB_PLACEHOLDER },
      keystone_authtoken: keystoneAuthtoken(cr),
    }, {}, 'placement.conf'),
  dbSync: (dir) => [['placement-manage', '--config-file', join(dir, 'placement.conf'), 'db', 'sync']],
};

/** glanceStaticPasteSections and the pipeline RenderPastePipeline writes for no extra middleware. */
function glancePaste(dir: string): string {
  return renderIni({
    'pipeline:api': { pipeline: 'cors http_proxy_to_wsgi versionnegotiation authtoken context rootapp' },
    'composite:glance-api-keystone': { 'paste.composite_factory': 'glance.api:root_app_factory', '/': 'api', '/healthcheck': 'healthcheck' },
    'composite:rootapp': { 'paste.composite_factory': 'glance.api:root_app_factory', '/': 'apiversions', '/v2': 'apiv2app' },
    'app:healthcheck': { 'paste.app_factory': 'oslo_middleware:Healthcheck.app_factory', backends: 'disable_by_file', disable_by_file_path: join(dir, 'healthcheck_disable') },
    'app:apiversions': { 'paste.app_factory': 'glance.api.versions:create_resource' },
    'app:apiv2app': { 'paste.app_factory': 'glance.api.v2.router:API.factory' },
    'filter:cors': { 'paste.filter_factory': 'oslo_middleware.cors:filter_factory', oslo_config_project: 'glance', oslo_config_program: 'glance-api' },
    'filter:http_proxy_to_wsgi': { 'paste.filter_factory': 'oslo_middleware:HTTPProxyToWSGI.factory' },
    'filter:versionnegotiation': { 'paste.filter_factory': 'glance.api.middleware.version_negotiation:VersionNegotiationFilter.factory' },
    'filter:authtoken': { 'paste.filter_factory': 'keystonemiddleware.auth_token:filter_factory', delay_auth_decision: 'true' },
    'filter:context': { 'paste.filter_factory': 'glance.api.middleware.context:ContextMiddleware.factory' },
  });
}

/** The directory of a Glance backend's file store in the instance's directory. */
export const glanceStoreDir = (dir: string, backend: string) => join(dir, 'stores', backend);

export const GLANCE_API: ApiDescriptor = {
  kind: glance.kind.kind,
  program: 'glance',
  package: 'glance',
  venv: 'glance',
  servicePort: glance.port,
  wsgiApp: 'glance.wsgi.api:application',
  configDirEnv: 'OS_GLANCE_CONFIG_DIR',
  databases: mainDatabase('database'),
  apiCondition: 'GlanceAPIReady',
  probePath: '/healthcheck',
  configFiles: ({ cr, dir, parts }) => {
    const names = parts?.names ?? [];
    const sections: Ini = {
      DEFAULT: { enabled_backends: names.map((n) => `${n}:file`).join(','), enabled_import_methods: '[web-download,copy-image]', ...debugOff },
      database: { max_retries: '-1', connection_recycle_time: '600', connection: DB_PLACEHOLDER },
      keystone_authtoken: keystoneAuthtoken(cr),
      glance_store: { default_backend: parts?.defaultName ?? '' },
      os_glance_staging_store: { filesystem_store_datadir: join(dir, 'staging') },
      os_glance_tasks_store: { filesystem_store_datadir: join(dir, 'tasks-work') },
      paste_deploy: { flavor: 'keystone', config_file: join(dir, 'glance-api-paste.ini') },
    };
    for (const n of names) sections[n] = { filesystem_store_datadir: glanceStoreDir(dir, n) };
    return withOverrides(cr, dir, sections, { 'glance-api-paste.ini': glancePaste(dir) }, 'glance-api.conf');
  },
  dbSync: (dir) => [['glance-manage', '--config-dir', dir, 'db', 'sync']],
  parts: {
    kind: glance.partKinds[0].kind,
    parentOf: (b) => b.spec?.glanceRef?.name,
    // glancebackend_types.go S3AccessKeyIDKey / S3SecretAccessKeyKey, gated by the GlanceBackend controller.
    credentials: (b) => ({ secret: b.spec?.s3?.credentialsSecretRef?.name, keys: ['access-key-id', 'secret-access-key'] }),
    projectedIntoApi: true,
    isDefault: (b) => b.spec?.isDefault === true,
  },
};

/** The oslo.messaging transport for a bus the suite runs no broker for: in-process, no broker. */
export const FAKE_TRANSPORT_URL = 'fake://';

export const CINDER_API: ApiDescriptor = {
  kind: cinder.kind.kind,
  program: 'cinder',
  package: 'cinder',
  venv: 'cinder',
  servicePort: cinder.port,
  wsgiApp: 'cinder.wsgi.api:application',
  wsgiArgv: (dir) => ['--config-dir', dir],
  passwordSections: ['service_user'],
  messaging: true,
  databases: mainDatabase('database'),
  apiCondition: 'CinderAPIReady',
  probePath: '/healthcheck',
  configFiles: ({ cr, dir, venv }) => {
    const state = join(dir, 'state');
    const privsep = { helper_command: `privsep-helper --config-dir ${dir}`, capabilities: '' };
    const sections: Ini = {
      DEFAULT: {
        auth_strategy: cr.spec?.keystoneEndpoint ? 'keystone' : 'noauth',
        api_paste_config: join(venv, 'etc', 'cinder', 'api-paste.ini'),
        resource_query_filters_file: join(venv, 'etc', 'cinder', 'resource_filters.json'),
        state_path: state,
        image_conversion_dir: join(state, 'conversion'),
        host: cr.metadata.name,
        ...(cr.spec?.glanceEndpoint ? { glance_api_servers: cr.spec.glanceEndpoint } : {}),
        ...debugOff,
      },
      database: { connection: DB_PLACEHOLDER },
      oslo_messaging_rabbit: { rabbit_quorum_queue: 'true', rabbit_transient_quorum_queue: 'true', use_queue_manager: 'true' },
      oslo_messaging_notifications: { driver: 'noop' },
      oslo_concurrency: { lock_path: join(state, 'tmp') },
      coordination: { backend_url: `file://${join(state, 'coordination')}` },
      cinder_sys_admin: privsep,
      privsep_osbrick: privsep,
      keystone_authtoken: keystoneAuthtoken(cr),
      service_user: serviceUserSection(cr),
    };
    return withOverrides(cr, dir, sections, {}, 'cinder.conf');
  },
  dbSync: (dir) => [['cinder-manage', '--config-dir', dir, 'db', 'sync']],
  // reconcile_scheduler.go @ 2c80163a: one cinder-scheduler; reconcile_volumeservices.go @ 10fd815b:
  // one cinder-volume per attached backend, registered as `{cinder}@{backend}`, its overlay
  // `[DEFAULT] enabled_backends = {backend}` a --config-dir of its own. The backend section is the
  // suite's: an NFS export cannot be mounted here, so the volume service runs Cinder's
  // FakeLoggingVolumeDriver (cinder/tests/fake_driver.py, in the wheel), which creates a volume
  // in its database only — the scheduler, the RPC over the bus and the volume manager are real.
  workers: ({ dir, partNames }) => [
    { name: 'scheduler', program: 'cinder-scheduler', args: ['--config-dir', dir] },
    ...partNames.map((backend) => {
      const overlay = `volume-${backend}.d`;
      return {
        name: `volume-${backend}`,
        program: 'cinder-volume',
        args: ['--config-dir', dir, '--config-dir', join(dir, overlay)],
        files: {
          [join(overlay, 'backend.conf')]: renderIni({
            DEFAULT: { enabled_backends: backend },
            [backend]: { volume_backend_name: backend, volume_driver: 'cinder.tests.fake_driver.FakeLoggingVolumeDriver' },
          }),
        },
      };
    }),
  ],
  parts: {
    kind: cinder.partKinds[0].kind,
    parentOf: (b) => b.spec?.cinderRef?.name,
    // cinderbackend_controller.go @ 29e13d75: an NFS export needs no credentials (the RBD key gate
    // is for Ceph backends, which the ControlPlane does not project).
    credentials: () => ({ secret: undefined, keys: [] }),
    projectedIntoApi: false,
    isDefault: () => false,
  },
};

/** keystoneauth.ClientSection: the service user as a client of another service (no www_authenticate_uri). */
function clientSection(cr: Obj): Record<string, string> {
  const { www_authenticate_uri: _, ...client } = keystoneAuthtoken(cr);
  return client;
}

/** The compute host the suite runs for a Nova CR (a NovaCompute node upstream; its OVN chassis is `{host}-chassis`). */
export const novaComputeHost = (cr: Obj) => `${cr.metadata.name}-compute-0`;

// Nova (C5C3/cobaltcore operators/nova/internal/controller, the files' newest stored commits):
// reconcile_config.go operatorDefaults @ 10fd815b: [DEFAULT] use_stderr/debug/state_path (no host:
// each process its own), [api] local_metadata_per_cell = false, [api_database] and [database] with
// the placeholder (OS_API_DATABASE__CONNECTION, OS_DATABASE__CONNECTION), [keystone_authtoken],
// [service_user], [placement] and [neutron] as catalog clients (valid_interfaces = internal),
// [glance] valid_interfaces/region_name, [cinder] (spec.endpoints.cinder.enabled) with catalog_info
// = block-storage:cinder:internalURL and os_region_name, [oslo_messaging_rabbit],
// [oslo_messaging_notifications] driver = noop, [oslo_concurrency] lock_path, [upgrade_levels]
// compute = auto, [scheduler] discover_hosts_in_cells_interval = 300, [vnc] enabled = false (no
// console proxy), the scheduler's and conductor's `workers` in overlays of their own;
// reconcile_dbconnection_secrets.go @ a94c8016: the nova_api block's instance is `{nova}-api`, the
// cell block's `{nova}`; reconcile_database.go @ 10fd815b: cell0 is `{database}_cell0` on the cell
// block's account, the db-sync maps cell0 and `cell1` with URL templates (nova expands them from the
// running connection and transport URL, so no password is stored in the mapping) unless list_cells
// maps it already, then api_db sync and db sync; reconcile_database.go apiPasteConfigPath: the API
// reads OS_NOVA_CONFIG_FILES from OS_NOVA_CONFIG_DIR, the paste file first. Where the suite differs:
// no [cache] (the suite's Memcached is a stand-in nothing listens for); nova-api under gunicorn with
// one thread (upstream uWSGI; see apiThreads below); and one
// compute node the suite runs beside the control plane (upstream a NovaCompute on a hypervisor):
// nova-compute with the fake virt driver and vif_plugging_timeout = 0, as C5C3/cobaltcore's
// fake-driver suites run it (docs/reference/testing/nova-e2e-tests.md): `FakeDriverWithoutFakeNodes`,
// one node named after `host` with the stable node identity a real driver keeps (state_path's
// compute_id). Plain `FakeDriver` writes none, so the compute restarted with a rotated password
// refused to start ("No local node identity found, but this is not our first startup").
const NOVA_CELL = 'cell1';
const cellDatabaseTemplate = (schema: string) => `{scheme}://{username}:{password}@{hostname}:{port}/${schema}?{query}`;
const CELL_TRANSPORT_TEMPLATE = '{scheme}://{username}:{password}@{hostname}:{port}/{path}?{query}';

export const NOVA_API: ApiDescriptor = {
  kind: nova.kind.kind,
  program: 'nova',
  package: 'nova',
  venv: 'nova',
  servicePort: nova.port,
  wsgiApp: 'nova.wsgi.osapi_compute:application',
  configDirEnv: 'OS_NOVA_CONFIG_DIR',
  wsgiArgv: () => [],
  env: ({ venv }) => ({ OS_NOVA_CONFIG_FILES: `${join(venv, 'etc', 'nova', 'api-paste.ini')};nova.conf` }),
  // One thread: the API is eventlet-patched (nova/api/openstack/__init__.py), which a threaded WSGI
  // worker does not survive (gunicorn's gthread worker hangs every request after the first); nova's
  // docs ask for threads=1 under uWSGI and mod_wsgi. Native threading (OS_NOVA_DISABLE_EVENTLET_PATCHING)
  // is experimental in 2025.2 ("Service is starting with native threading"), so not used here.
  apiThreads: 1,
  passwordSections: ['service_user', 'placement', 'neutron', 'cinder'],
  messaging: true,
  databases: [
    { field: 'apiDatabase', section: 'api_database', instance: (cr) => `${cr}-api` },
    { field: 'database', section: 'database', instance: (cr) => cr, alsoSchemas: (db) => [`${db}_cell0`] },
  ],
  apiCondition: 'NovaAPIReady',
  probePath: '/',
  computeHosts: (cr) => [novaComputeHost(cr)],
  configFiles: ({ cr, dir }) => {
    const spec = cr.spec ?? {};
    const region: Record<string, string> = spec.region ? { region_name: spec.region } : {};
    const { region_name: _, ...cinderClient } = clientSection(cr);
    const sections: Ini = {
      DEFAULT: { ...debugOff, state_path: join(dir, 'state') },
      api: { local_metadata_per_cell: 'false' },
      api_database: { connection: DB_PLACEHOLDER },
      database: { connection: DB_PLACEHOLDER },
      keystone_authtoken: keystoneAuthtoken(cr),
      service_user: serviceUserSection(cr),
      placement: { ...clientSection(cr), valid_interfaces: 'internal' },
      neutron: { ...clientSection(cr), valid_interfaces: 'internal' },
      glance: { valid_interfaces: 'internal', ...region },
      ...(spec.endpoints?.cinder?.enabled ? { cinder: { ...cinderClient, catalog_info: 'block-storage:cinder:internalURL', ...(spec.region ? { os_region_name: spec.region } : {}) } } : {}),
      oslo_messaging_rabbit: { rabbit_quorum_queue: 'true', rabbit_transient_quorum_queue: 'true', use_queue_manager: 'true' },
      oslo_messaging_notifications: { driver: 'noop' },
      oslo_concurrency: { lock_path: join(dir, 'state', 'tmp') },
      upgrade_levels: { compute: 'auto' },
      scheduler: { discover_hosts_in_cells_interval: '300' },
      vnc: { enabled: 'false' },
    };
    return withOverrides(cr, dir, sections, {}, 'nova.conf');
  },
  dbSync: (dir) => {
    const manage = `nova-manage --config-dir ${dir}`;
    return [['/bin/bash', '-ec', [
      `${manage} api_db sync`,
      // The cell block's schema with `_cell0`, and the one real cell, mapped once.
      `schema=$(python3 -c 'import os,urllib.parse as u; print(u.urlsplit(os.environ["OS_DATABASE__CONNECTION"]).path.lstrip("/"))')`,
      `${manage} cell_v2 map_cell0 --database_connection "${cellDatabaseTemplate('${schema}_cell0')}"`,
      `${manage} cell_v2 list_cells | grep -q ' ${NOVA_CELL} ' || ${manage} cell_v2 create_cell --name ${NOVA_CELL} --transport-url '${CELL_TRANSPORT_TEMPLATE}' --database_connection "${cellDatabaseTemplate('${schema}')}"`,
      `${manage} db sync`,
    ].join('\n')]];
  },
  // reconcile_conductor.go/reconcile_scheduler.go: one Deployment each, its overlay beside nova.conf.
  workers: ({ cr, dir }) => {
    const overlay = (name: string, sections: Ini) => ({ [join(`${name}.d`, `${name}.conf`)]: renderIni(sections) });
    return [
      { name: 'conductor', program: 'nova-conductor', args: ['--config-dir', dir, '--config-dir', join(dir, 'conductor.d')], files: overlay('conductor', { conductor: { workers: '1' } }) },
      { name: 'scheduler', program: 'nova-scheduler', args: ['--config-dir', dir, '--config-dir', join(dir, 'scheduler.d')], files: overlay('scheduler', { scheduler: { workers: '1' } }) },
      {
        name: 'compute',
        program: 'nova-compute',
        args: ['--config-dir', dir, '--config-dir', join(dir, 'compute.d')],
        noDatabase: true,
        files: overlay('compute', { DEFAULT: { host: novaComputeHost(cr), compute_driver: 'fake.FakeDriverWithoutFakeNodes', vif_plugging_is_fatal: 'false', vif_plugging_timeout: '0' } }),
      },
    ];
  },
};

// Neutron (C5C3/cobaltcore operators/neutron/internal/controller @ bc3245eb): reconcile_config.go
// operatorDefaults, split by ml2Sections into neutron.conf and ml2_conf.ini: [DEFAULT] core_plugin =
// ml2, service_plugins = ovn-router, auth_strategy, api_paste_config (the package's), state_path,
// rpc_workers = rpc_state_report_workers = 0, dhcp_agent_notification = false, use_stderr/debug;
// [database] placeholder; [keystone_authtoken]; [oslo_messaging_*]; [oslo_concurrency]; [ml2]
// mechanism_drivers = ovn, type_drivers = geneve,flat, tenant_network_types = geneve,
// extension_drivers = port_security; [ml2_type_geneve] vni_ranges/max_header_size; [ml2_type_flat];
// [securitygroup]; [ovn] the northbound and southbound connections of the OVNCentral's status
// (reconcile_ovn.go @ 491d0775), ovn_l3_scheduler. The reconcilers in the index leave [nova] empty
// with the Nova notifications off; the CRD's spec.nova (docs/reference/neutron/neutron-crd.md
// §NovaNotifierUserSpec @ 0e1be3bb) is the account they are for, so a CR naming it gets [nova] as
// a keystoneauth client of that account (its password as OS_NOVA__PASSWORD) and both
// notifications on. The API under gunicorn reads OS_NEUTRON_CONFIG_FILES from OS_NEUTRON_CONFIG_DIR
// (neutron/server/__init__.py _get_config_files); reconcile_workers.go @ d7e2d488: the periodic
// and OVN maintenance workers beside it; reconcile_database.go: `neutron-db-manage upgrade heads`.
// Where the suite differs: OVN over plain TCP (ovn.ts), so no [ovn] client key or certificates, and
// ovn_metadata_enabled = false (no metadata agent runs here).
const ML2_SECTIONS = new Set(['ml2', 'ml2_type_flat', 'ml2_type_geneve', 'ml2_type_gre', 'ml2_type_vlan', 'ml2_type_vxlan', 'ovn', 'ovn_nb_global', 'ovs', 'ovs_driver', 'securitygroup', 'sriov_driver']);

export const NEUTRON_API: ApiDescriptor = {
  kind: neutron.kind.kind,
  program: 'neutron',
  package: 'neutron',
  venv: 'neutron',
  servicePort: neutron.port,
  wsgiApp: 'neutron.wsgi.api:application',
  configDirEnv: 'OS_NEUTRON_CONFIG_DIR',
  wsgiArgv: () => [],
  env: () => ({ OS_NEUTRON_CONFIG_FILES: 'neutron.conf;ml2_conf.ini' }),
  otherAccounts: [{ section: 'nova', secretRef: (cr) => cr.spec?.nova?.serviceUser?.secretRef }],
  messaging: true,
  ovn: true,
  databases: mainDatabase('database'),
  apiCondition: 'NeutronAPIReady',
  probePath: '/healthcheck',
  configFiles: ({ cr, dir, venv, ovn }) => {
    const notifier = cr.spec?.nova?.serviceUser;
    const notify = notifier ? 'true' : 'false';
    const state = join(dir, 'state');
    const sections: Ini = {
      DEFAULT: {
        core_plugin: 'ml2',
        service_plugins: 'ovn-router',
        auth_strategy: 'keystone',
        api_paste_config: join(venv, 'etc', 'neutron', 'api-paste.ini'),
        state_path: state,
        rpc_workers: '0',
        rpc_state_report_workers: '0',
        dhcp_agent_notification: 'false',
        notify_nova_on_port_status_changes: notify,
        notify_nova_on_port_data_changes: notify,
        ...debugOff,
      },
      database: { connection: DB_PLACEHOLDER },
      keystone_authtoken: keystoneAuthtoken(cr),
      oslo_messaging_notifications: { driver: 'noop' },
      oslo_messaging_rabbit: { rabbit_quorum_queue: 'true', rabbit_transient_quorum_queue: 'true', use_queue_manager: 'true' },
      oslo_concurrency: { lock_path: join(state, 'lock') },
      nova: notifier
        ? { auth_type: 'password', auth_url: cr.spec?.keystoneEndpoint ?? '', username: notifier.username ?? '', project_name: notifier.projectName ?? '', user_domain_name: notifier.userDomainName ?? '', project_domain_name: notifier.projectDomainName ?? '', ...(cr.spec?.nova?.region ? { region_name: cr.spec.nova.region } : {}), endpoint_type: 'internal' }
        : {},
      ml2: { mechanism_drivers: 'ovn', type_drivers: 'geneve,flat', tenant_network_types: 'geneve', extension_drivers: 'port_security' },
      ml2_type_geneve: { vni_ranges: '1:65536', max_header_size: '38' },
      ml2_type_flat: { flat_networks: '*' },
      securitygroup: { enable_security_group: 'true' },
      ovn: { ovn_nb_connection: ovn?.nb ?? '', ovn_sb_connection: ovn?.sb ?? '', ovn_l3_scheduler: 'leastloaded', ovn_metadata_enabled: 'false' },
    };
    // spec.extraConfig over the defaults, then each section to the file its reader reads (splitML2Sections).
    const files: Record<string, string> = {};
    const merged = overridden(cr, dir, sections, files);
    files['neutron.conf'] = renderIni(Object.fromEntries(Object.entries(merged).filter(([s]) => !ML2_SECTIONS.has(s))));
    files['ml2_conf.ini'] = renderIni(Object.fromEntries(Object.entries(merged).filter(([s]) => ML2_SECTIONS.has(s))));
    return files;
  },
  dbSync: (dir) => [['neutron-db-manage', '--config-file', join(dir, 'neutron.conf'), '--config-file', join(dir, 'ml2_conf.ini'), 'upgrade', 'heads']],
  workers: ({ dir }) => ['periodic-workers', 'ovn-maintenance-worker'].map((w) => ({
    name: w,
    program: `neutron-${w}`,
    args: ['--config-file', join(dir, 'neutron.conf'), '--config-file', join(dir, 'ml2_conf.ini')],
  })),
};

export const OPENSTACK_APIS: readonly ApiDescriptor[] = [PLACEMENT_API, GLANCE_API, CINDER_API, NOVA_API, NEUTRON_API];
