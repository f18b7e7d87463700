// The Tempest verification of a release rollout (issue 59; seed 002: "post-update verification
// (Tempest if enabled)"). With spec.verification.tempest set, the Verifying phase asks for a
// batch/v1 Job `{cp}-verify-<release>-<6 hex>` and a ConfigMap of the same name holding its
// tempest.conf (tempest-conf.ts). The hex is a hash of the rollout's identity (its from, to and
// start), so every resync and every restart of the hooks asks for the same Job, and a rollout never
// gets a second one; Metacontroller updates Jobs OnDelete, so the Job is created once and never
// changed. The Job controller's verdict decides the phase (rollout.ts exitOf): Complete → the
// rollout completes; Failed, or the deadline, → RollingBack with VerificationFailed. The Job and
// its ConfigMap stay for the answer that ends the Verifying phase (its verdict visible beside the
// new phase) and are released by the next one. Unset, nothing here runs: Verifying checks the
// Keystone credential chain only.
import { createHash } from 'node:crypto';
import type { ControlPlaneSpec } from '../../api/controlplane.js';
import { TEMPEST_DEFAULTS, TEMPEST_IMAGE_REPOSITORY, TEMPEST_IMAGES, VERIFY_HASH_LENGTH, VERIFY_NAME_BUDGET } from '../../api/verification.js';
import { verificationName, verificationPrefix } from '../../api/child-names.js';
import { findCondition } from '../../k8s/conditions.js';
import { GVK } from '../../k8s/kinds.js';
import { identity, type KubeObject, type ObjectIndex } from '../../k8s/observed.js';
import { at, stringAt } from '../../k8s/read.js';
import { child } from '../children.js';
import type { ControlPlaneRef } from '../ref.js';
import { effectiveAdminPasswordRef } from '../spec.js';
import type { Rollout, RolloutVerification } from './rollout-state.js';
import { deadlineSeconds } from './rollout.js';
import { TEMPEST_PASSWORD_ENV, tempestConf } from './tempest-conf.js';

/** The Job controller labels its pods with the Job's name: a label value. */
const MAX_JOB_NAME = 63;

/** Label on the verification Job and ConfigMap (for people and `kubectl get -l`). */
export const VERIFICATION_LABEL = 'c5c3.io/verification';
export const VERIFICATION_LABEL_VALUE = 'tempest';

/** Where the Job finds its files: our ConfigMap, and the user's list ConfigMaps (ListRefs). */
const CONF_DIR = '/etc/tempest';
const LIST_DIR = { include: '/etc/tempest-lists/include', exclude: '/etc/tempest-lists/exclude' } as const;
const LIST_FILE = { include: 'include-tests.txt', exclude: 'exclude-tests.txt' } as const;
const CONF_FILE = 'tempest.conf';
/** A workspace in the container's writable /tmp: `tempest init` lays it out, our tempest.conf replaces its own. */
const WORKSPACE = '/tmp/tempest';
const SCRIPT = `set -eu\ntempest init ${WORKSPACE} >/dev/null\ncp ${CONF_DIR}/${CONF_FILE} ${WORKSPACE}/etc/${CONF_FILE}\ncd ${WORKSPACE}\nexec tempest run "$@"`;

/** spec.verification.tempest as the hooks use it (schema defaults applied; anything unreadable falls back to them). */
export interface TempestSettings {
  image: { repository: string; tag: string };
  concurrency: number;
  deadlineSeconds: number;
  deadline: string;
  include?: { regexes: string[] } | { ref: { name: string; key: string } };
  exclude?: { regexes: string[] } | { ref: { name: string; key: string } };
}

const DEFAULT_DEADLINE_SECONDS = deadlineSeconds(TEMPEST_DEFAULTS.deadline) ?? 3600;

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((r) => typeof r === 'string');

function listOf(regexes: unknown, ref: unknown): TempestSettings['include'] {
  if (isStrings(regexes) && regexes.length > 0) return { regexes };
  const name = stringAt(ref, 'name');
  const key = stringAt(ref, 'key');
  return name && key ? { ref: { name, key } } : undefined;
}

/** The Tempest image of `release`: the spec's override, else the release's default (TEMPEST_IMAGES). */
export function tempestImage(spec: ControlPlaneSpec, release: string): { repository: string; tag: string } {
  const image = spec.verification?.tempest?.image;
  if (image && image.repository !== '' && image.tag !== '') return { repository: image.repository, tag: image.tag };
  return TEMPEST_IMAGES[release] ?? { repository: TEMPEST_IMAGE_REPOSITORY, tag: release };
}

