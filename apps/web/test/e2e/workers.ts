/**
 * How many e2e files run at once (`ROOST_E2E_WORKERS`, 2 by default: the suite mostly waits on
 * the relay and the browser, so two files keep two cores busy). Each worker drives a Chromium of
 * its own, so files running at once never share a browser process (nor its clipboard).
 */
export const E2E_WORKERS = Math.max(1, Math.floor(Number(process.env.ROOST_E2E_WORKERS)) || 2)
