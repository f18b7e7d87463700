// The tempest.conf of a rollout's verification (verification.ts), derived from what the
// ControlPlane knows and nothing else: the region (spec.region), the in-cluster identity URL,
// the catalog type and interface of every declared service, service_available, and the
// microversions of the release rolled out. It holds no secret: the admin password reaches Tempest
// through the environment (oslo.config reads OS_<GROUP>__<OPTION>), from the Secret the
// ControlPlane already holds, so the ConfigMap can be read by anyone who can read the namespace.
import { SERVICES } from '../../api/services/index.js';
import type { ControlPlaneSpec } from '../../api/controlplane.js';
import { DEFAULTS } from '../../api/controlplane.js';
import { INI_NAME } from '../../api/verification.js';
import { isObject } from '../../k8s/read.js';
import { keystoneInternalUrl, OPENSTACK_ADMIN } from '../names.js';

/** The environment variable oslo.config reads `[auth] admin_password` from (ConfigOpts use_env). */
export const TEMPEST_PASSWORD_ENV = 'OS_AUTH__ADMIN_PASSWORD';

/**
 * Tempest's config section and service_available key of each service beside Keystone. Placement
 * has no service_available key in Tempest (its tests are part of compute's).
 */
const TEMPEST_SECTIONS: Readonly<Record<string, { section: string; available?: string; microversions?: keyof Microversions }>> = {
  glance: { section: 'image', available: 'glance' },
  placement: { section: 'placement', microversions: 'placement' },
  neutron: { section: 'network', available: 'neutron' },
  cinder: { section: 'volume', available: 'cinder', microversions: 'volume' },
  nova: { section: 'compute', available: 'nova', microversions: 'compute' },
};

/**
 * The services Tempest can test that this project never deploys: always unavailable (Tempest
 * assumes each of them is there unless told: [service_available] defaults True in tempest/config.py;
 * without horizon = false its dashboard scenario, tagged smoke, fails on a connection refused).
 */
const NEVER_DEPLOYED = ['horizon', 'swift'] as const;

interface Range {
  min: string;
  max: string;
}
interface Microversions {
  compute: Range;
  volume: Range;
  placement: Range;
}

/**
 * The microversions each release's APIs serve (the maximum of Nova's, Cinder's and Placement's
 * REST API version history at the release). A release not listed gets no bounds: Tempest then
 * skips the tests that need a microversion rather than fail them.
 */
export const RELEASE_MICROVERSIONS: Readonly<Record<string, Microversions>> = {
  '2024.1': { compute: { min: '2.1', max: '2.96' }, volume: { min: '3.0', max: '3.70' }, placement: { min: '1.0', max: '1.39' } },
  '2024.2': { compute: { min: '2.1', max: '2.96' }, volume: { min: '3.0', max: '3.70' }, placement: { min: '1.0', max: '1.39' } },
  '2025.1': { compute: { min: '2.1', max: '2.100' }, volume: { min: '3.0', max: '3.70' }, placement: { min: '1.0', max: '1.39' } },
  '2025.2': { compute: { min: '2.1', max: '2.100' }, volume: { min: '3.0', max: '3.71' }, placement: { min: '1.0', max: '1.39' } },
};

/** The catalog interface Tempest takes from the catalog: the Job runs in the cluster (identity has a public row only). */
const SERVICE_INTERFACE = 'internal';
const IDENTITY_INTERFACE = 'public';

export interface TempestConfInput {
  namespace: string;
  cp: string;
  spec: ControlPlaneSpec;
  /** The release rolled out (its microversions). */
  release: string;
}

type Sections = [string, [string, string][]][];

function render(sections: Sections): string {
  return sections.map(([name, options]) => [`[${name}]`, ...options.map(([k, v]) => `${k} = ${v}`)].join('\n')).join('\n\n') + '\n';
}

export function tempestConf(input: TempestConfInput): string {
  const region = typeof input.spec.region === 'string' && input.spec.region !== '' ? input.spec.region : DEFAULTS.region;
  const declared = SERVICES.filter((d) => input.spec.services?.[d.name] !== undefined);
  const microversions = RELEASE_MICROVERSIONS[input.release];
  const sections: Sections = [
    [
      'auth',
      [
        ['admin_username', OPENSTACK_ADMIN.user],
        ['admin_project_name', OPENSTACK_ADMIN.project],
        ['admin_domain_name', OPENSTACK_ADMIN.domain],
        ['use_dynamic_credentials', 'true'],
        ['tempest_roles', 'member'],
      ],
    ],
    [
      'identity',
      [
        ['uri_v3', keystoneInternalUrl(input.namespace, input.cp)],
        ['auth_version', 'v3'],
        ['region', region],
        ['catalog_type', 'identity'],
        ['v3_endpoint_type', IDENTITY_INTERFACE],
      ],
    ],
  ];
  for (const d of declared) {
    const t = TEMPEST_SECTIONS[d.name];
    if (!t) continue;
    const options: [string, string][] = [
      ['catalog_type', d.serviceType],
      ['endpoint_type', SERVICE_INTERFACE],
      ['region', region],
    ];
    const range = t.microversions && microversions ? microversions[t.microversions] : undefined;
    if (range) options.push(['min_microversion', range.min], ['max_microversion', range.max]);
    sections.push([t.section, options]);
  }
  const available: [string, string][] = Object.values(TEMPEST_SECTIONS)
    .flatMap((t) => (t.available ? [t.available] : []))
    .map((key) => [key, String(declared.some((d) => TEMPEST_SECTIONS[d.name]?.available === key))]);
  for (const key of NEVER_DEPLOYED) available.push([key, 'false']);
  sections.push(['service_available', available.sort(([a], [b]) => (a < b ? -1 : 1))]);
  // No guest is reachable from the Job (no floating network is deployed): no SSH validation.
  sections.push(['validation', [['run_validation', 'false']]]);
  return render(withExtraConfig(sections, input.spec.verification?.tempest?.extraConfig));
}

/**
 * spec.verification.tempest.extraConfig over the derived sections: an option it names replaces the
 * derived one in place, new options and sections follow in key order. What admission refuses (a
 * name that is not INI_NAME, a value that is not one line of text) is left out here too: a request
 * that skipped admission must not write another section into the file.
 */
function withExtraConfig(sections: Sections, extra: unknown): Sections {
  if (!isObject(extra)) return sections;
  const name = new RegExp(INI_NAME);
  const out: Sections = sections.map(([section, options]) => [section, [...options]]);
  for (const section of Object.keys(extra).sort()) {
    const given = extra[section];
    if (!name.test(section) || !isObject(given)) continue;
    let target = out.find(([n]) => n === section);
    if (!target) {
      target = [section, []];
      out.push(target);
    }
    for (const option of Object.keys(given).sort()) {
      const value = given[option];
      if (!name.test(option) || typeof value !== 'string' || /[\r\n]/.test(value)) continue;
      const at = target[1].findIndex(([k]) => k === option);
      if (at >= 0) target[1][at] = [option, value];
      else target[1].push([option, value]);
    }
  }
  return out.filter(([, options]) => options.length > 0);
}
