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
import { placement, glance, cinder } from '../src/api/services/index.js';
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
}

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
  /** The API reads spec.messaging.secretRef's transport URL (and runs on oslo.messaging's fake:// driver here). */
  messaging?: boolean;
  /** The config section of the database connection: its OS_<SECTION>__CONNECTION override carries the URL. */
  databaseSection: string;
  /** The CR's condition for the API's health probe (upstream's <Kind>APIReady). */
  apiCondition: string;
  probePath: string;
  /** The files of the instance's config directory, from the CR alone: never a password. */
  configFiles(input: ApiConfigInput): Record<string, string>;
  /** The database sync, each command a program of the venv and its arguments. */
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

/** spec.extraConfig over the operator's sections, and inline policy rules as policy.yaml (as upstream). */
function withOverrides(cr: Obj, dir: string, sections: Ini, files: Record<string, string>, confName: string): Record<string, string> {
  const merged: Ini = structuredClone(sections);
  const rules = cr.spec?.policyOverrides?.rules as Record<string, string> | undefined;
  if (rules && Object.keys(rules).length > 0) {
    files['policy.yaml'] = stringify(rules);
    merged.oslo_policy = { ...(merged.oslo_policy ?? {}), policy_file: join(dir, 'policy.yaml') };
  }
  for (const [section, options] of Object.entries((cr.spec?.extraConfig ?? {}) as Record<string, Record<string, unknown>>)) {
    merged[section] = { ...(merged[section] ?? {}), ...Object.fromEntries(Object.entries(options ?? {}).map(([k, v]) => [k, String(v)])) };
  }
  files[confName] = renderIni(merged);
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
  databaseSection: 'placement_database',
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
  databaseSection: 'database',
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
  databaseSection: 'database',
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

export const OPENSTACK_APIS: readonly ApiDescriptor[] = [PLACEMENT_API, GLANCE_API, CINDER_API];
