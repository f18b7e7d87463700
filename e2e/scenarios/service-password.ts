// A service user's password rotated by a CredentialRotation (target serviceUserPassword,
// docs/architecture.md §2.14), against the real Keystone, ESO and OpenBao: the checks every
// scenario that rotates one makes (21 for Placement, 26 for Cinder).
import { GVK } from '../../src/k8s/kinds.js';
import { SERVICE_PASSWORD_KEY, serviceChildNames, serviceRemoteKeys } from '../../src/controlplane/names.js';
import { passwordSecretName } from '../../src/controlplane/services/password-rotation.js';
import type { Service } from '../../src/api/services/index.js';
import type { Ref } from '../kube.js';
import type { KeystoneApi } from '../keystone.js';
import { unb64, check, waitUntil, condition, cpRef, waitReady, mints, AssertionError, type Ctx } from './support.js';

export interface RotatedPassword {
  /** The Secret the service user's password is in now. */
  next: string;
  /** The password before, refused by Keystone now. */
  old: string;
  /** The password after, in OpenBao and accepted by Keystone. */
  fresh: string;
  /** When the rotation was requested (Date.now()). */
  mark: number;
}

/**
 * Requests the rotation of `d`'s service user password of ControlPlane `ns`/`cp` and waits until it
 * is complete, the service Ready again and the old Secret released; then checks that the service CR
 * names the new Secret, Keystone accepts the new password and refuses the old one, OpenBao holds
 * the new one, and nothing was minted.
 */
export async function rotateServicePassword(ctx: Ctx, keystone: KeystoneApi, ns: string, cp: string, d: Service): Promise<RotatedPassword> {
  const n = serviceChildNames(cp, d.name);
  const next = passwordSecretName(n.password, 2);
  const passwordOf = async (name: string) => {
    const raw = (await ctx.kube.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name }))?.data?.[SERVICE_PASSWORD_KEY];
    return raw === undefined ? undefined : unb64(raw);
  };
  const old = await passwordOf(n.password);
  if (old === undefined) throw new AssertionError(`no password in Secret ${n.password}`);
  const startMints = mints(ctx);
  const mark = Date.now();
  const crRef: Ref = { apiVersion: GVK.CredentialRotation.apiVersion, kind: 'CredentialRotation', namespace: ns, name: `rotate-${d.name}-password` };
  await ctx.kube.create({ apiVersion: crRef.apiVersion, kind: crRef.kind, metadata: { name: crRef.name, namespace: ns }, spec: { target: 'serviceUserPassword', targetServiceUser: n.user, reMint: true } });
  await waitUntil('CredentialRotation RotationComplete=True', async () => condition(await ctx.kube.get(crRef), 'RotationComplete')?.status === 'True', 180_000, ctx);
  await waitReady(ctx, cpRef(ns, cp), 180_000, (o) => condition(o, d.conditionType)?.status === 'True');
  await waitUntil(`Secret ${n.password} released`, async () => !(await ctx.kube.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: n.password })), 180_000, ctx);
  const fresh = await passwordOf(next);
  if (fresh === undefined || fresh === old) throw new AssertionError(`no new password in Secret ${next}`);
  const cr = await ctx.kube.get({ apiVersion: d.kind.apiVersion, kind: d.kind.kind, namespace: ns, name: n.cr });
  check(cr?.spec?.serviceUser?.secretRef?.name === next, `${d.kind.kind} authenticates with ${cr?.spec?.serviceUser?.secretRef?.name}`);
  check(await keystone.acceptsPassword(d.name, fresh, 'service'), `Keystone does not accept the new ${d.name} password`);
  check(!(await keystone.acceptsPassword(d.name, old, 'service')), `Keystone still accepts the old ${d.name} password`);
  check((await ctx.bao.get(serviceRemoteKeys(ns, cp, d.name).password))?.[SERVICE_PASSWORD_KEY] === fresh, `OpenBao does not hold the new ${d.name} password`);
  check(mints(ctx) === startMints, 'a mint during the password rotation');
  return { next, old: old, fresh: fresh, mark };
}