/** spec.verification.tempest resolved for the release rolled out; undefined when it is not set. */
export function tempestSettings(spec: ControlPlaneSpec, release: string): TempestSettings | undefined {
  const t = spec.verification?.tempest;
  if (t === undefined || t === null) return undefined;
  const seconds = deadlineSeconds(t.deadline);
  const concurrency = t.concurrency;
  const settings: TempestSettings = {
    image: tempestImage(spec, release),
    concurrency: typeof concurrency === 'number' && Number.isSafeInteger(concurrency) && concurrency >= 1 ? concurrency : TEMPEST_DEFAULTS.concurrency,
    deadlineSeconds: seconds ?? DEFAULT_DEADLINE_SECONDS,
    deadline: seconds !== undefined && typeof t.deadline === 'string' ? t.deadline : TEMPEST_DEFAULTS.deadline,
  };
  const include = listOf(t.tests?.include, t.tests?.includeListRef);
  const exclude = listOf(t.tests?.exclude, t.tests?.excludeListRef);
  if (include) settings.include = include;
  if (exclude) settings.exclude = exclude;
  return settings;
}

/** Six hex of the rollout's identity: the same for every pass of one rollout, another for the next. */
export function rolloutHash(r: Pick<Rollout, 'from' | 'to' | 'startedAt'>): string {
  const id = JSON.stringify([r.from.release, r.from.image.repository, r.from.image.tag, r.to.release, r.to.image.repository, r.to.image.tag, r.startedAt]);
  return createHash('sha256').update(id, 'utf8').digest('hex').slice(0, VERIFY_HASH_LENGTH);
}

/** The name of the rollout's Job and ConfigMap. */
export const verificationJobName = (cp: string, r: Rollout) => verificationName(cp, r.to.release, rolloutHash(r));

/** The Job controller's verdict (kubernetes pkg/controller/job: the terminal Complete / Failed conditions). */
export function jobVerdict(job: KubeObject | undefined, name: string): RolloutVerification {
  if (job && findCondition(job, 'Complete')?.status === 'True') return { job: name, state: 'Succeeded' };
  const failed = job ? findCondition(job, 'Failed') : undefined;
  if (failed?.status === 'True') {
    const reason = typeof failed.reason === 'string' ? failed.reason : 'Failed';
    const message = typeof failed.message === 'string' ? failed.message : '';
    const pods = at(job, 'status', 'failed');
    const podsText = typeof pods === 'number' ? `; ${pods} pod(s) failed` : '';
    return { job: name, state: 'Failed', message: `Job ${name} failed (${reason}${message ? `: ${message}` : ''})${podsText}` };
  }
  return { job: name, state: 'Running' };
}

/** The Verifying phase's verification this pass: the Job's verdict, the phase deadline, the children to ask for. */
export interface VerificationPass {
  verdict: RolloutVerification;
  settings: TempestSettings;
  children: KubeObject[];
}

function listArgs(which: 'include' | 'exclude', list: TempestSettings['include']): string[] {
  if (!list) return which === 'include' ? ['--smoke'] : [];
  const dir = 'regexes' in list ? CONF_DIR : LIST_DIR[which];
  return [`--${which}-list`, `${dir}/${LIST_FILE[which]}`];
}

function listVolume(which: 'include' | 'exclude', list: TempestSettings['include']): { volume: Record<string, unknown>; mount: Record<string, unknown> } | undefined {
  if (!list || 'regexes' in list) return undefined;
  const name = `${which}-list`;
  return {
    volume: { name, configMap: { name: list.ref.name, items: [{ key: list.ref.key, path: LIST_FILE[which] }] } },
    mount: { name, mountPath: LIST_DIR[which], readOnly: true },
  };
}

