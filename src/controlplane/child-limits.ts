// Names the ControlPlane's children derive from its own (names.ts) must fit what Kubernetes and
// the child operators accept. A ControlPlane name may have 253 characters; `{cp}-keystone-db-
// credentials` then has 277, and the Keystone operator serves `{cp}-keystone` as a Service, whose
// name is a DNS label of at most 63 characters. A child that cannot be created is never emitted:
// the stage that would emit it reports InvalidSpec naming the child and the limit instead, and its
// observed children are kept as they are (nothing dropped).
import { GVK } from '../k8s/kinds.js';
import { MAX_LABEL_VALUE } from '../k8s/labels.js';
import { isObject, isObjectName } from '../k8s/read.js';
import type { KubeObject } from '../k8s/observed.js';
import { invalidSpec } from './stages/invalid-spec.js';
import type { StageResult } from './stage.js';

export const MAX_NAME = 253;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Why the children cannot be created as named, one message per child; empty when they can. */
export function childNameProblems(children: readonly KubeObject[]): string[] {
  const problems: string[] = [];
  for (const c of children) {
    const name = c.metadata.name;
    if (name.length > MAX_NAME) {
      problems.push(
        `metadata.name: the ${c.kind} ${name.slice(0, 40)}… would have a name of ${name.length} characters, over the ${MAX_NAME} ` +
          `a Kubernetes name may have; shorten the ControlPlane name by at least ${name.length - MAX_NAME} characters`,
      );
      continue;
    }
    const what = `${c.kind} ${name}`;
    if (!isObjectName(name)) problems.push(`metadata.name: ${what} is not a valid Kubernetes name`);
    if (c.apiVersion === GVK.Keystone.apiVersion && c.kind === GVK.Keystone.kind && !(name.length <= MAX_LABEL_VALUE && DNS_LABEL.test(name))) {
      problems.push(
        `metadata.name: ${what} is served as Service ${name} (http://${name}.<namespace>.svc), and a Service name is a DNS ` +
          `label (lower-case letters, digits and '-', no '.') of at most ${MAX_LABEL_VALUE} characters` +
          (name.length > MAX_LABEL_VALUE ? `; shorten the ControlPlane name by at least ${name.length - MAX_LABEL_VALUE} characters` : ''),
      );
    }
    const labels = isObject(c.metadata.labels) ? c.metadata.labels : {};
    for (const [key, value] of Object.entries(labels)) {
      if (typeof value !== 'string' || value.length > MAX_LABEL_VALUE || !LABEL_VALUE.test(value)) {
        problems.push(`metadata.labels: ${what} label ${key} is not a valid label value`);
      }
    }
  }
  return problems;
}

/** `result`, or InvalidSpec when one of its children cannot be created as named. */
export function withinChildLimits(result: StageResult, requeueSeconds: number): StageResult {
  const problems = childNameProblems(result.children);
  return problems.length > 0 ? invalidSpec(problems, requeueSeconds) : result;
}
