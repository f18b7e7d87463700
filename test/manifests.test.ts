import t from 'tap';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT, conformance, readYamlDocs, sharedPath, type Obj } from './support/shared.js';
import { HOOK_ROUTES } from '../src/routes.js';
import { CONTROLPLANE_CHILD_KINDS } from '../src/k8s/kinds.js';
import { LOG_LEVELS } from '../src/config.js';

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return name.endsWith('.yaml') ? [path] : [];
  });
}

const manifestsDir = join(REPO_ROOT, 'manifests');
const docs = new Map<string, Obj>();
for (const file of yamlFiles(manifestsDir)) {
  const parsed = readYamlDocs(file);
  for (const doc of parsed) docs.set(`${doc.kind}/${doc.metadata?.name ?? ''}`, doc);
}
const kustomization = docs.get('Kustomization/')!;
const deployment = docs.get('Deployment/c5c3-hooks')!;
const service = docs.get('Service/c5c3-hooks')!;
const pod = deployment.spec.template;
const container = pod.spec.containers[0];

const matches = (selector: Obj, labels: Obj) => Object.entries(selector).every(([k, v]) => labels[k] === v);

t.test('the kustomization lists every manifest file, and only existing ones', async (t) => {
  const listed = [...kustomization.resources].sort();
  const present = yamlFiles(manifestsDir)
    .map((f) => relative(manifestsDir, f))
    .filter((f) => f !== 'kustomization.yaml')
    .sort();
  t.same(listed, present);
});

t.test('every namespaced object lives in the kustomization namespace', async (t) => {
  for (const [key, doc] of docs) {
    if (['Kustomization', 'Namespace', 'CustomResourceDefinition'].includes(doc.kind)) continue;
    t.equal(doc.metadata.namespace, kustomization.namespace, key);
  }
  t.ok(docs.has(`Namespace/${kustomization.namespace}`), 'the namespace itself is created');
});

t.test('ports, labels and selectors agree', async (t) => {
  t.same(deployment.spec.selector.matchLabels, { 'app.kubernetes.io/name': 'c5c3-hooks' });
  t.ok(matches(deployment.spec.selector.matchLabels, pod.metadata.labels), 'deployment selector matches its pods');
  t.ok(matches(service.spec.selector, pod.metadata.labels), 'service selects the pods');
  const pdb = docs.get('PodDisruptionBudget/c5c3-hooks')!;
  t.same(pdb.spec.selector.matchLabels, deployment.spec.selector.matchLabels, 'PDB covers the deployment');
  t.ok(pdb.spec.minAvailable < deployment.spec.replicas, 'PDB leaves room for a voluntary disruption');
  const np = docs.get('NetworkPolicy/c5c3-hooks')!;
  t.ok(matches(np.spec.podSelector.matchLabels, pod.metadata.labels), 'network policy applies to the pods');
  const containerPort = container.ports.find((p: Obj) => p.name === 'http');
  t.ok(containerPort, 'named container port http');
  t.equal(service.spec.ports[0].targetPort, containerPort.name, 'service targets the container port');
  t.same(np.spec.ingress[0].ports.map((p: Obj) => p.port), [containerPort.name], 'only the hook port is admitted');
  t.same(np.spec.ingress.length, 1, 'one ingress rule');
  const env = Object.fromEntries(container.env.map((e: Obj) => [e.name, e.value]));
  t.equal(Number(env.PORT), containerPort.containerPort, 'PORT is the container port');
  t.ok(LOG_LEVELS.includes(env.LOG_LEVEL), 'LOG_LEVEL is valid');
  t.equal(container.readinessProbe.httpGet.path, '/readyz');
  t.equal(container.livenessProbe.httpGet.path, '/healthz');
  t.equal(container.readinessProbe.httpGet.port, 'http');
  t.ok(Number(env.SHUTDOWN_DELAY_SECONDS) < pod.spec.terminationGracePeriodSeconds, 'drain delay fits the grace period');
});

/** Whether a label selector (matchLabels, matchExpressions In/NotIn/Exists/DoesNotExist) selects `labels`. */
function selects(selector: Obj | undefined, labels: Obj): boolean {
  if (!selector) return false;
  if (!matches(selector.matchLabels ?? {}, labels)) return false;
  return ((selector.matchExpressions ?? []) as Obj[]).every((e) => {
    const has = e.key in labels;
    if (e.operator === 'In') return has && e.values.includes(labels[e.key]);
    if (e.operator === 'NotIn') return !has || !e.values.includes(labels[e.key]);
    if (e.operator === 'Exists') return has;
    if (e.operator === 'DoesNotExist') return !has;
    throw new Error(`unknown operator ${e.operator}`);
  });
}

/** Whether the hooks' NetworkPolicy lets a pod with these labels in this namespace reach the hook port. */
function admitted(namespace: string, labels: Obj): boolean {
  const np = docs.get('NetworkPolicy/c5c3-hooks')!;
  const nsLabels = { 'kubernetes.io/metadata.name': namespace };
  return (np.spec.ingress as Obj[]).some((rule) =>
    (rule.from as Obj[]).some((peer) => (peer.namespaceSelector ? selects(peer.namespaceSelector, nsLabels) : namespace === np.metadata.namespace) && (peer.podSelector ? selects(peer.podSelector, labels) : true)),
  );
}