/** The Job and the ConfigMap of a rollout's verification (pure: the same for every pass of the rollout). */
export function verificationChildren(cp: ControlPlaneRef, spec: ControlPlaneSpec, r: Rollout, settings: TempestSettings): KubeObject[] {
  const name = verificationJobName(cp.name, r);
  const labels = { [VERIFICATION_LABEL]: VERIFICATION_LABEL_VALUE };
  const data: Record<string, string> = { [CONF_FILE]: tempestConf({ namespace: cp.namespace, cp: cp.name, spec, release: r.to.release }) };
  if (settings.include && 'regexes' in settings.include) data[LIST_FILE.include] = settings.include.regexes.join('\n') + '\n';
  if (settings.exclude && 'regexes' in settings.exclude) data[LIST_FILE.exclude] = settings.exclude.regexes.join('\n') + '\n';
  const configMap = child(GVK.ConfigMap, cp, name, { data }, { labels });
  const password = effectiveAdminPasswordRef(spec, cp.name);
  const lists = [listVolume('include', settings.include), listVolume('exclude', settings.exclude)].filter((v) => v !== undefined);
  const container = {
    name: 'tempest',
    image: `${settings.image.repository}:${settings.image.tag}`,
    command: ['/bin/sh', '-c', SCRIPT, 'tempest'],
    args: ['--concurrency', String(settings.concurrency), ...listArgs('include', settings.include), ...listArgs('exclude', settings.exclude)],
    // The admin password from the Secret the ControlPlane already holds: never in the ConfigMap.
    env: [{ name: TEMPEST_PASSWORD_ENV, valueFrom: { secretKeyRef: { name: password.name ?? '', key: password.key } } }],
    volumeMounts: [{ name: 'tempest-conf', mountPath: CONF_DIR, readOnly: true }, ...lists.map((l) => l.mount)],
    securityContext: { allowPrivilegeEscalation: false },
  };
  const job = child(
    GVK.Job,
    cp,
    name,
    {
      spec: {
        // A failed Tempest run is the verdict, not a flake to retry.
        backoffLimit: 0,
        activeDeadlineSeconds: settings.deadlineSeconds,
        template: {
          metadata: { labels },
          spec: {
            restartPolicy: 'Never',
            containers: [container],
            volumes: [{ name: 'tempest-conf', configMap: { name } }, ...lists.map((l) => l.volume)],
          },
        },
      },
    },
    { labels },
  );
  return [job, configMap];
}

/** The verification of a pass in Verifying with tempest set (undefined otherwise). */
export function verificationPass(cp: ControlPlaneRef, spec: ControlPlaneSpec, r: Rollout, observed: ObjectIndex): VerificationPass | undefined {
  const settings = tempestSettings(spec, r.to.release);
  if (!settings) return undefined;
  const name = verificationJobName(cp.name, r);
  // Admission keeps the name within 63 (VERIFICATION_ROOT_RULES); a ControlPlane admitted without
  // that rule gets the reason now rather than a Job the API server refuses and a wait for the deadline.
  if (name.length > MAX_JOB_NAME) {
    return { verdict: { job: name, state: 'Failed', message: `the Job name ${name} is longer than ${MAX_JOB_NAME} characters: the ControlPlane's name must be at most ${VERIFY_NAME_BUDGET}` }, settings, children: [] };
  }
  const verdict = jobVerdict(observed.get(GVK.Job, cp.namespace, name), name);
  return { verdict, settings, children: verificationChildren(cp, spec, r, settings) };
}

const isVerificationChild = (o: KubeObject, cp: ControlPlaneRef) =>
  (o.kind === GVK.Job.kind && o.apiVersion === GVK.Job.apiVersion) || (o.kind === GVK.ConfigMap.kind && o.apiVersion === GVK.ConfigMap.apiVersion)
    ? o.metadata.name.startsWith(verificationPrefix(cp.name))
    : false;

/**
 * The answer's children with the verification's: `desired` (the Verifying phase) replaces what the
 * pipeline kept of them; with `keep` (the answer that ends Verifying) the observed ones stay as
 * they are; otherwise every verification child left (a finished rollout's) is released.
 */
export function withVerificationChildren(children: KubeObject[], cp: ControlPlaneRef, desired: KubeObject[] | undefined, keep: boolean): { children: KubeObject[]; released: Set<string> } {
  const released = new Set<string>();
  if (keep && desired === undefined) return { children, released };
  const wanted = new Set((desired ?? []).map(identity));
  const out: KubeObject[] = [];
  for (const c of children) {
    if (!isVerificationChild(c, cp)) out.push(c);
    else if (!wanted.has(identity(c))) {
      if (keep) out.push(c);
      else released.add(identity(c));
    }
  }
  return { children: [...out, ...(desired ?? [])], released };
}
