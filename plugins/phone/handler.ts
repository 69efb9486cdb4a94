// GET /api/phone?phone=13800138000: home location, carrier and card type of a mainland mobile number,
// answered offline from assets. The isolate's context is reused across calls, so tables are parsed once
// and kept in module scope.
import type { Host, OperationPlugin } from '../../core/sandbox/contract.js';
import { type GeoTable, parseGeoTable } from './geo-table.js';
import { lookupPhone, type PhoneData } from './lookup.js';
import { type PhoneDat, parsePhoneDat } from './phone-dat.js';

export interface PhoneInput {
  phone: string;
}

let geo: Promise<GeoTable> | undefined;
/** phone.dat per option value (one plugin may serve several operations); null = configured but unusable. */
const dats = new Map<string, Promise<PhoneDat | null>>();

function loadGeo(host: Host): Promise<GeoTable> {
  if (!geo) {
    const loading = host.asset('geo').then(parseGeoTable);
    // A failed load is not cached: the next call retries (e.g. after the asset has been built).
    loading.catch(() => {
      if (geo === loading) geo = undefined;
    });
    geo = loading;
  }
  return geo;
}

function loadPhoneDat(host: Host): Promise<PhoneDat | null> {
  const path = host.options.phone_dat;
  if (typeof path !== 'string' || path === '') return Promise.resolve(null);
  let dat = dats.get(path);
  if (!dat) {
    // An unusable phone.dat is logged once and skipped: the built-in data still answers every number.
    dat = (async () => {
      if (!(await host.hasAsset('phone_dat'))) {
        host.log('warn', 'phone_dat option is set but the file is not available; using built-in data', {
          phone_dat: path,
        });
        return null;
      }
      try {
        const parsed = parsePhoneDat(await host.asset('phone_dat'));
        host.log('info', 'phone.dat loaded', { phone_dat: path, version: parsed.version, prefixes: parsed.count });
        return parsed;
      } catch (err) {
        host.log('error', 'phone_dat file is not a valid phone.dat; using built-in data', {
          phone_dat: path,
          error: err instanceof Error ? err.message : String(err),
        });
        return null;
      }
    })();
    dats.set(path, dat);
  }
  return dat;
}

export const plugin: OperationPlugin<PhoneInput, PhoneData> = {
  async run(input, host) {
    let table: GeoTable;
    try {
      table = await loadGeo(host);
    } catch (err) {
      host.log('error', 'phone geo asset could not be loaded', {
        error: err instanceof Error ? err.message : String(err),
      });
      return {
        ok: false,
        code: 'UNAVAILABLE',
        message: 'phone location data is not available on this server',
        message_zh: '本服务器暂无号码归属地数据',
      };
    }
    return lookupPhone(input.phone, { geo: table, dat: await loadPhoneDat(host) });
  },
};
