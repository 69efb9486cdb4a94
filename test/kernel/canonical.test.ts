// keyOf: the result cache's and single flight's key for an input (core/pipeline/cache.ts).
import { hash } from 'node:crypto';
import t from 'tap';
import { canonicalJson, keyOf } from '../../core/kernel/canonical.js';

t.test('equal inputs give one key whatever their key order; different inputs different keys', async (t) => {
  t.equal(keyOf('opts', { phone: '13800138000', x: 1 }), keyOf('opts', { x: 1, phone: '13800138000' }));
  t.equal(keyOf('opts', { phone: '13800138000' }), '=["opts",{"phone":"13800138000"}]');
  t.not(keyOf('opts', { phone: '13800138000' }), keyOf('opts', { phone: '13800138001' }));
  t.not(keyOf('opts', { phone: '13800138000' }), keyOf('other', { phone: '13800138000' }));
  t.not(keyOf('a', 'b'), keyOf('a,b'));
});

t.test('a long input is keyed by its hash, in a form a short one never takes', async (t) => {
  const text = `https://v.douyin.com/${'x'.repeat(300)}/`;
  const long = keyOf('opts', { text });
  t.equal(long, `#${hash('sha256', canonicalJson(['opts', { text }]), 'hex')}`);
  t.equal(long.length, 65);
  // The canonical text of an input is JSON, so it starts with '[' and the plain form with '=[': never '#'.
  t.match(keyOf('opts', { text: `#${'a'.repeat(64)}` }), /^=\[/);
  // At the boundary: 200 characters stay plain, 201 are hashed.
  const at = (n: number): string => keyOf('x'.repeat(n - 4));
  t.equal(canonicalJson(['x'.repeat(196)]).length, 200);
  t.match(at(200), /^=/);
  t.match(at(201), /^#/);
});
