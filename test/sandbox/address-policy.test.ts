// Which addresses and host names a plugin may reach.
import t from 'tap';
import { isAllowedHost, isForbiddenAddress } from '../../core/sandbox/address-policy.js';

t.test('private, loopback, link-local, metadata and reserved addresses are forbidden', async (t) => {
  for (const a of [
    '10.0.0.5',
    '127.0.0.1',
    '127.8.9.10',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '198.18.0.1',
    '::1',
    '::',
    'fd00:ec2::254',
    'fc00::1',
    'fe80::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.5',
    '::ffff:a9fe:a9fe',
    '64:ff9b::10.0.0.1',
    'not-an-ip',
    '',
  ]) {
    t.equal(isForbiddenAddress(a), true, a);
  }
});

t.test('public addresses are allowed', async (t) => {
  for (const a of [
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '192.169.0.1',
    '2606:2800:220:1:248:1893:25c8:1946',
    '::ffff:93.184.216.34',
  ]) {
    t.equal(isForbiddenAddress(a), false, a);
  }
});

t.test('allow-list: exact names and *.wildcards (sub-domains only)', async (t) => {
  const list = ['api.example.com', '*.cdn.example.com'];
  t.ok(isAllowedHost('api.example.com', list));
  t.ok(isAllowedHost('API.Example.COM', list), 'case-insensitive');
  t.ok(isAllowedHost('api.example.com.', list), 'trailing dot');
  t.notOk(isAllowedHost('www.api.example.com', list), 'exact entry does not cover sub-domains');
  t.notOk(isAllowedHost('example.com', list));
  t.ok(isAllowedHost('img.cdn.example.com', list));
  t.ok(isAllowedHost('a.b.cdn.example.com', list), 'wildcard covers deeper sub-domains');
  t.notOk(isAllowedHost('cdn.example.com', list), 'wildcard does not cover the apex');
  t.notOk(isAllowedHost('evilcdn.example.com', list), 'suffix must be a whole label');
  t.notOk(isAllowedHost('cdn.example.com.evil.org', list));
  t.notOk(isAllowedHost('api.example.com', []), 'an empty list allows nothing');
});
