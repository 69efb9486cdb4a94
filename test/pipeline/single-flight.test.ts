// SingleFlight: calls with the same key while one is running share its result; afterwards a new run starts.
import t from 'tap';
import { SingleFlight } from '../../core/kernel/single-flight.js';

t.test('identical concurrent calls share one run, later calls start a new one', async (t) => {
  const flights = new SingleFlight<number>();
  let runs = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const work = async (): Promise<number> => {
    runs++;
    await gate;
    return runs;
  };
  const all = Promise.all([flights.run('k', work), flights.run('k', work), flights.run('k', work)]);
  const other = flights.run('other', async () => 42);
  t.equal(flights.size, 2);
  release();
  t.same(await all, [1, 1, 1]);
  t.equal(await other, 42);
  t.equal(flights.size, 0, 'finished flights are forgotten');
  t.equal(await flights.run('k', work), 2, 'a later call runs again');
});

t.test('a failure is shared too, and not remembered', async (t) => {
  const flights = new SingleFlight<number>();
  const boom = (): Promise<number> => Promise.reject(new Error('boom'));
  await t.rejects(Promise.all([flights.run('k', boom), flights.run('k', boom)]), { message: 'boom' });
  t.equal(await flights.run('k', async () => 7), 7);
});
