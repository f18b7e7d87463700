// Reading what the K-ORC stages emit: the owned Secrets, their clouds.yaml, the AC.
import { parse } from 'yaml';
import { createHash } from 'node:crypto';
import type { Obj } from './shared.js';
import { unb64 } from './world.js';

export const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

export const find = (children: Obj[], kind: string, name?: string): Obj | undefined =>
  children.find((c) => c.kind === kind && (!name || c.metadata.name === name));

export const names = (cp = 'controlplane-keystone') => ({
  ac: `${cp}-admin-app-credential`,
  passwordCloud: `${cp}-admin-password-cloud`,
  push: `${cp}-admin-app-credential-backup`,
  user: `${cp}-user-admin`,
  domain: `${cp}-domain-default`,
  service: `${cp}-identity-service`,
  endpoint: `${cp}-identity-region-ep-public`,
  region: `${cp}-region`,
});

/** The decoded data of a Secret child. */
export const secretValues = (secret: Obj | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries((secret?.data ?? {}) as Record<string, string>).map(([k, v]) => [k, unb64(v)]));

/** The app-credential Secret of a response. */
export const appCredential = (children: Obj[], cp?: string) => secretValues(find(children, 'Secret', names(cp).ac));

/** The parsed clouds.yaml of a Secret child. */
export const cloudsOf = (secret: Obj | undefined): Obj => parse(secretValues(secret)['clouds.yaml'] ?? '') as Obj;

export const acOf = (children: Obj[]) => find(children, 'ApplicationCredential');

/** Replaces one child (by kind and name) with `change(child)`. */
export function withChild(children: Obj[], kind: string, change: (c: Obj) => Obj, name?: string): Obj[] {
  return children.map((c) => (c.kind === kind && (!name || c.metadata.name === name) ? change(structuredClone(c)) : c));
}
