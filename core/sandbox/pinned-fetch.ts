// Production fetch for plugins: the address check runs inside the connection's own DNS lookup, so the address
// that was checked is the address connected to. Checking in hostFetch alone leaves a window in which a hostile
// DNS server can answer "public" to the check and "127.0.0.1" to the connect (DNS rebinding).
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { Agent, fetch as undiciFetch } from 'undici';
import { isForbiddenAddress } from './address-policy.js';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '');
    const list = addresses as LookupAddress[];
    const bad = list.find((a) => isForbiddenAddress(a.address));
    if (bad)
      return callback(
        Object.assign(new Error(`${hostname} resolves to private or reserved address ${bad.address}`), {
          code: 'EFORBIDDEN',
        }),
        '',
      );
    if (list.length === 0)
      return callback(Object.assign(new Error(`${hostname} has no addresses`), { code: 'ENOTFOUND' }), '');
    if (options.all) return callback(null, list);
    return callback(null, list[0].address, list[0].family);
  });
}

export function pinnedFetch(): typeof fetch {
  const dispatcher = new Agent({ connect: { lookup: guardedLookup } });
  const impl = (input: Parameters<typeof fetch>[0], init?: RequestInit) =>
    undiciFetch(input as Parameters<typeof undiciFetch>[0], {
      ...(init as Parameters<typeof undiciFetch>[1]),
      dispatcher,
    });
  return impl as unknown as typeof fetch;
}
