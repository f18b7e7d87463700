// The rollout's memory: everything a release rollout needs to continue lives in the ControlPlane's
// own status (status.updatePhase, status.rollout, status.lastUpdate, services[keystone].release),
// written whole on every answer and read back here defensively. Anything malformed is dropped:
// a broken rollout record reads as no rollout, a broken last-update record as none, never an error.
import { UPDATE_PHASES, UPDATE_RESULTS, VERIFICATION_STATES } from '../../api/controlplane.js';
import { at, isObject } from '../../k8s/read.js';
import { parseRelease } from './release-path.js';
import { readTime } from '../../k8s/time.js';

export type UpdatePhase = (typeof UPDATE_PHASES)[number];
export type UpdateResult = (typeof UPDATE_RESULTS)[number];

export interface KeystoneImage {
  repository: string;
  tag: string;
}

/** What Keystone runs: a release and an image. */
export interface Target {
  release: string;
  image: KeystoneImage;
}

/** The Tempest run of the Verifying phase (verification.ts), as status.rollout.verification names it. */
export interface RolloutVerification {
  job: string;
  state: (typeof VERIFICATION_STATES)[number];
  message?: string;
}

export interface Rollout {
  from: Target;
  to: Target;
  startedAt: string;
  phaseStartedAt: string;
  generation: number;
  failure?: { reason: string; message: string };
  verification?: RolloutVerification;
}

export interface LastUpdate {
  from: Target;
  to: Target;
  result: UpdateResult;
  startedAt: string;
  finishedAt: string;
  generation: number;
  reason?: string;
  message?: string;
}

export interface RolloutMemory {
  phase: UpdatePhase;
  /** Present exactly when `phase` is a rollout phase (not Idle or Complete). */
  rollout?: Rollout;
  lastUpdate?: LastUpdate;
  /** services[keystone].release as last written: the release Keystone runs. */
  release?: string;
}

/** Phases with a rollout record: everything but Idle and Complete. */
export const inRollout = (phase: UpdatePhase) => phase !== 'Idle' && phase !== 'Complete';

const isString = (v: unknown): v is string => typeof v === 'string';
const isTime = (v: unknown): v is string => readTime(v) !== undefined;

export function readImage(v: unknown): KeystoneImage | undefined {
  if (!isObject(v) || !isString(v.repository) || !isString(v.tag) || v.repository === '' || v.tag === '') return undefined;
  return { repository: v.repository, tag: v.tag };
}

/** A release text that parses, else undefined. */
const releaseText = (v: unknown): string | undefined => (typeof v === 'string' && parseRelease(v) ? v : undefined);
const isGeneration = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
const isUpdateResult = (v: unknown): v is UpdateResult => UPDATE_RESULTS.some((r) => r === v);
const isVerificationState = (v: unknown): v is RolloutVerification['state'] => VERIFICATION_STATES.some((s) => s === v);
const isUpdatePhase = (v: unknown): v is UpdatePhase => UPDATE_PHASES.some((p) => p === v);

function readTarget(v: unknown): Target | undefined {
  const image = readImage(at(v, 'image'));
  const release = releaseText(at(v, 'release'));
  if (!image || release === undefined) return undefined;
  return { release, image };
}

function readVerification(v: unknown): RolloutVerification | undefined {
  if (!isObject(v) || !isString(v.job) || !isVerificationState(v.state)) return undefined;
  const verification: RolloutVerification = { job: v.job, state: v.state };
  if (isString(v.message)) verification.message = v.message;
  return verification;
}

function readRollout(v: unknown): Rollout | undefined {
  if (!isObject(v)) return undefined;
  const from = readTarget(v.from);
  const to = readTarget(v.to);
  if (!from || !to || !isTime(v.startedAt) || !isTime(v.phaseStartedAt) || !isGeneration(v.generation)) return undefined;
  const rollout: Rollout = { from, to, startedAt: v.startedAt, phaseStartedAt: v.phaseStartedAt, generation: v.generation };
  const failure = v.failure;
  if (isObject(failure) && isString(failure.reason) && isString(failure.message)) rollout.failure = { reason: failure.reason, message: failure.message };
  const verification = readVerification(v.verification);
  if (verification) rollout.verification = verification;
  return rollout;
}

function readLastUpdate(v: unknown): LastUpdate | undefined {
  if (!isObject(v)) return undefined;
  const from = readTarget(v.from);
  const to = readTarget(v.to);
  const result = v.result;
  if (!from || !to || !isUpdateResult(result)) return undefined;
  if (!isTime(v.startedAt) || !isTime(v.finishedAt) || !isGeneration(v.generation)) return undefined;
  const last: LastUpdate = { from, to, result, startedAt: v.startedAt, finishedAt: v.finishedAt, generation: v.generation };
  if (isString(v.reason)) last.reason = v.reason;
  if (isString(v.message)) last.message = v.message;
  return last;
}

/** The rollout memory in a previous status; malformed parts are dropped. */
export function readRolloutMemory(status: unknown): RolloutMemory {
  const services = at(status, 'services');
  const keystone = Array.isArray(services) ? services.find((s) => at(s, 'name') === 'keystone') : undefined;
  const release = releaseText(at(keystone, 'release'));
  const memory: RolloutMemory = { phase: 'Idle' };
  if (release !== undefined) memory.release = release;
  const lastUpdate = readLastUpdate(at(status, 'lastUpdate'));
  if (lastUpdate) memory.lastUpdate = lastUpdate;
  const phase = at(status, 'updatePhase');
  if (!isUpdatePhase(phase)) return memory;
  const p = phase;
  if (!inRollout(p)) return { ...memory, phase: p };
  const rollout = readRollout(at(status, 'rollout'));
  return rollout ? { ...memory, phase: p, rollout } : memory;
}

export const sameImage = (a: KeystoneImage, b: KeystoneImage) => a.repository === b.repository && a.tag === b.tag;
export const sameTarget = (a: Target, b: Target) => a.release === b.release && sameImage(a.image, b.image);
export const imageText = (i: KeystoneImage) => `${i.repository}:${i.tag}`;

/** "2025.1 → 2025.2", or with the images when the release stays the same. */
export function pathText(from: Target, to: Target): string {
  if (from.release !== to.release) return `${from.release} → ${to.release}`;
  return `${imageText(from.image)} → ${imageText(to.image)} (release ${to.release})`;
}

/** The status fields of the rollout (updatePhase, rollout, lastUpdate), in a fixed key order. */
export function rolloutStatusFields(memory: RolloutMemory): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (memory.lastUpdate) out.lastUpdate = memory.lastUpdate;
  if (memory.rollout && inRollout(memory.phase)) out.rollout = memory.rollout;
  return out;
}
