// src/k8s/apply-limits.ts: the bytes of Go's encoding/json, which Metacontroller's last-applied
// annotation is (metacontroller v4.17.2 pkg/dynamic/apply/apply.go SetLastApplied: json.Marshal).
// The expected sizes were measured with go1.26.8: json.Unmarshal of each JSON.stringify text into a
// map[string]interface{} (what Metacontroller holds), then len(json.Marshal(...)).
import t from 'tap';
import { appliedAnnotationBytes, goJsonBytes, TOTAL_ANNOTATION_BYTES } from '../src/k8s/apply-limits.js';

t.test("goJsonBytes is the length of Go's json.Marshal", async (t) => {
  const measured: [unknown, number][] = [
    [{ a: 'plain', n: 1, f: 1.5, big: 12345678901234, t: true, z: null }, 66],
    [{ s: '<>&<script>', u: '\u2028\u2029', e: 'é😀中', c: '\n\t\r\u0001\u001f"\\/', arr: [1, 'x', { k: '&' }] }, 138],
    [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'n', namespace: 'ns', labels: { 'controller-uid': 'abc' } }, type: 'Opaque', data: { k: Buffer.from('x'.repeat(1000)).toString('base64') } }, 1478],
    [{ del: '\u007f', nbsp: '\u00a0', bom: '\ufeff' }, 35],
  ];
  measured.forEach(([value, bytes], i) => t.equal(goJsonBytes(value), bytes, `case ${i}`));
});

t.test('appliedAnnotationBytes: the last-applied key, the child with the controller-uid label, its own annotations', async (t) => {
  const child = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'n', namespace: 'ns', labels: { a: 'b' } }, data: { k: 'dg==' } };
  const key = 'metacontroller.k8s.io/last-applied-configuration';
  const withUid = { ...child, metadata: { ...child.metadata, labels: { a: 'b', 'controller-uid': 'u-1' } } };
  t.equal(appliedAnnotationBytes(child, 'u-1'), key.length + JSON.stringify(withUid).length);
  const annotated = { ...child, metadata: { ...child.metadata, annotations: { note: '<x>', [key]: 'stale' } } };
  const expected = { ...withUid, metadata: { ...withUid.metadata, annotations: { note: '<x>' } } };
  t.equal(appliedAnnotationBytes(annotated, 'u-1'), key.length + JSON.stringify(expected).length + 10 + 'note'.length + '<x>'.length, 'an incoming last-applied is dropped (nullified); own annotations count twice; Go escapes < and >');
  t.equal(TOTAL_ANNOTATION_BYTES, 262_144);
});
