// The secret a live admin ApplicationCredential was minted with, when its Secret no longer holds
// it (docs/architecture.md §3.3): a person edited the Secret's `value`, or deleted the Secret (K-ORC
// guards only the clouds.yaml Secrets it authenticates with, not the one an AC is minted from:
// k-orc c22784ca internal/controllers/applicationcredential/controller.go, "we don't need a
// deletion guard on the application credential secret because it's only used on creation").
// Metacontroller would repair the Secret from the answer (its three-way merge, pkg/controller/
// common/manage_children.go ApplyUpdate, v4.17.2; recreate it when it is gone), but the answer
// took `value` as observed, so the changed or missing secret was a re-mint trigger (§3.3) and a
// hand edit cost the credential. The minted secret can be proven, without trusting either copy:
// the AC's `c5c3.io/secret-sha256` is its SHA-256, recorded at the mint. It is looked for where it
// was written: the Secret's last-applied content (what this service last applied), then the
// materialised clouds.yaml K-ORC reads, which authenticates with the AC's id and that secret.
import { lastApplied, isTerminating, type KubeObject } from '../../k8s/observed.js';
import { openstackId } from '../../k8s/orc.js';
import { annotationOf } from '../../k8s/read.js';
import { secretString, sha256Hex } from '../../k8s/secret.js';
import { ANNOTATION } from '../names.js';
import { readApplicationCredential } from './clouds-yaml.js';
import { CLOUDS_YAML_KEY, VALUE_KEY } from './round-trip.js';

export interface MintedSecret {
  value: string;
  /** Where it was found, for the KORC message. */
  from: string;
}

/**
 * The secret `ac` was minted with, when `secret` (the observed Secret of its slot, if any) does not
 * hold it and it is proven by the AC's secret hash; undefined otherwise (the Secret holds it, or
 * nothing proves it: then a missing or changed `value` stays a re-mint trigger).
 */
export function mintedSecret(ac: KubeObject | undefined, secret: KubeObject | undefined, materialised: KubeObject | undefined, materialisedName: string, cloudName: string): MintedSecret | undefined {
  if (!ac || isTerminating(ac)) return undefined;
  const hash = annotationOf(ac, ANNOTATION.secretHash);
  if (hash === undefined || hash === '') return undefined;
  const observed = secretString(secret, VALUE_KEY);
  if (observed !== undefined && sha256Hex(observed) === hash) return undefined;
  const applied = secret ? secretString(lastApplied(secret), VALUE_KEY) : undefined;
  if (secret && applied !== undefined && sha256Hex(applied) === hash) return { value: applied, from: `the content last applied to Secret ${secret.metadata.name}` };
  const id = openstackId(ac);
  const document = secretString(materialised, CLOUDS_YAML_KEY);
  if (id === undefined || document === undefined) return undefined;
  const parsed = readApplicationCredential(document, cloudName);
  if (parsed.kind === 'credential' && parsed.auth.id === id && sha256Hex(parsed.auth.secret) === hash) return { value: parsed.auth.secret, from: `Secret ${materialisedName}` };
  return undefined;
}
