// F21: the SSRF blocklist covers every IPv6 special-purpose range and every way of embedding an IPv4 address in
// IPv6 (mapped, IPv4-compatible, SIIT, NAT64 well-known and local-use, 6to4, Teredo), in any textual spelling.
import t from 'tap';
import { ipv6Bytes, isForbiddenAddress } from '../../core/sandbox/address-policy.js';
import { pickDouyinLink } from '../../plugins/platform-video/handler.js';

t.test('IPv6 forms that embed a private or loopback IPv4 address are forbidden', async (t) => {
  for (const a of [
    '2002:7f00:1::1', // 6to4 of 127.0.0.1
    '2002:a00:1::', // 6to4 of 10.0.0.1
    '2002:5db8:d822::1', // 6to4 of a public address: 6to4 is refused as a whole
    '::127.0.0.1',
    '::7f00:1',
    '::10.0.0.1',
    '::8.8.8.8', // IPv4-compatible (deprecated)
    '::ffff:0:127.0.0.1',
    '::ffff:0:7f00:1',
    '::ffff:0:a9fe:a9fe', // SIIT
    '64:ff9b::127.0.0.1',
    '64:ff9b::a9fe:a9fe', // NAT64 well-known prefix
    '64:ff9b:1::5db8:d822',
    '64:ff9b:1:ffff::1', // local-use NAT64
    '::ffff:127.0.0.1',
    '::FFFF:7F00:0001',
    '0:0:0:0:0:ffff:7f00:1',
    '::ffff:192.168.0.1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
    '2001:2::1',
    '2001:10::1', // benchmarking, ORCHID
    'fec0::1',
    'feff::1', // site-local
    'fd00::1',
    'fc12:3456::1', // unique local
    'fe80::1',
    'fe80::1%eth0', // link-local, with a zone id
    'ff02::1',
    'ff05::1:3', // multicast
    '2001:db8::1',
    '3fff::1', // documentation
    '100::1',
    '5f00::1',
    '::',
    '::1',
    '0:0:0:0:0:0:0:1',
  ]) {
    t.equal(isForbiddenAddress(a), true, a);
  }
});

t.test('IPv4 special ranges, including the 6to4 relay anycast, are forbidden', async (t) => {
  for (const a of ['192.88.99.1', '192.0.0.8', '198.19.255.255', '240.0.0.1', '255.255.255.255', '0.1.2.3'])
    t.equal(isForbiddenAddress(a), true, a);
});

t.test(
  'global unicast stays reachable, also through the IPv4-mapped and NAT64 forms of public addresses',
  async (t) => {
    for (const a of [
      '93.184.216.34',
      '2606:2800:220:1:248:1893:25c8:1946',
      '2400:cb00::1',
      '::ffff:93.184.216.34',
      '64:ff9b::5db8:d822',
      '2a00:1450:4001:82a::200e',
    ]) {
      t.equal(isForbiddenAddress(a), false, a);
    }
  },
);

t.test('the IPv6 parser reads every textual form to the same bytes', async (t) => {
  const hex = (a: string) => Buffer.from(ipv6Bytes(a) ?? []).toString('hex');
  t.equal(hex('::ffff:127.0.0.1'), '00000000000000000000ffff7f000001');
  t.equal(hex('::FFFF:7F00:1'), '00000000000000000000ffff7f000001');
  t.equal(hex('2002:7f00:1::1'), '20027f00000100000000000000000001');
  t.equal(hex('1:2:3:4:5:6:7:8'), '00010002000300040005000600070008');
  t.equal(ipv6Bytes('127.0.0.1'), null);
  t.equal(ipv6Bytes('not-an-ip'), null);
});

t.test("/api/parse links lose any user-supplied port: only the platform's default port is contacted", async (t) => {
  t.same(pickDouyinLink('看看 https://v.douyin.com:8443/iRNBho6u/ 复制此链接'), {
    ok: true,
    link: 'https://v.douyin.com/iRNBho6u/',
  });
  t.same(pickDouyinLink('https://www.douyin.com:22/video/7300000000000000000?previous_page=app#x'), {
    ok: true,
    link: 'https://www.douyin.com/video/7300000000000000000?previous_page=app',
  });
  t.same(pickDouyinLink('http://v.douyin.com:80/abc/'), { ok: true, link: 'http://v.douyin.com/abc/' });
});
