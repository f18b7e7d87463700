// Reading a SecretAggregate spec that may have bypassed admission: the schema (defaults applied),
// then the rules the CRD states in CEL or leaves to the hook (at least one source, a target, the
// target not among the sources), each problem naming its field.
import { SecretAggregateSpec } from '../api/secretaggregate.js';
import { compileValidator } from '../api/validate.js';
import { isObject, isObjectName } from '../k8s/read.js';

export interface Source {
  /** The source Secret's name. */
  name: string;
  /** The selected keys; undefined = every key the source has. */
  keys: string[] | undefined;
}

export interface AggregateSpec {
  sources: Source[];
  target: string;
}

export type SpecReading = { spec: AggregateSpec; errors?: undefined } | { spec?: undefined; errors: string[] };

const validate = compileValidator<SecretAggregateSpec>(SecretAggregateSpec, 'spec');

export function readSpec(input: unknown): SpecReading {
  if (!isObject(input)) return { errors: ['spec: must be an object'] };
  const { value, errors } = validate(input);
  if (errors.length > 0) return { errors };
  const problems: string[] = [];
  const sources: Source[] = (value.sources ?? []).map((s, i) => {
    const name = s.secretRef.name ?? '';
    if (!isObjectName(name)) problems.push(`spec.sources[${i}].secretRef.name: must name a Secret, got ${JSON.stringify(name)}`);
    // A list-type set is unique at admission; a spec that bypassed it must not conflict with itself.
    return { name, keys: s.keys && s.keys.length > 0 ? [...new Set(s.keys)] : undefined };
  });
  if (sources.length === 0) problems.push('spec.sources: must list at least one Secret');

  const target = value.target?.name ?? value.targetSecretName;
  if (target === undefined) problems.push('spec.target.name: is required');
  else if (!isObjectName(target)) problems.push(`spec.targetSecretName: must be a Secret name, got ${JSON.stringify(target)}`);
  if (value.target && value.targetSecretName !== undefined && value.targetSecretName !== value.target.name) {
    problems.push('spec.targetSecretName: is deprecated and, when set with target.name, must equal it');
  }
  sources.forEach((s, i) => {
    if (s.name === target) problems.push(`spec.sources[${i}].secretRef.name: the target Secret ${target} cannot also be a source`);
  });
  return problems.length > 0 || target === undefined ? { errors: problems } : { spec: { sources, target } };
}
