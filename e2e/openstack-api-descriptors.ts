// The real OpenStack APIs the e2e suite runs behind the catalog (openstack-apis.ts), one entry per
// service CR kind: the PyPI package and its venv, the WSGI application gunicorn serves, the config
// files written from the CR alone, the database sync, the health probe. Adding a service (Cinder)
// is one more entry here.
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
// Where the suite differs, on purpose: the database is SQLite in the instance's directory (the DB
// credential Secret is read and reported, not used); Glance's store is a file store per
// GlanceBackend (no S3 here), its sections in glance-api.conf (the stock WSGI entry reads that one
// file; upstream mounts a second --config-dir); no memcached_servers (the suite's Memcached is a
// stand-in nothing listens for); no [import_filtering_opts]/[image_import_opts] (they concern
// web-download imports only) and no metadefs load; gunicorn serves the WSGI application for
// every release (upstream: uWSGI, and the eventlet glance-api server below 2026.1).
import { stringify } from 'yaml';
import { join } from 'node:path';
import type { Obj } from '../src/sim/cluster.js';
import { placement, glance } from '../src/api/services/index.js';
import type { VenvName } from './venvs.js';

type Ini = Record<string, Record<string, string>>;

/** What a config is written from: the CR, the instance's directory, (Glance) the projected parts. */
export interface ApiConfigInput {
  cr: Obj;
  dir: string;
  /** The attached parts projected into the config (names, in order) and the default one. */
  parts?: { names: string[]; defaultName: string };
}

/** Children of a service's own that its config projects (Glance's backends). */
export interface PartsDescriptor {
  kind: string;
  /** The name of the CR a part attaches to. */
  parentOf(part: Obj): string | undefined;
  /** The Secret whose keys must all be present before the part is projected (upstream's credential gate). */
  credentials(part: Obj): { secret: string | undefined; keys: string[] };
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
  /** The variable naming the directory the WSGI entry reads its config from. */
  configDirEnv: string;
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
    isDefault: (b) => b.spec?.isDefault === true,
  },
};

export const OPENSTACK_APIS: readonly ApiDescriptor[] = [PLACEMENT_API, GLANCE_API];
