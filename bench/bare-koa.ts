// The baseline: a bare Koa handler returning the same JSON shape as a gateway phone call, nothing else.
import Koa from 'koa';

const body = JSON.stringify({
  success: true,
  data: {
    phone: '13800138000',
    province: '北京',
    city: '北京',
    carrier: '中国移动',
    card_type: '中国移动',
    is_virtual: false,
    segment: '138',
    area_code: '010',
    zip: '100000',
    source: 'libphonenumber',
  },
  deducted: 0.005,
  remaining: 9.995,
  cached: false,
  request_id: 'req_baseline',
});
const app = new Koa();
app.use((ctx) => {
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = body;
});
app.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('listening\n'));