t.test('the NetworkPolicy admits Metacontroller as either install labels it, and nothing else', async (t) => {
  t.ok(admitted('metacontroller', { 'app.kubernetes.io/name': 'metacontroller' }), 'upstream kustomize install (manifests/production)');
  t.ok(admitted('metacontroller', { 'app.kubernetes.io/name': 'metacontroller-helm', 'app.kubernetes.io/instance': 'metacontroller' }), 'Helm chart released in namespace metacontroller');
  t.notOk(admitted('metacontroller', { 'app.kubernetes.io/name': 'something-else' }), 'another pod of that namespace');
  t.notOk(admitted('default', { 'app.kubernetes.io/name': 'metacontroller' }), 'a look-alike in another namespace');
  t.notOk(admitted('c5c3-system', { app: 'x' }), 'a pod next to the hooks');
});

t.test('the NetworkPolicy admits the pods of the upstream Metacontroller v4.17.2 manifests', conformance, async (t) => {
  const docs = readYamlDocs(sharedPath('third_party', 'metacontroller-v4.17.2', 'manifests', 'production', 'metacontroller.yaml'));
  const workload = docs.find((d) => d.kind === 'StatefulSet' || d.kind === 'Deployment')!;
  const labels = workload.spec.template.metadata.labels;
  t.ok(admitted(workload.metadata.namespace, labels), `${workload.kind} ${workload.metadata.namespace}/${workload.metadata.name}`);
});

t.test('the deployment is hardened', async (t) => {
  t.equal(deployment.spec.replicas, 2);
  t.equal(pod.spec.automountServiceAccountToken, false, 'no service-account token');
  t.equal(docs.get('ServiceAccount/c5c3-hooks')!.automountServiceAccountToken, false);
  t.equal(pod.spec.serviceAccountName, 'c5c3-hooks');
  t.equal(pod.spec.securityContext.runAsNonRoot, true);
  t.equal(container.securityContext.readOnlyRootFilesystem, true);
  t.equal(container.securityContext.allowPrivilegeEscalation, false);
  t.same(container.securityContext.capabilities.drop, ['ALL']);
  t.ok(container.resources.requests.cpu && container.resources.requests.memory, 'requests');
  t.ok(container.resources.limits.cpu && container.resources.limits.memory, 'limits');
  t.equal(kustomization.images[0].name, container.image, 'the image is set by the kustomization');
});

const controllers = readdirSync(join(REPO_ROOT, 'metacontroller')).flatMap((f) => readYamlDocs(join(REPO_ROOT, 'metacontroller', f)));
const composite = controllers.find((c) => c.kind === 'CompositeController' && c.spec.parentResource.resource === 'controlplanes')!;
const aggregates = controllers.find((c) => c.kind === 'CompositeController' && c.spec.parentResource.resource === 'secretaggregates')!;
const decorator = controllers.find((c) => c.kind === 'DecoratorController')!;

t.test('Metacontroller objects call the Service with v2 hooks in strict mode', async (t) => {
  const hookPaths = [];
  t.equal(controllers.length, 3, 'three controllers');
  for (const controller of [composite, aggregates, decorator]) {
    for (const [name, hook] of Object.entries(controller.spec.hooks as Obj)) {
      t.equal(hook.version, 'v2', `${controller.kind} ${name} is v2`);
      t.equal(hook.webhook.responseUnMarshallMode, 'strict');
      t.same(hook.webhook.service, { name: service.metadata.name, namespace: service.metadata.namespace, port: service.spec.ports[0].port });
      t.match(hook.webhook.path, /^\/(controlplane|credentialrotation|secretaggregate)\/(sync|finalize|customize)$/);
      hookPaths.push(hook.webhook.path);
    }
    t.ok(controller.spec.resyncPeriodSeconds > 0, 'resync safety net');
  }
  for (const route of HOOK_ROUTES) t.ok(hookPaths.includes(route.path), `${route.path} is wired to a controller`);
});

t.test('the CompositeController owns every child kind, updated in place but the Job', async (t) => {
  t.equal(composite.spec.generateSelector, true);
  t.same(composite.spec.parentResource, { apiVersion: 'c5c3.io/v1alpha1', resource: 'controlplanes' });
  const declared = composite.spec.childResources.map((c: Obj) => `${c.apiVersion} ${c.resource}`).sort();
  t.same(declared, CONTROLPLANE_CHILD_KINDS.map((k) => `${k.apiVersion} ${k.resource}`).sort());
  // The verification Job OnDelete (its pod template is immutable; one per rollout), every other kind in place.
  for (const child of composite.spec.childResources) t.equal(child.updateStrategy?.method, child.resource === 'jobs' ? 'OnDelete' : 'InPlace', child.resource);
  t.same(Object.keys(composite.spec.hooks).sort(), ['customize', 'finalize', 'sync']);
});

t.test('the DecoratorController decorates CredentialRotations and owns nothing', async (t) => {
  t.same(decorator.spec.resources, [{ apiVersion: 'c5c3.io/v1alpha1', resource: 'credentialrotations' }]);
  t.same(decorator.spec.attachments, []);
  t.same(Object.keys(decorator.spec.hooks).sort(), ['customize', 'sync']);
});

t.test('the SecretAggregate CompositeController owns its target Secret, updated in place, without a finalizer', async (t) => {
  t.equal(aggregates.spec.generateSelector, true);
  t.same(aggregates.spec.childResources, [{ apiVersion: 'v1', resource: 'secrets', updateStrategy: { method: 'InPlace' } }]);
  t.same(Object.keys(aggregates.spec.hooks).sort(), ['customize', 'sync'], 'no finalize hook: garbage collection removes the target');
});
