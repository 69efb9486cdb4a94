// Build steps that run on every `npm install`; each step is a module of its own.
// Kept tolerant of missing steps so a partial checkout still installs: a step that is absent is skipped, and
// a step that fails is reported without failing the install (the feature it feeds reports itself unavailable).

interface Step {
  name: string;
  run(): Promise<unknown>;
}

const steps: Step[] = [
  // plugins/phone/assets/generated/geo.bin from libphonenumber's data; prints one line with its record count.
  { name: 'phone asset', run: async () => (await import('./phone-asset.js')).buildPhoneAsset() },
  // web/dist: the web console's JS + CSS bundle and index.html; prints one line with the file names.
  { name: 'console bundle', run: async () => (await import('./console-bundle.js')).buildConsoleBundle() },
];

for (const step of steps) {
  try {
    await step.run();
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND') console.log(`[tollgate] postinstall: ${step.name} skipped (step not present)`);
    else
      console.error(`[tollgate] postinstall: ${step.name} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}
