// Shared by the phone tests: make sure geo.bin exists (the build is idempotent, so this is cheap when
// postinstall already ran), then call the handler directly through a DirectHost.
import type { Test } from 'tap';
import { buildPhoneAsset } from '../../../core/build/phone-asset.js';
import type { PluginOutcome } from '../../../core/sandbox/contract.js';
import { plugin } from '../../../plugins/phone/handler.js';
import type { PhoneData } from '../../../plugins/phone/lookup.js';
import { createDirectHost, type DirectHost } from '../../helpers/direct-host.js';

buildPhoneAsset({ quiet: true });

export function phoneHost(t: Test, options: Record<string, unknown> = {}): DirectHost {
  const host = createDirectHost({ plugin: 'phone', options });
  t.teardown(() => host.dispose());
  return host;
}

export function lookup(host: DirectHost, phone: string): Promise<PluginOutcome<PhoneData>> {
  return plugin.run({ phone }, host);
}
