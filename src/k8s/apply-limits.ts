// What Metacontroller can apply: under dynamic apply it copies the whole desired child into the
// child's last-applied annotation, and the API server caps an object's annotations in total.
// Read from Metacontroller v4.17.2: pkg/controller/common/manage_children.go (create:
// `dynamicapply.SetLastApplied(op.desired, op.desired.UnstructuredContent())` before the ownerRef
// is added; update: `ApplyUpdate` sets it to the desired content after `nullifyLastAppliedAnnotation`)
// and pkg/dynamic/apply/apply.go `SetLastApplied` (`json.Marshal` of the desired object, Go's
// encoding/json). The desired object is the hook's child as Metacontroller received it, plus what it
// adds before: the parent's namespace (composite/hooks.go `applyNamespaceDefaults`) and, with
// `generateSelector: true`, the `controller-uid` label (composite/controller.go). The API server
// refuses an object whose annotations exceed 256 KiB in total, each counted as the bytes of its
// key plus its value (k8s.io/apimachinery pkg/api/validation/objectmeta.go `ValidateAnnotationsSize`,
// `TotalAnnotationSizeLimitB = 256 * (1 << 10)`). So such a child is never created (or, when it
// grows past the limit, never updated) and Metacontroller only logs the error.
import { LAST_APPLIED_ANNOTATION } from './observed.js';

/** The API server's limit on an object's annotations: the bytes of every key and value, summed. */
export const TOTAL_ANNOTATION_BYTES = 256 * 1024;

/** The label Metacontroller adds to every child of a composite parent with generateSelector. */
const CONTROLLER_UID_LABEL = 'controller-uid';

const HTML_ESCAPED = /[<>&]/g;
const LINE_SEPARATORS = /[\u2028\u2029]/g;

/**
 * Bytes of Go's `json.Marshal` of `value`: JSON.stringify's UTF-8 bytes, plus what Go escapes that
 * JavaScript does not (`<`, `>`, `&` as `\u003c`: six bytes for one; U+2028 and U+2029 as
 * `\u2028`: six for three). Key order and spacing do not change the size (both compact). A lone
 * surrogate, six bytes here, is three in Go (U+FFFD): an upper bound.
 */
export function goJsonBytes(value: unknown): number {
  const text = JSON.stringify(value);
  return Buffer.byteLength(text, 'utf8') + 5 * (text.match(HTML_ESCAPED)?.length ?? 0) + 3 * (text.match(LINE_SEPARATORS)?.length ?? 0);
}

interface Child {
  metadata: { namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
}

/**
 * The bytes of annotations `child` would carry once Metacontroller applies it for a composite
 * parent of uid `parentUid` with generateSelector: its own annotations, and the last-applied
 * annotation holding the child (with the controller-uid label) as JSON.
 */
export function appliedAnnotationBytes<C extends Child>(child: C, parentUid: string): number {
  const labels = { ...child.metadata.labels };
  labels[CONTROLLER_UID_LABEL] ??= parentUid;
  const { [LAST_APPLIED_ANNOTATION]: _nullified, ...annotations } = child.metadata.annotations ?? {};
  const desired = { ...child, metadata: { ...child.metadata, labels, ...(child.metadata.annotations ? { annotations } : {}) } };
  let bytes = Buffer.byteLength(LAST_APPLIED_ANNOTATION, 'utf8') + goJsonBytes(desired);
  for (const [k, v] of Object.entries(annotations)) bytes += Buffer.byteLength(k, 'utf8') + Buffer.byteLength(v, 'utf8');
  return bytes;
}
