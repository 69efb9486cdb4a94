// The upstream of the bench's upstream rows: a plain HTTP server answering a number-location JSON body at once,
// so both rows measure the gateway's own work around one fetch, not a slow provider.
import { createServer } from 'node:http';

const server = createServer((req, res) => {
  const phone = new URL(req.url ?? '/', 'http://x').searchParams.get('phone') ?? '';
  const body = JSON.stringify({
    code: 0,
    msg: 'ok',
    data: {
      mobile: phone,
      prov: '北京',
      city: '北京',
      isp: '移动',
      areacode: '010',
      zip: '100000',
      extra: 'x'.repeat(200),
    },
  });
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
// '::' takes both ::1 and 127.0.0.1: "localhost" may resolve to either.
server.listen(Number(process.env.PORT), '::', () => process.stdout.write('listening\n'));
