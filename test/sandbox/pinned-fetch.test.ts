// The production fetch re-checks addresses at connect time: a name that resolves to loopback is refused even
// though no separate pre-check ran (the DNS-rebinding window is closed).
import t from 'tap';
import { pinnedFetch } from '../../core/sandbox/pinned-fetch.js';

t.test('a name resolving to 127.0.0.1 is refused at connect', async (t) => {
  const err = await pinnedFetch()('http://localhost:65000/').then(
    () => null,
    (e: Error & { cause?: Error }) => e,
  );
  t.ok(err, 'the fetch rejected');
  t.match(err?.cause?.message ?? '', /localhost resolves to private or reserved address (127\.0\.0\.1|::1)/);
});
