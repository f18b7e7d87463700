// The names a ControlPlane's own children take (child-names.ts): a name the user chooses for
// something else (the clouds.yaml Secret K-ORC reads, `cloudCredentialsRef.secretName`) must not
// be one of them, or two stages would desire the same child (the duplicate-child guard answers
// 500) or ESO would write a Secret the hooks own. The CRD refuses it at admission (a root CEL
// rule built from the same list) and the KORC stage reports it as InvalidSpec.
import { accountNames, childNames, serviceChildNames } from './child-names.js';
import { SERVICES } from './services/index.js';

/** The accounts of a service: its own ('') and its extra ones. */
const accountKeys = (d: (typeof SERVICES)[number]) => ['', ...(d.extraAccounts ?? []).map((a) => a.key)];

/**
 * The suffixes appended to the ControlPlane name, e.g. `-keystone-db-credentials`: the Keystone
 * chain's children and the Secrets of every service beside Keystone (ESO writing one would
 * overwrite a service's DB credential or its user's password).
 */
export const OWNED_NAME_SUFFIXES: readonly string[] = [
  ...Object.values(childNames('')),
  ...SERVICES.flatMap((d) => {
    const n = serviceChildNames('', d.name);
    return [
      ...d.databases.map((db) => n.dbCredentialsOf(db.infix)),
      ...accountKeys(d).map((key) => accountNames('', d.name, key).password),
      ...(d.messaging ? [n.messaging] : []),
      ...(d.generatedSecrets ?? []).map((g) => n.generated(g.name)),
    ];
  }),
];

/**
 * The prefixes of name families appended to the ControlPlane name: a service user's rotated
 * password Secrets `-<svc>-service-user-v2`, `-v3`, … (services/password-rotation.ts). A name that
 * starts with the ControlPlane's and ends with `<prefix><digits>` is refused (a little more than
 * the family: nothing a user needs).
 */
export const OWNED_NAME_PREFIXES: readonly string[] = SERVICES.flatMap((d) => accountKeys(d).map((key) => `${accountNames('', d.name, key).password}-v`));

/**
 * The tail of a name of such a family, `-<svc>-service-user-v<n>`, as a regular expression (the
 * prefixes hold letters and dashes only): one pattern for the CEL rule and the run-time check.
 */
const FAMILY_TAIL = `(${OWNED_NAME_PREFIXES.join('|')})[0-9]+$`;

/** A problem message when `name` is a child name of ControlPlane `cp`, else undefined. */
export function ownedNameProblem(cp: string, name: string): string | undefined {
  if (!name.startsWith(cp)) return undefined;
  const suffix = OWNED_NAME_SUFFIXES.find((s) => name === `${cp}${s}`) ?? OWNED_NAME_PREFIXES.find((p) => new RegExp(`${p}[0-9]+$`).test(name));
  if (suffix === undefined) return undefined;
  const what = OWNED_NAME_SUFFIXES.includes(suffix) ? suffix : `…${suffix}<n>`;
  return `${name} is the name of a child of this ControlPlane (the ControlPlane name + ${what}); choose another name (the field is immutable: recreate the ControlPlane)`;
}

/**
 * The CEL rule (at the root, where `self.metadata.name` is visible) refusing such a name on
 * create (with `optionalOldSelf`). Not on update: both names are immutable, so an update cannot
 * make one, and a root rule is not ratcheted, so an object admitted before the rule existed could
 * never be updated again, not even to remove its finalizers.
 */
export function ownedNameRule(field: string): string {
  const list = OWNED_NAME_SUFFIXES.map((s) => `'${s}'`).join(', ');
  const path = field.split('.');
  const guards = path.map((_, i) => `!has(self.${path.slice(0, i + 1).join('.')})`).join(' || ');
  // No concatenation per listed name (the API server's cost estimate of the rule grows with each):
  // the field starts with the ControlPlane's name and ends with a listed suffix at the right length,
  // or ends with a password family's tail.
  const f = `self.${field}`;
  return `oldSelf.hasValue() || ${guards} || !${f}.startsWith(self.metadata.name) || (![${list}].exists(s, ${f}.endsWith(s) && size(${f}) == size(self.metadata.name) + size(s)) && !${f}.matches('${FAMILY_TAIL}'))`;
}
